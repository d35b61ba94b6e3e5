/**
 * The tool-failure rollup's recompute on a large day, per batch vs paced:
 * `node dist/bench/tool-rollup.js [--facts 1000000] [--seconds 10] [--batch-calls 200] [--every 500]`.
 *
 * On an own chDB data directory: loads `--facts` calls of one tenant's day over five tools (merged,
 * as a day's facts are once the engine has merged them), then plays the analyzer for `--seconds`:
 * every `--every` ms a batch writes `--batch-calls` new calls of the five tools, and
 *   - per batch: recomputes the five groups right after (what each analysis batch did before);
 *   - paced: marks the groups, and the paced passes recompute them (tool-rollup-flusher.ts).
 * Reports the batches written, the process CPU per wall second (cores) of each mode, the passes, and
 * checks that after the last pass the daily rows count every call. Writes nothing to the
 * repository. Figures go to docs/stream.md ("The tool-failure rollup's recompute").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../core/config.js';
import { createStore, type Store } from '../core/clickhouse.js';
import { migrate } from '../core/migrations.js';
import { createLogger } from '../core/log.js';
import { createMetrics } from '../core/metrics.js';
import { streamMetrics } from '../stream/metrics.js';
import { recomputeGroups } from '../stream/analyze/tool-failures.js';
import { createToolRollupFlusher } from '../stream/analyze/tool-rollup-flusher.js';
import { nextVersion } from '../stream/analyze/version.js';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return Number(i > 0 ? process.argv[i + 1]! : def);
};
const FACTS = arg('facts', '1000000');
const SECONDS = arg('seconds', '10');
const BATCH_CALLS = arg('batch-calls', '200');
const EVERY_MS = arg('every', '500');
const TOOLS = ['Bash', 'Read', 'Edit', 'Write', 'Grep'];
const DAY = new Date().toISOString().slice(0, 10);
const log = (m: string) => process.stderr.write(`${m}\n`);

let seq = 0;
const facts = (tenant: string, n: number) => {
  const version = nextVersion();
  return Array.from({ length: n }, () => {
    const k = seq++;
    const failed = k % 7 === 0;
    return {
      tenant_id: tenant, tool_name: TOOLS[k % TOOLS.length]!, failed: failed ? 1 : 0, day: DAY, conversation_id: `c${Math.floor(k / 10)}`, call_id: `k${k}`,
      version, is_deleted: 0, environment: 'production', effect_class: 'spawn', ts: `${DAY} 10:00:00.000`, error: failed ? `error ${k % 13}` : '', error_type: '', category_id: '',
    };
  });
};
const groups = (tenant: string): [string, string, string][] => TOOLS.map((t) => [tenant, t, DAY]);
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

async function load(store: Store, tenant: string) {
  for (let left = FACTS; left > 0; left -= 50_000) await store.insert('tool_call_facts', facts(tenant, Math.min(50_000, left)));
  await store.command('OPTIMIZE TABLE {{db}}.tool_call_facts FINAL');
  await recomputeGroups(store, groups(tenant));
}

/** Plays the analyzer's batches for SECONDS; `each` runs after a batch's facts are written. */
async function play(store: Store, tenant: string, each: () => Promise<void>) {
  const c0 = cpuMs();
  const t0 = Date.now();
  let batches = 0;
  while (Date.now() - t0 < SECONDS * 1000) {
    const started = Date.now();
    await store.insert('tool_call_facts', facts(tenant, BATCH_CALLS));
    await each();
    batches++;
    const wait = EVERY_MS - (Date.now() - started);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  const wallS = (Date.now() - t0) / 1000;
  return { batches, wallS, cores: (cpuMs() - c0) / 1000 / wallS };
}

async function counted(store: Store, tenant: string) {
  const [d] = await store.query<{ n: string }>('SELECT sum(calls) AS n FROM {{db}}.tool_failures_daily FINAL WHERE tenant_id = {t:String}', { t: tenant });
  const [f] = await store.query<{ n: string }>('SELECT count() AS n FROM {{db}}.tool_call_facts FINAL WHERE tenant_id = {t:String}', { t: tenant });
  return { daily: Number(d!.n), facts: Number(f!.n) };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'th-tool-rollup-'));
  const store = createStore(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }));
  try {
    await migrate(store);
    log(`loading ${FACTS} facts per tenant…`);
    await load(store, 'per-batch');
    await load(store, 'paced');

    const perBatch = await play(store, 'per-batch', () => recomputeGroups(store, groups('per-batch')));
    const registry = createMetrics();
    const flusher = createToolRollupFlusher({ store, log: createLogger('silent'), metrics: streamMetrics(registry), minIntervalMs: 1000 });
    const paced = await play(store, 'paced', async () => {
      await store.insert('tool_rollup_dirty', groups('paced').map(([tenant_id, tool_name, day]) => ({ tenant_id, tool_name, day, version: nextVersion(), is_deleted: 0 })));
      flusher.poke();
    });
    await flusher.stop();
    const passes = registry.value('stream_tool_rollup_passes_total', { outcome: 'ok' });
    const a = await counted(store, 'per-batch');
    const b = await counted(store, 'paced');
    const row = (name: string, r: { batches: number; wallS: number; cores: number }, extra: string) =>
      `| ${name} | ${r.batches} in ${r.wallS.toFixed(1)} s | ${r.cores.toFixed(2)} | ${extra} |`;
    console.log(`facts a day: ${FACTS}; a batch of ${BATCH_CALLS} calls every ${EVERY_MS} ms\n`);
    console.log('| recompute | batches written | process CPU (cores) | recomputes |');
    console.log('|---|---|---:|---|');
    console.log(row('per batch', perBatch, `${perBatch.batches}`));
    console.log(row('paced', paced, `${passes} passes`));
    console.log(`\nratio paced / per batch, CPU per batch: ${(paced.cores / paced.batches / (perBatch.cores / perBatch.batches)).toFixed(2)}`);
    console.log(`daily rows count every call: per batch ${a.daily === a.facts ? 'yes' : `NO (${a.daily} of ${a.facts})`}, paced ${b.daily === b.facts ? 'yes' : `NO (${b.daily} of ${b.facts})`}`);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
