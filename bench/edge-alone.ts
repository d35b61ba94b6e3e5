/**
 * The ingest role alone, as a process of its own under a closed-loop load of the bench's request
 * pool: events/s accepted and CPU-seconds per million events of its process (from /proc, so the
 * load generator in this process is not counted), after a warm-up, per format and mixed.
 *
 *   node dist/bench/edge-alone.js [--seconds 10] [--warmup 3] [--concurrency 16] [--formats mixed,otlp-json-a,…]
 *   node dist/bench/edge-alone.js --prof /tmp/edge-prof     # a .cpuprofile of the ingest process
 *
 * The role publishes to the bench's own nats-server; the INGEST stream is purged between formats
 * so the backlog never refuses traffic. Nothing else runs: the figures are the edge's own cost.
 */
import { parseArgs } from 'node:util';
import { buildPool, onlyFormat, type Pool } from './lib/pool.js';
import { loadInWorker } from './lib/load.js';
import { processCpuSeconds } from './lib/cpu.js';
import { startBenchSystem } from './lib/system.js';
import { startChild } from './phases/memory.js';
import { nextRounds } from './phases/edge.js';
import { connectBus } from '../core/nats.js';
import { FORMATS, type Format } from './workload/conversation.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '16' },
    formats: { type: 'string', default: 'mixed' },
    prof: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const warmup = Number(values.warmup);
const concurrency = Number(values.concurrency);
const formats = values.formats!.split(',') as Array<Format | 'mixed'>;
for (const f of formats) if (f !== 'mixed' && !FORMATS.includes(f)) throw new Error(`unknown format ${f} (${FORMATS.join(', ')}, mixed)`);

const log = (s: string) => process.stderr.write(`[edge-alone] ${s}\n`);

// keys are created through a short-lived system on the same data directory and NATS
const sys = await startBenchSystem({ tenants: 8 });
const { env, keys, nats } = sys;
await sys.system.stop();

const child = await startChild('ingest', env, values.prof ? ['--cpu-prof', `--cpu-prof-dir=${values.prof}`] : []);
const bus = await connectBus(env.NATS_URL!);
const rows: string[][] = [['format', 'events/s', 'CPU-s per M events', 'CPU share of one core', 'non-2xx']];
try {
  for (const format of formats) {
    const pool: Pool = buildPool(20_000, format === 'mixed' ? {} : { formatWeights: onlyFormat(format) });
    const spec = (ms: number) => ({ baseUrl: child.ingestUrl!, pool: pool.requests, keys, concurrency, durationMs: ms, roundBase: nextRounds() });
    await loadInWorker(spec(warmup * 1000));
    await bus.jsm.streams.purge('INGEST');
    const cpu0 = processCpuSeconds(child.proc.pid!);
    const res = await loadInWorker(spec(seconds * 1000));
    const cpu = processCpuSeconds(child.proc.pid!) - cpu0;
    await bus.jsm.streams.purge('INGEST');
    const s = res.elapsedMs / 1000;
    const bad = res.sent - res.ok;
    rows.push([format, String(Math.round(res.okEvents / s)), (cpu / res.okEvents * 1e6).toFixed(1), (cpu / s).toFixed(2), String(bad)]);
    log(`${format}: ${rows.at(-1)!.slice(1).join(' · ')}`);
  }
} finally {
  await bus.close();
  await child.stop();
  await nats.stop();
}
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const r of rows) console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
if (values.prof) console.log(`profile written to ${values.prof}`);
