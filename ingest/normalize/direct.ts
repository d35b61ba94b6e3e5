import { createHash } from 'node:crypto';
import type { Attributes, ContentBlock, Environment, MessageFacet } from '../../schemas/events.js';
import { redact, redactDeep } from '../redact/redact.js';
import { check } from '../validate.js';
import { storedTimestamp } from './coerce.js';
import { draft, iso, text, type EventDraft, type NormalizeContext } from './event.js';
import { jsonText } from './sanitize.js';
import { LIMITS } from '../redact/cap.js';
import { setOwn } from '../../core/own.js';

export type DirectOutcome = { kind: 'event'; event: EventDraft } | { kind: 'rejected'; reason: string };

const STANDARD_KEYS = new Set([
  'conversation_id', 'role', 'message', 'content', 'content_blocks', 'timestamp', 'trace_id', 'user_id', 'input_tokens',
  'output_tokens', 'reasoning_tokens', 'model', 'provider', 'environment', 'prompt_id', 'prompt_name', 'prompt_version',
  'message_id', 'thread_id', 'parent_message_id', 'metadata',
]);

/** Direct ingest: standard (snake_case), channel and tool_call events, each validated on its own. */
export function normalizeDirect(ctx: NormalizeContext, raw: unknown, position: number): DirectOutcome {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { kind: 'rejected', reason: 'event must be an object' };
  const e = raw as Record<string, unknown>;
  const messageType = e['messageType'];
  if (messageType === 'channel') return channel(ctx, e);
  if (messageType === 'tool_call') return toolCall(ctx, e);
  if (messageType !== undefined) return { kind: 'rejected', reason: `messageType must be channel or tool_call (or absent for a standard event), got ${JSON.stringify(messageType).slice(0, 40)}` };
  return standard(ctx, e, position);
}

/** The event's time as stored (ISO 8601, UTC), or why it is refused. */
function time(ctx: NormalizeContext, v: unknown): { iso: string } | { reason: string } {
  if (v === undefined) return { iso: ctx.receiveTimeIso ?? iso(ctx.receiveTime) };
  const at = typeof v === 'string' && !/^\d+(\.\d+)?$/.test(v.trim()) ? storedTimestamp(v) : undefined;
  return at ? { iso: at } : { reason: 'timestamp must be an ISO 8601 date-time between 1900-01-01 and 2299-12-31' };
}

/** Text for search: `message` wins over `content`; else the text of `text` blocks. Redacted. */
function blocksOf(e: Record<string, unknown>): ContentBlock[] {
  const content = Array.isArray(e['content']) ? (e['content'] as ContentBlock[]) : [];
  const extra = Array.isArray(e['content_blocks']) ? (e['content_blocks'] as ContentBlock[]) : [];
  return (content.length ? content : extra).map((b) => redactDeep(b) as ContentBlock);
}

function standard(ctx: NormalizeContext, e: Record<string, unknown>, position: number): DirectOutcome {
  const invalid = check('standard-event', e);
  if (invalid) return { kind: 'rejected', reason: invalid };
  const at = time(ctx, e['timestamp']);
  if ('reason' in at) return { kind: 'rejected', reason: at.reason };
  const blocks = blocksOf(e);
  const content = typeof e['message'] === 'string'
    ? (e['message'] as string)
    : typeof e['content'] === 'string'
      ? (e['content'] as string)
      : blocks.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n');
  const conversation = e['conversation_id'] as string;
  const message: MessageFacet = {
    message_id: text(e['message_id']) || derivedMessageId(e, conversation, content, blocks, position),
    role: e['role'] as MessageFacet['role'],
    content: redact(content),
    content_blocks: blocks,
    format: 'standard',
  };
  for (const k of ['model', 'provider', 'prompt_id', 'prompt_name', 'thread_id', 'parent_message_id'] as const) {
    if (typeof e[k] === 'string' && e[k]) message[k] = e[k] as string;
  }
  if (e['prompt_version'] !== undefined) message.prompt_version = String(e['prompt_version']);
  for (const k of ['input_tokens', 'output_tokens', 'reasoning_tokens'] as const) if (typeof e[k] === 'number') message[k] = e[k] as number;
  if (e['metadata'] && typeof e['metadata'] === 'object') message.metadata = redactDeep(e['metadata']) as Attributes;
  const attributes: Attributes = {};
  for (const [k, v] of Object.entries(e)) if (!STANDARD_KEYS.has(k)) setOwn(attributes, k, redactDeep(v));
  const event = draft(ctx, {
    type: 'message',
    name: 'message',
    event_time: at.iso,
    conversation_id: conversation,
    user_id: text(e['user_id']),
    environment: (e['environment'] as Environment | undefined) ?? ctx.environment ?? 'production',
    sequence: position,
    trace_id: text(e['trace_id']) || conversation,
    attributes,
    message,
  });
  return { kind: 'event', event };
}

/**
 * Without `message_id`, the id is a hash of the conversation, role, timestamp as sent and content,
 * so a re-sent message keeps its id. Without a timestamp the position in the request is mixed in:
 * two identical short messages ("ok") in one request stay two messages.
 */
function derivedMessageId(e: Record<string, unknown>, conversation: string, content: string, blocks: ContentBlock[], position: number): string {
  const h = createHash('sha256');
  h.update(JSON.stringify([conversation, e['role'], e['timestamp'] ?? `#${position}`, content, blocks]));
  return `msg_${h.digest('hex').slice(0, 32)}`;
}

function channel(ctx: NormalizeContext, e: Record<string, unknown>): DirectOutcome {
  const invalid = check('channel-event', e);
  if (invalid) return { kind: 'rejected', reason: invalid };
  const at = time(ctx, e['timestamp']);
  if ('reason' in at) return { kind: 'rejected', reason: at.reason };
  const message: MessageFacet = {
    message_id: e['id'] as string,
    role: e['role'] as MessageFacet['role'],
    content: redact(e['message'] as string),
    content_blocks: [],
    format: 'channel',
  };
  if (e['metadata']) message.metadata = redactDeep(e['metadata']) as Attributes;
  const conversation = e['conversationId'] as string;
  return {
    kind: 'event',
    event: draft(ctx, {
      type: 'message',
      name: 'message',
      event_time: at.iso,
      conversation_id: conversation,
      user_id: text(e['userId']),
      trace_id: conversation,
      message,
    }),
  };
}

function toolCall(ctx: NormalizeContext, e: Record<string, unknown>): DirectOutcome {
  const invalid = check('tool-call-event', e);
  if (invalid) return { kind: 'rejected', reason: invalid };
  const at = time(ctx, e['timestamp']);
  if ('reason' in at) return { kind: 'rejected', reason: at.reason };
  const conversation = e['conversationId'] as string;
  const response = e['toolCallResponse'] as Record<string, unknown> | undefined;
  const attributes: Attributes = {};
  // the tool's input, like a hook's tool_input: every text inside redacted and capped like a command
  if (e['toolCallRequest'] !== undefined) attributes['request'] = redactDeep(e['toolCallRequest'], LIMITS.commandBytes);
  // the response is tool output: kept only as redacted JSON text capped like a command
  if (response !== undefined) attributes['response'] = jsonText(response).text;
  if (e['metadata']) attributes['metadata'] = redactDeep(e['metadata']);
  const failed = response && (response['error'] !== undefined || response['is_error'] === true || response['isError'] === true);
  const event = draft(ctx, {
    type: 'tool_call',
    name: e['name'] as string,
    event_time: at.iso,
    conversation_id: conversation,
    user_id: text(e['userId']),
    trace_id: conversation,
    attributes,
    tool: {
      name: e['name'] as string,
      call_id: e['id'] as string,
      ...(e['toolCallRequest'] !== undefined ? { input: jsonText(e['toolCallRequest']).text } : {}),
      ...(response !== undefined ? { success: !failed } : {}),
    },
  });
  return { kind: 'event', event };
}
