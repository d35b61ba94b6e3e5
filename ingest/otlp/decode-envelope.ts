import { InvalidEnvelopeError } from '../errors.js';
import { anyValue, hexId, intField, keyValues, nanos, str } from './anyvalue.js';
import { RecordError, type Decoded, type OtlpContext, type OtlpLogRecord, type OtlpSpan } from './types.js';

/**
 * Walks an Export*ServiceRequest in the OTLP/JSON shape (lowerCamelCase). Protobuf requests are
 * decoded into the same shape, with ids as base64 instead of hex (`ids`).
 * A wrong envelope (not an object, or its top-level list not a list) is a 400 for the whole
 * request; any broken element below it (a resource or scope entry that is not an object, a scope
 * or record list that is not a list, a bad resource, scope or record) rejects only what it holds
 * (partial success), the valid records beside it are accepted.
 */
export type IdFormat = 'hex' | 'base64';

const MAX_REASONS = 5;

function obj(v: unknown, what: string): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new RecordError(`${what} must be an object`);
  return v as Record<string, unknown>;
}

function list(v: unknown, what: string, envelope: boolean): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    if (envelope) throw new InvalidEnvelopeError(`${what} must be an array`);
    throw new RecordError(`${what} must be an array`);
  }
  return v;
}

function root(body: unknown, key: string): unknown[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new InvalidEnvelopeError('the body must be a JSON object');
  return list((body as Record<string, unknown>)[key], key, true);
}

function context(resourceItem: Record<string, unknown>, scopeItem: Record<string, unknown>): OtlpContext {
  const resource = obj(resourceItem.resource, 'resource');
  const scope = obj(scopeItem.scope, 'scope');
  return {
    resource: keyValues(resource.attributes),
    scope: { name: str(scope.name, 'scope.name'), version: str(scope.version, 'scope.version'), attributes: keyValues(scope.attributes) },
  };
}

function id(v: unknown, bytes: number, what: string, ids: IdFormat): string {
  if (ids === 'base64' && typeof v === 'string') return hexId(Buffer.from(v, 'base64').toString('hex'), bytes, what);
  return hexId(v, bytes, what);
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * Generic resource → scope → item walk with per-item rejection. A broken element of the structure
 * (a resource or scope that is not an object, a scope or item list that is not a list) rejects what
 * it holds, counted as one item since its items cannot be told apart; `size` is what one rejected
 * item counts (a record or span is 1, a metric its data points).
 */
function walk<T>(
  body: unknown,
  keys: { resource: string; scope: string; item: string },
  decodeItem: (item: unknown, ctx: OtlpContext) => T,
  size: (item: unknown) => number = () => 1,
): Decoded<T> {
  const out: Decoded<T> = { items: [], rejected: 0, reasons: [] };
  const note = (n: number, reason: string) => {
    out.rejected += n;
    if (out.reasons.length < MAX_REASONS) out.reasons.push(reason);
  };
  const reject = (n: number, err: unknown) => {
    if (!(err instanceof RecordError)) throw err;
    note(n, err.message);
  };
  const resources = root(body, keys.resource);
  for (let ri = 0; ri < resources.length; ri++) {
    const ro = resources[ri];
    if (!isObject(ro)) {
      note(1, `${keys.resource}[${ri}] must be an object`);
      continue;
    }
    const scopes = ro[keys.scope];
    if (scopes === undefined || scopes === null) continue;
    if (!Array.isArray(scopes)) {
      note(1, `${keys.resource}[${ri}].${keys.scope} must be an array`);
      continue;
    }
    for (let si = 0; si < scopes.length; si++) {
      const so = scopes[si];
      if (!isObject(so)) {
        note(1, `${keys.resource}[${ri}].${keys.scope}[${si}] must be an object`);
        continue;
      }
      const items = so[keys.item] ?? [];
      if (!Array.isArray(items)) {
        note(1, `${keys.resource}[${ri}].${keys.scope}[${si}].${keys.item} must be an array`);
        continue;
      }
      let ctx: OtlpContext;
      try {
        ctx = context(ro, so);
      } catch (err) {
        let n = 0;
        for (const item of items) n += size(item);
        reject(n, err);
        continue;
      }
      for (const item of items) {
        try {
          out.items.push(decodeItem(item, ctx));
        } catch (err) {
          reject(size(item), err);
        }
      }
    }
  }
  return out;
}

export function decodeLogs(body: unknown, ids: IdFormat = 'hex'): Decoded<OtlpLogRecord> {
  return walk(body, { resource: 'resourceLogs', scope: 'scopeLogs', item: 'logRecords' }, (item, ctx) => {
    const r = obj(item, 'logRecord');
    return {
      ctx,
      timeUnixNano: nanos(r.timeUnixNano, 'timeUnixNano'),
      observedTimeUnixNano: nanos(r.observedTimeUnixNano, 'observedTimeUnixNano'),
      severityNumber: intField(r.severityNumber, 'severityNumber'),
      severityText: str(r.severityText, 'severityText'),
      body: anyValue(r.body),
      attributes: keyValues(r.attributes),
      traceId: id(r.traceId, 16, 'traceId', ids),
      spanId: id(r.spanId, 8, 'spanId', ids),
      eventName: str(r.eventName, 'eventName'),
    };
  });
}

export function decodeSpans(body: unknown, ids: IdFormat = 'hex'): Decoded<OtlpSpan> {
  return walk(body, { resource: 'resourceSpans', scope: 'scopeSpans', item: 'spans' }, (item, ctx) => {
    const s = obj(item, 'span');
    const status = obj(s.status, 'status');
    const traceId = id(s.traceId, 16, 'traceId', ids);
    const spanId = id(s.spanId, 8, 'spanId', ids);
    if (!traceId || !spanId) throw new RecordError('span traceId and spanId are required');
    return {
      ctx,
      traceId,
      spanId,
      parentSpanId: id(s.parentSpanId, 8, 'parentSpanId', ids),
      name: str(s.name, 'name'),
      kind: intField(s.kind, 'kind'),
      startTimeUnixNano: nanos(s.startTimeUnixNano, 'startTimeUnixNano'),
      endTimeUnixNano: nanos(s.endTimeUnixNano, 'endTimeUnixNano'),
      attributes: keyValues(s.attributes),
      events: list(s.events, 'events', false).map((e) => {
        const eo = obj(e, 'event');
        return { name: str(eo.name, 'event.name'), timeUnixNano: nanos(eo.timeUnixNano, 'event.timeUnixNano'), attributes: keyValues(eo.attributes) };
      }),
      status: { code: intField(status.code, 'status.code'), message: str(status.message, 'status.message') },
    };
  });
}

const POINT_KINDS = ['gauge', 'sum', 'histogram', 'exponentialHistogram', 'summary'] as const;

/** Data points of a metric as sent, for a rejected one: at least 1 when none can be counted. */
function pointsOf(metric: unknown): number {
  let n = 0;
  if (isObject(metric)) {
    for (const kind of POINT_KINDS) {
      const points = isObject(metric[kind]) ? (metric[kind] as Record<string, unknown>).dataPoints : undefined;
      if (Array.isArray(points)) n += points.length;
    }
  }
  return Math.max(n, 1);
}

/**
 * Metrics are validated and counted, never stored: returns the data points per metric. A rejected
 * metric counts its data points (OTLP's `rejectedDataPoints`).
 */
export function decodeMetrics(body: unknown): Decoded<{ name: string; points: number }> {
  const out = walk(body, { resource: 'resourceMetrics', scope: 'scopeMetrics', item: 'metrics' }, (item) => {
    const m = obj(item, 'metric');
    const name = str(m.name, 'metric.name');
    if (!name) throw new RecordError('metric name is required');
    let points = 0;
    for (const kind of POINT_KINDS) {
      if (m[kind] === undefined || m[kind] === null) continue;
      const dps = list(obj(m[kind], kind).dataPoints, `${kind}.dataPoints`, false);
      for (const dp of dps) {
        const p = obj(dp, 'dataPoint');
        keyValues(p.attributes);
        nanos(p.timeUnixNano, 'timeUnixNano');
        nanos(p.startTimeUnixNano, 'startTimeUnixNano');
        if (p.asInt !== undefined) intField(p.asInt, 'asInt');
        if (p.asDouble !== undefined && typeof p.asDouble !== 'number' && typeof p.asDouble !== 'string') throw new RecordError('asDouble must be a number');
      }
      points += dps.length;
    }
    return { name, points };
  }, pointsOf);
  return out;
}
