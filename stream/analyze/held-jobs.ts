/**
 * The analysis jobs the `analyze` consumer holds, and the rule that decides which of them run now
 * (docs/stream.md "Analysis under load"). A job runs once it is due (its debounce window closed);
 * while the `store` consumer lags, a due job is held instead — deferred — until the lag clears or
 * it has been due for `maxDeferMs` (bounded staleness). A conversation analyzed recently may also
 * wait until `notBefore` its key (re-analysis spaced by size, docs/stream.md "Long conversations"),
 * within the same bound. Pure: the caller passes the time and whether the store path lags, and owns
 * the messages behind the jobs.
 */
import { withFields } from '../../core/own.js';

export interface HeldJob<T> {
  /** The conversation (`tenant\u0000conversation`): a batch takes every due job of a conversation it analyzes. */
  key: string;
  /** Earliest time (ms) the job may run. */
  dueMs: number;
  item: T;
}

export interface HeldJobs<T> {
  /**
   * Holds `job`. Of the jobs of its conversation that are due at `nowMs` (the new one included),
   * one is kept (the latest due, waiting since the earliest): the others are returned, to be acked —
   * the analysis the kept one runs loads the conversation after all of their changes were stored.
   * A conversation that keeps changing while it waits holds two jobs: one due, one in its window.
   */
  add(job: HeldJob<T>, nowMs: number): T[];
  /** Removes and returns the jobs of conversation `key` that `drop` picks (e.g. those an analysis just covered). */
  remove(key: string, drop: (item: T) => boolean): T[];
  readonly size: number;
  /**
   * The jobs to run now, earliest due first: due ones, or while `lagging` only those past their
   * deferral bound; at most `maxKeys` conversations, each with all its due jobs. Due jobs left
   * behind because of the lag count as deferred (once each). Only conversations `eligible` are
   * taken (all when it is not given): the others' jobs stay held, e.g. those of conversations being
   * analyzed now, for a batch that loads after that analysis is written.
   */
  take(nowMs: number, lagging: boolean, maxKeys: number, eligible?: (key: string) => boolean): T[];
  /** When `take` would return a job next, should the lag stay as it is; undefined when nothing is held. */
  nextRunMs(lagging: boolean): number | undefined;
  /** Due jobs held now (deferred, or not yet taken). */
  dueCount(nowMs: number): number;
  /**
   * Conversations `take` would return now, counted up to `maxKeys`: a batch is full when this
   * reaches its size. Not `dueCount`: a conversation may hold two due jobs (both held through a
   * lag), and a due job may wait for its conversation's spacing.
   */
  runnableKeys(nowMs: number, lagging: boolean, maxKeys: number, eligible?: (key: string) => boolean): number;
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
  /** Due time of the earliest job this entry stands for (superseded ones included). */
  sinceMs: number;
  deferred: boolean;
}

export interface HeldJobsOptions {
  maxDeferMs: number;
  /** Earliest time (ms) a conversation may be analyzed again; undefined: as soon as due. */
  notBefore?: (key: string) => number | undefined;
}

/**
 * When a job arriving now, due at `dueMs`, may first run, for waking the runner: its due time, or
 * while the store path lags its deferral bound (`take` holds a due job until then). A merge with
 * the conversation's earlier jobs never makes that sooner: the kept job waits since the earliest,
 * whose bound the runner knew already. Waking for every due arrival during a lag made the runner
 * scan what it holds once per arriving job (4,057 scans in one drain of the bench, now 25).
 */
export function firstRunMs(dueMs: number, lagging: boolean, maxDeferMs: number): number {
  return lagging ? dueMs + maxDeferMs : dueMs;
}

export function createHeldJobs<T>(opts: HeldJobsOptions): HeldJobs<T> {
  /**
   * Every held job in arrival order (a Set keeps it through deletions), and the jobs of each
   * conversation in the same order: adding a job looks at its own conversation's jobs only, so a
   * backlog of thousands of held conversations costs no scan of them all per delivery.
   */
  let entries = new Set<Entry<T>>();
  let byKey = new Map<string, Entry<T>[]>();
  let deferredTotal = 0;
  let maxDeferralMs = 0;
  /** No entry waits past `sinceMs + maxDeferMs`, whether for the lag or for the spacing. */
  const runnableAt = (e: Entry<T>, lagging: boolean) => {
    const bound = e.sinceMs + opts.maxDeferMs;
    if (lagging) return Math.max(e.dueMs, bound);
    const spaced = opts.notBefore?.(e.key);
    return spaced === undefined || spaced <= e.dueMs ? e.dueMs : Math.max(e.dueMs, Math.min(spaced, bound));
  };

  return {
    add(job, nowMs) {
      const entry: Entry<T> = withFields(job, { sinceMs: job.dueMs, deferred: false });
      entries.add(entry);
      const same = byKey.get(job.key);
      if (!same) {
        byKey.set(job.key, [entry]);
        return [];
      }
      same.push(entry);
      // the due jobs of this conversation become one: the latest due, waiting since the earliest
      const due = same.filter((e) => e.dueMs <= nowMs);
      if (due.length < 2) return [];
      const keep = due.reduce((a, b) => (b.dueMs > a.dueMs ? b : a));
      const dropped = due.filter((e) => e !== keep);
      for (const e of dropped) {
        keep.sinceMs = Math.min(keep.sinceMs, e.sinceMs);
        keep.deferred ||= e.deferred;
        entries.delete(e);
      }
      byKey.set(
        job.key,
        same.filter((e) => e === keep || e.dueMs > nowMs),
      );
      return dropped.map((e) => e.item);
    },
    remove(key, drop) {
      const same = byKey.get(key);
      if (!same) return [];
      const gone = same.filter((e) => drop(e.item));
      if (gone.length === 0) return [];
      for (const e of gone) entries.delete(e);
      const left = same.filter((e) => !gone.includes(e));
      if (left.length) byKey.set(key, left);
      else byKey.delete(key);
      return gone.map((e) => e.item);
    },
    get size() {
      return entries.size;
    },
    take(nowMs, lagging, maxKeys, eligible) {
      // polled every 250 ms while a lag holds thousands of jobs: one pass that allocates nothing
      // unless a job is runnable, then one that removes what is taken in place (no set rebuilt)
      let runnable: Entry<T>[] | undefined;
      for (const e of entries) {
        if (runnableAt(e, lagging) <= nowMs && (!eligible || eligible(e.key))) (runnable ??= []).push(e);
      }
      const keys = new Set<string>();
      if (runnable) {
        runnable.sort((a, b) => a.sinceMs - b.sinceMs);
        for (const e of runnable) {
          if (keys.size >= maxKeys) break;
          keys.add(e.key);
        }
      }
      const out: T[] = [];
      if (keys.size === 0 && !lagging) return out;
      for (const e of entries) {
        // every due job of a chosen conversation goes with it: one snapshot serves them all
        if (e.dueMs <= nowMs && keys.has(e.key)) {
          if (e.deferred) maxDeferralMs = Math.max(maxDeferralMs, nowMs - e.sinceMs);
          out.push(e.item);
          entries.delete(e);
          continue;
        }
        if (lagging && !e.deferred && e.dueMs <= nowMs) {
          e.deferred = true;
          deferredTotal++;
        }
      }
      // what a chosen conversation keeps: its jobs not due yet
      for (const key of keys) {
        const left = byKey.get(key)!.filter((e) => e.dueMs > nowMs);
        if (left.length) byKey.set(key, left);
        else byKey.delete(key);
      }
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
    runnableKeys(nowMs, lagging, maxKeys, eligible) {
      const keys = new Set<string>();
      for (const e of entries) {
        if (keys.size >= maxKeys) break;
        if (!keys.has(e.key) && runnableAt(e, lagging) <= nowMs && (!eligible || eligible(e.key))) keys.add(e.key);
      }
      return keys.size;
    },
    clear() {
      const all = [...entries];
      entries = new Set();
      byKey = new Map();
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

/**
 * The snapshots loaded recently, to recognize a job that an analysis has already covered: a job is
 * published after its conversation's rows were inserted, so a snapshot loaded after the job was
 * published saw them. After a backlog drain the ANALYZE stream still holds a job per conversation
 * and debounce window of the drain; once the conversation has been analyzed on its final content,
 * those are acked without analyzing it again. Clocks: the load time is this process's, the publish
 * time the NATS server's; `noteDelivery` keeps the smallest (receive − publish) seen, which is at
 * least the skew of this clock ahead of the server's, and the load time is moved back by it (and
 * by `marginMs`), so an error only ever analyzes once more, never skips a change.
 */
export function createCoverage(opts: { marginMs: number; maxEntries: number; spacingMs?: (messages: number) => number; growingGapMs?: number }) {
  const loaded = new Map<string, { at: number; doneAt: number; messages: number; growing: boolean }>();
  let minOffsetMs = Infinity;
  const spacing = opts.spacingMs;
  return {
    noteDelivery(receivedMs: number, publishedMs: number) {
      minOffsetMs = Math.min(minOffsetMs, receivedMs - publishedMs);
    },
    /**
     * A snapshot of `key` with `messages` messages, loaded at `loadStartMs` (this clock), was analyzed
     * and its results written at `doneMs` (default: the load time).
     */
    noteLoaded(key: string, loadStartMs: number, messages = 0, doneMs = loadStartMs) {
      const prev = loaded.get(key);
      // growing: analyzed again within its spacing (plus the gap) of the end of the analysis before
      const growing = !!prev && !!spacing && loadStartMs - prev.doneAt <= spacing(prev.messages) + (opts.growingGapMs ?? 0);
      loaded.delete(key);
      loaded.set(key, { at: loadStartMs, doneAt: Math.max(doneMs, loadStartMs), messages, growing });
      // bounded: the least recently loaded goes first (it only costs an analysis more)
      if (loaded.size > opts.maxEntries) loaded.delete(loaded.keys().next().value!);
    },
    /** Whether a job of `key` published at `publishedMs` (server clock) is covered by a snapshot already analyzed. */
    covers(key: string, publishedMs: number): boolean {
      const at = loaded.get(key)?.at;
      if (at === undefined || !Number.isFinite(minOffsetMs)) return false;
      return at - Math.max(0, minOffsetMs) >= publishedMs + opts.marginMs;
    },
    /**
     * Earliest time (this clock) `key` is analyzed again: the end of its last analysis plus the
     * spacing of its size, once it is growing (its last two analyses came close together); a
     * conversation that changes once more after an analysis is analyzed again as soon as its job is
     * due. Counted from the end, not the load: a batch that takes longer than the spacing (a slow or
     * busy machine, a large batch) would otherwise leave a growing conversation due again at once, in
     * every batch, when the spacing is most needed.
     */
    notBefore(key: string): number | undefined {
      const last = loaded.get(key);
      return last?.growing && spacing ? last.doneAt + spacing(last.messages) : undefined;
    },
  };
}

/**
 * The wait between two analyses of one conversation (docs/stream.md "Long conversations"):
 * `perMessageMs` per message of its last snapshot, at most `maxMs`. Each analysis reads and
 * recomputes the whole conversation, so without it a conversation that keeps growing costs more
 * at every batch; with it, an active conversation below the cap costs about the same CPU share
 * whatever its length, and its total analysis work grows linearly with its length, not with its square.
 */
export function reanalysisSpacing(perMessageMs: number, maxMs: number): (messages: number) => number {
  return (messages) => Math.min(maxMs, Math.max(0, messages) * perMessageMs);
}

/**
 * After an analysis of `sizes`' conversations (messages each) loaded at `loadStartMs` and written at
 * `doneMs`: notes it in `coverage`, and removes from `jobs` the jobs held meanwhile whose change it
 * saw (returned, to be acked), so that they count toward no batch.
 */
export function noteAnalyzed<T>(
  coverage: ReturnType<typeof createCoverage>,
  jobs: HeldJobs<T>,
  sizes: ReadonlyMap<string, number>,
  loadStartMs: number,
  doneMs: number,
  publishedMs: (item: T) => number,
): T[] {
  const covered: T[] = [];
  for (const [key, messages] of sizes) {
    coverage.noteLoaded(key, loadStartMs, messages, doneMs);
    covered.push(...jobs.remove(key, (item) => coverage.covers(key, publishedMs(item))));
  }
  return covered;
}
