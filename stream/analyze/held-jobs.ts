/**
 * The analysis jobs the `analyze` consumer holds, and the rule that decides which of them run now
 * (docs/stream.md "Analysis under load"). A job runs once it is due (its debounce window closed);
 * while the `store` consumer lags, a due job is held instead — deferred — until the lag clears or
 * it has been due for `maxDeferMs` (bounded staleness). Pure: the caller passes the time and
 * whether the store path lags, and owns the messages behind the jobs.
 */

export interface HeldJob<T> {
  /** The conversation (`tenant\u0000conversation`): a batch takes every due job of a conversation it analyzes. */
  key: string;
  /** Earliest time (ms) the job may run. */
  dueMs: number;
  item: T;
}

export interface HeldJobs<T> {
  add(job: HeldJob<T>): void;
  readonly size: number;
  /**
   * The jobs to run now, earliest due first: due ones, or while `lagging` only those past their
   * deferral bound; at most `maxKeys` conversations, each with all its due jobs. Due jobs left
   * behind because of the lag count as deferred (once each).
   */
  take(nowMs: number, lagging: boolean, maxKeys: number): T[];
  /** When `take` would return a job next, should the lag stay as it is; undefined when nothing is held. */
  nextRunMs(lagging: boolean): number | undefined;
  /** Due jobs held now (deferred, or not yet taken). */
  dueCount(nowMs: number): number;
  /** Removes and returns every job (shutdown: each is left to be redelivered). */
  clear(): HeldJob<T>[];
  items(): Iterable<T>;
  readonly stats: {
    /** Jobs held past their due time because of the lag, since creation. */
    readonly deferredTotal: number;
    /** Longest time a job ran past its due time after a deferral (ms). */
    readonly maxDeferralMs: number;
  };
}

interface Entry<T> extends HeldJob<T> {
  deferred: boolean;
}

export function createHeldJobs<T>(opts: { maxDeferMs: number }): HeldJobs<T> {
  let entries: Entry<T>[] = [];
  let deferredTotal = 0;
  let maxDeferralMs = 0;
  const runnableAt = (e: Entry<T>, lagging: boolean) => (lagging ? e.dueMs + opts.maxDeferMs : e.dueMs);

  return {
    add(job) {
      entries.push({ ...job, deferred: false });
    },
    get size() {
      return entries.length;
    },
    take(nowMs, lagging, maxKeys) {
      const runnable = entries.filter((e) => runnableAt(e, lagging) <= nowMs).sort((a, b) => a.dueMs - b.dueMs);
      const keys = new Set<string>();
      for (const e of runnable) {
        if (keys.size >= maxKeys) break;
        keys.add(e.key);
      }
      const out: T[] = [];
      const rest: Entry<T>[] = [];
      for (const e of entries) {
        // every due job of a chosen conversation goes with it: one snapshot serves them all
        if (keys.has(e.key) && e.dueMs <= nowMs) {
          if (e.deferred) maxDeferralMs = Math.max(maxDeferralMs, nowMs - e.dueMs);
          out.push(e.item);
          continue;
        }
        if (lagging && !e.deferred && e.dueMs <= nowMs) {
          e.deferred = true;
          deferredTotal++;
        }
        rest.push(e);
      }
      entries = rest;
      return out;
    },
    nextRunMs(lagging) {
      let next: number | undefined;
      for (const e of entries) {
        const at = runnableAt(e, lagging);
        if (next === undefined || at < next) next = at;
      }
      return next;
    },
    dueCount(nowMs) {
      let n = 0;
      for (const e of entries) if (e.dueMs <= nowMs) n++;
      return n;
    },
    clear() {
      const all = entries;
      entries = [];
      return all.map(({ key, dueMs, item }) => ({ key, dueMs, item }));
    },
    *items() {
      for (const e of entries) yield e.item;
    },
    stats: {
      get deferredTotal() {
        return deferredTotal;
      },
      get maxDeferralMs() {
        return maxDeferralMs;
      },
    },
  };
}
