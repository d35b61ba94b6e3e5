import type { ClickHouseClient } from '@clickhouse/client';
import { loadMigrations } from '../../core/migrations.js';
import { conversations, type ConversationOptions } from '../workload/conversation.js';
import { conversationRows, type ConversationRows } from '../workload/rows.js';

export const TABLES = ['events', 'messages', 'tool_calls', 'conversations'] as const;
export type TableName = (typeof TABLES)[number];

/** Creates the core tables of sql/migrations in `database` (for the ceiling's own copy). */
export async function createTables(client: ClickHouseClient, database: string): Promise<void> {
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
  for (const m of loadMigrations()) {
    for (const st of m.statements) await client.command({ query: st.replaceAll('{{db}}', database).replaceAll('{{on_cluster}}', '') });
  }
}

/** Rows of `count` conversations starting at `from`, grouped by table. */
export function rowsFor(opts: ConversationOptions, count: number, from = 0): { rows: ConversationRows; events: number } {
  const rows: ConversationRows = { events: [], messages: [], tool_calls: [], conversations: [] };
  for (const c of conversations(opts, count, from)) {
    const r = conversationRows(c);
    for (const t of TABLES) for (const row of r[t]) rows[t].push(row);
  }
  return { rows, events: rows.events.length };
}

/** Inserts rows the way a batching sink does: JSONEachRow, `batchRows` per insert, table by table. */
export async function insertRows(client: ClickHouseClient, database: string, rows: ConversationRows, batchRows = 50_000): Promise<void> {
  for (const t of TABLES) {
    const all = rows[t];
    for (let i = 0; i < all.length; i += batchRows) {
      await client.insert({ table: `${database}.${t}`, values: all.slice(i, i + batchRows), format: 'JSONEachRow', clickhouse_settings: { date_time_input_format: 'best_effort' } });
    }
  }
}

export interface InsertCeiling {
  events: number;
  rows: number;
  seconds: number;
  events_per_s: number;
  rows_per_s: number;
}

/**
 * The store ceiling: bulk insert of the same rows the stream role would write for these events,
 * into the same table definitions, through @clickhouse/client on the same connection. Rows are
 * built before the clock starts.
 */
export async function measureInsert(client: ClickHouseClient, database: string, rows: ConversationRows, batchRows = 50_000): Promise<InsertCeiling> {
  await createTables(client, database);
  const total = TABLES.reduce((s, t) => s + rows[t].length, 0);
  const t0 = performance.now();
  await insertRows(client, database, rows, batchRows);
  const seconds = (performance.now() - t0) / 1000;
  await client.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  return { events: rows.events.length, rows: total, seconds: Math.round(seconds * 1000) / 1000, events_per_s: Math.round(rows.events.length / seconds), rows_per_s: Math.round(total / seconds) };
}
