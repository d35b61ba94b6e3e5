/**
 * `node dist/bench/pipeline-fuzz.js [--per-route 5000] [--seed 17] [--json]`: the whole-pipeline
 * fuzz at full size (bench/lib/pipeline-fuzz.ts) on a fresh system in this process (temp DATA_DIR,
 * own nats-server). The test suite runs a smaller seeded sample of the same fuzz. Exits 1 when an
 * acknowledged event is missing or duplicated, something of a rejected request was stored, an
 * answer was unexpected (a 500) or the DLQ holds anything.
 */
import { rmSync } from 'node:fs';
import { prepareBench, startBenchSystem } from './lib/system.js';
import { describeFuzz, runPipelineFuzz } from './lib/pipeline-fuzz.js';

const args = process.argv.slice(2);
const flag = (name: string, def: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const log = (s: string) => process.stderr.write(`[pipeline-fuzz] ${s}\n`);
const base = await prepareBench();
const bench = await startBenchSystem({ tenants: 0, base, env: { INGEST_MAX_BACKLOG_MESSAGES: '10000000', INGEST_MAX_BACKLOG_BYTES: String(8 * 2 ** 30) } });
let failed = true;
try {
  const r = await runPipelineFuzz({
    ingestUrl: bench.ingestUrl,
    adminKey: bench.adminKey,
    bus: bench.system.rt.bus,
    natsUrl: bench.nats.url,
    store: bench.system.rt.store,
    perRoute: flag('per-route', 5000),
    seed: flag('seed', 17),
    log,
  });
  process.stdout.write(args.includes('--json') ? JSON.stringify(r) + '\n' : describeFuzz(r) + '\n');
  for (const d of r.deadLetters.slice(0, 20)) log(`dead letter: ${d.eventId || '(whole message)'} (${d.events} events) ${d.reason}: ${d.error}`);
  for (const u of r.unexpected) log(`unexpected: ${u}`);
  failed = r.missing > 0 || r.duplicated > 0 || r.strays > 0 || r.publishedForRejected > 0 || r.unexpected.length > 0 || r.deadLetters.length > 0 || r.countMismatches > 0;
} finally {
  await bench.system.stop();
  await base.nats.stop();
  rmSync(base.dataDir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
