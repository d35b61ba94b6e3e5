/**
 * Decoding and validation of one JetStream message of the INGEST stream. A message that fails here
 * can never be processed (a poison message): it is dead-lettered at once, not retried.
 */
import type { IngestBatch, IngestEvent } from '../schemas/events.js';
import { TENANT_PATTERN } from '../schemas/subjects.js';
import { eventsToRows, type TransformOutput } from './rows.js';

export type DecodeResult = { kind: 'ok'; output: TransformOutput; events: number } | { kind: 'poison'; reason: string };

const REQUIRED_STRINGS = ['event_id', 'tenant_id', 'type', 'event_time', 'receive_time'] as const;

/** Why an event cannot be stored, or undefined when it can. */
export function invalidEvent(e: unknown, tenant: string): string | undefined {
  if (!e || typeof e !== 'object' || Array.isArray(e)) return 'event is not an object';
  const ev = e as Record<string, unknown>;
  for (const k of REQUIRED_STRINGS) if (typeof ev[k] !== 'string' || ev[k] === '') return `event.${k} is missing or not a string`;
  if (ev.tenant_id !== tenant) return `event.tenant_id "${String(ev.tenant_id)}" differs from the batch tenant`;
  if (Number.isNaN(Date.parse(ev.event_time as string))) return `event.event_time "${String(ev.event_time)}" is not a timestamp`;
  if (Number.isNaN(Date.parse(ev.receive_time as string))) return `event.receive_time is not a timestamp`;
  if (ev.type === 'message' && (!ev.message || typeof (ev.message as { message_id?: unknown }).message_id !== 'string')) return 'message event without message.message_id';
  return undefined;
}

/** Parses, validates and transforms one message body. Pure: used by the Piscina task. */
export function decodeMessage(data: Uint8Array | string): DecodeResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
  } catch (err) {
    return { kind: 'poison', reason: `unparseable JSON: ${(err as Error).message}` };
  }
  const b = parsed as Partial<IngestBatch>;
  if (!b || typeof b !== 'object' || Array.isArray(b)) return { kind: 'poison', reason: 'batch is not an object' };
  if (b.v !== 1) return { kind: 'poison', reason: `unsupported batch version ${String(b.v)}` };
  if (typeof b.tenant_id !== 'string' || !TENANT_PATTERN.test(b.tenant_id)) return { kind: 'poison', reason: 'batch.tenant_id is missing or invalid' };
  if (!Array.isArray(b.events)) return { kind: 'poison', reason: 'batch.events is not an array' };
  for (let i = 0; i < b.events.length; i++) {
    const why = invalidEvent(b.events[i], b.tenant_id);
    if (why) return { kind: 'poison', reason: `events[${i}]: ${why}` };
  }
  const events = b.events as IngestEvent[];
  for (const e of events) {
    // defaults for optional fields so that rows never carry undefined
    e.conversation_id ??= '';
    e.user_id ??= '';
    e.environment ??= 'production';
    e.sequence = Number.isFinite(e.sequence) ? Math.max(0, Math.trunc(e.sequence)) : 0;
    e.trace_id ??= '';
    e.span_id ??= '';
    e.name ??= '';
    e.attributes ??= {};
    e.resource ??= {};
  }
  return { kind: 'ok', output: eventsToRows(events), events: events.length };
}
