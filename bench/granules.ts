/**
 * What an analysis batch's reads cost as the tables grow, with the conversation-keyed tables at
 * 8,192 rows per granule (before migration 0160) and at 1,024 (after): the same rows of the bench
 * workload bulk-loaded into two databases of one embedded engine, each merged to one part per
 * partition, then the stream role's loader (`loadWorkChunks`, the five reads of a batch) timed on
 * the same random batches of conversations against each, alternately. Reports per batch the wall
 * time, the process's CPU (the engine runs in this process) and the rows the engine plans to read
 * from `events` for the batch (`EXPLAIN ESTIMATE`: whole granules).
 *
 *   node dist/bench/granules.js [--events 1000000] [--batch 250] [--rounds 12] [--dir /tmp/granules]
 *
 * The data directory is kept, so a larger run reuses what a smaller one loaded.
 */
import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { TupleParam } from '@clickhouse/client';
import { loadConfig } from '../core/config.js';
import { createStore, type Store } from '../core/clickhouse.js';
import { CONVERSATION_GRANULES, migrate } from '../core/migrations.js';
import { granularityOf } from '../core/table-rebuild.js';
import { loadWorkChunks, type ConversationKey } from '../stream/analyze/loader.js';
import { DEFAULT_CONVERSATION_OPTIONS, conversations } from './workload/conversation.js';
import { conversationRows } from './workload/rows.js';
import { createRng } from './workload/rng.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    batch: { type: 'string', default: '250' },
    rounds: { type: 'string', default: '12' },
    dir: { type: 'string', default: '/tmp/granules' },
  },
});
const log = (s: string) => process.stderr.write(`[granules] ${s}\n`);
const TABLES = ['events', 'messages', 'tool_calls'] as const;
mkdirSync(values.dir!, { recursive: true });

/** The database before 0160 (8,192) and after it (1,024). */
async function open(database: string, before?: number): Promise<Store> {
  const store = createStore(loadConfig({ DATA_DIR: values.dir!, CLICKHOUSE_DATABASE: database }));
  await migrate(store, { before });
  return store;
}

const stores = { 8192: await open('granules_8192', 160), 1024: await open('granules_1024') };
const target = Number(values.events);
const count = async (store: Store) => Number((await store.query<{ n: string }>('SELECT count() AS n FROM {{db}}.events'))[0]!.n);
const opts = { ...DEFAULT_CONVERSATION_OPTIONS, seed: 61 };

// load the same conversations into both, 2,000 at a time, until `events` holds the target (a
// conversation's index in the workload is its position, so a rerun goes on where the last stopped)
let next = Number((await stores[1024].query<{ n: string }>('SELECT uniqExact(conversation_id) AS n FROM {{db}}.messages'))[0]!.n);
while ((await count(stores[1024])) < target) {
  const rows: Record<(typeof TABLES)[number], Record<string, unknown>[]> = { events: [], messages: [], tool_calls: [] };
  for (const c of conversations(opts, 2000, next)) {
    const r = conversationRows(c);
    for (const t of TABLES) for (const x of r[t]) rows[t].push(x);
  }
  next += 2000;
  for (const store of Object.values(stores)) for (const t of TABLES) for (let i = 0; i < rows[t].length; i += 50_000) await store.insert(t, rows[t].slice(i, i + 50_000));
  log(`loaded ${next} conversations, ${await count(stores[1024])} events`);
}
for (const store of Object.values(stores)) for (const t of TABLES) await store.command(`OPTIMIZE TABLE {{db}}.${t} FINAL`);

const granularity = async (store: Store) =>
  granularityOf((await store.query<{ engine_full: string }>('SELECT engine_full FROM system.tables WHERE database = {db:String} AND name = {t:String}', { db: store.database, t: 'events' }))[0]!.engine_full);
const all = await stores[1024].query<{ t: string; c: string }>('SELECT DISTINCT tenant_id AS t, conversation_id AS c FROM {{db}}.messages');
log(`${all.length} conversations; events granularity ${await granularity(stores[8192])} and ${await granularity(stores[1024])}; ${CONVERSATION_GRANULES.length} tables rebuilt by 0160`);

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const rng = createRng(7);
const results: Record<string, { wall: number[]; cpu: number[]; planned: number[] }> = { 8192: { wall: [], cpu: [], planned: [] }, 1024: { wall: [], cpu: [], planned: [] } };
for (let round = 0; round < Number(values.rounds); round++) {
  const keys: ConversationKey[] = Array.from({ length: Number(values.batch) }, () => rng.pick(all)).map((r) => ({ tenantId: r.t, conversationId: r.c }));
  const order = round % 2 ? (['1024', '8192'] as const) : (['8192', '1024'] as const);
  for (const g of order) {
    const store = stores[g];
    const c0 = cpuMs();
    const t0 = performance.now();
    await loadWorkChunks(store, keys);
    results[g]!.wall.push(performance.now() - t0);
    results[g]!.cpu.push(cpuMs() - c0);
    const plan = await store.query<{ rows: string }>('EXPLAIN ESTIMATE SELECT count() FROM {{db}}.events WHERE (tenant_id, conversation_id) IN {keys:Array(Tuple(String, String))}', {
      keys: keys.map((k) => new TupleParam([k.tenantId, k.conversationId])),
    });
    results[g]!.planned.push(plan.reduce((s, r) => s + Number(r.rows), 0));
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const events = await count(stores[1024]);
console.log(`analysis batch of ${values.batch} conversations, ${events} events (${all.length} conversations) in the tables, medians of ${values.rounds} rounds`);
console.log('granularity   wall ms   CPU ms   events rows planned');
for (const g of ['8192', '1024'] as const) {
  const r = results[g]!;
  console.log(`${g.padEnd(12)}  ${median(r.wall).toFixed(0).padStart(7)}  ${median(r.cpu).toFixed(0).padStart(7)}   ${median(r.planned).toLocaleString('en-US').padStart(19)}`);
}
for (const s of Object.values(stores)) await s.close();
