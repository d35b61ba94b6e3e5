/**
 * Typed errors shared by every role. Each has a stable `code` and an HTTP `status`; only the HTTP
 * edge turns them into responses. `expose` marks a message that is safe to show a client.
 */
export class AppError extends Error {
  override name = 'AppError';
  readonly code: string;
  readonly status: number;
  readonly expose: boolean;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;
  constructor(
    code: string,
    status: number,
    message: string,
    opts: { cause?: unknown; expose?: boolean; details?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: opts.cause });
    this.code = code;
    this.status = status;
    this.expose = opts.expose ?? status < 500;
    this.details = opts.details;
    this.headers = opts.headers;
  }
}

/** 400: the request is malformed; never retry. */
export class BadRequestError extends AppError {
  override name = 'BadRequestError';
  constructor(message: string, opts: { cause?: unknown; details?: unknown; code?: string } = {}) {
    super(opts.code ?? 'bad_request', 400, message, opts);
  }
}

/** 401: missing, invalid or revoked credentials. */
export class UnauthorizedError extends AppError {
  override name = 'UnauthorizedError';
  constructor(message: string, code = 'unauthorized') {
    super(code, 401, message);
  }
}

/** 403: valid credentials without the needed scope or role. */
export class ForbiddenError extends AppError {
  override name = 'ForbiddenError';
  constructor(message: string) {
    super('forbidden', 403, message);
  }
}

export class NotFoundError extends AppError {
  override name = 'NotFoundError';
  constructor(message: string) {
    super('not_found', 404, message);
  }
}

/** 413: body over the limit (before reading, while streaming, or after decompression). */
export class PayloadTooLargeError extends AppError {
  override name = 'PayloadTooLargeError';
  constructor(limitBytes: number) {
    super('payload_too_large', 413, `request body exceeds the ${Math.round(limitBytes / 1024 / 1024)} MB limit`);
  }
}

/** 415: a content type the route does not accept. */
export class UnsupportedMediaTypeError extends AppError {
  override name = 'UnsupportedMediaTypeError';
  constructor(message: string) {
    super('unsupported_media_type', 415, message);
  }
}

/** 503: a dependency cannot take the work now; safe to retry after `retryAfterSeconds`. */
export class UnavailableError extends AppError {
  override name = 'UnavailableError';
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number, opts: { cause?: unknown; code?: string } = {}) {
    super(opts.code ?? 'unavailable', 503, message, {
      cause: opts.cause,
      expose: true,
      headers: { 'retry-after': String(retryAfterSeconds) },
    });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** An invalid configuration value; the message names the variable and what is allowed. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly variable: string;
  constructor(variable: string, value: string, allowed: string) {
    super(`Invalid ${variable}=${JSON.stringify(value)}: expected ${allowed}.`);
    this.variable = variable;
  }
}

/** A required external program or service is missing; the message says how to get it. */
export class DependencyError extends Error {
  override name = 'DependencyError';
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super(message, opts);
  }
}
