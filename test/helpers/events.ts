/**
 * Builders of realistic normalized events (schemas/events.ts) and IngestBatch publishing, for
 * tests that feed the stream role directly through JetStream.
 */
import { createHash } from 'node:crypto';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { ContentBlock, IngestBatch, IngestEvent, SourceRoute } from '../../schemas/events.js';
import { ingestSubject } from '../../schemas/subjects.js';

const T0 = Date.parse('2025-06-01T10:00:00.000Z');

let counter = 0;
const nextId = (p: string) => `${p}-${(++counter).toString(36)}-${createHash('sha1').update(`${p}${counter}${process.pid}`).digest('hex').slice(0, 10)}`;

/** ISO time `offsetMs` after a fixed base (deterministic test data). */
export const at = (offsetMs: number) => new Date(T0 + offsetMs).toISOString();

export function baseEvent(over: Partial<IngestEvent> & Pick<IngestEvent, 'type'>): IngestEvent {
  const t = over.event_time ?? at(0);
  return {
    event_id: nextId('ev'),
    tenant_id: 'default',
    agent: 'agent-a',
    source: 'logs',
    name: over.type,
    conversation_id: 'conv-1',
    user_id: 'user-1',
    environment: 'production',
    event_time: t,
    receive_time: new Date().toISOString(),
    sequence: 0,
    trace_id: '',
    span_id: '',
    attributes: {},
    resource: { 'service.name': 'claude-code' },
    scope: { name: 'com.anthropic.claude_code', version: '1.0.0', attributes: {} },
    ...over,
  };
}

export function promptEvent(conv: string, text: string, offsetMs: number, over: Partial<IngestEvent> = {}): IngestEvent {
  return baseEvent({
    type: 'prompt',
    name: 'claude_code.user_prompt',
    conversation_id: conv,
    event_time: at(offsetMs),
    attributes: { 'session.id': conv, prompt_length: text.length },
    prompt: { text, length: text.length, truncated: false },
    ...over,
  });
}

export function apiRequestEvent(conv: string, offsetMs: number, tokens: { input: number; output: number; cost: number; model?: string }, over: Partial<IngestEvent> = {}): IngestEvent {
  return baseEvent({
    type: 'api_request',
    name: 'claude_code.api_request',
    conversation_id: conv,
    event_time: at(offsetMs),
    attributes: { 'session.id': conv, model: tokens.model ?? 'claude-sonnet-4', input_tokens: tokens.input, output_tokens: tokens.output, cost_usd: tokens.cost },
    api: { model: tokens.model ?? 'claude-sonnet-4', input_tokens: tokens.input, output_tokens: tokens.output, cost_usd: tokens.cost, duration_ms: 1200 },
    ...over,
  });
}

export function toolDecisionEvent(conv: string, callId: string, name: string, offsetMs: number, input: unknown = {}, decision: 'accept' | 'reject' = 'accept'): IngestEvent {
  return baseEvent({
    type: 'tool_decision',
    name: 'claude_code.tool_decision',
    conversation_id: conv,
    event_time: at(offsetMs),
    attributes: { 'session.id': conv, tool_name: name, decision, source: 'config' },
    tool: { name, call_id: callId, decision, decision_source: 'config', input: JSON.stringify(input) },
  });
}

export function toolResultEvent(conv: string, callId: string, name: string, offsetMs: number, ok: boolean, error = ''): IngestEvent {
  return baseEvent({
    type: 'tool_result',
    name: 'claude_code.tool_result',
    conversation_id: conv,
    event_time: at(offsetMs),
    attributes: { 'session.id': conv, tool_name: name, success: ok, duration_ms: 42 },
    tool: { name, call_id: callId, success: ok, duration_ms: 42, ...(ok ? {} : { error, error_type: 'tool_error' }) },
  });
}

export function messageEvent(
  conv: string,
  role: 'user' | 'assistant' | 'system',
  content: string | ContentBlock[],
  offsetMs: number,
  over: Partial<IngestEvent['message']> & { sequence?: number; event_id?: string } = {},
): IngestEvent {
  const blocks: ContentBlock[] = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  const text = blocks.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n');
  const { sequence, event_id, ...facet } = over;
  return baseEvent({
    type: 'message',
    name: 'message',
    agent: 'direct',
    source: 'ingest',
    conversation_id: conv,
    event_time: at(offsetMs),
    sequence: sequence ?? 0,
    ...(event_id ? { event_id } : {}),
    message: {
      message_id: facet.message_id ?? nextId('msg'),
      role,
      content: text,
      content_blocks: blocks,
      format: 'standard',
      ...facet,
    },
  });
}

/** An IngestBatch, as the ingest role publishes it. */
export function batchOf(events: IngestEvent[], source: SourceRoute = 'logs', tenant = events[0]?.tenant_id ?? 'default'): IngestBatch {
  return { v: 1, tenant_id: tenant, source, request_id: nextId('req'), events };
}

/** Content-derived Nats-Msg-Id, like the ingest role's. */
export function msgIdOf(batch: IngestBatch): string {
  return createHash('sha256').update(JSON.stringify(batch.events.map((e) => e.event_id))).digest('hex');
}

/** Publishes one batch on `ingest.<tenant>.<source>` with its Nats-Msg-Id; resolves on the JetStream ack. */
export async function publishBatch(js: JetStreamClient, batch: IngestBatch, opts: { msgId?: string; raw?: string } = {}) {
  return js.publish(ingestSubject(batch.tenant_id, batch.source), opts.raw ?? JSON.stringify(batch), { msgID: opts.msgId ?? msgIdOf(batch) });
}

/** A conversation of `turns` user/assistant turns with one tool call each (the odd ones fail). */
export function conversationEvents(conv: string, turns: number, startMs = 0): IngestEvent[] {
  const out: IngestEvent[] = [];
  for (let i = 0; i < turns; i++) {
    const t = startMs + i * 10_000;
    const callId = startMs ? `toolu_${conv}_${startMs}_${i}` : `toolu_${conv}_${i}`;
    const fails = i % 2 === 1;
    out.push(
      promptEvent(conv, `turn ${i}: please fix the tests`, t),
      apiRequestEvent(conv, t + 1000, { input: 100 + i, output: 10 + i, cost: 0.01 }),
      toolDecisionEvent(conv, callId, 'Bash', t + 2000, { command: 'npm test' }),
      toolResultEvent(conv, callId, 'Bash', t + 3000, !fails, fails ? 'exit code 1' : ''),
    );
  }
  return out;
}
