import { AppError, BadRequestError } from '../core/errors.js';

/** 400 for OTLP bodies that cannot be read as an Export*ServiceRequest (spec/ingestion.md Errors). */
export class InvalidEnvelopeError extends BadRequestError {
  override name = 'InvalidEnvelopeError';
  constructor(detail: string, opts: { cause?: unknown } = {}) {
    super(`invalid OTLP envelope: ${detail}`, { ...opts, code: 'invalid_envelope' });
  }
}

/** 400 for hook and direct-ingest bodies that are not JSON. */
export class InvalidJsonError extends BadRequestError {
  override name = 'InvalidJsonError';
  constructor(detail: string, opts: { cause?: unknown } = {}) {
    super(`invalid JSON body: ${detail}`, { ...opts, code: 'invalid_json' });
  }
}

/** 404 for an `{agent}` path segment that names no supported agent. */
export class UnknownAgentError extends AppError {
  override name = 'UnknownAgentError';
  constructor(agent: string) {
    super('unknown_agent', 404, `unknown agent "${agent.slice(0, 64)}": expected agent-a, agent-b or agent-c`);
  }
}
