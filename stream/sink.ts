/**
 * The sink: rows of many messages are batched and inserted into ClickHouse by rows, bytes or time
 * (whichever comes first), one insert per table per batch. Each insert carries an
 * `insert_deduplication_token` derived from the message ids of the batch, so a redelivered batch
 * inserts nothing twice. Messages are acknowledged only after every table of their batch is in.
 */
import { createHash } from 'node:crypto';
import type { ClickHouseSettings } from '@clickhouse/client';
import { isTransientClickHouseError } from '../core/clickhouse.js';
import { withRetry } from '../core/retry.js';
import type { Logger } from '../core/log.js';
import { TABLES, type TableName, type TableRows } from './rows.js';
import type { StreamMetrics } from './metrics.js';

export type InsertFn = (table: string, rows: readonly object[], settings?: ClickHouseSettings) => Promise<void>;

/** One consumed message as the sink sees it: its rows and what to do once they are (not) stored. */
export interface SinkEntry {
  /** Stable across redeliveries: Nats-Msg-Id, else stream:sequence. */
  id: string;
  rows: TableRows;
  rowCount: number;
  bytes: number;
  receivedAtMs: number;
  conversations: string[];
  /** Rows inserted: publish follow-ups, then ack. */
  done(): Promise<void>;
  /** Transient failure after retries: redeliver later. */
  retry(err: unknown): void;
  /** Permanent failure of this message alone: dead-letter it. */
  reject(err: unknown): Promise<void>;
  /** Extends the ack deadline while inserts are retried. */
  working(): void;
}

export interface SinkOptions {
  insert: InsertFn;
  maxBatchRows: number;
  maxBatchBytes: number;
  flushIntervalMs: number;
  /** Total time transient insert errors are retried before the batch is handed back. */
  retryDeadlineMs: number;
  /** Called with the batch after its inserts and before its entries complete (analyze jobs). */
  beforeAck?: (entries: readonly SinkEntry[]) => Promise<void>;
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

/** Token for one table's insert of a batch: same messages, same table → same token. */
export function dedupToken(table: string, ids: readonly string[]): string {
  const h = createHash('sha256').update(table);
  for (const id of [...ids].sort()) h.update('\n').update(id);
  return h.digest('hex');
}

export function createSink(opts: SinkOptions): Sink {
  let buffer: SinkEntry[] = [];
  let rows = 0;
  let bytes = 0;
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();
  let pending = 0;

  const cut = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const batch = buffer;
    buffer = [];
    rows = 0;
    bytes = 0;
    if (batch.length === 0) return chain;
    // flushes run one at a time, in order; the next batch fills meanwhile
    chain = chain.then(() => flushBatch(batch, opts)).finally(() => (pending -= batch.length));
    return chain;
  };

  return {
    add(entry) {
      buffer.push(entry);
      pending++;
      rows += entry.rowCount;
      bytes += entry.bytes;
      if (rows >= opts.maxBatchRows || bytes >= opts.maxBatchBytes) void cut();
      else if (!timer) timer = setTimeout(() => void cut(), opts.flushIntervalMs);
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

async function flushBatch(batch: SinkEntry[], opts: SinkOptions): Promise<void> {
  try {
    await insertEntries(batch, opts);
  } catch (err) {
    if (isTransientClickHouseError(err) || batch.length === 1) {
      await failAll(batch, err, opts);
      return;
    }
    // a permanent error of a multi-message batch: find the message(s) at fault, store the others
    opts.log.warn({ err, messages: batch.length }, 'batch insert failed permanently: inserting message by message');
    for (const entry of batch) {
      try {
        await insertEntries([entry], opts);
        await complete([entry], opts);
      } catch (e) {
        await failAll([entry], e, opts);
      }
    }
    return;
  }
  await complete(batch, opts);
}

async function complete(batch: SinkEntry[], opts: SinkOptions): Promise<void> {
  try {
    await opts.beforeAck?.(batch);
  } catch (err) {
    // rows are in; redelivery re-inserts nothing (same token) and publishes again
    for (const e of batch) e.retry(err);
    return;
  }
  const now = Date.now();
  for (const e of batch) {
    opts.metrics.freshness.observe({}, Math.max(0, now - e.receivedAtMs) / 1000);
    await e.done();
  }
}

async function failAll(batch: SinkEntry[], err: unknown, opts: SinkOptions): Promise<void> {
  if (isTransientClickHouseError(err)) {
    opts.log.warn({ err, messages: batch.length }, 'insert failed after retries: batch handed back for redelivery');
    for (const e of batch) e.retry(err);
  } else {
    opts.log.error({ err, messages: batch.length }, 'insert failed permanently');
    for (const e of batch) await e.reject(err);
  }
}

async function insertEntries(batch: SinkEntry[], opts: SinkOptions): Promise<void> {
  const ids = batch.map((e) => e.id);
  opts.metrics.batchMessages.observe({}, batch.length);
  for (const table of TABLES) {
    const rows: Record<string, unknown>[] = [];
    for (const e of batch) {
      const r = e.rows[table as TableName];
      if (r) for (const row of r) rows.push(row);
    }
    if (rows.length === 0) continue;
    const token = dedupToken(table, ids);
    const started = process.hrtime.bigint();
    await withRetry(
      () => opts.insert(table, rows, { insert_deduplication_token: token }),
      {
        isRetryable: isTransientClickHouseError,
        deadlineMs: opts.retryDeadlineMs,
        baseDelayMs: 100,
        maxDelayMs: 2000,
        onRetry: (err, attempt, delayMs) => {
          opts.metrics.insertRetries.inc({ table });
          opts.log.warn({ err: (err as Error)?.message, table, attempt, delayMs }, 'transient insert error: retrying');
          for (const e of batch) e.working();
        },
      },
    );
    opts.metrics.insertLatency.observe({ table }, Number(process.hrtime.bigint() - started) / 1e9);
    opts.metrics.insertedRows.inc({ table }, rows.length);
    opts.metrics.batchRows.observe({ table }, rows.length);
  }
}
