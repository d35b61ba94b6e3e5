/**
 * Row counts of the tables, answered over NATS request/reply by a running stream role. With the
 * embedded ClickHouse only the running process may open the data directory, so `tracehouse
 * status` asks it here instead of opening the store itself (docs/operations.md "Status").
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { Store } from '../core/clickhouse.js';
import type { Logger } from '../core/log.js';
import { startResponder } from '../core/responder.js';

/** Request subject; replicas answer as one queue group (one reply per request). */
export const STATUS_SUBJECT = 'tracehouse.status.tables';
export const STATUS_TABLES = ['events', 'spans', 'messages', 'tool_calls', 'conversations'] as const;

export interface TableStatus {
  /** Stored rows per table (`count()`: duplicates not yet merged away are counted). */
  tables: Record<string, number>;
  at: string;
}

/** Counts rows of every table; `count()` is answered from part metadata, not by a scan. */
export async function tableCounts(store: Store): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of STATUS_TABLES) {
    const [r] = await store.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.${t}`);
    out[t] = Number(r?.n ?? 0);
  }
  return out;
}

export function startStatusResponder(nc: NatsConnection, store: Store, log: Logger): { stop(): void } {
  return startResponder(nc, STATUS_SUBJECT, 'status', async () => ({ tables: await tableCounts(store), at: new Date().toISOString() }) satisfies TableStatus, log);
}
