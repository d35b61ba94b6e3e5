import type { SpanFacet } from '../../schemas/events.js';
import type { OtlpSpan } from '../otlp/types.js';
import { coerceAttributes, fromNanos, toCount } from './coerce.js';
import { draft, environmentOf, firstText, iso, text, type EventDraft, type NormalizeContext } from './event.js';
import { AGENT_A_PREFIX, AGENT_B_PREFIX } from './logs.js';
import { errorText, sanitizeAttributes } from './sanitize.js';

function agentOfSpan(s: OtlpSpan, fallback: NormalizeContext['agent']): NormalizeContext['agent'] {
  if (fallback !== 'otlp') return fallback;
  const service = text(s.ctx.resource['service.name']).toLowerCase();
  if (service.startsWith('claude-code') || s.name.startsWith(AGENT_A_PREFIX)) return 'agent-a';
  if (service.startsWith('codex') || s.name.startsWith(AGENT_B_PREFIX)) return 'agent-b';
  return 'otlp';
}

/** One OTLP span to one stored event of type `span` with the span facet (GenAI attributes lifted). */
export function normalizeSpan(ctx: NormalizeContext, s: OtlpSpan, position: number): EventDraft {
  const agent = agentOfSpan(s, ctx.agent);
  const attrs = coerceAttributes(s.attributes);
  const start = fromNanos(s.startTimeUnixNano) ?? ctx.receiveTime;
  const end = fromNanos(s.endTimeUnixNano) ?? start;
  const durationNs = s.startTimeUnixNano && s.endTimeUnixNano ? BigInt(s.endTimeUnixNano) - BigInt(s.startTimeUnixNano) : 0n;
  const genAi: NonNullable<SpanFacet['gen_ai']> = {};
  const put = <K extends keyof typeof genAi>(k: K, v: (typeof genAi)[K] | undefined | '') => {
    if (v !== undefined && v !== '') genAi[k] = v as (typeof genAi)[K];
  };
  put('operation', firstText(attrs, 'gen_ai.operation.name'));
  put('provider', firstText(attrs, 'gen_ai.provider.name', 'gen_ai.system'));
  put('request_model', firstText(attrs, 'gen_ai.request.model'));
  put('response_model', firstText(attrs, 'gen_ai.response.model'));
  put('conversation_id', firstText(attrs, 'gen_ai.conversation.id'));
  put('input_tokens', toCount(attrs['gen_ai.usage.input_tokens']));
  put('output_tokens', toCount(attrs['gen_ai.usage.output_tokens']));
  put('tool_name', firstText(attrs, 'gen_ai.tool.name'));
  put('tool_call_id', firstText(attrs, 'gen_ai.tool.call.id'));
  const span: SpanFacet = {
    name: s.name,
    // UInt8 columns: a value outside the OTLP enums becomes 0 (unspecified / unset)
    kind: s.kind >= 0 && s.kind <= 5 ? s.kind : 0,
    parent_span_id: s.parentSpanId,
    start_time: iso(start),
    end_time: iso(end),
    duration_ms: durationNs > 0n ? Number(durationNs) / 1e6 : 0,
    status_code: s.status.code >= 0 && s.status.code <= 2 ? s.status.code : 0,
    // the span's error message: redacted and capped like every stored error message
    status_message: errorText(s.status.message).text,
  };
  if (Object.keys(genAi).length) span.gen_ai = genAi;
  if (s.events.length) {
    span.events = s.events.map((e) => ({
      name: e.name,
      time: iso(fromNanos(e.timeUnixNano) ?? start),
      attributes: sanitizeAttributes(coerceAttributes(e.attributes)),
    }));
  }
  return draft(ctx, {
    agent,
    type: 'span',
    name: s.name,
    event_time: iso(start),
    conversation_id: firstText(attrs, 'session.id', 'conversation.id', 'gen_ai.conversation.id'),
    user_id: firstText(attrs, 'user.account_uuid', 'user.id', 'user.account_id', 'user.email'),
    environment: environmentOf(s.ctx.resource),
    sequence: position,
    trace_id: s.traceId,
    span_id: s.spanId,
    attributes: sanitizeAttributes(attrs),
    resource: s.ctx.resource,
    scope: s.ctx.scope,
    span,
  });
}
