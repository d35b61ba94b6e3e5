/**
 * Typed errors shared by every role. Each has a stable `code` and an HTTP `status`; only the HTTP
 * edge turns them into responses. `expose` marks a message that is safe to show a client.
 * New codes are declared with `defineError` (the fastify `lib/errors.js` model): one registry holds
 * every code once, with its status and meaning, and callers throw the class, never a string.
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

/** A byte limit as people read it, never rounded: `5 MB`, `64 KB`, or `1,500,000 bytes`. */
function formatByteLimit(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / 1024 / 1024} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes.toLocaleString('en-US')} bytes`;
}

/** 413: body over the limit (before reading, while streaming, or after decompression). */
export class PayloadTooLargeError extends AppError {
  override name = 'PayloadTooLargeError';
  constructor(limitBytes: number) {
    super('payload_too_large', 413, `request body exceeds the ${formatByteLimit(limitBytes)} limit`);
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

/** One entry of the error-code registry. */
export interface ErrorCodeInfo {
  code: string;
  status: number;
  description: string;
}

const REGISTRY = new Map<string, ErrorCodeInfo>();

/** Every code declared with `defineError`, in declaration order (docs and tests list them). */
export function errorCodes(): ErrorCodeInfo[] {
  return [...REGISTRY.values()];
}

/** An error class made by `defineError`: its constructor takes the message arguments. */
export interface DefinedError<A extends unknown[]> {
  new (...args: A): AppError;
  readonly code: string;
  readonly status: number;
}

/**
 * Declares an error class for a stable `code`: registered once (a second declaration of the same
 * code throws when the module loads), with its HTTP status and a message built from the
 * constructor's arguments. Messages of 4xx codes are shown to clients; 5xx are not, except 503.
 * A cause is attached with `Object.assign(new X(...), { cause })` or `withCause`.
 */
export function defineError<A extends unknown[]>(code: string, status: number, name: string, message: (...args: A) => string, description: string): DefinedError<A> {
  if (REGISTRY.has(code)) throw new Error(`error code "${code}" is defined twice`);
  REGISTRY.set(code, { code, status, description });
  const Defined = class extends AppError {
    static readonly code = code;
    static readonly status = status;
    constructor(...args: A) {
      super(code, status, message(...args), { expose: status < 500 || status === 503 });
      this.name = name;
    }
  };
  Object.defineProperty(Defined, 'name', { value: name });
  return Defined;
}

/** A 503 factory made by `defineUnavailable`: the detail overrides the default message. */
export interface DefinedUnavailable {
  (detail?: string): UnavailableError;
  readonly code: string;
  readonly status: 503;
}

/**
 * Declares a 503 code (a dependency that cannot take the work now) in the same registry as
 * `defineError`; the factory returns an `UnavailableError` carrying the code and its Retry-After.
 */
export function defineUnavailable(code: string, retryAfterSeconds: number, defaultMessage: string, description: string): DefinedUnavailable {
  if (REGISTRY.has(code)) throw new Error(`error code "${code}" is defined twice`);
  REGISTRY.set(code, { code, status: 503, description });
  const make = (detail?: string) => new UnavailableError(detail ?? defaultMessage, retryAfterSeconds, { code });
  return Object.assign(make, { code, status: 503 as const });
}

/** Looks a code up in the registry (undefined when no module declared it). */
export function errorCode(code: string): ErrorCodeInfo | undefined {
  return REGISTRY.get(code);
}

/** Attaches `cause` to an error and returns it (for classes made by `defineError`). */
export function withCause<E extends Error>(err: E, cause: unknown): E {
  Object.defineProperty(err, 'cause', { value: cause, enumerable: false, writable: true, configurable: true });
  return err;
}

/** An error as one line for logs and stored outcomes: `Name: message`, or the value as text. */
export const describeError = (err: unknown): string => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));
