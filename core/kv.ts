/**
 * Compare-and-set over JetStream KV with typed outcomes: the one helper every create-if-absent and
 * compare-and-set of the project goes through (keys, signing secret, leases, later fixes and
 * pending feedback). A refused write is told apart from any other failure by the JetStream API
 * error code ("wrong last sequence"), never by message text, and surfaces as `KvExistsError`
 * (create of a key that holds a value) or `KvConflictError` (update at a stale revision); every
 * other error (timeouts, no responders, a missing bucket) propagates as it is.
 */
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { KV, KvEntry } from '@nats-io/kv';

/** `create` refused: the key already holds a value. */
export class KvExistsError extends Error {
  override name = 'KvExistsError';
  readonly code = 'kv_exists';
  constructor(readonly key: string, opts: { cause?: unknown } = {}) {
    super(`KV key "${key}" already exists`, opts);
  }
}

/** `update` refused: the key changed since `revision` was read. */
export class KvConflictError extends Error {
  override name = 'KvConflictError';
  readonly code = 'kv_conflict';
  constructor(readonly key: string, readonly revision: number, opts: { cause?: unknown } = {}) {
    super(`KV key "${key}" changed after revision ${revision}`, opts);
  }
}

/** The publish was refused because the subject's last sequence was not the one expected. */
export function isWrongLastSequence(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/** Creates `key` only if it has no value; returns the revision. Throws `KvExistsError` otherwise. */
export async function kvCreate(kv: KV, key: string, value: string | Uint8Array): Promise<number> {
  try {
    return await kv.create(key, value);
  } catch (err) {
    if (isWrongLastSequence(err)) throw new KvExistsError(key, { cause: err });
    throw err;
  }
}

/** Writes `key` only if its revision is still `revision`; returns the new one. Throws `KvConflictError` otherwise. */
export async function kvUpdate(kv: KV, key: string, value: string | Uint8Array, revision: number): Promise<number> {
  try {
    return await kv.update(key, value, revision);
  } catch (err) {
    if (isWrongLastSequence(err)) throw new KvConflictError(key, revision, { cause: err });
    throw err;
  }
}

/** The live entry of `key` (a deleted or purged key has none). */
export async function kvGet(kv: KV, key: string): Promise<KvEntry | undefined> {
  const e = await kv.get(key);
  return e && e.operation === 'PUT' ? e : undefined;
}

/** Creates `key` with `value` unless it exists; either way returns the value stored now. */
export async function kvCreateIfAbsent(kv: KV, key: string, value: string): Promise<{ created: boolean; value: string }> {
  try {
    await kvCreate(kv, key, value);
    return { created: true, value };
  } catch (err) {
    if (!(err instanceof KvExistsError)) throw err;
  }
  const e = await kvGet(kv, key);
  if (!e) throw new KvConflictError(key, 0);
  return { created: false, value: e.string() };
}

/**
 * Read–modify–write with compare-and-set: `next(current)` returns the value to write (or
 * `undefined` to leave the key as it is); on a concurrent change it runs again on the newer value,
 * at most `attempts` times, then throws the last `KvConflictError`. Returns what was written (or
 * the current value when nothing was) and its revision.
 */
export async function kvCompareAndSet<T>(
  kv: KV,
  key: string,
  next: (current: T | undefined) => T | undefined,
  attempts = 5,
): Promise<{ value: T | undefined; revision: number; written: boolean }> {
  let lastErr: unknown;
  for (let i = 0; i < attempts; i++) {
    const e = await kvGet(kv, key);
    const current = e ? e.json<T>() : undefined;
    const value = next(current);
    if (value === undefined) return { value: current, revision: e?.revision ?? 0, written: false };
    try {
      const data = JSON.stringify(value);
      const revision = e ? await kvUpdate(kv, key, data, e.revision) : await kvCreate(kv, key, data);
      return { value, revision, written: true };
    } catch (err) {
      if (!(err instanceof KvConflictError || err instanceof KvExistsError)) throw err;
      lastErr = err;
    }
  }
  throw lastErr;
}
