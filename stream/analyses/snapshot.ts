/**
 * Builds the snapshot every analyzer reads from stored messages (in conversation order) and the
 * tool calls that telemetry recorded. Pure; shared by the stream role (rows read from ClickHouse)
 * and `tracehouse analyze` (events read from a file), so both paths analyze the same thing.
 *
 * A call is the pairing of one `tool_use` with the `tool_result` that answers it, in order: real
 * producers reuse ids within a conversation (tau-bench does), so a result answers the earliest
 * call with its id that has no result yet, and a reused id gets its own key (`id#2`, `id#3`, …,
 * the names `tracehouse import` gives such calls).
 */
import type { ContentBlock } from '../../schemas/events.js';
import { effectClass } from '../effect-class.js';
import type { ConversationSnapshot, Role, SnapshotMessage, SnapshotToolCall } from './types.js';
import { capText } from './text/prose.js';

/** spec/data-api.md: tool call input and tool result content are truncated strings. */
export const MAX_INPUT_CHARS = 4096;
export const MAX_RESULT_CHARS = 2048;

/** A message as stored (the `messages` table, or a normalized direct event). */
export interface StoredMessage {
  messageId: string;
  role: Role;
  content: string;
  blocks: readonly ContentBlock[];
  tsMs: number;
  threadId: string;
}

/** A telemetry call folded by its id (the `tool_calls` table). `success`: −1 unknown, 0, 1. */
export interface StoredCall {
  callId: string;
  toolName: string;
  input: string;
  command: string;
  tsMs: number;
  success: number;
  error: string;
  errorType: string;
  decision: string;
}

export interface SnapshotInput {
  tenantId: string;
  conversationId: string;
  userId?: string;
  environment?: string;
  /** In conversation order; the position is the message index. */
  messages: readonly StoredMessage[];
  calls?: readonly StoredCall[];
}

const toText = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));
const cap = capText;

/** Text of a tool result's content: strings as they are, arrays of text blocks joined. */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((b) => (b && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string' ? (b as { text: string }).text : toText(b)))
      .join('\n');
  }
  return toText(content);
}

/** The shell command of a call's input (an object, or its JSON text as stored), when it names one. */
function commandOf(input: unknown): string {
  if (typeof input === 'string' && input.startsWith('{')) {
    try {
      input = JSON.parse(input);
    } catch {
      return ''; // capped JSON text: no command recoverable
    }
  }
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const c = (input as Record<string, unknown>).command ?? (input as Record<string, unknown>).cmd;
    if (typeof c === 'string') return c;
    if (Array.isArray(c)) return c.map(String).join(' ');
  }
  return '';
}

export function buildSnapshot(input: SnapshotInput): ConversationSnapshot {
  const messages: SnapshotMessage[] = input.messages.map((m, index) => ({
    index,
    messageId: m.messageId,
    role: m.role,
    text: m.content,
    blocks: m.blocks,
    ts: m.tsMs,
    threadId: m.threadId,
  }));
  const calls: SnapshotToolCall[] = [];
  const uses = new Map<string, number>();
  /** Calls of each producer id still waiting for their result, in order. */
  const waiting = new Map<string, SnapshotToolCall[]>();
  const byId = new Map<string, SnapshotToolCall[]>();
  /** Results with no earlier call of their id (their call may come later, or never). */
  const orphans: Array<{ m: SnapshotMessage; id: string; content: unknown; isError: boolean }> = [];
  for (const m of messages) {
    for (const b of m.blocks) {
      if (b.type === 'tool_use' && b.tool_use_id) {
        const n = (uses.get(b.tool_use_id) ?? 0) + 1;
        uses.set(b.tool_use_id, n);
        const inputText = cap(toText(b.input), MAX_INPUT_CHARS);
        const command = commandOf(b.input);
        const call: SnapshotToolCall = {
          key: n === 1 ? b.tool_use_id : `${b.tool_use_id}#${n}`,
          toolUseId: b.tool_use_id,
          toolName: b.tool_name ?? '',
          input: inputText,
          command,
          messageIndex: m.index,
          resultIndex: null,
          position: m.index,
          ts: m.ts,
          success: null,
          resultText: '',
          errorType: '',
          decision: '',
          effectClass: effectClass(b.tool_name ?? '', command, inputText),
        };
        calls.push(call);
        push(waiting, b.tool_use_id, call);
        push(byId, b.tool_use_id, call);
      } else if (b.type === 'tool_result' && b.tool_use_id) {
        const call = waiting.get(b.tool_use_id)?.shift();
        if (call) answer(call, m.index, b.content, !!b.is_error);
        // a second answer to an answered call is a duplicate: the first answer stands
        else if (!byId.has(b.tool_use_id)) orphans.push({ m, id: b.tool_use_id, content: b.content, isError: !!b.is_error });
      }
    }
  }
  for (const o of orphans) {
    // the call came after its result in conversation order (clock skew): pair with the first such call
    const later = (byId.get(o.id) ?? []).find((c) => c.success === null && c.messageIndex! > o.m.index);
    if (later) {
      answer(later, o.m.index, o.content, o.isError);
      continue;
    }
    // a result whose call was never recorded is still a call (of an unknown tool)
    const n = (uses.get(o.id) ?? 0) + 1;
    uses.set(o.id, n);
    const call: SnapshotToolCall = {
      key: n === 1 ? o.id : `${o.id}#${n}`,
      toolUseId: o.id,
      toolName: '',
      input: '',
      command: '',
      messageIndex: null,
      resultIndex: null,
      position: o.m.index,
      ts: o.m.ts,
      success: null,
      resultText: '',
      errorType: '',
      decision: '',
      effectClass: effectClass(''),
    };
    answer(call, o.m.index, o.content, o.isError);
    calls.push(call);
    push(byId, o.id, call);
  }
  for (const t of input.calls ?? []) {
    const fromMessages = byId.get(t.callId);
    if (fromMessages) {
      // the same call seen by telemetry too: messages decide the pairing, telemetry adds detail
      const c = fromMessages[fromMessages.length - 1]!;
      if (c.success === null && t.success >= 0) {
        c.success = t.success === 1;
        c.resultText = cap(t.error, MAX_RESULT_CHARS);
      }
      c.errorType ||= t.errorType;
      c.decision ||= t.decision;
      c.command ||= t.command;
      continue;
    }
    calls.push({
      key: t.callId,
      toolUseId: t.callId,
      toolName: t.toolName,
      input: cap(t.input, MAX_INPUT_CHARS),
      command: t.command,
      messageIndex: null,
      resultIndex: null,
      position: positionAt(messages, t.tsMs),
      ts: t.tsMs,
      success: t.success < 0 ? null : t.success === 1,
      resultText: cap(t.error, MAX_RESULT_CHARS),
      errorType: t.errorType,
      decision: t.decision,
      effectClass: effectClass(t.toolName, t.command, t.input),
    });
  }
  calls.sort((a, b) => a.position - b.position || a.ts - b.ts);
  return {
    tenantId: input.tenantId,
    conversationId: input.conversationId,
    userId: input.userId ?? '',
    environment: input.environment || 'production',
    messages,
    toolCalls: calls,
  };
}

function answer(call: SnapshotToolCall, index: number, content: unknown, isError: boolean): void {
  call.resultIndex = index;
  call.success = !isError;
  call.resultText = cap(resultText(content), MAX_RESULT_CHARS);
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Index of the last message at or before `ts` (−1 when none); messages are in time order. */
function positionAt(messages: readonly SnapshotMessage[], ts: number): number {
  let lo = 0;
  let hi = messages.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (messages[mid]!.ts <= ts) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
