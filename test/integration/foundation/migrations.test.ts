import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../../core/config.js';
import { createStore, type Store } from '../../../core/clickhouse.js';
import { clusterize, loadMigrations, migrate, splitStatements } from '../../../core/migrations.js';
import { runCli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tmp.js';

const dataDir = tempDir();
let store: Store;

test('the CLI migrates an empty data directory, and a second run applies nothing', async () => {
  const env = { DATA_DIR: dataDir };
  const first = await runCli(['migrate'], env);
  assert.is(first.code, 0, first.stderr);
  assert.match(first.stdout, /applied: 0001_core_tables/);
  const second = await runCli(['migrate'], env);
  assert.is(second.code, 0, second.stderr);
  assert.match(second.stdout, /up to date/);
});

test('every migration is recorded once, and re-applying on a second start changes nothing', async () => {
  store = createStore(loadConfig({ DATA_DIR: dataDir }));
  const before = await store.query<{ version: string; c: string }>('SELECT version, count() AS c FROM {{db}}.schema_migrations GROUP BY version ORDER BY version');
  assert.equal(before.map((r) => Number(r.version)), loadMigrations().map((m) => m.version));
  assert.ok(before.every((r) => r.c === '1'));
  const again = await migrate(store);
  assert.equal(again.applied, []);
  // the statements themselves are idempotent too (a crash between a statement and its record)
  for (const m of loadMigrations()) for (const s of m.statements) await store.command(s);
  const tables = await store.query<{ name: string }>(`SELECT name FROM system.tables WHERE database = {db:String} ORDER BY name`, { db: store.database });
  for (const t of ['conversations', 'events', 'messages', 'schema_migrations', 'spans', 'tool_calls']) assert.ok(tables.some((r) => r.name === t), t);
});

test('attribute maps written before 0150 (LowCardinality keys) read the same after it, keyed by String', async () => {
  // a database of its own on the same engine (one data directory per process)
  const old = createStore(loadConfig({ DATA_DIR: dataDir, CLICKHOUSE_DATABASE: 'before_0150' }));
  try {
    await migrate(old, { before: 150 });
    const attributes = { 'gen_ai.request.model': 'm-1', 'tool.input': '{"path":"a b"}', 'é': 'ü' };
    const resource = { 'service.name': 'svc' };
    const row = { tenant_id: 't', event_time: '2026-01-01T00:00:00Z', event_id: 'e1', receive_time: '2026-01-01T00:00:00Z', type: 'log', attributes, resource };
    await old.insert('events', [row]);
    await old.insert('spans', [{ tenant_id: 't', trace_id: 'tr', span_id: 's1', start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:01Z', attributes, resource }]);
    const types = () => old.query<{ t: string; name: string; type: string }>(
      "SELECT table AS t, name, type FROM system.columns WHERE database = {db:String} AND table IN ('events', 'spans') AND name IN ('attributes', 'resource') ORDER BY t, name",
      { db: old.database },
    );
    assert.ok((await types()).every((c) => c.type === 'Map(LowCardinality(String), String)'));
    const out = await migrate(old);
    assert.ok(out.applied.includes('0150_map_string_keys'));
    assert.ok((await types()).every((c) => c.type === 'Map(String, String)'), JSON.stringify(await types()));
    for (const table of ['events', 'spans']) {
      const [r] = await old.query<{ attributes: Record<string, string>; resource: Record<string, string>; model: string }>(
        `SELECT attributes, resource, attributes['gen_ai.request.model'] AS model FROM {{db}}.${table}`,
      );
      assert.equal(r!.attributes, attributes, table);
      assert.equal(r!.resource, resource, table);
      assert.is(r!.model, 'm-1');
    }
    // a row written after the change lands beside the old one
    await old.insert('events', [{ ...row, event_id: 'e2', attributes: { k: 'v' } }]);
    const rows = await old.query<{ id: string; k: string }>("SELECT event_id AS id, attributes['k'] AS k FROM {{db}}.events ORDER BY id");
    assert.equal(rows, [{ id: 'e1', k: '' }, { id: 'e2', k: 'v' }]);
  } finally {
    await old.command('DROP DATABASE IF EXISTS {{db}}');
  }
});

test('0180: events written before it read the same through events_received, rows written by reference read as received', async () => {
  const old = createStore(loadConfig({ DATA_DIR: dataDir, CLICKHOUSE_DATABASE: 'before_0180' }));
  const received = () => old.query<{ id: string; attributes: Record<string, string> }>('SELECT event_id AS id, attributes FROM {{db}}.events_received ORDER BY id');
  try {
    await migrate(old, { before: 180 });
    // written as an older version wrote it: values as received, one of them looking like a reference
    const attributes = { 'session.id': 'c1-session', lookalike: '\u0000c', nul: '\u0000\u0000x' };
    const row = { tenant_id: 't', conversation_id: 'c1-session', event_time: '2026-01-01T00:00:00.250Z', event_id: 'e1', receive_time: '2026-01-01T00:00:00Z', type: 'log', attributes };
    await old.insert('events', [row]);
    const raw = await old.query('SELECT attributes FROM {{db}}.events');

    assert.equal((await migrate(old)).applied, ['0180_attribute_refs']);
    assert.equal(await old.query('SELECT attributes FROM {{db}}.events'), raw, 'no row is rewritten');
    assert.equal(await received(), [{ id: 'e1', attributes }]);
    // a row written by reference beside it
    await old.insert('events', [{ ...row, event_id: 'e2', attribute_refs: 1, attributes: { 'session.id': '\u0000c', 'event.timestamp': '\u0000e', lookalike: '\u0000\u0000c' } }]);
    assert.equal((await received())[1], { id: 'e2', attributes: { 'session.id': 'c1-session', 'event.timestamp': '2026-01-01T00:00:00.250Z', lookalike: '\u0000c' } });
    // re-applied, the statements change nothing
    for (const s of loadMigrations().find((m) => m.version === 180)!.statements) await old.command(s);
    assert.equal((await received()).length, 2);
  } finally {
    await old.command('DROP DATABASE IF EXISTS {{db}}');
  }
});

test('0170 drops the trigram filter of messages.content; messages read the same and keyword search still finds them', async () => {
  const old = createStore(loadConfig({ DATA_DIR: dataDir, CLICKHOUSE_DATABASE: 'before_0170' }));
  const indexes = async () =>
    (await old.query<{ name: string }>("SELECT name FROM system.data_skipping_indices WHERE database = {db:String} AND table = 'messages' ORDER BY name", { db: old.database })).map((r) => r.name);
  const messages = () => old.query<{ id: string; content: string }>('SELECT message_id AS id, content FROM {{db}}.messages FINAL ORDER BY id');
  try {
    await migrate(old, { before: 170 });
    assert.equal(await indexes(), ['idx_content', 'idx_content_words']);
    const rows = ['The zebra crossed the road', 'Refunds take five days', 'zebra stripes again'].map((content, i) => ({
      tenant_id: 't',
      conversation_id: 'c1',
      message_id: `m${i}`,
      ts: `2026-01-01T00:00:0${i}Z`,
      role: 'user',
      content,
    }));
    await old.insert('messages', rows);
    const before = await messages();

    assert.equal((await migrate(old, { before: 171 })).applied, ['0170_drop_content_ngram_index']);
    assert.equal(await indexes(), ['idx_content_words']);
    assert.equal(await messages(), before);
    const hits = await old.query<{ id: string }>("SELECT message_id AS id FROM {{db}}.messages WHERE hasAllTokens(lowerUTF8(content), ['zebra']) ORDER BY id");
    assert.equal(hits.map((r) => r.id), ['m0', 'm2']);
    // re-applied on a table without the index, the statement changes nothing
    for (const s of loadMigrations().find((m) => m.version === 170)!.statements) await old.command(s);
    assert.equal(await indexes(), ['idx_content_words']);
  } finally {
    await old.command('DROP DATABASE IF EXISTS {{db}}');
  }
});

test('64-bit integers come back as strings (exact) on the embedded connection', async () => {
  const [row] = await store.query<{ big: string; small: string }>('SELECT toUInt64(18446744073709551615) AS big, toUInt64(7) AS small');
  assert.is(row!.big, '18446744073709551615');
  assert.is(row!.small, '7');
});

test('statement splitting ignores comments and trailing semicolons', () => {
  assert.equal(splitStatements('-- a comment\nCREATE TABLE a (x UInt8) ENGINE = Memory;\n\n-- b\nSELECT 1;\n'), [
    'CREATE TABLE a (x UInt8) ENGINE = Memory',
    'SELECT 1',
  ]);
});

test('on a cluster, engines become Replicated and DDL runs ON CLUSTER', () => {
  const s = 'CREATE TABLE IF NOT EXISTS {{db}}.t {{on_cluster}} (v UInt64) ENGINE = ReplacingMergeTree(v) ORDER BY v';
  assert.is(
    clusterize(s, 'prod'),
    "CREATE TABLE IF NOT EXISTS {{db}}.t ON CLUSTER prod (v UInt64) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}', v) ORDER BY v",
  );
  assert.match(clusterize('CREATE TABLE x {{on_cluster}} (a UInt8) ENGINE = MergeTree ORDER BY a', 'c'), /ENGINE = ReplicatedMergeTree\('\/clickhouse/);
  assert.is(clusterize('CREATE TABLE x {{on_cluster}} (a UInt8) ENGINE = MergeTree ORDER BY a', ''), 'CREATE TABLE x  (a UInt8) ENGINE = MergeTree ORDER BY a');
});

test.after(async () => {
  await store?.close();
});

test.run();
