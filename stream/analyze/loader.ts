/**
 * Reads ONE snapshot of every conversation of an analysis batch: its messages in order, the calls
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
import type { AggregateIn, Keyed, LoadedChunk } from './work-items.js';

export interface ConversationKey {
  tenantId: string;
  conversationId: string;
}

/** Conversations per read: bounds the IN list and the memory of one query. */
export const LOAD_CHUNK = 500;

/**
 * The reads of `keys`, in chunks of `LOAD_CHUNK`: the large ones as the engine's JSONEachRow text,
 * for the analysis thread to parse (work-items.ts `workItemsOf`), then the memory of the chunks' users.
 */
export async function loadWorkChunks(store: Store, keys: readonly ConversationKey[]): Promise<LoadedChunk[]> {
  const chunks = await loadConversationChunks(store, keys);
  await attachMemories(store, chunks);
  return chunks;
}

/**
 * The five reads of every chunk of `keys`: what belongs to these conversations alone (their rows,
 * aggregates, analyzer outcomes, rollup state). Each chunk's `memories` is left empty: a user's
 * memory is shared with their other conversations, so it is read by `attachMemories` only when
 * the analysis that needs it is about to run (analyze-consumer.ts reads a batch's conversations
 * while the batch before it is analyzed and written).
 */
export async function loadConversationChunks(store: Store, keys: readonly ConversationKey[]): Promise<LoadedChunk[]> {
  const chunks: LoadedChunk[] = [];
  for (let i = 0; i < keys.length; i += LOAD_CHUNK) {
    const chunk = keys.slice(i, i + LOAD_CHUNK);
    const params = { keys: chunk.map((k) => new TupleParam([k.tenantId, k.conversationId])) };
    // one read at a time: five reads at once took the cores from the sink's inserts and the data
    // API's reads (docs/stream.md "Analysis work on its own thread")
    const messages = await store.queryText(namedQuery('stream-analysis-messages'), params);
    const calls = await store.queryText(namedQuery('stream-analysis-calls'), params);
    const aggregates = await store.query<Keyed<AggregateIn>>(namedQuery('stream-analysis-rollup'), params);
    const states = await store.queryText(namedQuery('stream-analysis-state'), params);
    const toolState = await store.queryText(namedQuery('stream-tool-rollup-state'), params);
    chunks.push({ keys: chunk.map((k) => ({ tenantId: k.tenantId, conversationId: k.conversationId })), messages, calls, states, toolState, aggregates, memories: [] });
  }
  return chunks;
}

/** Reads the stored memory of each chunk's users (known from its aggregates) into its `memories`. */
export async function attachMemories(store: Store, chunks: LoadedChunk[]): Promise<void> {
  for (const chunk of chunks) chunk.memories = await loadMemories(store, chunk.aggregates);
}

/** The stored memory of the users of a chunk, by `tenant \0 user` (users without an id have none). */
async function loadMemories(store: Store, aggregates: ReadonlyArray<{ tenant_id: string; user_id: string }>): Promise<Array<[string, string]>> {
  const users = new Map<string, [string, string]>();
  for (const r of aggregates) if (r.user_id) users.set(`${r.tenant_id}\u0000${r.user_id}`, [r.tenant_id, r.user_id]);
  if (users.size === 0) return [];
  const rows = await store.query<MemoryRowIn & { tenant_id: string; user_id: string }>(namedQuery('stream-analysis-user-memory'), { users: [...users.values()].map((u) => new TupleParam(u)) });
  return rows.map((r) => [`${r.tenant_id}\u0000${r.user_id}`, r.doc]);
}

/**
 * A batch's conversations in at most `parts` groups of whole tenants, for analysis threads working
 * at once (a tenant's failure categories and its users' memories are built in one place): tenants
 * by size, largest first, each to the smallest group so far (ties: the earlier group); each group
 * keeps the batch's order. One tenant, or one part, is one group.
 */
export function tenantGroups(keys: readonly ConversationKey[], parts: number): ConversationKey[][] {
  const byTenant = new Map<string, number>();
  for (const k of keys) byTenant.set(k.tenantId, (byTenant.get(k.tenantId) ?? 0) + 1);
  const n = Math.max(1, Math.min(Math.floor(parts), byTenant.size));
  if (n === 1) return keys.length ? [[...keys]] : [];
  const sizes = new Array<number>(n).fill(0);
  const groupOf = new Map<string, number>();
  const tenants = [...byTenant].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (const [tenant, count] of tenants) {
    let g = 0;
    for (let i = 1; i < n; i++) if (sizes[i]! < sizes[g]!) g = i;
    groupOf.set(tenant, g);
    sizes[g]! += count;
  }
  const groups: ConversationKey[][] = Array.from({ length: n }, () => []);
  for (const k of keys) groups[groupOf.get(k.tenantId)!]!.push(k);
  return groups;
}
