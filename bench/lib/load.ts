import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { LoadResult, LoadSpec } from './load-worker.js';
import { summarize, round, type LatencySummary } from './stats.js';

export type { LoadSpec, LoadResult };

/** Runs a load spec in a worker thread and resolves with its raw result. */
export function loadInWorker(spec: LoadSpec, engine: 'own' | 'autocannon' = 'own'): Promise<LoadResult> {
  const file = fileURLToPath(new URL('./load-worker.js', import.meta.url));
  return new Promise((resolve, reject) => {
    const w = new Worker(file, { workerData: { spec, engine } });
    w.once('message', (m: { ok: boolean; result?: LoadResult; error?: string }) => {
      void w.terminate();
      if (m.ok) resolve(m.result!);
      else reject(new Error(m.error));
    });
    w.once('error', reject);
  });
}

export interface Throughput extends LatencySummary {
  requests_per_s: number;
  events_per_s: number;
  mb_per_s: number;
  ok_share: number;
  statuses: Record<string, number>;
}

/** Requests/s, events/s and latency of a load result (only 2xx count as accepted). */
export function throughput(r: LoadResult): Throughput {
  // open loop: accepted events of requests sent in the window, over the window
  const s = (r.windowMs ?? r.elapsedMs) / 1000;
  return {
    requests_per_s: round(r.ok / s, 1),
    events_per_s: round(r.okEvents / s, 1),
    mb_per_s: round(r.bytes / s / 1e6, 2),
    ok_share: round(r.sent ? r.ok / r.sent : 0),
    statuses: r.statuses,
    ...(r.percentiles
      ? { count: r.ok, p50_ms: round(r.percentiles.p50), p95_ms: round(r.percentiles.p95), p99_ms: round(r.percentiles.p99), max_ms: round(r.percentiles.max) }
      : summarize(r.latencies)),
  };
}
