import { randomUUID } from 'node:crypto';
import { Piscina } from 'piscina';
import type { Runtime, RoleHandle } from '../core/runtime.js';
import { ANALYZE_ACK_WAIT_MS } from '../core/nats.js';
import { CONSUMERS, KV_BUCKETS, STREAMS } from '../schemas/subjects.js';
import type { DecodeResult } from './batch.js';
import { streamMetrics } from './metrics.js';
import { createSink, type InsertFn } from './sink.js';
import { startStoreConsumer, type Decoder } from './store-consumer.js';
import { createGroupedDecoder, type DecodeFailure } from './decode-groups.js';
import type { DecodeStats } from './tasks/decode.js';
import { startStatusResponder } from './status-responder.js';
import { startRetryFailedResponder } from './analyze/retry-failed.js';
import { startAnalyzeConsumer } from './analyze/analyze-consumer.js';
import type { Store } from '../core/clickhouse.js';
import type { WorkOutput, WorkRequest } from './analyze/work.js';
import { publishConversationJobs } from './analyze/publisher.js';
import { analysisBackfill } from './analyze/backfill.js';
import { defaultTenantJobs, startScheduler, type TenantJob } from './analyze/scheduler.js';
import { taxonomyJob } from './jobs/taxonomy.js';
import { problemsJob } from './jobs/problems.js';

/** Seams for tests and later issues; production passes nothing. */
export interface StreamOptions {
  /** Wraps the ClickHouse insert (fault injection: make inserts fail for a while). */
  wrapInsert?: (insert: InsertFn) => InsertFn;
  /** Wraps the CPU part of an analysis batch (fault injection: make an analyzer fail). */
  wrapWork?: (work: (input: WorkRequest) => Promise<WorkOutput>) => (input: WorkRequest) => Promise<WorkOutput>;
  /** Wraps the store the analysis framework reads and writes (fault injection: fail a table). */
  wrapAnalysisStore?: (store: Store) => Store;
  tenantJobs?: TenantJob[];
  /** Do not start the `store` consumer (backpressure tests start it later). */
  paused?: boolean;
  /** Replaces the Piscina decoder (fault injection). */
  wrapDecoder?: (decoder: Decoder) => Decoder;
  /** Wraps the lag of the store consumer the analysis deferral reads (fault injection: a lag that never clears). */
  wrapLag?: (lagMs: () => number) => () => number;
  /** Time transient insert errors are retried before the batch is redelivered. Default 60 s. */
  retryDeadlineMs?: number;
}

/**
 * Tasks queued in the pool beyond its threads. The decoder holds at most
 * `threads × (TASKS_PER_THREAD + QUEUE_PER_THREAD)` messages and a task carries one or more, so
 * the queue never fills; pulls stop when the decoder has no room.
 */
const QUEUE_PER_THREAD = 64;
/**
 * Tasks handed to a decode thread at once. With one, each next task waits for the main thread to
 * take the last one's result and dispatch again: when the main thread is busy (the edge, the
 * analysis loads) the decode thread sat idle while its queue waited (docs/stream.md "Consumers").
 */
const TASKS_PER_THREAD = 16;

/** The stream role's handle: `runJobs` runs every tenant job's due work now (a tick of the scheduler) and resolves when it is done. */
export type StreamHandle = RoleHandle & { resume(): void; runJobs(): Promise<void> };

/** Starts the stream role: consumers of INGEST and ANALYZE, the sink, scheduled jobs. */
export async function startStream(rt: Runtime, opts: StreamOptions = {}): Promise<StreamHandle> {
  const log = rt.log.child({ role: 'stream' });
  const cfg = rt.config.stream;
  const metrics = streamMetrics(rt.metrics);
  const threads = cfg.workerThreads;
  const pool = new Piscina({
    filename: new URL('./tasks/decode.js', import.meta.url).href,
    // every thread from the start: Piscina adds a thread only when no thread has room for a task
    // (TASKS_PER_THREAD each), and the decoder never holds that many tasks of a fetch's messages,
    // so a second thread configured was never started (docs/stream.md "Consumers")
    minThreads: threads,
    maxThreads: threads,
    maxQueue: threads * QUEUE_PER_THREAD,
    concurrentTasksPerWorker: TASKS_PER_THREAD,
  });
  pool.on('message', (m: DecodeStats) => {
    const s = m?.decodeStats;
    if (!s) return;
    const thread = { thread: String(s.thread) };
    metrics.decodedMessages.inc(thread, s.messages);
    metrics.decodeBusySeconds.inc(thread, s.seconds);
  });
  // analysis batches run on threads of their own: a batch's analyzers take up to seconds of CPU,
  // and in the decode pool every message arriving meanwhile waited behind them (docs/stream.md
  // "Analysis work on its own thread"); the runner analyzes one batch at a time, its tenants split
  // between the threads ("Analysis threads")
  const analysisPool = new Piscina({
    filename: new URL('./tasks/analyze.js', import.meta.url).href,
    minThreads: 1,
    maxThreads: cfg.analysisThreads,
    idleTimeout: 60_000,
  });
  // messages the pool holds at once; a task carries the messages of one turn (decode-groups.ts)
  const capacity = threads * (TASKS_PER_THREAD + QUEUE_PER_THREAD);
  const poolDecoder: Decoder = createGroupedDecoder({
    capacity,
    gatherMs: cfg.decodeGatherMs,
    run(messages) {
      // a message's bytes are a view into the connection's read buffer (64 KiB and more): a
      // structured clone would copy all of it per message; exact copies are moved to the thread
      const own = messages.map((m) => Uint8Array.prototype.slice.call(m) as Uint8Array);
      return pool.run({ messages: own }, { transferList: own.map((o) => o.buffer as ArrayBuffer) }) as Promise<Array<DecodeResult | DecodeFailure>>;
    },
  });
  const decoder = opts.wrapDecoder ? opts.wrapDecoder(poolDecoder) : poolDecoder;
  const poolWork = (input: WorkRequest) => analysisPool.run(input) as Promise<WorkOutput>;

  // the sink's inserts go before the analyses' and jobs' statements (docs/storage.md "Data API reads and background work take turns")
  const writes = rt.store.writes();
  const baseInsert: InsertFn = (table, block, settings) => writes.insertBytes(table, block.columns, block.body, settings, block.format);
  const sink = createSink({
    insert: opts.wrapInsert ? opts.wrapInsert(baseInsert) : baseInsert,
    hold: () => rt.store.holdWrites(),
    maxBatchRows: cfg.maxBatchRows,
    maxBatchBytes: cfg.maxBatchBytes,
    flushIntervalMs: cfg.flushIntervalMs,
    quietMs: cfg.quietMs,
    retryDeadlineMs: opts.retryDeadlineMs ?? 60_000,
    beforeAck: async (entries) => {
      const keys = entries.flatMap((e) => e.conversations);
      if (keys.length) await publishConversationJobs(rt.bus.js, keys, cfg.analyzeDebounceMs);
    },
    metrics,
    log,
  });

  const startStore = () =>
    startStoreConsumer({
      js: rt.bus.js,
      stream: CONSUMERS.store.stream,
      durable: CONSUMERS.store.durable,
      decoder,
      sink,
      maxDeliver: cfg.maxDeliver,
      // enough for a batch being inserted plus a full one filling behind it (an insert under ~10k rows
      // costs up to 3× per row: fixed cost per part), bounded so that one replica never hoards the backlog
      maxInFlight: Math.max(2_000, Math.min(10_000, capacity * 4)),
      // fetch again once half the decoder's queue is free: the other half keeps it busy meanwhile
      refetchRoom: Math.ceil(capacity / 2),
      // held messages say they are in progress three times per ack wait (docs/stream.md "Recovery")
      heartbeatMs: Math.max(200, Math.floor(cfg.ackWaitMs / 3)),
      metrics,
      log,
    });
  let store = opts.paused ? undefined : startStore();

  const analyze = startAnalyzeConsumer({
    js: rt.bus.js,
    stream: CONSUMERS.analyze.stream,
    durable: CONSUMERS.analyze.durable,
    store: opts.wrapAnalysisStore ? opts.wrapAnalysisStore(rt.store) : rt.store,
    work: opts.wrapWork ? opts.wrapWork(poolWork) : poolWork,
    threads: cfg.analysisThreads,
    maxDeliver: cfg.maxDeliver,
    // analyses wait while the store path lags (docs/stream.md "Analysis under load")
    lagMs: (opts.wrapLag ?? ((f) => f))(() => store?.backlog().lagMs ?? 0),
    deferLagMs: cfg.analyzeDeferLagMs,
    maxDeferMs: cfg.analyzeMaxDeferMs,
    batchIntervalMs: cfg.analyzeBatchIntervalMs,
    maxBatch: cfg.analyzeMaxBatch,
    prefetch: cfg.analyzePrefetch === 1,
    spacingPerMessageMs: cfg.analyzeSpacingPerMessageMs,
    toolRollupIntervalMs: cfg.toolRollupIntervalMs,
    heartbeatMs: Math.floor(Math.max(cfg.ackWaitMs, ANALYZE_ACK_WAIT_MS) / 3),
    metrics,
    log,
  });
  const scheduler = startScheduler({
    kv: rt.bus.kv(KV_BUCKETS.leases.name),
    jobs: opts.tenantJobs ?? [...defaultTenantJobs, analysisBackfill({ kv: rt.bus.kv(KV_BUCKETS.jobs.name) }), taxonomyJob(), problemsJob({ config: { cleanPeriodMs: rt.config.problems.cleanPeriodDays * 86_400_000 }, llm: rt.config.problems.llm.url ? rt.config.problems.llm : undefined })],
    ctx: { store: rt.store, js: rt.bus.js, jsm: rt.bus.jsm, log, intervalMs: cfg.jobIntervalMs, debounceMs: cfg.analyzeDebounceMs },
    holder: `${process.pid}-${randomUUID().slice(0, 8)}`,
    metrics,
  });

  // `tracehouse status` asks the running role for row counts (the embedded store is locked to it)
  const status = startStatusResponder(rt.bus.nc, rt.store, log);
  // `tracehouse retry-analyses` asks it to run the analyses that gave up once more
  const retryFailed = startRetryFailedResponder(rt.bus.nc, rt.store, rt.bus.js, cfg.analyzeDebounceMs, log);

  let closed = false;
  rt.metrics.onCollect(async () => {
    if (closed) return;
    metrics.poolUtilization.set(pool.utilization);
    metrics.decodeThreads.set(pool.threads.length);
    metrics.poolQueue.set(pool.queueSize);
    metrics.analysisUtilization.set(analysisPool.utilization);
    for (const c of Object.values(CONSUMERS)) {
      const info = await rt.bus.jsm.consumers.info(c.stream, c.durable);
      metrics.consumerPending.set({ consumer: c.durable }, info.num_pending);
      metrics.consumerAckPending.set({ consumer: c.durable }, info.num_ack_pending);
    }
    for (const s of [STREAMS.INGEST.name, STREAMS.ANALYZE.name, STREAMS.DLQ.name]) {
      const info = await rt.bus.jsm.streams.info(s);
      metrics.streamMessages.set({ stream: s }, info.state.messages);
    }
  });
  log.info({ threads, capacity, paused: !!opts.paused }, 'stream role started');

  return {
    name: 'stream',
    resume() {
      store ??= startStore();
    },
    runJobs: () => scheduler.tick(),
    async close() {
      if (closed) return;
      closed = true;
      status.stop();
      retryFailed.stop();
      // the analyze consumer stops beside the store path: each ends its last fetch (up to a second)
      // at the same time; its running batch finishes, the jobs it holds are nakked for redelivery
      const analyzeStopped = analyze.stop();
      // stop pulling; every held message is decoded and reaches the sink or the DLQ
      await store?.stop();
      // insert what is buffered, then ack (or nak) every held message
      await sink.close();
      await store?.drained();
      await scheduler.stop();
      await analyzeStopped;
      await Promise.all([pool.destroy(), analysisPool.destroy()]);
      log.info('stream role stopped');
    },
  };
}
