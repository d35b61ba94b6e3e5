import { join } from 'node:path';
import protobuf from 'protobufjs';
import { projectRoot } from '../../core/paths.js';
import { withCause } from '../../core/errors.js';
import { InvalidEnvelopeError, NestingTooDeepError } from '../errors.js';
import { MAX_PROTO_DEPTH, protoDeeperThan } from '../limits.js';
import { ProtoDepthError, readProto } from './proto-reader.js';
import { shapeOf, type Shape } from './proto-shapes.js';

/**
 * protobufjs over our own .proto files in schemas/otlp/. Requests are decoded to plain objects with
 * the OTLP/JSON field names (protobufjs camelCases them), int64 as decimal strings and bytes as
 * base64, so decode-envelope.ts walks protobuf and JSON alike. Unknown fields are skipped. Logs and
 * traces are read in one pass by proto-reader.ts into the same shape, except that their
 * `attributes` lists arrive as the maps `keyValues` makes of them (ReadAttributes); metrics through
 * protobufjs.
 */
const PROTO_DIR = join(projectRoot, 'schemas', 'otlp');
let rootCache: protobuf.Root | undefined;

export function protoRoot(): protobuf.Root {
  if (!rootCache) {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) => join(PROTO_DIR, target.replace(/^.*[\\/]/, ''));
    root.loadSync(['collector.proto'], { keepCase: false });
    root.resolveAll();
    rootCache = root;
  }
  return rootCache;
}

export type Signal = 'logs' | 'traces' | 'metrics';
const REQUEST: Record<Signal, string> = {
  logs: 'opentelemetry.proto.collector.ExportLogsServiceRequest',
  traces: 'opentelemetry.proto.collector.ExportTraceServiceRequest',
  metrics: 'opentelemetry.proto.collector.ExportMetricsServiceRequest',
};
const RESPONSE: Record<Signal, string> = {
  logs: 'opentelemetry.proto.collector.ExportLogsServiceResponse',
  traces: 'opentelemetry.proto.collector.ExportTraceServiceResponse',
  metrics: 'opentelemetry.proto.collector.ExportMetricsServiceResponse',
};

/** Logs and traces are read by the direct reader (proto-reader.ts); metrics, only counted, by protobufjs. */
const direct = new Map<Signal, Shape>();
function directShape(signal: Signal): Shape | undefined {
  if (signal === 'metrics') return undefined;
  let shape = direct.get(signal);
  if (!shape) direct.set(signal, (shape = shapeOf(protoRoot().lookupType(REQUEST[signal]), true)));
  return shape;
}

export function decodeProto(signal: Signal, buf: Buffer): unknown {
  const shape = directShape(signal);
  if (shape) {
    try {
      return readProto(shape, buf, MAX_PROTO_DEPTH);
    } catch (err) {
      if (err instanceof ProtoDepthError) throw withCause(new NestingTooDeepError(MAX_PROTO_DEPTH, 'protobuf messages'), err);
      throw withCause(new InvalidEnvelopeError(`protobuf ${shape.name} could not be decoded`), err);
    }
  }
  const type = protoRoot().lookupType(REQUEST[signal]);
  try {
    const msg = type.decode(buf);
    return type.toObject(msg, { longs: String, bytes: String, defaults: false, arrays: false, oneofs: false });
  } catch (err) {
    // protobufjs refuses deep nesting with the same error as garbage: measure to say which it was
    if (protoDeeperThan(type, buf, MAX_PROTO_DEPTH)) throw withCause(new NestingTooDeepError(MAX_PROTO_DEPTH, 'protobuf messages'), err);
    throw withCause(new InvalidEnvelopeError(`protobuf ${type.name} could not be decoded`), err);
  }
}

/** The Export*ServiceResponse for a protobuf request; partial success unset when nothing was rejected. */
export function encodeProtoResponse(signal: Signal, partial: { rejected: number; errorMessage?: string }): Buffer {
  const type = protoRoot().lookupType(RESPONSE[signal]);
  const key = signal === 'logs' ? 'rejectedLogRecords' : signal === 'traces' ? 'rejectedSpans' : 'rejectedDataPoints';
  const body = partial.rejected > 0 || partial.errorMessage ? { partialSuccess: { [key]: partial.rejected, errorMessage: partial.errorMessage ?? '' } } : {};
  return Buffer.from(type.encode(type.fromObject(body)).finish());
}

/** Test helper and client side: encodes a request object in the OTLP/JSON shape (ids as base64). */
export function encodeProtoRequest(signal: Signal, body: object): Buffer {
  const type = protoRoot().lookupType(REQUEST[signal]);
  return Buffer.from(type.encode(type.fromObject(body)).finish());
}

/** Decodes a response (tests and clients). */
export function decodeProtoResponse(signal: Signal, buf: Buffer): Record<string, unknown> {
  const type = protoRoot().lookupType(RESPONSE[signal]);
  return type.toObject(type.decode(buf), { longs: Number, defaults: false }) as Record<string, unknown>;
}
