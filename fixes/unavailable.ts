/**
 * Which failures of a data store are an outage (503 `data_store_unavailable` with Retry-After)
 * rather than a fault of the service (500): a NATS connection that is closed, draining, lost or
 * timing out, a request nobody answers, JetStream answering "temporarily unavailable"; ClickHouse
 * errors that `isTransientClickHouseError` classes as transient (network, timeouts, overload, a
 * read-only replica). Decided by error names and codes, never by message text: the NATS client's
 * error classes may come from more than one copy of its module, so names are compared, not classes.
 * Errors of the registry (AppError) pass unchanged; anything else stays a 500.
 */
import { isTransientClickHouseError } from '../core/clickhouse.js';
import { AppError, withCause, type UnavailableError } from '../core/errors.js';
import { dataStoreUnavailable } from './errors.js';

const NATS_OUTAGE_NAMES = new Set(['ClosedConnectionError', 'DrainingConnectionError', 'ConnectionError', 'TimeoutError', 'NoResponders', 'NoRespondersError', 'JetStreamNotEnabled']);
const MAX_CAUSE_DEPTH = 6;

interface ErrorLike {
  name?: unknown;
  status?: unknown;
  code?: unknown;
  cause?: unknown;
  isNoResponders?: () => boolean;
}

/** True when `err` (or one of its causes) says the NATS server cannot be reached or does not answer. */
export function isNatsOutage(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > MAX_CAUSE_DEPTH) return false;
  const e = err as ErrorLike;
  if (typeof e.name === 'string' && NATS_OUTAGE_NAMES.has(e.name)) return true;
  if (e.name === 'RequestError' && typeof e.isNoResponders === 'function' && e.isNoResponders()) return true;
  // JetStream API "temporarily unavailable" (no meta leader, stream leader moving) and status 503/408 replies
  if (e.name === 'JetStreamApiError' && e.status === 503) return true;
  if (e.name === 'JetStreamStatusError' && (e.code === 503 || e.code === 408)) return true;
  return isNatsOutage(e.cause, depth + 1);
}

/** The 503 for a data-store outage, or undefined when `err` is something else. */
export function dependencyUnavailable(err: unknown): UnavailableError | undefined {
  if (err instanceof AppError) return undefined;
  let detail: string | undefined;
  if (isNatsOutage(err)) detail = 'the message bus (NATS JetStream) does not answer; retry later';
  else if (isTransientClickHouseError(err)) detail = 'the analytics store (ClickHouse) does not answer; retry later';
  if (!detail) return undefined;
  return withCause(dataStoreUnavailable(detail), err);
}

/** `err` itself, or its 503 when it is a data-store outage (for `throw asUnavailable(err)`). */
export function asUnavailable(err: unknown): unknown {
  return dependencyUnavailable(err) ?? err;
}
