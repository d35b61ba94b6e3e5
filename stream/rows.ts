/**
 * Pure transform: the events of one IngestBatch become rows of `events`, `spans`, `messages` and
 * `tool_calls` (calls recorded by telemetry: hooks, logs, spans, tool_call events), plus the set of
 * conversations they touch. No I/O: it runs in Piscina workers.
 */
import type { ContentBlock, IngestEvent } from '../schemas/events.js';
import { effectClass } from './effect-class.js';
import { MAX_INPUT_CHARS, MAX_RESULT_CHARS, capText, resultText } from './analyses/snapshot.js';

export const TABLES = ['events', 'spans', 'messages', 'tool_calls'] as const;
export type TableName = (typeof TABLES)[number];
export type TableRows = Partial<Record<TableName, Record<string, unknown>[]>>;


export interface TransformOutput {
  rows: TableRows;
  /** `tenant\u0000conversation` keys of the conversations these events change. */
  conversations: string[];
  /** Earliest receive time of the batch (ms), for the freshness metric. */
  receivedAtMs: number;
  rowCount: number;
  bytes: number;
}

const toText = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

/** Map(String, String) columns: JSON values become their JSON text, strings stay as they are. */
export function stringMap(attrs: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!attrs) return out;
  for (const [k, v] of Object.entries(attrs)) out[k] = toText(v);
  return out;
}

export function eventsToRows(events: readonly IngestEvent[]): TransformOutput {
  const rows: Required<TableRows> = { events: [], spans: [], messages: [], tool_calls: [] };
  const conversations = new Set<string>();
  let receivedAtMs = Infinity;
  for (const e of events) {
    rows.events.push(eventRow(e));
    if (e.conversation_id) conversations.add(`${e.tenant_id}\u0000${e.conversation_id}`);
    const r = Date.parse(e.receive_time);
    if (r < receivedAtMs) receivedAtMs = r;
    if (e.type === 'span' && e.span) rows.spans.push(spanRow(e));
    const m = messageRow(e);
    if (m) rows.messages.push(m);
    rows.tool_calls.push(...toolCallRows(e));
  }
  const out: TableRows = {};
  let rowCount = 0;
  let bytes = 0;
  for (const t of TABLES) {
    if (rows[t].length === 0) continue;
    out[t] = rows[t];
    rowCount += rows[t].length;
    for (const r of rows[t]) bytes += approxBytes(r);
  }
  return { rows: out, conversations: [...conversations], receivedAtMs: Number.isFinite(receivedAtMs) ? receivedAtMs : Date.now(), rowCount, bytes };
}

function approxBytes(row: Record<string, unknown>): number {
  let n = 0;
  for (const v of Object.values(row)) n += typeof v === 'string' ? v.length : typeof v === 'object' && v ? JSON.stringify(v).length : 8;
  return n;
}

function eventRow(e: IngestEvent): Record<string, unknown> {
  const facets: Record<string, unknown> = {};
  if (e.prompt) facets.prompt = e.prompt;
  if (e.tool) facets.tool = e.tool;
  if (e.api) facets.api = e.api;
  if (e.message) facets.message = e.message;
  if (e.span) facets.span = e.span;
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
    attributes: stringMap(e.attributes),
    resource: stringMap(e.resource),
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
    attributes: stringMap(e.attributes),
    resource: stringMap(e.resource),
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


function messageRow(e: IngestEvent): Record<string, unknown> | undefined {
  const base = {
    tenant_id: e.tenant_id,
    conversation_id: e.conversation_id,
    ts: e.event_time,
    seq: e.sequence,
    user_id: e.user_id,
    environment: e.environment,
    agent: e.agent,
    source: e.source,
    event_id: e.event_id,
  };
  if (e.type === 'prompt' && e.prompt) {
    // coding-agent prompts become user messages; the event id is their stable message id
    return {
      ...base,
      message_id: e.event_id,
      role: 'user',
      content: e.prompt.text,
      content_blocks: JSON.stringify(e.prompt.text ? [{ type: 'text', text: e.prompt.text }] : []),
      tool_calls: '[]',
      tool_results: '[]',
      has_tool_error: 0,
      model: '',
      provider: '',
      input_tokens: 0,
      output_tokens: 0,
      reasoning_tokens: 0,
      thread_id: '',
      parent_message_id: '',
      format: 'prompt',
      metadata: JSON.stringify({ length: e.prompt.length, truncated: e.prompt.truncated }),
    };
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
  return {
    ...base,
    message_id: m.message_id,
    role: m.role,
    content: m.content,
    content_blocks: JSON.stringify(blocks),
    tool_calls: JSON.stringify(calls),
    tool_results: JSON.stringify(results),
    has_tool_error: results.some((r) => r.is_error) ? 1 : 0,
    model: m.model ?? '',
    provider: m.provider ?? '',
    input_tokens: m.input_tokens ?? 0,
    output_tokens: m.output_tokens ?? 0,
    reasoning_tokens: m.reasoning_tokens ?? 0,
    thread_id: m.thread_id ?? '',
    parent_message_id: m.parent_message_id ?? '',
    format: m.format ?? '',
    metadata: JSON.stringify(m.metadata ?? {}),
  };
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
