/**
 * Decoding and validation of one JetStream message of the INGEST stream. A message that fails here
 * can never be processed (a poison message): it is dead-lettered at once, not retried.
 */
import type { IngestBatch, IngestEvent, WireEvent } from '../schemas/events.js';
import { TENANT_PATTERN } from '../schemas/subjects.js';
import { eventsToRows } from './rows.js';
import { encodeTables, type TableBytes } from './row-bytes.js';
import { timeUnits } from '../core/utc-time.js';
import { bufferOf } from '../core/bytes.js';
import { eventIdOf } from '../schemas/event-ids.js';

/** A decoded message: its rows as insert-ready bytes per table, and what the sink needs to know. */
export interface DecodedRows {
  tables: TableBytes;
  /** `tenant\u0000conversation` keys of the conversations these events change. */
  conversations: string[];
  /** Earliest receive time of the batch (ms), for the freshness metric. */
  receivedAtMs: number;
  rowCount: number;
  /** Exact size of the encoded rows. */
  bytes: number;
}

export type DecodeResult = { kind: 'ok'; output: DecodedRows; events: number } | { kind: 'poison'; reason: string };

const REQUIRED_STRINGS = ['event_id', 'tenant_id', 'type', 'event_time', 'receive_time'] as const;

/** A time `Date.parse` reads; the canonical form the edge writes is recognized without it (cheaper). */
const isTimestamp = (s: string): boolean => timeUnits(s, 3) !== undefined || !Number.isNaN(Date.parse(s));

/** Why an event cannot be stored, or undefined when it can. */
export function invalidEvent(e: unknown, tenant: string): string | undefined {
  if (!e || typeof e !== 'object' || Array.isArray(e)) return 'event is not an object';
  const ev = e as Record<string, unknown>;
  for (const k of REQUIRED_STRINGS) if (typeof ev[k] !== 'string' || ev[k] === '') return `event.${k} is missing or not a string`;
  if (ev.tenant_id !== tenant) return `event.tenant_id "${String(ev.tenant_id)}" differs from the batch tenant`;
  if (!isTimestamp(ev.event_time as string)) return `event.event_time "${String(ev.event_time)}" is not a timestamp`;
  if (!isTimestamp(ev.receive_time as string)) return `event.receive_time is not a timestamp`;
  if (ev.type === 'message' && (!ev.message || typeof (ev.message as { message_id?: unknown }).message_id !== 'string')) return 'message event without message.message_id';
  return undefined;
}

type Parsed = { kind: 'ok'; batch: IngestBatch } | { kind: 'poison'; reason: string };

/** Parses and validates a message body; every event is checked. */
function parseBatch(data: Uint8Array | string): Parsed {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof data === 'string' ? data : bufferOf(data).toString('utf8'));
  } catch (err) {
    return { kind: 'poison', reason: `unparseable JSON: ${(err as Error).message}` };
  }
  const b = parsed as Partial<IngestBatch>;
  if (!b || typeof b !== 'object' || Array.isArray(b)) return { kind: 'poison', reason: 'batch is not an object' };
  if (b.v !== 1 && b.v !== 2 && b.v !== 3) return { kind: 'poison', reason: `unsupported batch version ${String(b.v)}` };
  if (typeof b.tenant_id !== 'string' || !TENANT_PATTERN.test(b.tenant_id)) return { kind: 'poison', reason: 'batch.tenant_id is missing or invalid' };
  if (!Array.isArray(b.events)) return { kind: 'poison', reason: 'batch.events is not an array' };
  const groups = b.v === 1 ? [] : b.groups ?? [];
  if (!Array.isArray(groups)) return { kind: 'poison', reason: 'batch.groups is not an array' };
  if (b.v === 3) {
    for (const k of ['receive_time', 'event_id_prefix', 'agent'] as const) if (b[k] !== undefined && typeof b[k] !== 'string') return { kind: 'poison', reason: `batch.${k} is not a string` };
  }
  for (let i = 0; i < b.events.length; i++) {
    const why = (b.v !== 1 && completeEvent(b as IngestBatch, b.events[i], i, groups)) || invalidEvent(b.events[i], b.tenant_id);
    if (why) return { kind: 'poison', reason: `events[${i}]: ${why}` };
  }
  return { kind: 'ok', batch: b as IngestBatch };
}

/** A message's events whole: each event of a v2 or v3 message takes what it leaves to the message. */
export function wholeEvents(batch: IngestBatch): IngestEvent[] {
  if (batch.v !== 1 && Array.isArray(batch.groups ?? [])) batch.events.forEach((e, i) => completeEvent(batch, e, i, batch.groups ?? []));
  return batch.events;
}

/**
 * An event of a v2 or v3 message given what it leaves to the message (ingest/publish.ts
 * `encodeBatch`): v3, the fields all events of the request share (an event's own win); v2 and v3,
 * its group's resource and scope. Undefined when that worked or there was nothing to give, else why not.
 */
function completeEvent(b: IngestBatch, e: unknown, index: number, groups: unknown[]): string | undefined {
  if (!e || typeof e !== 'object' || Array.isArray(e)) return undefined;
  if (b.v === 3) {
    const ev = e as Partial<WireEvent>;
    if (ev.event_id === undefined && b.event_id_prefix !== undefined) ev.event_id = eventIdOf(b.event_id_prefix, index);
    ev.receive_time ??= b.receive_time;
    ev.tenant_id ??= b.tenant_id;
    if (b.agent !== undefined) ev.agent ??= b.agent;
    ev.source ??= b.source;
  }
  return resolveGroup(e, groups);
}

/**
 * A v2 event that names a group takes the group's resource and scope (objects shared by the
 * group's events: rows only read them); undefined when that worked or there is no group, else why not.
 */
function resolveGroup(e: unknown, groups: unknown[]): string | undefined {
  if (!e || typeof e !== 'object' || Array.isArray(e)) return undefined;
  const ev = e as WireEvent;
  if (ev.group === undefined) return undefined;
  const g = Number.isInteger(ev.group) ? groups[ev.group] : undefined;
  if (!g || typeof g !== 'object' || Array.isArray(g)) return `event.group ${JSON.stringify(ev.group)} names no group of the batch`;
  const { resource, scope } = g as Pick<IngestEvent, 'resource' | 'scope'>;
  ev.resource = resource;
  ev.scope = scope;
  // left out of the event's JSON (a dead letter of the event alone carries its resource and scope)
  ev.group = undefined;
  return undefined;
}

/** Defaults for optional fields so that rows never carry undefined. */
export function withDefaults(e: IngestEvent): IngestEvent {
  e.conversation_id ??= '';
  e.user_id ??= '';
  e.environment ??= 'production';
  e.sequence = Number.isFinite(e.sequence) ? Math.max(0, Math.trunc(e.sequence)) : 0;
  e.trace_id ??= '';
  e.span_id ??= '';
  e.name ??= '';
  e.attributes ??= {};
  e.resource ??= {};
  return e;
}

/** Parses, validates and transforms one message body. Pure: used by the Piscina task. */
export function decodeMessage(data: Uint8Array | string): DecodeResult {
  const p = parseBatch(data);
  if (p.kind === 'poison') return p;
  const events = p.batch.events.map(withDefaults);
  const t = eventsToRows(events);
  const { tables, bytes } = encodeTables(t.rows);
  return { kind: 'ok', output: { tables, conversations: t.conversations, receivedAtMs: t.receivedAtMs, rowCount: t.rowCount, bytes }, events: events.length };
}

/** One event of a message with its own rows: the unit a refused insert is narrowed down to. */
export interface EventRows {
  index: number;
  eventId: string;
  rows: TableBytes;
  /** The event as published (JSON), dead-lettered alone when the store refuses it. */
  json: string;
}

export interface SplitMessage {
  tenant: string;
  source: string;
  requestId: string;
  events: EventRows[];
}

/**
 * The events of a message one by one, each with its rows (main thread; only when the store
 * refused an insert holding the message, so the cost of per-event transforms is rare).
 */
export function splitMessage(data: Uint8Array | string): SplitMessage | { kind: 'poison'; reason: string } {
  const p = parseBatch(data);
  if (p.kind === 'poison') return p;
  const events = p.batch.events.map((e, index) => {
    const json = JSON.stringify(e);
    const { rows } = eventsToRows([withDefaults(e)]);
    return { index, eventId: e.event_id, rows: encodeTables(rows).tables, json };
  });
  return { tenant: p.batch.tenant_id, source: String(p.batch.source ?? ''), requestId: String(p.batch.request_id ?? ''), events };
}
