import { SUMMARY_FIELDS, type BenchResult } from './summary.js';

export interface CompareRow {
  name: string;
  a: number | null;
  b: number | null;
  /** b / a; null when either is missing or a is 0. */
  ratio: number | null;
}

const val = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const div = (a: number | null, b: number | null) => (a !== null && b !== null && a !== 0 ? Math.round((b / a) * 1000) / 1000 : null);

/** Side by side: every summary field, then ingest edge per format and data API p99 per endpoint. */
export function compareResults(a: Pick<BenchResult, 'summary' | 'edge' | 'query'>, b: Pick<BenchResult, 'summary' | 'edge' | 'query'>): CompareRow[] {
  const rows: CompareRow[] = SUMMARY_FIELDS.map((f) => {
    const x = val(a.summary?.[f]);
    const y = val(b.summary?.[f]);
    return { name: f, a: x, b: y, ratio: div(x, y) };
  });
  const formats = new Set([...(a.edge ?? []), ...(b.edge ?? [])].map((e) => e.format));
  for (const f of formats) {
    const x = val(a.edge?.find((e) => e.format === f)?.ingest?.events_per_s);
    const y = val(b.edge?.find((e) => e.format === f)?.ingest?.events_per_s);
    rows.push({ name: `edge ${f} events/s`, a: x, b: y, ratio: div(x, y) });
  }
  const names = new Set([...(a.query ?? []), ...(b.query ?? [])].map((q) => q.name));
  for (const n of names) {
    const x = val(a.query?.find((q) => q.name === n)?.api?.p99_ms);
    const y = val(b.query?.find((q) => q.name === n)?.api?.p99_ms);
    if (x === null && y === null) continue;
    rows.push({ name: `query ${n} p99 ms`, a: x, b: y, ratio: div(x, y) });
  }
  return rows;
}

/** Fixed-width text table of rows; missing values print as `n/a`. */
export function formatTable(header: string[], rows: Array<Array<string | number | null | undefined>>): string {
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined || (typeof c === 'number' && !Number.isFinite(c)) ? 'n/a' : typeof c === 'number' ? fmtNum(c) : c)));
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

/** Thousands separators for large numbers, 3 significant decimals for small ones. */
export function fmtNum(n: number): string {
  if (Math.abs(n) >= 1000) return Math.round(n).toLocaleString('en-US');
  if (Number.isInteger(n)) return String(n);
  return String(Math.round(n * 1000) / 1000);
}

export function formatCompare(a: BenchResult, b: BenchResult, names: [string, string]): string {
  const rows = compareResults(a, b).map((r) => [r.name, r.a, r.b, r.ratio === null ? null : `${fmtNum(r.ratio)}x`]);
  const head = `A: ${names[0]} (${a.machine?.commit ?? '?'}, ${a.started_at ?? '?'})\nB: ${names[1]} (${b.machine?.commit ?? '?'}, ${b.started_at ?? '?'})\n`;
  return head + formatTable(['figure', 'A', 'B', 'B/A'], rows);
}
