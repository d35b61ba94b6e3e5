/**
 * Leases in a JetStream KV bucket: one holder at a time per key, taken by compare-and-set
 * (core/kv.ts) and renewed while the work runs. A lease is `{holder, until}`; it can be taken when
 * absent or expired, renewed only by its holder at the revision it last wrote, and released by
 * its holder. Losing a renewal (another holder took an expired lease, or the bus is gone past the
 * lease's end) aborts the work's signal, so a stalled holder stops instead of overlapping the next.
 */
import type { KV } from '@nats-io/kv';
import { KvConflictError, KvExistsError, kvCreate, kvGet, kvUpdate } from './kv.js';

export interface LeaseValue {
  holder: string;
  until: number;
}

export interface HeldLease {
  key: string;
  holder: string;
  revision: number;
  until: number;
}

const encode = (v: LeaseValue) => JSON.stringify(v);

function parse(text: string): LeaseValue | undefined {
  try {
    const v = JSON.parse(text) as LeaseValue;
    return typeof v?.holder === 'string' && typeof v.until === 'number' ? v : undefined;
  } catch {
    return undefined; // an unreadable lease counts as expired: it can be taken over
  }
}

/** Takes `key` for `ttlMs` when nobody holds an unexpired lease; undefined when someone does. */
export async function acquireLease(kv: KV, key: string, holder: string, ttlMs: number, now = Date.now()): Promise<HeldLease | undefined> {
  const until = now + ttlMs;
  const value = encode({ holder, until });
  try {
    return { key, holder, until, revision: await kvCreate(kv, key, value) };
  } catch (err) {
    if (!(err instanceof KvExistsError)) throw err;
  }
  const e = await kvGet(kv, key);
  if (!e) return undefined; // released between the two reads: the next tick takes it
  const current = parse(e.string());
  if (current && current.until > now && current.holder !== holder) return undefined;
  try {
    return { key, holder, until, revision: await kvUpdate(kv, key, value, e.revision) };
  } catch (err) {
    if (err instanceof KvConflictError) return undefined; // another holder won the race
    throw err;
  }
}

/** Extends a held lease; throws `KvConflictError` when it was taken over meanwhile. */
export async function renewLease(kv: KV, lease: HeldLease, ttlMs: number, now = Date.now()): Promise<HeldLease> {
  const until = now + ttlMs;
  const revision = await kvUpdate(kv, lease.key, encode({ holder: lease.holder, until }), lease.revision);
  return { ...lease, until, revision };
}

/** Gives a held lease back (expired at once) unless someone else holds it now. */
export async function releaseLease(kv: KV, lease: HeldLease): Promise<void> {
  try {
    await kvUpdate(kv, lease.key, encode({ holder: lease.holder, until: 0 }), lease.revision);
  } catch (err) {
    if (!(err instanceof KvConflictError)) throw err;
  }
}

/**
 * Runs `work` under the lease `key` when it can be taken: renews it every `ttlMs / 3`, aborts the
 * signal when a renewal is refused or the lease would run out, and releases it when `work` ends.
 * Returns `{ ran: false }` when another holder has it.
 */
export async function withLease<T>(
  kv: KV,
  key: string,
  holder: string,
  ttlMs: number,
  work: (signal: AbortSignal) => Promise<T>,
  /** Told once when the lease is lost during the work, or when giving it back failed (it then expires). */
  report?: (what: 'lost' | 'release_failed', err: unknown) => void,
): Promise<{ ran: true; value: T } | { ran: false }> {
  let lease = await acquireLease(kv, key, holder, ttlMs);
  if (!lease) return { ran: false };
  const ac = new AbortController();
  let renewing: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    renewing = renewing.then(async () => {
      if (ac.signal.aborted || !lease) return;
      try {
        lease = await renewLease(kv, lease, ttlMs);
      } catch (err) {
        // taken over, or the bus failed: stop before the lease can be held by two
        if (err instanceof KvConflictError || Date.now() >= lease.until - ttlMs / 3) {
          ac.abort(err);
          report?.('lost', err);
        }
      }
    });
  }, Math.max(10, Math.floor(ttlMs / 3)));
  timer.unref();
  try {
    return { ran: true, value: await work(ac.signal) };
  } finally {
    clearInterval(timer);
    await renewing;
    if (!ac.signal.aborted && lease) await releaseLease(kv, lease).catch((err) => report?.('release_failed', err));
  }
}
