/**
 * The ingest role alone, as a process of its own under a closed-loop load of the bench's request
 * pool: events/s accepted and CPU-seconds per million events of its process (from /proc, so the
 * load generator in this process is not counted), after a warm-up, per format and mixed — beside
 * the bare parse server in a process of its own under the same load (phases/edge-alone.ts).
 *
 *   node dist/bench/edge-alone.js [--seconds 10] [--warmup 3] [--concurrency 16] [--formats mixed,otlp-json-a,…] [--no-ceiling]
 *   node dist/bench/edge-alone.js --prof /tmp/edge-prof     # a .cpuprofile of the ingest process
 *   BENCH_EDGE_ENV='{"INGEST_WORKERS":"2"}' node dist/bench/edge-alone.js …   # other settings of the role
 *
 * With `INGEST_WORKERS=N` the role is N processes sharing the port: its CPU is the process tree's,
 * and the parse server it is compared with stays one process (the ratio then mixes two shapes).
 *
 * The role publishes to the bench's own nats-server; the INGEST stream is purged between formats
 * so the backlog never refuses traffic. Nothing else runs: the figures are the edge's own cost.
 */
import { parseArgs } from 'node:util';
import { startBenchSystem } from './lib/system.js';
import { measureEdgeAlone } from './phases/edge-alone.js';
import { FORMATS, type Format } from './workload/conversation.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '16' },
    formats: { type: 'string', default: 'mixed' },
    prof: { type: 'string' },
    'no-ceiling': { type: 'boolean', default: false },
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
Object.assign(env, JSON.parse(process.env.BENCH_EDGE_ENV ?? '{}') as Record<string, string>);
await sys.system.stop();

const table: string[][] = [['format', 'events/s', 'CPU-s per M events', 'CPU share of one core', 'non-2xx', 'parse server events/s', 'its CPU-s per M', 'edge vs parse']];
try {
  const rows = await measureEdgeAlone({ env, keys, formats, concurrency, warmupSeconds: warmup, seconds, ceiling: !values['no-ceiling'], nodeArgs: values.prof ? ['--cpu-prof', `--cpu-prof-dir=${values.prof}`] : [], log });
  for (const r of rows) table.push([r.format, String(r.edge.events_per_s), r.edge.cpu_s_per_million.toFixed(1), r.edge.cores.toFixed(2), String(r.edge.non_2xx), String(r.parse?.events_per_s ?? 'n/a'), r.parse?.cpu_s_per_million.toFixed(1) ?? 'n/a', r.edge_vs_parse?.toFixed(3) ?? 'n/a']);
} finally {
  await nats.stop();
}
const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
for (const r of table) console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
if (values.prof) console.log(`profile written to ${values.prof}`);
