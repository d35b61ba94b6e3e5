/**
 * Error codes of the ingest role (registry: core/errors.ts `defineError`). Every error answer of
 * every ingest route carries one of these codes, or a shared one (`unauthorized`,
 * `payload_too_large`, `unsupported_media_type`, `unavailable_*`), in one body shape
 * (docs/ingestion.md "Errors").
 */
import { defineError } from '../core/errors.js';

/** 400 for OTLP bodies that cannot be read as an Export*ServiceRequest (spec/ingestion.md Errors). */
export const InvalidEnvelopeError = defineError(
  'invalid_envelope',
  400,
  'InvalidEnvelopeError',
  (detail: string) => `invalid OTLP envelope: ${detail}`,
  'OTLP body that is not an Export*ServiceRequest (JSON or protobuf)',
);

/** 400 for hook and direct-ingest bodies that are not JSON. */
export const InvalidJsonError = defineError(
  'invalid_json',
  400,
  'InvalidJsonError',
  (detail: string) => `invalid JSON body: ${detail}`,
  'hook or direct-ingest body that does not parse as JSON',
);

/** 400 for a /v1/ingest body that is not `{environment?, events: [...]}`. */
export const InvalidIngestEnvelopeError = defineError(
  'invalid_ingest_envelope',
  400,
  'InvalidIngestEnvelopeError',
  (detail: string) => `invalid ingest envelope: ${detail}`,
  '/v1/ingest body that is not {environment?, events: array}',
);

/** 400 for a body nested deeper than the documented limit, on every route. */
export const NestingTooDeepError = defineError(
  'nesting_too_deep',
  400,
  'NestingTooDeepError',
  (limit: number, unit: string) => `request body nests deeper than ${limit} levels of ${unit}; flatten it`,
  'body nested deeper than the limit of docs/ingestion.md "Limits" (checked without recursion)',
);

/** 413 for a direct-ingest event too large for one bus message, even alone. */
export const EventTooLargeError = defineError(
  'event_too_large',
  413,
  'EventTooLargeError',
  (index: number, bytes: number, limit: number) => `event ${index} is ${bytes} bytes once normalized, over the limit of ${limit} bytes for one event; split its content`,
  '/v1/ingest request holding an event larger than one bus message takes',
);

/** 400 for protobuf bodies on the agent traces route. */
export const ProtobufTracesUnsupportedError = defineError(
  'protobuf_traces_unsupported',
  400,
  'ProtobufTracesUnsupportedError',
  () => 'protobuf traces are unsupported on /v1/otel/{agent}/traces: send OTLP/JSON, or protobuf to /v1/traces',
  'protobuf body on /v1/otel/{agent}/traces (spec: JSON only)',
);

/** 404 for an `{agent}` path segment that names no supported agent. */
export const UnknownAgentError = defineError(
  'unknown_agent',
  404,
  'UnknownAgentError',
  (agent: string) => `unknown agent "${agent.slice(0, 64)}": expected agent-a, agent-b or agent-c`,
  '{agent} path segment other than agent-a, agent-b, agent-c',
);

/** 404 for a path that is no ingest route (same error shape as every other answer). */
export const RouteNotFoundError = defineError(
  'route_not_found',
  404,
  'RouteNotFoundError',
  (method: string, path: string) => `no ingest route ${method} ${path.slice(0, 200)}: see docs/ingestion.md "Routes"`,
  'path that is no ingest route',
);

/** 405 for a known route with another method (ingest routes are POST). */
export const MethodNotAllowedError = defineError(
  'method_not_allowed',
  405,
  'MethodNotAllowedError',
  (method: string, path: string) => `${method} is not allowed on ${path.slice(0, 200)}: ingest routes take POST`,
  'known ingest route called with a method other than POST',
);
