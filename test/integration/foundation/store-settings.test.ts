import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../../core/config.js';
import { createStore, sessionSettings, type Store } from '../../../core/clickhouse.js';
import { tempDir } from '../../helpers/tmp.js';

// The embedded engine applies per-call settings with SET on its one session; none may outlive its call.
const store: Store = createStore(loadConfig({ DATA_DIR: tempDir() }));
/** An insert through the client itself on the engine's session (the way rows that name no column go). */
const clientInsert = (rows: object[], settings?: Record<string, string>) =>
  store.client.insert({ table: store.table('dedup'), values: rows, format: 'JSONEachRow', clickhouse_settings: store.settings(settings) });
const count = async () => Number((await store.query<{ n: string }>('SELECT count() AS n FROM {{db}}.dedup'))[0]!.n);

test.before(async () => {
  await store.command('CREATE DATABASE IF NOT EXISTS {{db}}');
  await store.command('CREATE TABLE {{db}}.dedup (k UInt32) ENGINE = MergeTree ORDER BY k SETTINGS non_replicated_deduplication_window = 100');
});
test.after(() => store.close());

test("an insert's deduplication token does not carry over to the next insert", async () => {
  await store.insert('dedup', [{ k: 1 }], { insert_deduplication_token: 'batch-a' });
  await store.insert('dedup', [{ k: 2 }]); // without the reset this block would reuse 'batch-a' and vanish
  await clientInsert([{ k: 3 }]);
  assert.is(await count(), 3);
  // the token itself still deduplicates a real redelivery
  await store.insert('dedup', [{ k: 1 }], { insert_deduplication_token: 'batch-a' });
  await clientInsert([{ k: 4 }], { insert_deduplication_token: 'batch-b' });
  await clientInsert([{ k: 4 }], { insert_deduplication_token: 'batch-b' });
  assert.is(await count(), 4);
});

test('a per-call setting applies to its call only', async () => {
  const value = async (name: string) => (await store.query<{ value: string }>(`SELECT value FROM system.settings WHERE name = {name:String}`, { name }))[0]!.value;
  const threads = await value('max_threads');
  await store.command('INSERT INTO {{db}}.dedup VALUES (9)', undefined, { insert_deduplicate: 0 });
  assert.is(await value('insert_deduplicate'), '1');
  const inCall = await store.query<{ value: string }>(`SELECT value FROM system.settings WHERE name = 'max_threads'`, undefined, { max_threads: 1 });
  assert.is(inCall[0]!.value, '1');
  assert.is(await value('max_threads'), threads);
  assert.is.not(threads, '1');
});

test('a setting without a known default is refused instead of leaking', () => {
  const per = sessionSettings();
  assert.throws(() => per({ max_block_size: '10' }), /max_block_size/);
  assert.equal(per(), undefined, 'nothing to reset before any setting was used');
  assert.equal(per({ insert_deduplication_token: 't' }), { insert_deduplication_token: 't' });
  assert.equal(per(), { insert_deduplication_token: '' });
});

test.run();
