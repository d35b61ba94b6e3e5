import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../../core/config.js';
import { createStore, namedQuery, type Store } from '../../../core/clickhouse.js';
import { migrate } from '../../../core/migrations.js';
import { TABLES, insertRows, rowsFor } from '../../../bench/ceilings/clickhouse.js';
import { DEFAULT_CONVERSATION_OPTIONS } from '../../../bench/workload/conversation.js';
import { copyExpression, replicateTables } from '../../../bench/lib/replicate.js';
import { measureReads, recordStatements } from '../../../bench/lib/read-profile.js';
import { tempDir } from '../../helpers/tmp.js';

const store: Store = createStore(loadConfig({ DATA_DIR: tempDir() }));
const SPACING = 60_000;
const START = Date.UTC(2026, 10, 1);

const n = async (sql: string) => Number((await store.query<{ n: string }>(sql))[0]!.n);

test.before(async () => {
  await migrate(store);
  const { rows } = rowsFor({ ...DEFAULT_CONVERSATION_OPTIONS, seed: 3, startMs: START, spacingMs: SPACING }, 40);
  await insertRows(store.client, store.database, rows);
});
test.after(() => store.close());

/** Conversations the stream role would find stale and roll up again (none, for a consistent dataset). */
const stale = () => store.query(namedQuery('stream-stale-conversations'), { since: '2000-01-01 00:00:00', limit: 100 });

test('the generated rollups agree with the events, so the stream role has nothing to repair', async () => {
  assert.equal(await stale(), []);
});

test('copies every table k times under new conversation ids, keeping each conversation intact', async () => {
  const before = Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, await n(`SELECT count() AS n FROM {{db}}.${t}`)] as const)));
  const perConversation = await store.query<{ id: string; m: string; c: string }>(
    `SELECT conversation_id AS id, count() AS m, any(c) AS c FROM (SELECT conversation_id, count() OVER (PARTITION BY conversation_id) AS c FROM {{db}}.messages) GROUP BY id ORDER BY id`,
  );
  const results = await replicateTables(store, TABLES, 3, SPACING / 3, () => {});
  for (const t of TABLES) {
    const r = results.find((x) => x.table === t)!;
    assert.is(r.rows_before, before[t], t);
    assert.is(await n(`SELECT count() AS n FROM {{db}}.${t}`), before[t]! * 3, t);
  }
  // each copy of a conversation has the same number of messages as the original
  const copies = await store.query<{ base: string; copies: string; sizes: string[] }>(
    `SELECT replaceRegexpOne(conversation_id, '~r[0-9]+$', '') AS base, uniqExact(conversation_id) AS copies, groupUniqArray(toString(m)) AS sizes
     FROM (SELECT conversation_id, count() AS m FROM {{db}}.messages GROUP BY conversation_id) GROUP BY base ORDER BY base`,
  );
  assert.is(copies.length, perConversation.length);
  for (const c of copies) {
    assert.is(Number(c.copies), 3, c.base);
    assert.equal(c.sizes, [perConversation.find((p) => p.id === c.base)!.m], c.base);
  }
  // rollup rows follow: one conversations row per copy, with the copy's id
  assert.is(await n(`SELECT uniqExact(conversation_id) AS n FROM {{db}}.conversations FINAL`), copies.length * 3);
  assert.equal(await stale(), [], 'copies are as consistent as the originals');
});

test('copy k is shifted back by k × the step, and stays inside the original time range', async () => {
  const shifts = await store.query<{ k: string; d: string }>(
    `SELECT extract(conversation_id, '~r([0-9]+)$') AS k, any(toUnixTimestamp64Milli(c.ts) - toUnixTimestamp64Milli(o.ts)) AS d
     FROM {{db}}.messages AS c INNER JOIN {{db}}.messages AS o
       ON o.conversation_id = replaceRegexpOne(c.conversation_id, '~r[0-9]+$', '') AND o.message_id = c.message_id
     WHERE k != '' GROUP BY k ORDER BY k`,
  );
  assert.equal(shifts.map((s) => [s.k, Number(s.d)]), [['1', -SPACING / 3], ['2', (-2 * SPACING) / 3]]);
  const [range] = await store.query<{ lo: string }>(`SELECT toUnixTimestamp64Milli(min(ts)) AS lo FROM {{db}}.messages`);
  assert.ok(Number(range!.lo) >= START - SPACING, 'copies stay within one conversation spacing of the start');
});

test('the copy expressions rename conversations, shift times and keep everything else', () => {
  assert.is(copyExpression({ name: 'conversation_id', type: 'String', default_kind: '' }, 10), "concat(`conversation_id`, '~r', toString(k))");
  assert.match(copyExpression({ name: 'ts', type: "SimpleAggregateFunction(min, DateTime64(3, 'UTC'))", default_kind: '' }, 10), "AS DateTime64(3, 'UTC'))");
  assert.is(copyExpression({ name: 'user_id', type: 'String', default_kind: '' }, 10), '`user_id`');
});

test('the read profile records the statements a request runs and reports what they read', async () => {
  const statements = await recordStatements(store, async () => {
    await store.query('SELECT count() AS n FROM {{db}}.messages WHERE tenant_id = {t:String}', { t: 't00' });
    await store.query('SELECT 1 AS one');
  });
  assert.is(statements.length, 2);
  assert.equal(statements[0]!.params, { t: 't00' });
  const all = await n('SELECT count() AS n FROM {{db}}.messages');
  const p = await measureReads(store, statements);
  assert.is(p.statements, 2);
  assert.ok(p.rows_read >= all / 3 && p.rows_read <= all + 1, `rows read ${p.rows_read} of ${all}`);
  assert.ok(p.bytes_read > 0);
  // the store is restored: later queries are not recorded
  await store.query('SELECT 2 AS two');
  assert.is(statements.length, 2);
});

test.run();
