import type { AgentId, Attributes, StoredType } from '../../schemas/events.js';
import type { OtlpLogRecord } from '../otlp/types.js';
import { coerceAttributesInPlace, fromNanos, storedTimestamp, toBoolean, toNumber } from './coerce.js';
import { draft, environmentOf, firstText, iso, text, type EventDraft, type NormalizeContext } from './event.js';
import { apiFacet, promptFacet, toolFacet } from './facets.js';
import { sanitizeAttributes, sanitizeAttributesInPlace } from './sanitize.js';

export const AGENT_A_PREFIX = 'claude_code.';
export const AGENT_B_PREFIX = 'codex.';

/** spec/ingestion.md "Normalization of logs: agent A" (bare names; the prefix is optional). */
const AGENT_A_TYPES: Record<string, StoredType> = {
  user_prompt: 'prompt',
  tool_use: 'tool_decision',
  // the agent's own name for the decision event; the spec row says tool_use
  tool_decision: 'tool_decision',
  tool_result: 'tool_result',
  api_request: 'api_request',
  api_error: 'api_error',
  skill_activated: 'skill_activated',
  skill_activation: 'skill_activated',
};

/** spec/ingestion.md "Normalization of logs: agents B and C". */
const AGENT_B_TYPES: Record<string, StoredType> = {
  conversation_starts: 'session_start',
  user_prompt: 'prompt',
  api_request: 'api_request',
  sse_event: 'stream_event',
  websocket_event: 'stream_event',
  tool_decision: 'tool_decision',
  tool_result: 'tool_result',
};

/** The event name as received: body `claude_code.x`, `eventName`, or the `event.name` attribute. */
export function logName(r: OtlpLogRecord): string {
  const body = typeof r.body === 'string' && /^[\w.-]{1,200}$/.test(r.body) ? r.body : '';
  const attr = text(r.attributes['event.name']);
  if (body.startsWith(AGENT_A_PREFIX)) return body;
  return attr || r.eventName || body;
}

/** Agent of a record on the generic /v1/logs route: resource `service.name`, then name prefixes. */
export function detectAgent(r: OtlpLogRecord): AgentId {
  const service = text(r.ctx.resource['service.name']).toLowerCase();
  if (service.startsWith('claude-code') || service.startsWith('claude_code')) return 'agent-a';
  if (service.startsWith('codex')) return 'agent-b';
  const name = logName(r);
  if (name.startsWith(AGENT_A_PREFIX) || r.ctx.scope.name.startsWith('com.anthropic.claude_code')) return 'agent-a';
  if (name.startsWith(AGENT_B_PREFIX)) return 'agent-b';
  return 'otlp';
}

export function storedTypeOf(agent: AgentId, name: string, attrs: Attributes): StoredType {
  if (agent === 'agent-a') {
    const bare = name.startsWith(AGENT_A_PREFIX) ? name.slice(AGENT_A_PREFIX.length) : name;
    return AGENT_A_TYPES[bare] ?? 'unknown';
  }
  if (agent === 'agent-b' || agent === 'agent-c') {
    const bare = name.startsWith(AGENT_B_PREFIX) ? name.slice(AGENT_B_PREFIX.length) : '';
    const named = bare ? AGENT_B_TYPES[bare] : undefined;
    if (named) return named;
    return toBoolean(attrs['skill.activated']) === true ? 'skill_activated' : 'unknown';
  }
  return 'unknown';
}

function eventTime(r: OtlpLogRecord, attrs: Attributes, fallback: Date): string {
  return storedTimestamp(attrs['event.timestamp']) ?? iso(fromNanos(r.timeUnixNano) ?? fromNanos(r.observedTimeUnixNano) ?? fallback);
}

/**
 * One OTLP log record to one stored event (agents A, B, C, or generic OTLP). The record's
 * attribute map is the request's own (decoded from its body): it is coerced, read for the facets,
 * then sanitized in place into the stored attributes, rather than copied twice per event.
 */
export function normalizeLog(ctx: NormalizeContext, r: OtlpLogRecord, position: number): EventDraft {
  const agent = ctx.agent === 'otlp' ? detectAgent(r) : ctx.agent;
  const name = logName(r);
  const attrs = coerceAttributesInPlace(r.attributes);
  const type = storedTypeOf(agent, name, attrs);
  const isA = agent === 'agent-a';
  const seq = toNumber(attrs['event.sequence']);
  const body = typeof r.body === 'string' && r.body !== name ? r.body : undefined;
  const ev = draft(ctx, {
    agent,
    type,
    name,
    event_time: eventTime(r, attrs, ctx.receiveTime),
    conversation_id: isA ? firstText(attrs, 'session.id') : firstText(attrs, 'conversation.id', 'session.id'),
    user_id: isA
      ? firstText(attrs, 'user.account_uuid', 'user.id', 'user.account_id', 'user.email')
      : firstText(attrs, 'user.account_id', 'user.id', 'user.email'),
    environment: environmentOf(r.ctx.resource),
    sequence: seq !== undefined && Number.isSafeInteger(seq) && seq >= 0 ? seq : position,
    trace_id: r.traceId,
    span_id: r.spanId,
    attributes: attrs,
    resource: r.ctx.resource,
    scope: r.ctx.scope,
  });
  if (type === 'prompt') ev.prompt = promptFacet(attrs['prompt'], attrs['prompt_length']);
  if (type === 'tool_decision' || type === 'tool_result') ev.tool = toolFacet(agent, attrs);
  if (type === 'api_request' || type === 'api_error' || type === 'stream_event') {
    const api = apiFacet(agent, attrs, type === 'api_error');
    if (Object.keys(api).length) ev.api = api;
  }
  // the facets have read the raw values: from here on `attrs` is the stored map
  const stored = sanitizeAttributesInPlace(attrs);
  if (body !== undefined && !('body' in stored)) stored.body = sanitizeAttributes({ body: r.body }).body;
  else if (r.body !== null && typeof r.body === 'object' && !('body' in stored)) stored.body = r.body;
  if (r.severityText) stored['severity_text'] = r.severityText;
  if (r.severityNumber) stored['severity_number'] = r.severityNumber;
  return ev;
}
