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

/** One normalized event serialized without `event_id` and `receive_time` (added at publish). */
export interface PreparedEvent {
  index: number;
  json: string;
  agent: AgentId;
  type: EventType;
  messageId?: string;
}

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
 * JSON of objects shared by many events of one request: the resource and scope of an OTLP
 * ResourceLogs/ScopeLogs group are one object each for all of its records, serialized once.
 * Drafts never mutate them after normalization.
 */
const sharedJson = new WeakMap<object, string>();
function jsonOnce(v: object): string {
  let json = sharedJson.get(v);
  if (json === undefined) sharedJson.set(v, (json = JSON.stringify(v)));
  return json;
}

/** Serializes a draft without `receive_time`; the draft is consumed (not used afterwards). */
function serialize(d: EventDraft, index: number): PreparedEvent {
  const { resource, scope } = d;
  // undefined properties are left out by JSON.stringify: cheaper than copying the draft without them
  const loose = d as { receive_time?: string; resource?: unknown; scope?: unknown };
  loose.receive_time = undefined;
  loose.resource = undefined;
  loose.scope = undefined;
  const head = JSON.stringify(d);
  // the exact text that is published and inserted: repaired here, so nothing the store refuses is acknowledged
  const json = repairSerialized(`${head.slice(0, -1)},"resource":${jsonOnce(resource)},"scope":${jsonOnce(scope)}}`);
  const out: PreparedEvent = { index, json, agent: d.agent, type: d.type };
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
