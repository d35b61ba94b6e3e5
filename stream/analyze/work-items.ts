/**
 * What the analysis worker is given for each conversation: its rows as the loader reads them from
 * ClickHouse (loader.ts), and their conversion to the snapshot every analyzer reads.
 */
import type { ContentBlock } from '../../schemas/events.js';
import { buildSnapshot, type StoredCall, type StoredMessage } from '../analyses/snapshot.js';
import type { ConversationSnapshot, Role } from '../analyses/types.js';
import type { CallFact } from './tool-rollup-plan.js';
import { conversationKey } from '../conversation-key.js';

/** A `messages` row as the loader reads it. */
export interface MessageRowIn {
  message_id: string;
  role: string;
  content: string;
  tool_calls: string;
  tool_results: string;
  ts_ms: string | number;
  thread_id: string;
}

/** A telemetry call (`tool_calls` folded by id) as the loader reads it. */
export interface CallRowIn {
  call_id: string;
  tool_name: string;
  input: string;
  command: string;
  ts_ms: string | number;
  success: string | number;
  error: string;
  error_type: string;
  decision: string;
}

/** Events and messages aggregates of a conversation (stream-analysis-rollup.sql). */
export interface AggregateIn {
  events: string | number;
  environment: string;
  user_id: string;
  agent: string;
  message_count: string | number;
  first_ts: string;
  last_ts: string;
  input_tokens: string | number;
  output_tokens: string | number;
  cost_usd: number;
  api_request_count: string | number;
  api_error_count: string | number;
  thread_count: string | number;
  summary: string;
}

export interface StateIn {
  analyzer: string;
  analyzer_version: number | string;
  outcome: string;
  attempts: number | string;
  item_keys: string[];
}

export interface WorkItem {
  tenantId: string;
  conversationId: string;
  messages: MessageRowIn[];
  calls: CallRowIn[];
  aggregate?: AggregateIn;
  state: StateIn[];
  toolState: CallFact[];
  /** The stored memory document of the conversation's user (user_memory), when there is one. */
  userMemory?: string;
}

const parseArray = (text: string): Record<string, unknown>[] => {
  try {
    const v = JSON.parse(text || '[]');
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
};

/** A stored message back to the snapshot's shape: its text, then its tool blocks as stored. */
export function storedMessage(r: MessageRowIn): StoredMessage {
  const blocks: ContentBlock[] = [];
  if (r.content) blocks.push({ type: 'text', text: r.content });
  for (const c of parseArray(r.tool_calls)) blocks.push({ type: 'tool_use', tool_use_id: String(c.id ?? ''), tool_name: String(c.name ?? ''), input: c.input ?? '' });
  for (const c of parseArray(r.tool_results)) blocks.push({ type: 'tool_result', tool_use_id: String(c.tool_use_id ?? ''), content: c.content ?? '', is_error: c.is_error === true });
  return { messageId: r.message_id, role: r.role as Role, content: r.content, blocks, tsMs: Number(r.ts_ms), threadId: r.thread_id };
}

export function storedCall(r: CallRowIn): StoredCall {
  return {
    callId: r.call_id,
    toolName: r.tool_name,
    input: r.input,
    command: r.command,
    tsMs: Number(r.ts_ms),
    success: Number(r.success),
    error: r.error,
    errorType: r.error_type,
    decision: r.decision,
  };
}

export function snapshotOf(item: WorkItem): ConversationSnapshot {
  return buildSnapshot({
    tenantId: item.tenantId,
    conversationId: item.conversationId,
    userId: item.aggregate?.user_id ?? '',
    environment: item.aggregate?.environment || 'production',
    messages: item.messages.map(storedMessage),
    calls: item.calls.map(storedCall),
  });
}

/** A row keyed by its conversation. */
export type Keyed<T> = T & { tenant_id: string; conversation_id: string };

/**
 * One chunk of an analysis batch's reads (loader.ts): the large reads as the engine returned them
 * (JSONEachRow text), parsed into work items on the analysis thread (`workItemsOf`), so the main
 * thread neither parses them nor clones the objects to the thread.
 */
export interface LoadedChunk {
  keys: Array<{ tenantId: string; conversationId: string }>;
  messages: string;
  calls: string;
  states: string;
  toolState: string;
  /** Parsed on the main thread: the users' memory read needs them (one small row per conversation). */
  aggregates: Array<Keyed<AggregateIn>>;
  /** The stored memory of the chunk's users, by `tenant \0 user`. */
  memories: Array<[string, string]>;
}

/** JSONEachRow text as rows (a JSON value never holds a raw line break). */
function rowsOf<T>(text: string): T[] {
  const rows: T[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (end > start) rows.push(JSON.parse(text.slice(start, end)) as T);
    start = end + 1;
  }
  return rows;
}

function byConversation<T extends { tenant_id: string; conversation_id: string }>(rows: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const k = conversationKey(r.tenant_id, r.conversation_id);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

/** The work items of loaded chunks: one per key, in order. Pure. */
export function workItemsOf(chunks: readonly LoadedChunk[]): WorkItem[] {
  const items: WorkItem[] = [];
  for (const chunk of chunks) {
    const m = byConversation(rowsOf<Keyed<MessageRowIn>>(chunk.messages));
    const c = byConversation(rowsOf<Keyed<CallRowIn>>(chunk.calls));
    const s = byConversation(rowsOf<Keyed<StateIn>>(chunk.states));
    const t = byConversation(rowsOf<CallFact>(chunk.toolState));
    const a = new Map(chunk.aggregates.map((r) => [conversationKey(r.tenant_id, r.conversation_id), r]));
    const memories = new Map(chunk.memories);
    for (const k of chunk.keys) {
      const id = conversationKey(k.tenantId, k.conversationId);
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
