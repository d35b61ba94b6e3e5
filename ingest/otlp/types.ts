import type { Attributes } from '../../schemas/events.js';

/** A decoded OTLP scope with its resource: shared by every record under it. */
export interface OtlpContext {
  resource: Attributes;
  scope: { name: string; version: string; attributes: Attributes };
}

/** One log record in a wire-neutral form (JSON and protobuf decode to this). */
export interface OtlpLogRecord {
  ctx: OtlpContext;
  /** Nanoseconds since the epoch as a decimal string; '' when unset. */
  timeUnixNano: string;
  observedTimeUnixNano: string;
  severityNumber: number;
  severityText: string;
  body: unknown;
  attributes: Attributes;
  traceId: string;
  spanId: string;
  eventName: string;
}

export interface OtlpSpan {
  ctx: OtlpContext;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Attributes;
  events: Array<{ name: string; timeUnixNano: string; attributes: Attributes }>;
  status: { code: number; message: string };
}

/** Result of decoding one envelope: good items plus the count and first reasons of rejected ones. */
export interface Decoded<T> {
  items: T[];
  rejected: number;
  reasons: string[];
}

/** Raised inside a record's decoding: rejects that record only. */
export class RecordError extends Error {
  override name = 'RecordError';
}
