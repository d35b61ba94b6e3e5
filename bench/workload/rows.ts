import type { Conversation } from './conversation.js';
import { agentARecords, agentBRecords, type Attr } from './otlp.js';
import { agentAHooks, directEvents } from './hooks-direct.js';
import { storedContentBlocks } from '../../schemas/content-blocks.js';
import { refsOf } from '../../schemas/attribute-refs.js';
import { stringMap as storedMap } from '../../stream/rows.js';

/**
 * ClickHouse rows (tables of sql/migrations/0001_core_tables.sql) for one generated conversation:
 * what the stream role stores for it, derived directly from the generator. Used to bulk-load the
 * query dataset and to measure the bare insert ceiling with the same rows. The type mapping follows
 * spec/ingestion.md's normalization tables; it is a benchmark approximation, not the normalizer.
 */
export interface ConversationRows {
  events: Record<string, unknown>[];
  messages: Record<string, unknown>[];
  tool_calls: Record<string, unknown>[];
  conversations: Record<string, unknown>[];
}

const TYPE_A: Record<string, string> = { user_prompt: 'prompt', tool_decision: 'tool_decision', tool_result: 'tool_result', api_request: 'api_request' };
const TYPE_B: Record<string, string> = {
  'codex.conversation_starts': 'session_start', 'codex.user_prompt': 'prompt', 'codex.api_request': 'api_request',
  'codex.sse_event': 'stream_event', 'codex.tool_decision': 'tool_decision', 'codex.tool_result': 'tool_result',
};
const TYPE_HOOK: Record<string, string> = {
  SessionStart: 'session_start', UserPromptSubmit: 'prompt', PreToolUse: 'tool_decision', PostToolUse: 'tool_result',
  PostToolUseFailure: 'tool_result', Stop: 'session_end',
};

/** ClickHouse DateTime64(3) text: `YYYY-MM-DD hh:mm:ss.mmm` (accepted without best_effort parsing too). */
export const chTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

const attrMap = (attrs: Attr[]) => {
  const out: Record<string, string> = {};
  for (const [k, v] of attrs) out[k] = 's' in v ? v.s : 'i' in v ? String(v.i) : 'd' in v ? String(v.d) : String(v.b);
  return out;
};

const stringMap = (o: Record<string, unknown>) => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return out;
};

export function conversationRows(c: Conversation, receiveMs = c.startMs): ConversationRows {
  const agent = c.format.endsWith('-b') ? 'agent-b' : c.format === 'direct' ? 'direct' : 'agent-a';
  const source = c.format.startsWith('otlp') ? 'logs' : c.format === 'hooks-a' ? 'hooks' : 'ingest';
  const common = { tenant_id: c.tenant, conversation_id: c.id, user_id: c.userId, environment: c.environment, agent, source, receive_time: chTime(receiveMs), trace_id: '', span_id: '' };
  const events: Record<string, unknown>[] = [];
  // the conversation's span covers its non-message events too, as the stream role's rollup computes it
  let firstMs = c.messages[0]!.timeMs;
  let lastMs = c.messages[c.messages.length - 1]!.timeMs;
  const push = (seq: number, timeMs: number, type: string, name: string, attributes: Record<string, string>, resource: Record<string, string>, scope: { name: string; version: string }) => {
    if (timeMs < firstMs) firstMs = timeMs;
    if (timeMs > lastMs) lastMs = timeMs;
    const row: Record<string, unknown> = {
      ...common, event_id: `${c.id}:${seq}`, event_time: chTime(timeMs), type, name, sequence: seq,
      resource, scope_name: scope.name, scope_version: scope.version, facets: '{}', attribute_refs: 1,
    };
    // stored by reference to the row's columns, as the stream stores them (schemas/attribute-refs.ts)
    row.attributes = storedMap(attributes, refsOf(row));
    events.push(row);
  };
  if (c.format.startsWith('otlp')) {
    const a = c.format.endsWith('-a');
    const spec = a ? agentARecords(c) : agentBRecords(c);
    const resource = attrMap(spec.resource);
    spec.records.forEach((r, i) => {
      const attrs = attrMap(r.attributes);
      const name = a ? r.body ?? '' : attrs['event.name'] ?? '';
      const type = a ? TYPE_A[attrs['event.name'] ?? ''] ?? 'unknown' : TYPE_B[name] ?? 'unknown';
      push(i, r.timeMs, type, name, attrs, resource, spec.scope);
    });
  } else if (c.format === 'hooks-a') {
    agentAHooks(c).forEach((h, i) => push(i, Date.parse(String(h.timestamp)), TYPE_HOOK[String(h.hook)] ?? 'hook', String(h.hook), stringMap(h), {}, { name: '', version: '' }));
  } else {
    directEvents(c).events.forEach((e, i) => {
      const type = e.messageType === 'tool_call' ? 'tool_call' : 'message';
      push(i, Date.parse(String(e.timestamp)), type, type, stringMap(e), {}, { name: '', version: '' });
    });
  }
  const messages = c.messages.map((m, i) => ({
    tenant_id: c.tenant, conversation_id: c.id, message_id: `${c.id}:m${i}`, ts: chTime(m.timeMs), seq: i, role: m.role,
    content: m.text,
    // as the stream role stores them (schemas/content-blocks.ts): the text block by reference to `content`
    content_blocks: storedContentBlocks([...(m.thinking ? [{ type: 'thinking' as const, text: m.thinking }] : []), { type: 'text' as const, text: m.text }], m.text),
    tool_calls: JSON.stringify(m.toolCalls.map((tc) => ({ id: tc.id, name: tc.name, input: JSON.stringify(tc.input).slice(0, 512) }))),
    tool_results: JSON.stringify(m.toolCalls.map((tc) => ({ tool_use_id: tc.id, content: tc.success ? 'ok' : tc.error, is_error: !tc.success }))),
    has_tool_error: m.toolCalls.some((tc) => !tc.success) ? 1 : 0,
    model: m.model ?? '', provider: m.model ? 'anthropic' : '', input_tokens: m.inputTokens, output_tokens: m.outputTokens, reasoning_tokens: 0,
    user_id: c.userId, environment: c.environment, agent, source, thread_id: '', event_id: `${c.id}:m${i}`,
  }));
  const tool_calls: Record<string, unknown>[] = [];
  let failures = 0;
  for (const m of c.messages) {
    for (const tc of m.toolCalls) {
      if (!tc.success) failures++;
      tool_calls.push({
        tenant_id: c.tenant, conversation_id: c.id, call_id: tc.id, ts: chTime(m.timeMs), last_ts: chTime(m.timeMs + tc.durationMs),
        tool_name: tc.name, input: JSON.stringify(tc.input).slice(0, 4096), command: typeof tc.input.command === 'string' ? tc.input.command : '',
        effect_class: tc.name === 'Read' || tc.name === 'Grep' || tc.name === 'Glob' ? 'read' : tc.name === 'Bash' ? 'spawn' : 'write',
        success: tc.success ? 1 : 0, error: tc.error ?? '', error_type: tc.success ? '' : 'tool_error', duration_ms: tc.durationMs,
        decision: tc.decision, decision_source: 'config', agent, environment: c.environment, user_id: c.userId,
      });
    }
  }
  const conversations = [{
    tenant_id: c.tenant, conversation_id: c.id, version: 1, environment: c.environment, user_id: c.userId, agent,
    message_count: c.messages.length, first_ts: chTime(firstMs), last_ts: chTime(lastMs),
    input_tokens: c.messages.reduce((s, m) => s + m.inputTokens, 0), output_tokens: c.messages.reduce((s, m) => s + m.outputTokens, 0),
    cost_usd: c.messages.reduce((s, m) => s + m.costUsd, 0), tool_call_count: tool_calls.length, tool_failure_count: failures,
    summary: c.messages[0]!.text.slice(0, 200),
  }];
  return { events, messages, tool_calls, conversations };
}
