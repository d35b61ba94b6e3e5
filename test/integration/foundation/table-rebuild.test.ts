/**
 * Migration 0160 rebuilds the conversation-keyed tables with 1,024-row granules: every row is still
 * there and reads the same, a one-conversation lookup reads at most two granules of the new size,
 * the skip indexes cover the rows they covered, and a run that crashed at any step completes on the
 * next start. On the embedded engine and on a server (the HTTP interface in a child process).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../../core/config.js';
import { createStore, type Store } from '../../../core/clickhouse.js';
import { CONVERSATION_GRANULES, migrate } from '../../../core/migrations.js';
import { copyEngine, rebuildWithGranularity } from '../../../core/table-rebuild.js';
import { startServerEngine } from '../../helpers/ch-http.js';
import { tempDir } from '../../helpers/tmp.js';

const dataDir = tempDir();
let server: Awaited<ReturnType<typeof startServerEngine>>;
const opened: Store[] = [];

type Kind = 'embedded' | 'server';
function storeOn(kind: Kind, database: string): Store {
  const env = kind === 'embedded' ? { DATA_DIR: dataDir, CLICKHOUSE_DATABASE: database } : { DATA_DIR: tempDir(), CLICKHOUSE_URL: server.url, CLICKHOUSE_DATABASE: database };
  const store = createStore(loadConfig(env));
  opened.push(store);
  return store;
}

/** A database as migrations before 0160 left it, with 40,000 events of 2,000 conversations and their rows. */
async function before0160(kind: Kind, database: string): Promise<Store> {
  const store = storeOn(kind, database);
  await migrate(store, { before: 160 });
  const conv = "concat('c-', toString(cityHash64(number % 2000)))";
  await store.command(
    `INSERT INTO {{db}}.events (tenant_id, event_time, event_id, receive_time, type, conversation_id, user_id, tool_name, attributes)
     SELECT 't1', toDateTime64('2026-11-01 00:00:00', 3, 'UTC') + number, concat('e-', toString(number)), now64(3), 'log', ${conv}, concat('u', toString(number % 7)), 'Bash', map('k', toString(number))
     FROM numbers(40000)`,
  );
  await store.command(
    `INSERT INTO {{db}}.messages (tenant_id, conversation_id, message_id, ts, role, content)
     SELECT 't1', ${conv}, concat('m-', toString(number)), toDateTime64('2026-11-01 00:00:00', 3, 'UTC') + number, 'user', concat('words of message ', toString(number))
     FROM numbers(20000)`,
  );
  // each call as two partial rows in two parts (its decision, then its result): reads fold them with max()
  for (const [tool, success] of [["'Bash'", -1], ["''", 1]] as const) {
    await store.command(
      `INSERT INTO {{db}}.tool_calls (tenant_id, conversation_id, call_id, ts, last_ts, tool_name, success)
       SELECT 't1', ${conv}, concat('call-', toString(number)), toDateTime64('2026-11-01 00:00:00', 3, 'UTC'), toDateTime64('2026-11-01 00:00:00', 3, 'UTC'), ${tool}, ${success}
       FROM numbers(10000)`,
    );
  }
  await store.command(
    `INSERT INTO {{db}}.analysis_state (tenant_id, conversation_id, analyzer, version, outcome, item_keys)
     SELECT 't1', ${conv}, concat('a', toString(intDiv(number, 2000))), 1, 'ok', [toString(number)] FROM numbers(24000)`,
  );
  await store.command(
    `INSERT INTO {{db}}.tool_call_rollup_state (tenant_id, conversation_id, call_id, version, tool_name, day)
     SELECT 't1', ${conv}, concat('call-', toString(number)), 1, 'Bash', '2026-11-01' FROM numbers(10000)`,
  );
  return store;
}

/**
 * What a reader sees of each table (reads fold with FINAL): its rows and a hash of their values. The
 * copy may fold partial rows a reader would have folded anyway (a call's two rows become one).
 */
async function contents(store: Store): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const { table } of CONVERSATION_GRANULES) {
    const [r] = await store.query<{ n: string; h: string }>(`SELECT count() AS n, sum(cityHash64(*)) AS h FROM {{db}}.${table} FINAL`);
    out[table] = `${r!.n} rows, hash ${r!.h}`;
  }
  const [hash] = await store.query<{ h: string }>('SELECT sum(conversation_hash = cityHash64(conversation_id)) AS h FROM {{db}}.messages');
  out.conversation_hash = hash!.h;
  const [calls] = await store.query<{ ok: string }>("SELECT countIf(tool_name = 'Bash' AND success = 1) AS ok FROM {{db}}.tool_calls FINAL");
  out.folded_calls = calls!.ok;
  return out;
}

const granularities = (store: Store) =>
  store.query<{ name: string; engine_full: string }>('SELECT name, engine_full FROM system.tables WHERE database = {db:String} ORDER BY name', { db: store.database });

/** Rows the engine plans to read for one conversation's events (whole granules). */
async function lookupRows(store: Store, table: string): Promise<number> {
  const key = (await store.query<{ c: string }>(`SELECT conversation_id AS c FROM {{db}}.${table} ORDER BY conversation_id LIMIT 1 OFFSET 700`))[0]!.c;
  const rows = await store.query<{ rows: string }>(`EXPLAIN ESTIMATE SELECT * FROM {{db}}.${table} WHERE tenant_id = 't1' AND conversation_id = {key:String}`, { key });
  return rows.reduce((s, r) => s + Number(r.rows), 0);
}

/** The events copy as a crashed run left it: created with the new settings, then filled (all rows, or `limit`). */
async function leftoverCopy(store: Store, limit?: number): Promise<void> {
  const engine = (await granularities(store)).find((t) => t.name === 'events')!.engine_full;
  await store.command(`CREATE TABLE {{db}}.events__m160 AS {{db}}.events ENGINE = ${copyEngine(engine, 'events', 'events__m160', 1024)}`);
  await store.command(`INSERT INTO {{db}}.events__m160 SELECT * FROM {{db}}.events${limit ? ` LIMIT ${limit}` : ''}`);
}

const checks = suite('migration 0160: conversation-keyed tables rebuilt with 1,024-row granules');
checks.before(async () => {
  server = await startServerEngine();
});
checks.after(async () => {
  for (const s of opened) await s.close();
  server.stop();
});

for (const kind of ['embedded', 'server'] as const) {
  checks(`${kind}: every row reads the same after the rebuild, a conversation's lookup reads 1/8 of the rows, and a second run changes nothing`, async () => {
    const store = await before0160(kind, `granules_${kind}`);
    const before = await contents(store);
    const eventsLookup = await lookupRows(store, 'events');
    assert.ok(eventsLookup >= 8192, `before: ${eventsLookup} rows planned`);

    // up to 0160: later migrations change these tables again (0170 drops an index checked below)
    const { applied } = await migrate(store, { before: 161 });
    assert.equal(applied, ['0160_conversation_granules']);
    assert.equal(await contents(store), before);
    const tables = await granularities(store);
    for (const { table } of CONVERSATION_GRANULES) assert.match(tables.find((t) => t.name === table)!.engine_full, /index_granularity = 1024\b/, table);
    assert.not.ok(tables.some((t) => t.name.includes('__m160')), 'no copy is left');
    for (const table of ['events', 'messages']) {
      const rows = await lookupRows(store, table);
      assert.ok(rows <= 2048, `${table}: ${rows} rows planned for one conversation`);
    }
    // a skip index covers the rows it covered: 4 granules of 8,192 are 32 of 1,024; the text index
    // (whole parts) and the ordering settings are kept
    const indexes = await store.query<{ table: string; name: string; granularity: string }>(
      "SELECT table, name, granularity FROM system.data_skipping_indices WHERE database = {db:String} AND table IN ('events', 'messages') ORDER BY table, name",
      { db: store.database },
    );
    const g = Object.fromEntries(indexes.map((ix) => [`${ix.table}.${ix.name}`, Number(ix.granularity)]));
    assert.equal([g['events.idx_inserted'], g['events.idx_user'], g['events.idx_tool'], g['messages.idx_content']], [8, 32, 32, 16]);
    assert.ok(g['messages.idx_content_words']! >= 1_000_000, JSON.stringify(g));
    assert.match(tables.find((t) => t.name === 'messages')!.engine_full, /ORDER BY \(tenant_id, conversation_id, message_id\).*non_replicated_deduplication_window = 10000/);

    // the rebuilt tables take writes, and a keyword search still finds a message by its index
    await store.command("INSERT INTO {{db}}.messages (tenant_id, conversation_id, message_id, ts, role, content) VALUES ('t1', 'c-new', 'm-new', now64(3), 'user', 'zebra crossing')");
    const found = await store.query<{ message_id: string }>("SELECT message_id FROM {{db}}.messages WHERE hasToken(lowerUTF8(content), 'zebra')");
    assert.equal(found.map((r) => r.message_id), ['m-new']);

    assert.equal((await migrate(store, { before: 161 })).applied, []);
    for (const { table, granularity } of CONVERSATION_GRANULES) {
      assert.is(await rebuildWithGranularity(store, { table, granularity, version: 160, cluster: '' }), 'current');
    }
  });
}

checks('a run that crashed while copying starts the copy again: no row lost, none doubled', async () => {
  const store = await before0160('embedded', 'granules_crash_copy');
  const before = await contents(store);
  await leftoverCopy(store, 5000);
  assert.equal((await migrate(store, { before: 161 })).applied, ['0160_conversation_granules']);
  assert.equal(await contents(store), before);
  assert.not.ok((await granularities(store)).some((t) => t.name.includes('__m160')));
});

checks('a run that crashed after the exchange drops the old rows and keeps the new table', async () => {
  const store = await before0160('embedded', 'granules_crash_exchange');
  const before = await contents(store);
  await leftoverCopy(store);
  await store.command('EXCHANGE TABLES {{db}}.events AND {{db}}.events__m160');
  assert.equal((await migrate(store, { before: 161 })).applied, ['0160_conversation_granules']);
  assert.equal(await contents(store), before);
  const tables = await granularities(store);
  assert.match(tables.find((t) => t.name === 'events')!.engine_full, /index_granularity = 1024\b/);
  assert.not.ok(tables.some((t) => t.name.includes('__m160')));
});

for (const kind of ['embedded', 'server'] as const) {
  checks(`${kind}: rows written to the old table while it was copied are in the rebuilt one`, async () => {
    const store = await before0160(kind, `granules_late_${kind}`);
    const late = "INSERT INTO {{db}}.events (tenant_id, event_time, event_id, receive_time, type, conversation_id) SELECT 't1', toDateTime64('2026-11-02 00:00:00', 3, 'UTC'), concat('late-', toString(number)), now64(3), 'log', 'c-late' FROM numbers(300)";
    const result = await rebuildWithGranularity(store, { table: 'events', granularity: 1024, version: 160, cluster: '', afterCopy: () => store.command(late) });
    assert.is(result, 'rebuilt');
    const [r] = await store.query<{ n: string; late: string }>("SELECT count() AS n, countIf(conversation_id = 'c-late') AS late FROM {{db}}.events FINAL");
    assert.equal([Number(r!.n), Number(r!.late)], [40_300, 300]);
    assert.match((await granularities(store)).find((t) => t.name === 'events')!.engine_full, /index_granularity = 1024\b/);
  });
}

checks.run();
