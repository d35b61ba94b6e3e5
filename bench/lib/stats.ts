/** Small statistics helpers for latency samples and repeated runs. */

/** Nearest-rank percentile of unsorted samples (p in 0..100); NaN when empty. */
export function percentile(samples: ArrayLike<number>, p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export interface LatencySummary {
  count: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  max_ms: number;
}

export function summarize(samples: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  const at = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]! : NaN);
  return { count: sorted.length, p50_ms: round(at(50)), p95_ms: round(at(95)), p99_ms: round(at(99)), max_ms: round(sorted.length ? sorted[sorted.length - 1]! : NaN) };
}

export function median(values: number[]): number {
  return percentile(values.filter((v) => Number.isFinite(v)), 50);
}

/** Rounds to 3 significant decimals for reports; keeps NaN. */
export function round(v: number, digits = 3): number {
  if (!Number.isFinite(v)) return v;
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

/** a / b, NaN when either side is missing or b is 0. */
export function ratio(a: number, b: number): number {
  return Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? round(a / b) : NaN;
}
