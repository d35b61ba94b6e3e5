/**
 * Pure transform: the events of one IngestBatch become rows of `events`, `spans`, `messages` and
 * `tool_calls` (calls recorded by telemetry: hooks, logs, spans, tool_call events), plus the set of
 * conversations they touch. No I/O: it runs in Piscina workers.
 */
import type { ContentBlock, IngestEvent } from '../schemas/events.js';
import { storedContentBlocks } from '../schemas/content-blocks.js';
import { storedValue, type RowRefs } from '../schemas/attribute-refs.js';
import { setOwn } from '../core/own.js';
import { effectClass } from './effect-class.js';
import { MAX_INPUT_CHARS, MAX_RESULT_CHARS, resultText } from './analyses/snapshot.js';
import { capText } from './analyses/text/prose.js';
import { conversationKey } from './conversation-key.js';

/**
 * The stream's tables, in the order the sink inserts a batch into them: what the data API shows
 * first (a conversation's messages, its tool calls) is stored first; `events`, read by the
 * rollups and the analyses (which start once the whole batch is stored), last.
 */
export const TABLES = ['messages', 'tool_calls', 'spans', 'events'] as const;
export type TableName = (typeof TABLES)[number];
export type TableRows = Partial<Record<TableName, Record<string, unknown>[]>>;

/** Column order of each table's insert bytes (Native blocks, JSON lines): every key the row functions below produce. */
export const COLUMNS: Record<TableName, readonly string[]> = {
  events: [
    'tenant_id', 'event_time', 'event_id', 'receive_time', 'agent', 'source', 'type', 'name', 'conversation_id', 'user_id', 'environment',
    'sequence', 'trace_id', 'span_id', 'attributes', 'resource', 'scope_name', 'scope_version', 'facets', 'model', 'input_tokens',
    'output_tokens', 'cache_read_tokens', 'cache_creation_tokens', 'cost_usd', 'tool_name', 'tool_call_id', 'success', 'duration_ms', 'message_id',
    'attribute_refs',
  ],
  spans: [
    'tenant_id', 'trace_id', 'span_id', 'parent_span_id', 'start_time', 'end_time', 'duration_ms', 'name', 'kind', 'status_code', 'status_message',
    'agent', 'conversation_id', 'gen_ai_operation', 'gen_ai_provider', 'gen_ai_request_model', 'gen_ai_response_model', 'gen_ai_input_tokens',
    'gen_ai_output_tokens', 'gen_ai_tool_name', 'gen_ai_tool_call_id', 'attributes', 'resource', 'events', 'event_id',
  ],
  messages: [
    'tenant_id', 'conversation_id', 'ts', 'seq', 'user_id', 'environment', 'agent', 'source', 'event_id', 'message_id', 'role', 'content',
    'content_blocks', 'tool_calls', 'tool_results', 'has_tool_error', 'model', 'provider', 'input_tokens', 'output_tokens', 'reasoning_tokens',
    'thread_id', 'parent_message_id', 'format', 'metadata',
  ],
  tool_calls: [
    'tenant_id', 'conversation_id', 'call_id', 'ts', 'last_ts', 'tool_name', 'input', 'command', 'effect_class', 'success', 'error', 'error_type',
    'duration_ms', 'decision', 'decision_source', 'agent', 'environment', 'user_id', 'message_id', 'mcp_server',
  ],
};

/** Partition column of each time-partitioned table (`PARTITION BY toYYYYMM(<column>)` in sql/migrations). */
export const PARTITION_COLUMN: Partial<Record<TableName, string>> = { events: 'event_time', spans: 'start_time', messages: 'ts' };

export interface TransformOutput {
  rows: TableRows;
  /** `tenant\u0000conversation` keys of the conversations these events change. */
  conversations: string[];
  /** Earliest receive time of the batch (ms), for the freshness metric. */
  receivedAtMs: number;
  rowCount: number;
}

/** A JSON value as the text a String column stores: strings as they are, null as '', the rest as JSON. */
export const toText = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

/**
 * Map(String, String) columns: JSON values become their JSON text, strings stay as they are. The
 * rows carry the event's own objects in their map columns; the encoders apply this rule as they
 * write (stream/native.ts, jsonLines in stream/row-bytes.ts), so no converted copy is built per row.
 */
export function stringMap(attrs: Record<string, unknown> | undefined, refs?: RowRefs): Record<string, string> {
  const out: Record<string, string> = {};
  if (!attrs) return out;
  // a key named `__proto__` (the edge keeps it as sent) stays a key, as the Native writer keeps it
  for (const [k, v] of Object.entries(attrs)) setOwn(out, k, refs ? storedValue(toText(v), refs) : toText(v));
  return out;
}

/** Map columns whose values are stored by reference to their row's columns (schemas/attribute-refs.ts). */
export const isReferenced = (table: TableName, column: string): boolean => table === 'events' && column === 'attributes';

export function eventsToRows(events: readonly IngestEvent[]): TransformOutput {
  const rows: Required<TableRows> = { events: [], spans: [], messages: [], tool_calls: [] };
  const conversations = new Set<string>();
  let receivedAtMs = Infinity;
  // the events of a message mostly share one receive time: parsed once
  let receiveText = '';
  let receiveMs = NaN;
  for (const e of events) {
    const calls = toolCallRows(e);
    rows.events.push(eventRow(e, calls.length > 0));
    if (e.conversation_id) conversations.add(conversationKey(e.tenant_id, e.conversation_id));
    if (e.receive_time !== receiveText) {
      receiveText = e.receive_time;
      receiveMs = Date.parse(receiveText);
    }
    if (receiveMs < receivedAtMs) receivedAtMs = receiveMs;
    if (e.type === 'span' && e.span) rows.spans.push(spanRow(e));
    const m = messageRow(e);
    if (m) rows.messages.push(m);
    rows.tool_calls.push(...calls);
  }
  const out: TableRows = {};
  let rowCount = 0;
  for (const t of TABLES) {
    if (rows[t].length === 0) continue;
    out[t] = rows[t];
    rowCount += rows[t].length;
  }
  return { rows: out, conversations: [...conversations], receivedAtMs: Number.isFinite(receivedAtMs) ? receivedAtMs : Date.now(), rowCount };
}

/**
 * The typed facets an events row keeps: only what no other row of the same event holds. The text
 * of a prompt is the content of its `messages` row, a message's content, blocks and metadata are
 * in `messages`, a call's input, command and error are in `tool_calls` (whole, unless longer than
 * its input cap), a span is its `spans` row, and the lifted columns (model, tokens, cost, tool
 * name and id, success, duration, message id) hold the rest. Rows written before this kept full
 * facets; both read the same way (docs/storage.md "Slim events rows").
 */
function slimFacets(e: IngestEvent, hasCallRow: boolean): Record<string, unknown> {
  const facets: Record<string, unknown> = {};
  if (e.prompt) facets.prompt = { length: e.prompt.length, truncated: e.prompt.truncated };
  if (e.tool) {
    if (hasCallRow) {
      const t: Record<string, unknown> = {};
      if (e.tool.input !== undefined && e.tool.input.length > MAX_INPUT_CHARS) t.input = e.tool.input;
      if (e.tool.error_truncated) t.error_truncated = true;
      if (e.tool.command_truncated) t.command_truncated = true;
      if (Object.keys(t).length) facets.tool = t;
    } else facets.tool = e.tool;
  }
  if (e.api) {
    const { reasoning_tokens, status_code, error, error_truncated } = e.api;
    const a = { reasoning_tokens, status_code, error, error_truncated };
    if (Object.values(a).some((v) => v !== undefined)) facets.api = a;
  }
  if (e.message) {
    const { prompt_id, prompt_name, prompt_version } = e.message;
    const m = { prompt_id, prompt_name, prompt_version };
    if (Object.values(m).some((v) => v !== undefined)) facets.message = m;
  }
  if (e.span && e.type !== 'span') facets.span = e.span;
  return facets;
}

function eventRow(e: IngestEvent, hasCallRow: boolean): Record<string, unknown> {
  const facets = slimFacets(e, hasCallRow);
  const api = e.api ?? {};
  const msg = e.message;
  return {
    tenant_id: e.tenant_id,
    event_time: e.event_time,
    event_id: e.event_id,
    receive_time: e.receive_time,
    agent: e.agent,
    source: e.source,
    type: e.type,
    name: e.name,
    conversation_id: e.conversation_id,
    user_id: e.user_id,
    environment: e.environment,
    sequence: e.sequence,
    trace_id: e.trace_id,
    span_id: e.span_id,
    attributes: e.attributes,
    resource: e.resource,
    scope_name: e.scope?.name ?? '',
    scope_version: e.scope?.version ?? '',
    facets: JSON.stringify(facets),
    model: api.model ?? msg?.model ?? e.span?.gen_ai?.response_model ?? e.span?.gen_ai?.request_model ?? '',
    input_tokens: api.input_tokens ?? msg?.input_tokens ?? e.span?.gen_ai?.input_tokens ?? 0,
    output_tokens: api.output_tokens ?? msg?.output_tokens ?? e.span?.gen_ai?.output_tokens ?? 0,
    cache_read_tokens: api.cache_read_tokens ?? 0,
    cache_creation_tokens: api.cache_creation_tokens ?? 0,
    cost_usd: api.cost_usd ?? 0,
    tool_name: e.tool?.name ?? e.span?.gen_ai?.tool_name ?? '',
    tool_call_id: e.tool?.call_id ?? e.span?.gen_ai?.tool_call_id ?? '',
    success: e.tool?.success === undefined ? -1 : e.tool.success ? 1 : 0,
    duration_ms: e.tool?.duration_ms ?? api.duration_ms ?? e.span?.duration_ms ?? 0,
    message_id: msg?.message_id ?? '',
    // `attributes` is written by reference to these columns (schemas/attribute-refs.ts)
    attribute_refs: 1,
  };
}

function spanRow(e: IngestEvent): Record<string, unknown> {
  const s = e.span!;
  const g = s.gen_ai ?? {};
  return {
    tenant_id: e.tenant_id,
    trace_id: e.trace_id,
    span_id: e.span_id,
    parent_span_id: s.parent_span_id,
    start_time: s.start_time,
    end_time: s.end_time,
    duration_ms: s.duration_ms,
    name: s.name,
    kind: s.kind,
    status_code: s.status_code,
    status_message: s.status_message,
    agent: e.agent,
    conversation_id: e.conversation_id || g.conversation_id || '',
    gen_ai_operation: g.operation ?? '',
    gen_ai_provider: g.provider ?? '',
    gen_ai_request_model: g.request_model ?? '',
    gen_ai_response_model: g.response_model ?? '',
    gen_ai_input_tokens: g.input_tokens ?? 0,
    gen_ai_output_tokens: g.output_tokens ?? 0,
    gen_ai_tool_name: g.tool_name ?? '',
    gen_ai_tool_call_id: g.tool_call_id ?? '',
    attributes: e.attributes,
    resource: e.resource,
    events: JSON.stringify(s.events ?? []),
    event_id: e.event_id,
  };
}

interface ContextToolCall {
  id: string;
  name: string;
  input: string;
}
interface ContextToolResult {
  tool_use_id: string;
  content: string;
  is_error: boolean;
}


/**
 * One `messages` row, written out as one object literal in column order: an object spread and then
 * extended by 16 properties left the row in V8's slow dictionary mode (two thirds of a message's
 * transform time, measured on the bench's rows).
 */
function messageOf(
  e: IngestEvent,
  messageId: string,
  role: string,
  content: string,
  blocks: string,
  calls: string,
  results: string,
  hasToolError: number,
  format: string,
  metadata: string,
  m?: NonNullable<IngestEvent['message']>,
): Record<string, unknown> {
  return {
    tenant_id: e.tenant_id,
    conversation_id: e.conversation_id,
    ts: e.event_time,
    seq: e.sequence,
    user_id: e.user_id,
    environment: e.environment,
    agent: e.agent,
    source: e.source,
    event_id: e.event_id,
    message_id: messageId,
    role,
    content,
    content_blocks: blocks,
    tool_calls: calls,
    tool_results: results,
    has_tool_error: hasToolError,
    model: m?.model ?? '',
    provider: m?.provider ?? '',
    input_tokens: m?.input_tokens ?? 0,
    output_tokens: m?.output_tokens ?? 0,
    reasoning_tokens: m?.reasoning_tokens ?? 0,
    thread_id: m?.thread_id ?? '',
    parent_message_id: m?.parent_message_id ?? '',
    format,
    metadata,
  };
}

function messageRow(e: IngestEvent): Record<string, unknown> | undefined {
  if (e.type === 'prompt' && e.prompt) {
    // coding-agent prompts become user messages; the event id is their stable message id
    const text = e.prompt.text;
    const blocks = storedContentBlocks(text ? [{ type: 'text', text }] : [], text);
    return messageOf(e, e.event_id, 'user', text, blocks, '[]', '[]', 0, 'prompt', JSON.stringify({ length: e.prompt.length, truncated: e.prompt.truncated }));
  }
  if (e.type !== 'message' || !e.message) return undefined;
  const m = e.message;
  const blocks: ContentBlock[] = Array.isArray(m.content_blocks) ? m.content_blocks : [];
  const calls: ContextToolCall[] = [];
  const results: ContextToolResult[] = [];
  for (const b of blocks) {
    if (b.type === 'tool_use') calls.push({ id: b.tool_use_id, name: b.tool_name, input: capText(toText(b.input), MAX_INPUT_CHARS) });
    else if (b.type === 'tool_result') results.push({ tool_use_id: b.tool_use_id, content: capText(resultText(b.content), MAX_RESULT_CHARS), is_error: !!b.is_error });
  }
  const hasToolError = results.some((r) => r.is_error) ? 1 : 0;
  return messageOf(e, m.message_id, m.role, m.content, storedContentBlocks(blocks, m.content, { calls, results }), JSON.stringify(calls), JSON.stringify(results), hasToolError, m.format ?? '', JSON.stringify(m.metadata ?? {}), m);
}

/** A tool_calls row with every column at its "unknown" value (the smallest, so max() folds). */
function emptyCall(e: IngestEvent, callId: string, name: string): Record<string, unknown> {
  return {
    tenant_id: e.tenant_id,
    conversation_id: e.conversation_id,
    call_id: callId,
    ts: e.event_time,
    last_ts: e.event_time,
    tool_name: name,
    input: '',
    command: '',
    effect_class: '',
    success: -1,
    error: '',
    error_type: '',
    duration_ms: 0,
    decision: '',
    decision_source: '',
    agent: e.agent,
    environment: e.environment,
    user_id: e.user_id,
    message_id: '',
    mcp_server: '',
  };
}

function toolCallRows(e: IngestEvent): Record<string, unknown>[] {
  if ((e.type === 'tool_decision' || e.type === 'tool_result' || e.type === 'tool_call' || e.type === 'permission_request') && e.tool?.call_id) {
    const t = e.tool;
    const row = emptyCall(e, t.call_id, t.name);
    row.input = capText(t.input ?? '', MAX_INPUT_CHARS);
    row.command = t.command ?? '';
    row.effect_class = t.name ? effectClass(t.name, t.command, t.input) : '';
    if (t.success !== undefined) row.success = t.success ? 1 : 0;
    row.error = t.error ?? '';
    row.error_type = t.error_type ?? '';
    row.duration_ms = t.duration_ms ?? 0;
    row.decision = t.decision ?? '';
    row.decision_source = t.decision_source ?? '';
    row.mcp_server = t.mcp_server ?? '';
    return [row];
  }
  if (e.type === 'span' && e.span?.gen_ai?.tool_call_id) {
    const g = e.span.gen_ai;
    const row = emptyCall(e, g.tool_call_id!, g.tool_name ?? '');
    row.effect_class = g.tool_name ? effectClass(g.tool_name) : '';
    row.duration_ms = e.span.duration_ms;
    // OTLP status: 2 = ERROR, 1 = OK, 0 = UNSET (counted as success once the span ended)
    row.success = e.span.status_code === 2 ? 0 : 1;
    row.error = e.span.status_code === 2 ? capText(e.span.status_message, MAX_RESULT_CHARS) : '';
    return [row];
  }
  // calls in message blocks are not rows here: a producer may reuse a call id within a conversation,
  // so a call is the pairing of a tool_use with its result in message order, which only the
  // conversation's analysis sees (stream/analyses/snapshot.ts → conversation_tool_calls)
  return [];
}
