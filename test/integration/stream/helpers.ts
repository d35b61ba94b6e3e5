/** Shared queries of the stream suites: exact counts as readers see them (deduplicated). */
import type { Store } from '../../../core/clickhouse.js';

export async function counts(store: Store, tenant = 'default') {
  const q = async (sql: string) => Number((await store.query<{ n: string }>(sql, { t: tenant }))[0]?.n ?? 0);
  return {
    events: await q('SELECT count() AS n FROM {{db}}.events FINAL WHERE tenant_id = {t:String}'),
    eventsRaw: await q('SELECT count() AS n FROM {{db}}.events WHERE tenant_id = {t:String}'),
    messages: await q('SELECT count() AS n FROM {{db}}.messages FINAL WHERE tenant_id = {t:String}'),
    /** Calls recorded by telemetry (hooks, logs, spans), folded by id. */
    toolCalls: await q('SELECT count() AS n FROM (SELECT call_id FROM {{db}}.tool_calls WHERE tenant_id = {t:String} GROUP BY conversation_id, call_id)'),
    /** Every call as the analysis pairs them (message blocks and telemetry). */
    analyzedCalls: await q('SELECT count() AS n FROM {{db}}.conversation_tool_calls FINAL WHERE tenant_id = {t:String}'),
    conversations: await q('SELECT count() AS n FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String}'),
  };
}

export async function conversation(store: Store, id: string, tenant = 'default') {
  const [r] = await store.query<Record<string, any>>('SELECT * FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String} AND conversation_id = {c:String}', { t: tenant, c: id });
  return r;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The store with every insert into the table `failTable()` names refused (a permanent error, as a
 * refused insert would be): row inserts and the analysis thread's byte inserts alike.
 */
export const failingInserts = (failTable: () => string | undefined) => (store: Store): Store => ({
  ...store,
  insert: async (t, rows, s) => {
    if (t === failTable()) throw new Error(`injected failure of ${t}`);
    return store.insert(t, rows, s);
  },
  insertBytes: async (t, columns, body, s, format) => {
    if (t === failTable()) throw new Error(`injected failure of ${t}`);
    return store.insertBytes(t, columns, body, s, format);
  },
});
