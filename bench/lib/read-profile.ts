/**
 * What the data API's statements read: while an endpoint answers one request, every statement the
 * in-process query role sends through the store is recorded (SQL text and parameters), then each is
 * run once more in ClickHouse's `JSON` output format, whose `statistics` report the rows and bytes
 * the statement actually read (after primary-key, partition and skip-index pruning) and the
 * engine's elapsed time. It explains a slow endpoint without guessing: a read that grows with the
 * dataset shows as rows in the millions. Works the same on the embedded engine and on a server.
 */
import type { Store } from '../../core/clickhouse.js';

export interface ReadProfile {
  statements: number;
  rows_read: number;
  bytes_read: number;
  /** Sum of the statements' engine-side elapsed time (they may run in parallel in the API). */
  engine_ms: number;
}

interface Recorded {
  sql: string;
  params?: Record<string, unknown>;
}

/** Records every `store.query` during `fn` (the store is shared with the in-process query role). */
export async function recordStatements(store: Store, fn: () => Promise<unknown>): Promise<Recorded[]> {
  const seen: Recorded[] = [];
  const original = store.query;
  const s = store as { query: Store['query'] };
  s.query = ((sql: string, params?: Record<string, unknown>, settings?: never) => {
    seen.push({ sql, params });
    return original.call(store, sql, params, settings);
  }) as Store['query'];
  try {
    await fn();
  } finally {
    s.query = original;
  }
  return seen;
}

/** Runs each recorded statement again and sums the engine's read statistics. */
export async function measureReads(store: Store, statements: readonly Recorded[]): Promise<ReadProfile> {
  const p: ReadProfile = { statements: 0, rows_read: 0, bytes_read: 0, engine_ms: 0 };
  for (const st of statements) {
    const rs = await store.client.query({ query: store.sql(st.sql), query_params: st.params, format: 'JSON', clickhouse_settings: store.settings() });
    const body = (await rs.json()) as { statistics?: { elapsed?: number; rows_read?: number; bytes_read?: number } };
    p.statements++;
    p.rows_read += Number(body.statistics?.rows_read ?? 0);
    p.bytes_read += Number(body.statistics?.bytes_read ?? 0);
    p.engine_ms += Number(body.statistics?.elapsed ?? 0) * 1000;
  }
  p.engine_ms = Math.round(p.engine_ms * 10) / 10;
  return p;
}
