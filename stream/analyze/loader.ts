/**
 * Loads ONE snapshot of every conversation of an analysis batch: its messages in order, the calls
 * telemetry recorded, its event and message aggregates, what each analyzer last wrote, and the
 * tool-failure rollup's last state — five primary-key reads for the whole batch (of any tenants),
 * whatever the number of analyzers — then the memory of the batch's users (a sixth, once their
 * ids are known from the aggregates). Conversations are read in chunks to bound one query's memory.
 * Each read is a primary-key lookup and runs on one thread (`max_threads = 1` in its SQL): on small
 * lookups the engine's parallel pipeline cost more CPU than it saved (docs/stream.md "Analysis
 * snapshot reads").
 */
import { TupleParam } from '@clickhouse/client';
import { namedQuery, type Store } from '../../core/clickhouse.js';
import type { MemoryRowIn } from './state-rows.js';
import type { CallFact } from './tool-rollup-plan.js';
import type { AggregateIn, CallRowIn, MessageRowIn, StateIn, WorkItem } from './work-items.js';

export interface ConversationKey {
  tenantId: string;
  conversationId: string;
}

/** Conversations per read: bounds the IN list and the memory of one query. */
export const LOAD_CHUNK = 500;

type Keyed<T> = T & { tenant_id: string; conversation_id: string };
const keyOf = (r: { tenant_id: string; conversation_id: string }) => `${r.tenant_id}\u0000${r.conversation_id}`;

function group<T extends { tenant_id: string; conversation_id: string }>(rows: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const k = keyOf(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

/** Work items of `keys` (one per key, in order), read in chunks of `LOAD_CHUNK`. */
export async function loadWorkItems(store: Store, keys: readonly ConversationKey[]): Promise<WorkItem[]> {
  const items: WorkItem[] = [];
  for (let i = 0; i < keys.length; i += LOAD_CHUNK) {
    const chunk = keys.slice(i, i + LOAD_CHUNK);
    const params = { keys: chunk.map((k) => new TupleParam([k.tenantId, k.conversationId])) };
    // one read at a time: five reads at once took the cores from the sink's inserts and the data
    // API's reads (docs/stream.md "Analysis work on its own thread")
    const messages = await store.query<Keyed<MessageRowIn>>(namedQuery('stream-analysis-messages'), params);
    const calls = await store.query<Keyed<CallRowIn>>(namedQuery('stream-analysis-calls'), params);
    const aggregates = await store.query<Keyed<AggregateIn>>(namedQuery('stream-analysis-rollup'), params);
    const states = await store.query<Keyed<StateIn>>(namedQuery('stream-analysis-state'), params);
    const toolState = await store.query<CallFact>(namedQuery('stream-tool-rollup-state'), params);
    const m = group(messages);
    const c = group(calls);
    const a = new Map(aggregates.map((r) => [keyOf(r), r]));
    const memories = await loadMemories(store, aggregates);
    const s = group(states);
    const t = group(toolState);
    for (const k of chunk) {
      const id = `${k.tenantId}\u0000${k.conversationId}`;
      items.push({
        tenantId: k.tenantId,
        conversationId: k.conversationId,
        messages: m.get(id) ?? [],
        calls: c.get(id) ?? [],
        aggregate: a.get(id),
        state: s.get(id) ?? [],
        toolState: t.get(id) ?? [],
        userMemory: memories.get(`${k.tenantId}\u0000${a.get(id)?.user_id ?? ''}`),
      });
    }
  }
  return items;
}

/** The stored memory of the users of a chunk, by `tenant \0 user` (users without an id have none). */
async function loadMemories(store: Store, aggregates: ReadonlyArray<{ tenant_id: string; user_id: string }>): Promise<Map<string, string>> {
  const users = new Map<string, [string, string]>();
  for (const r of aggregates) if (r.user_id) users.set(`${r.tenant_id}\u0000${r.user_id}`, [r.tenant_id, r.user_id]);
  if (users.size === 0) return new Map();
  const rows = await store.query<MemoryRowIn & { tenant_id: string; user_id: string }>(namedQuery('stream-analysis-user-memory'), { users: [...users.values()].map((u) => new TupleParam(u)) });
  return new Map(rows.map((r) => [`${r.tenant_id}\u0000${r.user_id}`, r.doc]));
}
