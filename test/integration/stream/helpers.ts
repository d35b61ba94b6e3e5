/** Shared queries of the stream suites: exact counts as readers see them (deduplicated). */
import type { Store } from '../../../core/clickhouse.js';
import { joined } from '../../../core/bytes.js';

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
 * refused insert would be): row inserts and the analysis thread's byte inserts alike. With
 * `refuse`, an insert into its table whose text holds its text is refused too, as the engine
 * refuses a whole insert for one row it cannot take.
 */
export const failingInserts = (failTable: () => string | undefined, refuse: () => { table: string; text: string } | undefined = () => undefined) => (store: Store): Store => {
  const refused = (t: string, text: () => string) => {
    if (t === failTable()) throw new Error(`injected failure of ${t}`);
    const r = refuse();
    if (r && r.table === t && text().includes(r.text)) throw new Error(`injected refusal of a row of ${t} holding ${r.text}`);
  };
  return {
    ...store,
    insert: async (t, rows, s) => {
      refused(t, () => JSON.stringify(rows));
      return store.insert(t, rows, s);
    },
    insertBytes: async (t, columns, body, s, format) => {
      refused(t, () => joined(body).toString());
      return store.insertBytes(t, columns, body, s, format);
    },
  };
};
