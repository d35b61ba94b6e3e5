import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadResult, LoadSpec } from './load-client.js';
import type { FromLoadProcess, ToLoadProcess } from './load-process.js';
import type { PoolRequest } from './pool.js';
import { summarize, round, type LatencySummary } from './stats.js';

export type { LoadSpec, LoadResult };

/**
 * The load generator's process, forked on first use and kept for the bench's life (load-process.ts
 * says why a process and not a worker thread). Request pools are sent once each, by identity; the
 * IPC channel holds the bench open only while a pool or a load is outstanding.
 */
interface LoadProcess {
  child: ChildProcess;
  pools: WeakMap<readonly PoolRequest[], { id: number; sent: Promise<void> }>;
  /** Answers awaited, by id: pool ids and run ids come from one counter, so they never meet. */
  waiting: Map<number, (m: FromLoadProcess) => void>;
  nextId: number;
}
let current: LoadProcess | undefined;

function loadProcess(): LoadProcess {
  if (current && current.child.exitCode === null && current.child.connected) return current;
  const file = fileURLToPath(new URL('./load-process.js', import.meta.url));
  // advanced serialization: the pool's bodies cross as bytes, not as JSON arrays of numbers
  const child = fork(file, [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const lp: LoadProcess = { child, pools: new WeakMap(), waiting: new Map(), nextId: 1 };
  child.on('message', (m: FromLoadProcess) => {
    const id = m.type === 'pool' ? m.poolId : m.runId;
    const done = lp.waiting.get(id);
    lp.waiting.delete(id);
    done?.(m);
    if (lp.waiting.size === 0) child.channel?.unref();
  });
  child.once('exit', (code) => {
    for (const done of lp.waiting.values()) done({ type: 'result', runId: 0, ok: false, error: `the load process exited with ${code}` });
    lp.waiting.clear();
  });
  child.unref();
  child.channel?.unref();
  current = lp;
  return lp;
}

/** Sends `m` and resolves with the answer to its id (its pool id or run id). */
function ask(lp: LoadProcess, id: number, m: ToLoadProcess): Promise<FromLoadProcess> {
  return new Promise((resolve) => {
    lp.waiting.set(id, resolve);
    lp.child.channel?.ref();
    lp.child.send(m);
  });
}

/**
 * Hands a request pool to the load process now (once per pool), so that a measured window that
 * starts afterwards does not include copying it. `loadInProcess` does it itself when needed.
 */
export function stagePool(requests: readonly PoolRequest[]): Promise<void> {
  return staged(loadProcess(), requests).sent;
}

function staged(lp: LoadProcess, requests: readonly PoolRequest[]): { id: number; sent: Promise<void> } {
  let p = lp.pools.get(requests);
  if (!p) {
    const id = lp.nextId++;
    p = {
      id,
      sent: ask(lp, id, { type: 'pool', poolId: id, requests: requests as PoolRequest[] }).then((m) => {
        if (m.type === 'result' && !m.ok) throw new Error(m.error);
      }),
    };
    lp.pools.set(requests, p);
  }
  return p;
}

/**
 * Runs a load spec in the load generator's process and resolves with its result; `cpuSeconds` is
 * that process's CPU over the load. The system under test's process does not run the client, so
 * its CPU from /proc is the system's alone: nothing is subtracted.
 */
export async function loadInProcess(spec: LoadSpec, engine: 'own' | 'autocannon' = 'own'): Promise<LoadResult> {
  const lp = loadProcess();
  const { pool, ...rest } = spec;
  const { id: poolId, sent } = staged(lp, pool);
  await sent;
  const runId = lp.nextId++;
  const m = await ask(lp, runId, { type: 'run', runId, poolId, spec: rest, engine });
  if (m.type !== 'result') throw new Error('the load process answered out of turn');
  if (!m.ok) throw new Error(m.error);
  return m.result;
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
