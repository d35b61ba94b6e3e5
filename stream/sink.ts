/**
 * The sink: rows of many messages are batched and inserted into ClickHouse by rows, bytes or time
 * (whichever comes first), one insert per table per batch (two when some messages' rows had to stay
 * JSON lines: one per format, stream/native.ts). Each insert carries an
 * `insert_deduplication_token` derived from the units it holds (message ids, or `<id>#<event>`),
 * and the sink remembers which tables already have which message's rows, so a batch retried after
 * a failure inserts nothing twice. Messages are acknowledged only after every table is in.
 *
 * A batch the store refuses for good is bisected: halves are inserted on their own until the
 * refused message is alone, then that message is split into its events and bisected again, so only
 * the event at fault is refused (dead-lettered alone, with the reason) and its neighbours stored.
 */
import type { ClickHouseSettings } from '@clickhouse/client';
import { isTransientClickHouseError } from '../core/clickhouse.js';
import { withRetry } from '../core/retry.js';
import type { Logger } from '../core/log.js';
import type { SplitMessage } from './batch.js';
import { TABLES, type TableName } from './rows.js';
import { blockOf, type RowBlock, type RowChunk, type TableBytes } from './row-bytes.js';
import type { StreamMetrics } from './metrics.js';
import { BACKLOG_AGE_INTERVALS, cutAfterMs, fillsFromBacklog, GAP_WEIGHT, quietAfterMs } from './sink-cuts.js';
import { byFormat, createProgressMemory, dedupToken, isDone, markDone, partitionChunks, splitInto, unitsOf, type Progress, type Unit } from './sink-units.js';

export { dedupToken } from './sink-units.js';
export { blockOf, blockRows, type RowBlock } from './row-bytes.js';

export type InsertFn = (table: string, block: RowBlock, settings?: ClickHouseSettings) => Promise<void>;

/** An event the store refused: dead-lettered alone by the consumer. */
export interface RefusedEvent {
  index: number;
  eventId: string;
  json: string;
  reason: string;
}

/** One consumed message as the sink sees it: its rows and what to do once they are (not) stored. */
export interface SinkEntry {
  /** Stable across redeliveries: Nats-Msg-Id, else stream:sequence. */
  id: string;
  rows: TableBytes;
  rowCount: number;
  bytes: number;
  receivedAtMs: number;
  conversations: string[];
  /**
   * Messages waiting on the stream behind this one when it was delivered (JetStream's pending
   * count; absent or negative: unknown). A backlog that will fill the buffer by itself lets it be
   * cut by size rather than by age (`fillsFromBacklog`).
   */
  backlog?: number;
  /** The message's events, each with its own rows; undefined when the body no longer decodes. */
  split(): SplitMessage | undefined;
  /**
   * Rows inserted except those of `refused` events: dead-letter those, publish follow-ups, ack.
   * Resolves false when the message could not be completed (it will be redelivered).
   */
  done(refused: RefusedEvent[], split?: SplitMessage): Promise<boolean>;
  /** Transient failure after retries: redeliver later. */
  retry(err: unknown): void;
  /** The whole message cannot be stored: dead-letter it. */
  reject(err: unknown): Promise<void>;
  /** Extends the ack deadline while inserts are retried. */
  working(): void;
}

export interface SinkOptions {
  insert: InsertFn;
  maxBatchRows: number;
  maxBatchBytes: number;
  flushIntervalMs: number;
  /**
   * Cut the buffer once nothing was added for this long — or for `QUIET_GAPS` times the usual gap
   * between entries, when that is longer (0 or absent: only by age and size).
   */
  quietMs?: number;
  /** Milliseconds of a monotonic clock (tests pass a fake one). Default: performance.now. */
  now?: () => number;
  /** Total time transient insert errors are retried before the batch is handed back. */
  retryDeadlineMs: number;
  /** Called with the batch after its inserts and before its entries complete (analyze jobs). */
  beforeAck?: (entries: readonly SinkEntry[]) => Promise<void>;
  /**
   * Holds the store's lane for one flush and returns its release (`Store.holdWrites`): background
   * statements do not go between the flush's tables. Absent: nothing is held.
   */
  hold?: () => () => void;
  /** Schedules the buffer's cut (tests pass a fake clock). Default: setTimeout. */
  schedule?: (fn: () => void, ms: number) => { cancel(): void };
  metrics: StreamMetrics;
  log: Logger;
}

export interface Sink {
  add(entry: SinkEntry): void;
  /** Entries added and not yet completed. */
  readonly pending: number;
  /** Inserts what is buffered now and waits for every flush in progress. */
  flush(): Promise<void>;
  /** Flushes and stops the timer. */
  close(): Promise<void>;
}

const realSchedule = (fn: () => void, ms: number) => {
  const t = setTimeout(fn, ms);
  return { cancel: () => clearTimeout(t) };
};

export function createSink(opts: SinkOptions): Sink {
  let buffer: SinkEntry[] = [];
  let rows = 0;
  let bytes = 0;
  const schedule = opts.schedule ?? realSchedule;
  let timer: { cancel(): void } | undefined;
  let quietTimer: { cancel(): void } | undefined;
  const now = opts.now ?? (() => performance.now());
  let lastAddMs: number | undefined;
  /** Moving average of the gaps between entries (each gap capped at the longest cut age). */
  let gapMs: number | undefined;
  let chain: Promise<void> = Promise.resolve();
  let pending = 0;
  /** Flushes queued or running. */
  let flushing = 0;
  /** The buffer's time is up while a flush runs: cut it as soon as that flush ends. */
  let due = false;
  /** When the buffer's first entry came (`now`), and whether a backlog fills it (cut by size). */
  let startedMs = 0;
  let fromBacklog = false;
  const memory = createProgressMemory();

  const cut = () => {
    timer?.cancel();
    timer = undefined;
    quietTimer?.cancel();
    quietTimer = undefined;
    due = false;
    const batch = buffer;
    buffer = [];
    rows = 0;
    bytes = 0;
    if (batch.length === 0) return chain;
    flushing++;
    // flushes run one at a time, in order; the next batch fills meanwhile
    chain = chain
      .then(() => flushBatch(batch, opts, memory))
      .finally(() => {
        pending -= batch.length;
        flushing--;
        if (flushing === 0 && due && buffer.length) void cut();
      });
    return chain;
  };
  /**
   * Group commit: by time, the buffer is cut only when no flush is running; while one runs, the
   * buffer keeps filling (up to the row and byte limits) and is cut when it ends. Under load an
   * insert therefore carries everything that arrived during the previous one, instead of a
   * batch per timer tick queued behind it (many small inserts, each a part to write and merge).
   * The timer runs from the buffer's first entry (`cutAfterMs`): a buffer begun during an insert
   * is cut when the insert ends only if it is already twice the interval old, else at that age.
   */
  const onTimer = () => {
    timer = undefined;
    if (flushing > 0) due = true;
    else void cut();
  };
  /**
   * Input stopped (the end of a burst, a lone request): nothing more will join the buffer soon, so
   * waiting for its age only delays what is there. Under steady load messages keep arriving and
   * this never fires.
   */
  const onQuiet = () => {
    quietTimer = undefined;
    if (buffer.length === 0) return;
    if (flushing > 0) due = true;
    else void cut();
  };

  return {
    add(entry) {
      if (opts.quietMs) {
        const t = now();
        if (lastAddMs !== undefined) {
          const gap = Math.min(t - lastAddMs, cutAfterMs(true, opts.flushIntervalMs));
          gapMs = gapMs === undefined ? gap : gapMs + GAP_WEIGHT * (gap - gapMs);
        }
        lastAddMs = t;
      }
      if (buffer.length === 0) {
        startedMs = now();
        fromBacklog = false;
      }
      buffer.push(entry);
      pending++;
      rows += entry.rowCount;
      bytes += entry.bytes;
      if (rows >= opts.maxBatchRows || bytes >= opts.maxBatchBytes) void cut();
      else if (fillsFromBacklog(entry.backlog, rows / buffer.length, opts.maxBatchRows - rows)) {
        if (fromBacklog) return;
        // from now on the size cuts, or the backlog age: no cut by the interval or by quiet
        fromBacklog = true;
        due = false;
        timer?.cancel();
        quietTimer?.cancel();
        quietTimer = undefined;
        timer = schedule(onTimer, Math.max(0, startedMs + BACKLOG_AGE_INTERVALS * opts.flushIntervalMs - now()));
      } else {
        if (fromBacklog) {
          // the backlog ran out: the buffer's age counts as usual, from its first entry
          fromBacklog = false;
          timer?.cancel();
          timer = schedule(onTimer, Math.max(0, startedMs + cutAfterMs(true, opts.flushIntervalMs) - now()));
        }
        if (!timer && !due) timer = schedule(onTimer, cutAfterMs(flushing > 0, opts.flushIntervalMs));
        if (opts.quietMs) {
          quietTimer?.cancel();
          quietTimer = undefined;
          const quiet = quietAfterMs(opts.quietMs, gapMs);
          if (quiet < cutAfterMs(true, opts.flushIntervalMs)) quietTimer = schedule(onQuiet, quiet);
        }
      }
    },
    get pending() {
      return pending;
    },
    flush: () => cut(),
    async close() {
      await cut();
    },
  };
}

type Memory = ReturnType<typeof createProgressMemory>;
interface Held {
  entry: SinkEntry;
  progress: Progress;
}

async function flushBatch(batch: SinkEntry[], opts: SinkOptions, memory: Memory): Promise<void> {
  memory.sweep();
  const held: Held[] = batch.map((entry) => ({ entry, progress: memory.get(entry.id) }));
  opts.metrics.batchMessages.observe({}, batch.length);
  // a message delivered twice into one batch (a redelivery racing the first delivery) is inserted once
  const ids = new Set<string>();
  const firsts = held.filter((h) => !ids.has(h.entry.id) && ids.add(h.entry.id));
  // the tables go one after another: the hold keeps background statements from going between them
  const release = opts.hold?.();
  try {
    for (const table of TABLES) {
      const units = firsts.flatMap((h) => unitsOf(h.entry.id, h.entry.rows, h.progress)).filter((u) => !isDone(u, table) && (u.rows[table]?.length ?? 0) > 0);
      await insertUnits(table, units, held, opts);
    }
  } catch (err) {
    // transient after retries (or unexpected): hand the batch back; the memory keeps what is in
    opts.log.warn({ err, messages: batch.length }, 'insert failed: batch handed back for redelivery');
    for (const e of batch) e.retry(err);
    return;
  } finally {
    release?.();
  }
  await complete(held, opts, memory);
}

/**
 * Inserts one table's rows of `units`; on a permanent refusal bisects them until the refused unit
 * is alone, and splits a refused message into its events. Transient errors propagate.
 */
async function insertUnits(table: TableName, units: Unit[], held: Held[], opts: SinkOptions): Promise<void> {
  if (units.length === 0) return;
  const groups = byFormat(table, units);
  if (groups.length > 1) {
    // one insert per format, each remembered once in: a refusal of one never inserts the other twice
    for (const g of groups) await insertUnits(table, g, held, opts);
    return;
  }
  try {
    await insertRows(table, units, held, opts);
    for (const u of units) markDone(u, table);
    return;
  } catch (err) {
    if (isTransientClickHouseError(err)) throw err;
    if (units.length > 1) {
      const mid = Math.ceil(units.length / 2);
      opts.log.warn({ err: (err as Error)?.message, table, units: units.length }, 'insert refused: bisecting');
      await insertUnits(table, units.slice(0, mid), held, opts);
      await insertUnits(table, units.slice(mid), held, opts);
      return;
    }
    await refuseOne(table, units[0]!, err, held, opts);
  }
}

/** A single unit was refused: a message is split into its events and retried; an event is refused. */
async function refuseOne(table: TableName, u: Unit, err: unknown, held: Held[], opts: SinkOptions): Promise<void> {
  const reason = oneLine(err);
  const p = u.progress;
  if (u.event !== undefined) {
    p.split!.refused.set(u.event, `${table}: ${reason}`);
    opts.metrics.refusedEvents.inc({ table });
    return;
  }
  const entry = held.find((h) => h.progress === p)!.entry;
  const parts = entry.split();
  if (!parts) {
    p.refusedWhole = `${table}: ${reason}`;
    return;
  }
  splitInto(p, parts);
  const events = unitsOf(entry.id, entry.rows, p).filter((e) => !isDone(e, table) && (e.rows[table]?.length ?? 0) > 0);
  if (parts.events.length === 1 && events.length === 1) {
    // a one-event message: that event is the one refused
    p.split!.refused.set(0, `${table}: ${reason}`);
    opts.metrics.refusedEvents.inc({ table });
    return;
  }
  await insertUnits(table, events, held, opts);
}

async function insertRows(table: TableName, units: Unit[], held: Held[], opts: SinkOptions): Promise<void> {
  const all: RowChunk[] = [];
  for (const u of units) for (const c of u.rows[table]!) all.push(c);
  const token = dedupToken(table, units.map((u) => u.key));
  const pieces = partitionChunks(table, all);
  const started = process.hrtime.bigint();
  let rows = 0;
  for (let i = 0; i < pieces.length; i++) {
    const settings = { insert_deduplication_token: pieces.length === 1 ? token : `${token}.${i}` };
    const block = blockOf(table, pieces[i]!);
    rows += block.rows;
    await withRetry(() => opts.insert(table, block, settings), {
      isRetryable: isTransientClickHouseError,
      deadlineMs: opts.retryDeadlineMs,
      baseDelayMs: 100,
      maxDelayMs: 2000,
      onRetry: (err, attempt, delayMs) => {
        opts.metrics.insertRetries.inc({ table });
        opts.log.warn({ err: (err as Error)?.message, table, attempt, delayMs }, 'transient insert error: retrying');
        for (const h of held) h.entry.working();
      },
    });
  }
  opts.metrics.insertLatency.observe({ table }, Number(process.hrtime.bigint() - started) / 1e9);
  opts.metrics.insertedRows.inc({ table }, rows);
  opts.metrics.batchRows.observe({ table }, rows);
}

async function complete(held: Held[], opts: SinkOptions, memory: Memory): Promise<void> {
  const stored = held.filter((h) => h.progress.refusedWhole === undefined);
  try {
    await opts.beforeAck?.(stored.map((h) => h.entry));
  } catch (err) {
    // rows are in and remembered; the redelivery inserts nothing and publishes again
    for (const h of held) h.entry.retry(err);
    return;
  }
  const now = Date.now();
  // every entry completes in the same turn: their acks leave in one write to the server, not one
  // write (a system call) per message between awaits
  await Promise.all(
    held.map(async ({ entry, progress }) => {
      if (progress.refusedWhole !== undefined) {
        opts.log.error({ id: entry.id, reason: progress.refusedWhole }, 'message refused by the store');
        await entry.reject(new Error(progress.refusedWhole));
        memory.forget(entry.id);
        return;
      }
      const refused = refusedEvents(progress);
      if (refused.length) opts.log.error({ id: entry.id, refused: refused.map((r) => ({ index: r.index, eventId: r.eventId, reason: r.reason })) }, 'events refused by the store');
      opts.metrics.freshness.observe({}, Math.max(0, now - entry.receivedAtMs) / 1000);
      if (await entry.done(refused, progress.split?.parts)) memory.forget(entry.id);
    }),
  );
}

function refusedEvents(p: Progress): RefusedEvent[] {
  if (!p.split) return [];
  const out: RefusedEvent[] = [];
  for (const [index, reason] of p.split.refused) {
    const e = p.split.parts.events[index]!;
    out.push({ index, eventId: e.eventId, json: e.json, reason });
  }
  return out.sort((a, b) => a.index - b.index);
}

const oneLine = (err: unknown) => String((err as Error)?.message ?? err).split('\n')[0]!.slice(0, 1000);
