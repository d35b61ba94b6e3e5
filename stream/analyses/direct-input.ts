/**
 * Direct-ingest events in the standard form (spec/ingestion.md) to conversation snapshots, for
 * `tracehouse analyze` and the evaluation: the offline counterpart of reading `messages` from
 * ClickHouse. Text follows the ingest rule (`message` wins, else `content` as a string, else the
 * text blocks joined by "\n"); message indexes are input order; a message id sent twice keeps its
 * first place and its latest content, as the store's replacing tables do.
 */
import type { ContentBlock } from '../../schemas/events.js';
import { buildSnapshot, type StoredMessage } from './snapshot.js';
import type { ConversationSnapshot, Role } from './types.js';

export interface DirectInputProblem {
  /** 1-based position in the input. */
  line: number;
  reason: string;
}

const ROLES = new Set(['user', 'assistant', 'system', 'tool']);

function blocksOf(e: Record<string, unknown>): ContentBlock[] {
  const content = Array.isArray(e.content) ? e.content : [];
  const extra = Array.isArray(e.content_blocks) ? e.content_blocks : [];
  return (content.length ? content : extra).filter((b): b is ContentBlock => !!b && typeof b === 'object' && typeof (b as { type?: unknown }).type === 'string');
}

function textOf(e: Record<string, unknown>, blocks: readonly ContentBlock[]): string {
  if (typeof e.message === 'string') return e.message;
  if (typeof e.content === 'string') return e.content;
  return blocks.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n');
}

/**
 * Groups events by conversation (first-seen order) and builds one snapshot each. Events without a
 * conversation id or a known role are reported, not guessed.
 */
export function snapshotsFromDirectEvents(
  events: readonly unknown[],
  opts: { tenantId?: string; nowMs?: number } = {},
): { snapshots: ConversationSnapshot[]; problems: DirectInputProblem[] } {
  const tenantId = opts.tenantId ?? 'default';
  const now = opts.nowMs ?? Date.now();
  const problems: DirectInputProblem[] = [];
  const conversations = new Map<string, { messages: Map<string, StoredMessage>; userId: string; environment: string }>();
  events.forEach((raw, i) => {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return problems.push({ line: i + 1, reason: 'event is not an object' });
    const e = raw as Record<string, unknown>;
    const conversationId = typeof e.conversation_id === 'string' ? e.conversation_id : typeof e.conversationId === 'string' ? e.conversationId : '';
    if (!conversationId) return problems.push({ line: i + 1, reason: 'conversation_id is missing' });
    const role = e.role;
    if (typeof role !== 'string' || !ROLES.has(role)) return problems.push({ line: i + 1, reason: `role must be user, assistant or system` });
    const blocks = blocksOf(e);
    const ts = typeof e.timestamp === 'string' ? Date.parse(e.timestamp) : typeof e.timestamp === 'number' ? e.timestamp : NaN;
    let c = conversations.get(conversationId);
    if (!c) {
      c = { messages: new Map(), userId: '', environment: 'production' };
      conversations.set(conversationId, c);
    }
    if (typeof e.user_id === 'string' && e.user_id) c.userId = e.user_id;
    if (typeof e.environment === 'string' && e.environment) c.environment = e.environment;
    const messageId = typeof e.message_id === 'string' && e.message_id ? e.message_id : typeof e.id === 'string' && e.id ? e.id : `#${i}`;
    const previous = c.messages.get(messageId);
    const message: StoredMessage = {
      messageId,
      role: role as Role,
      content: textOf(e, blocks),
      blocks,
      tsMs: Number.isFinite(ts) ? ts : previous?.tsMs ?? now,
      threadId: typeof e.thread_id === 'string' ? e.thread_id : '',
    };
    c.messages.set(messageId, message);
  });
  const snapshots = [...conversations].map(([conversationId, c]) =>
    buildSnapshot({ tenantId, conversationId, userId: c.userId, environment: c.environment, messages: [...c.messages.values()] }),
  );
  return { snapshots, problems };
}
