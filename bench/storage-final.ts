/**
 * Reads of the `conversations` ReplacingMergeTree: FINAL against argMax/GROUP BY and LIMIT 1 BY,
 * on an embedded chDB with unmerged versions (every conversation written `versions` times).
 * Usage: node dist/bench/storage-final.js [conversations=100000] [versions=3]
 */
import { loadConfig } from '../core/config.js';
import { createStore } from '../core/clickhouse.js';
import { migrate } from '../core/migrations.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const n = Number(process.argv[2] ?? 100_000);
const versions = Number(process.argv[3] ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'th-bench-final-'));
const store = createStore(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }));
try {
  await migrate(store);
  await store.command('SYSTEM STOP MERGES {{db}}.conversations');
  for (let v = 1; v <= versions; v++) {
    const rows = Array.from({ length: n }, (_, i) => ({
      tenant_id: i % 10 === 0 ? 't1' : 't0',
      conversation_id: `c${i}`,
      version: v,
      environment: 'production',
      user_id: `u${i % 1000}`,
      agent: 'agent-a',
      message_count: v * 2,
      first_ts: '2025-06-01 00:00:00.000',
      last_ts: new Date(Date.UTC(2025, 5, 1) + i * 1000 + v).toISOString(),
      input_tokens: v * 100,
    }));
    await store.insert('conversations', rows);
  }
  const time = async (label: string, sql: string, params: Record<string, unknown> = {}) => {
    await store.query(sql, params); // warm
    const runs: number[] = [];
    let result: unknown;
    for (let i = 0; i < 5; i++) {
      const t = process.hrtime.bigint();
      result = await store.query(sql, params);
      runs.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    runs.sort((a, b) => a - b);
    console.log(`${label.padEnd(48)} median ${runs[2]!.toFixed(1)} ms   ${JSON.stringify(result).slice(0, 60)}`);
  };
  console.log(`conversations: ${n}, versions each: ${versions}, merges stopped (worst case)`);
  const T = { t: 't0' };
  await time('list page, FINAL', `SELECT conversation_id, message_count, last_ts FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String} ORDER BY last_ts DESC LIMIT 20`, T);
  await time('list page, argMax GROUP BY', `SELECT conversation_id, argMax(message_count, version) AS m, argMax(last_ts, version) AS l FROM {{db}}.conversations WHERE tenant_id = {t:String} GROUP BY conversation_id ORDER BY l DESC LIMIT 20`, T);
  await time('list page, ORDER BY version LIMIT 1 BY', `SELECT conversation_id, message_count, last_ts FROM (SELECT conversation_id, message_count, last_ts FROM {{db}}.conversations WHERE tenant_id = {t:String} ORDER BY version DESC LIMIT 1 BY conversation_id) ORDER BY last_ts DESC LIMIT 20`, T);
  await time('total messages, FINAL', `SELECT sum(message_count) FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String}`, T);
  await time('total messages, argMax GROUP BY', `SELECT sum(m) FROM (SELECT argMax(message_count, version) AS m FROM {{db}}.conversations WHERE tenant_id = {t:String} GROUP BY conversation_id)`, T);
  await time('one conversation, FINAL', `SELECT * FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String} AND conversation_id = 'c12345'`, T);
  await time('one conversation, ORDER BY version LIMIT 1', `SELECT * FROM {{db}}.conversations WHERE tenant_id = {t:String} AND conversation_id = 'c12345' ORDER BY version DESC LIMIT 1`, T);
  await time('count without dedup (wrong: counts versions)', `SELECT count() FROM {{db}}.conversations WHERE tenant_id = {t:String}`, T);
  await store.command('SYSTEM START MERGES {{db}}.conversations');
  await store.command('OPTIMIZE TABLE {{db}}.conversations FINAL');
  console.log('after OPTIMIZE FINAL (fully merged):');
  await time('list page, FINAL (merged)', `SELECT conversation_id, message_count, last_ts FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String} ORDER BY last_ts DESC LIMIT 20`, T);
  await time('list page, no FINAL (merged)', `SELECT conversation_id, message_count, last_ts FROM {{db}}.conversations WHERE tenant_id = {t:String} ORDER BY last_ts DESC LIMIT 20`, T);
  await time('total messages, FINAL (merged)', `SELECT sum(message_count) FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String}`, T);
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
