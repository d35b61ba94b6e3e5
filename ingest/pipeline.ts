import type { AgentId, Environment, EventType, SourceRoute } from '../schemas/events.js';
import { AppError } from '../core/errors.js';
import { withFields } from '../core/own.js';
import { bufferOf } from '../core/bytes.js';
import { bodyText } from './body.js';
import { InvalidEnvelopeError, InvalidIngestEnvelopeError, InvalidJsonError, NestingTooDeepError } from './errors.js';
import { jsonDeeperThan, MAX_JSON_DEPTH } from './limits.js';
import { repairSerialized } from '../core/row-text.js';
import { decodeLogs, decodeMetrics, decodeSpans, type IdFormat } from './otlp/decode-envelope.js';
import { decodeProto } from './otlp/decode-proto.js';
import type { EventDraft, NormalizeContext } from './normalize/event.js';
import { normalizeLog } from './normalize/logs.js';
import { normalizeSpan } from './normalize/spans.js';
import { normalizeHook } from './normalize/hooks.js';
import { normalizeDirect } from './normalize/direct.js';
import { check } from './validate.js';

/**
 * The CPU-heavy part of a request — parse, decode, validate, normalize, serialize — as one pure
 * function of the body. It runs inline for small bodies and on a Piscina worker for large ones
 * (docs/ingestion.md "Decoding off the event loop"), so it takes and returns plain data only.
 */
export interface PipelineTask {
  route: SourceRoute;
  agent: AgentId;
  encoding: 'json' | 'protobuf';
  body: Uint8Array;
  tenant: string;
  /** ISO 8601 */
  receiveTime: string;
}

/**
 * The resource and scope of an OTLP ResourceLogs/ScopeLogs group as JSON, shared by every event of
 * the group: written once per bus message (`groups` of an IngestBatch v2), not once per event.
 */
export interface EventGroup {
  resource: string;
  scope: string;
  /** UTF-8 bytes of `,"resource":<resource>,"scope":<scope>`: what the group adds to an event's v1 JSON. */
  bytes: number;
}

/**
 * One normalized event serialized without `event_id` and `receive_time` (added at publish), and
 * without its resource and scope, which are its `group`'s. `eventJson` gives the whole event.
 */
export interface PreparedEvent {
  index: number;
  json: string;
  group?: EventGroup;
  agent: AgentId;
  type: EventType;
  messageId?: string;
}

/** The event as one JSON object, its group's resource and scope last (the IngestBatch v1 form). */
export function eventJson(e: Pick<PreparedEvent, 'json' | 'group'>): string {
  return e.group ? `${e.json.slice(0, -1)},"resource":${e.group.resource},"scope":${e.group.scope}}` : e.json;
}

/** UTF-8 bytes of `eventJson(e)`, its size on the bus before groups are shared. */
export const eventBytes = (e: Pick<PreparedEvent, 'json' | 'group'>): number => Buffer.byteLength(e.json) + (e.group?.bytes ?? 0);

export type PipelineResult =
  | {
      kind: 'ok';
      events: PreparedEvent[];
      /** OTLP: records that failed decoding; hooks: malformed payloads; direct: rejected events. */
      rejected: number;
      reasons: string[];
      rejections: Array<{ index: number; reason: string }>;
    }
  | { kind: 'bad_request'; code: string; message: string };

/**
 * The group of a resource and a scope object: an OTLP ResourceLogs/ScopeLogs group holds one object
 * each for all of its records, so its JSON is made once. Drafts never mutate them after
 * normalization. Repaired like the events' own JSON (a lone surrogate cannot span the boundary
 * between two JSON values, so repairing the parts equals repairing the whole).
 */
const GROUP_KEYS_BYTES = ',"resource":,"scope":'.length;
const groups = new WeakMap<object, WeakMap<object, EventGroup>>();
function groupOf(resource: object, scope: object): EventGroup {
  let byScope = groups.get(resource);
  if (byScope === undefined) groups.set(resource, (byScope = new WeakMap()));
  let g = byScope.get(scope);
  if (g === undefined) {
    const r = repairSerialized(JSON.stringify(resource));
    const s = repairSerialized(JSON.stringify(scope));
    byScope.set(scope, (g = { resource: r, scope: s, bytes: Buffer.byteLength(r) + Buffer.byteLength(s) + GROUP_KEYS_BYTES }));
  }
  return g;
}

/** Serializes a draft without `receive_time`, resource and scope; the draft is consumed (not used afterwards). */
function serialize(d: EventDraft, index: number): PreparedEvent {
  const { resource, scope } = d;
  // undefined properties are left out by JSON.stringify: cheaper than copying the draft without them
  const loose = d as { receive_time?: string; resource?: unknown; scope?: unknown };
  loose.receive_time = undefined;
  loose.resource = undefined;
  loose.scope = undefined;
  // the exact text that is published and inserted: repaired here, so nothing the store refuses is acknowledged
  const json = repairSerialized(JSON.stringify(d));
  const out: PreparedEvent = { index, json, group: groupOf(resource, scope), agent: d.agent, type: d.type };
  if (d.message) out.messageId = toWellFormed(d.message.message_id);
  return out;
}

const toWellFormed = (s: string) => (s as unknown as { toWellFormed(): string }).toWellFormed();

/** The body as a Buffer over the same memory (no copy). */
const bodyBuffer = (task: PipelineTask) => bufferOf(task.body);

function parseJson(task: PipelineTask, otlp: boolean): unknown {
  const text = bodyText(bodyBuffer(task));
  if (otlp && text.trim() === '') return {};
  // refused before parsing: every later step (redaction, serialization, the store's rows) may recurse
  if (jsonDeeperThan(text, MAX_JSON_DEPTH)) throw new NestingTooDeepError(MAX_JSON_DEPTH, 'JSON objects and arrays');
  try {
    return JSON.parse(text);
  } catch (err) {
    if (otlp) throw new InvalidEnvelopeError('the body is not valid JSON');
    throw new InvalidJsonError((err as Error).message.slice(0, 200));
  }
}

function otlp(task: PipelineTask, ctx: NormalizeContext): PipelineResult {
  const signal = task.route as 'logs' | 'traces' | 'metrics';
  const ids: IdFormat = task.encoding === 'protobuf' ? 'base64' : 'hex';
  const value = task.encoding === 'protobuf' ? decodeProto(signal, bodyBuffer(task)) : parseJson(task, true);
  if (signal === 'metrics') {
    const m = decodeMetrics(value);
    return { kind: 'ok', events: [], rejected: m.rejected, reasons: m.reasons, rejections: [] };
  }
  if (signal === 'logs') {
    const d = decodeLogs(value, ids);
    return { kind: 'ok', events: d.items.map((r, i) => serialize(normalizeLog(ctx, r, i), i)), rejected: d.rejected, reasons: d.reasons, rejections: [] };
  }
  const d = decodeSpans(value, ids);
  return { kind: 'ok', events: d.items.map((s, i) => serialize(normalizeSpan(ctx, s, i), i)), rejected: d.rejected, reasons: d.reasons, rejections: [] };
}

function hooks(task: PipelineTask, ctx: NormalizeContext): PipelineResult {
  const parsed = parseJson(task, false);
  const payloads = Array.isArray(parsed) ? parsed : [parsed];
  const events: PreparedEvent[] = [];
  const rejections: Array<{ index: number; reason: string }> = [];
  payloads.forEach((p, index) => {
    const invalid = p && typeof p === 'object' && !Array.isArray(p) ? check('hook', p) : 'hook payload must be an object';
    const out = invalid ? ({ kind: 'malformed', reason: invalid } as const) : normalizeHook(ctx, p, index);
    if (out.kind === 'event') events.push(serialize(out.event, index));
    else rejections.push({ index, reason: out.reason });
  });
  return { kind: 'ok', events, rejected: rejections.length, reasons: [], rejections };
}

function direct(task: PipelineTask, ctx: NormalizeContext): PipelineResult {
  const parsed = parseJson(task, false);
  const invalid = check('envelope', parsed);
  if (invalid) throw new InvalidIngestEnvelopeError(invalid);
  const env = parsed as { environment?: Environment; events: unknown[] };
  const dctx = withFields(ctx, { environment: env.environment });
  const events: PreparedEvent[] = [];
  const rejections: Array<{ index: number; reason: string }> = [];
  env.events.forEach((raw, index) => {
    const out = normalizeDirect(dctx, raw, index);
    if (out.kind === 'event') events.push(serialize(out.event, index));
    else rejections.push({ index, reason: out.reason });
  });
  return { kind: 'ok', events, rejected: rejections.length, reasons: [], rejections };
}

export function runPipeline(task: PipelineTask): PipelineResult {
  const receiveTime = new Date(task.receiveTime);
  const ctx: NormalizeContext = { tenant: task.tenant, agent: task.agent, source: task.route, receiveTime, receiveTimeIso: receiveTime.toISOString() };
  try {
    if (task.route === 'hooks') return hooks(task, ctx);
    if (task.route === 'ingest') return direct(task, ctx);
    return otlp(task, ctx);
  } catch (err) {
    if (err instanceof AppError && err.status === 400) return { kind: 'bad_request', code: err.code, message: err.message };
    throw err;
  }
}
