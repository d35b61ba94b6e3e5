import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyEngine, granularityOf, scaledIndexClauses } from '../../../core/table-rebuild.js';
import { loadMigrations } from '../../../core/migrations.js';

test('the copy keeps the engine clause and changes only the rows per granule', () => {
  const engine = 'ReplacingMergeTree(inserted_at) PARTITION BY toYYYYMM(ts) ORDER BY (tenant_id, conversation_id, message_id) SETTINGS non_replicated_deduplication_window = 10000, index_granularity = 8192';
  assert.is(
    copyEngine(engine, 'messages', 'messages__m160', 1024),
    'ReplacingMergeTree(inserted_at) PARTITION BY toYYYYMM(ts) ORDER BY (tenant_id, conversation_id, message_id) SETTINGS non_replicated_deduplication_window = 10000, index_granularity = 1024',
  );
  assert.is(copyEngine('MergeTree ORDER BY k SETTINGS a = 1', 't', 'c', 1024), 'MergeTree ORDER BY k SETTINGS a = 1, index_granularity = 1024');
  assert.is(copyEngine('MergeTree ORDER BY k', 't', 'c', 256), 'MergeTree ORDER BY k SETTINGS index_granularity = 256');
  assert.is(granularityOf(engine), 8192);
  assert.is(granularityOf('MergeTree ORDER BY k'), 8192);
  assert.is(granularityOf(copyEngine(engine, 'messages', 'm2', 1024)), 1024);
});

test('a replicated copy gets a coordination path of its own', () => {
  const expanded = "ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/tracehouse/events', '{replica}') PARTITION BY toYYYYMM(event_time) ORDER BY (tenant_id, conversation_id, event_time, event_id) SETTINGS index_granularity = 8192";
  assert.is(
    copyEngine(expanded, 'events', 'events__m160', 1024),
    "ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/tracehouse/events__m160', '{replica}') PARTITION BY toYYYYMM(event_time) ORDER BY (tenant_id, conversation_id, event_time, event_id) SETTINGS index_granularity = 1024",
  );
  // a path with a per-table macro is already the copy's own
  const macro = "ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}') ORDER BY k";
  assert.is(copyEngine(macro, 'tool_calls', 'tool_calls__m160', 1024), `${macro} SETTINGS index_granularity = 1024`);
  // a path that does not end with the table's name gets the copy's name under it
  assert.match(copyEngine("ReplicatedMergeTree('/ch/x', 'r') ORDER BY k", 't', 'c', 1024), "ReplicatedMergeTree('/ch/x/c', 'r')");
});

test('skip indexes keep the rows they cover per index granule; whole-part indexes are kept', () => {
  const clauses = scaledIndexClauses(
    [
      { name: 'idx_user', expr: 'user_id', type_full: 'bloom_filter(0.01)', granularity: 4 },
      { name: 'idx_words', expr: 'lowerUTF8(content)', type_full: "text(tokenizer = 'splitByNonAlpha')", granularity: 100_000_000 },
    ],
    8,
  );
  assert.equal(clauses, ['DROP INDEX idx_user, ADD INDEX idx_user user_id TYPE bloom_filter(0.01) GRANULARITY 32']);
  assert.equal(scaledIndexClauses([{ name: 'i', expr: 'x', type_full: 'minmax', granularity: 1 }], 1), []);
});

test('migration numbers are unique across the files and the programs', () => {
  const versions = loadMigrations().map((m) => m.version);
  assert.equal(versions, [...new Set(versions)].sort((a, b) => a - b));
  assert.ok(loadMigrations().some((m) => m.name === '0160_conversation_granules' && m.run && m.checksum.length === 16));
});

test.run();
