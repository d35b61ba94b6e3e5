/**
 * The load generator's process (forked by load.ts `loadInProcess`). The client lives in a process
 * of its own, not a worker thread of the bench: a worker thread's collector and compiler jobs run
 * on the V8 platform threads it shares with the system under test, where /proc counts them as the
 * system's CPU (3–4 µs per event at 10,000–15,000 events/s) and where they queue beside the
 * system's own. The process outlives one load: request pools arrive once (`pool`) and each load
 * (`run`) names its pool, so a step neither copies the pool again nor compiles a fresh client.
 * The reported `cpuSeconds` is this whole process's CPU over the load (every thread).
 */
import { runAutocannon, runLoad, type LoadResult, type LoadSpec } from './load-client.js';
import type { PoolRequest } from './pool.js';

export type ToLoadProcess =
  | { type: 'pool'; poolId: number; requests: PoolRequest[] }
  | { type: 'run'; runId: number; poolId: number; spec: Omit<LoadSpec, 'pool'>; engine: 'own' | 'autocannon' };

export type FromLoadProcess = { type: 'pool'; poolId: number } | { type: 'result'; runId: number; ok: true; result: LoadResult } | { type: 'result'; runId: number; ok: false; error: string };

const pools = new Map<number, PoolRequest[]>();
const send = (m: FromLoadProcess) => process.send!(m);
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

process.on('message', (m: ToLoadProcess) => {
  if (m.type === 'pool') {
    pools.set(m.poolId, m.requests);
    send({ type: 'pool', poolId: m.poolId });
    return;
  }
  const pool = pools.get(m.poolId);
  if (!pool) return send({ type: 'result', runId: m.runId, ok: false, error: `no request pool ${m.poolId} in the load process` });
  const cpu0 = cpuSeconds();
  (m.engine === 'autocannon' ? runAutocannon : runLoad)({ ...m.spec, pool }).then(
    (result) => send({ type: 'result', runId: m.runId, ok: true, result: { ...result, cpuSeconds: cpuSeconds() - cpu0 } }),
    (err: unknown) => send({ type: 'result', runId: m.runId, ok: false, error: String((err as Error)?.stack ?? err) }),
  );
});
// the bench ended (or died): nothing is left to load
process.on('disconnect', () => process.exit(0));
