/**
 * The `analyze` consumer: analyzes the conversations of "conversation changed" jobs once their
 * debounce windows have closed, in batches. Jobs are pulled continuously into a bounded set; one
 * runner waits for the earliest due time, takes every job due by then (up to `maxBatch`), loads one
 * snapshot of each distinct conversation (a few reads for the whole batch, of every tenant), runs
 * every analyzer on them in the Piscina pool, and writes each analyzer's table (writer.ts).
 * With `prefetch`, batches overlap in a pipeline: a batch's conversations are read while the batch
 * before it is analyzed; its users' memories, its analysis and its write follow that batch's write,
 * and a conversation of the batch in flight joins it once written (docs/stream.md "Batches in a
 * pipeline"). Without it, which is the default, a batch is taken once the one before is written.
 * An analyzer that fails — in the worker or in its write — is recorded with its error in
 * `analysis_state` and retried on its own schedule (a retry job with backoff) while the others'
 * results stand; the batch's jobs are acked once the outcomes are recorded. Only a failure to load
 * or to record outcomes fails the batch: its jobs are published again with their count of failures
 * and a backoff, and dead-lettered after `maxDeliver` failures (failed-jobs.ts; deliveries after a
 * stop or a crash are not failures).
 *
 * While the `store` consumer lags (`lagMs()` above `deferLagMs`), jobs that come due are held
 * (held-jobs.ts) and run once the lag clears, or once they have been due for `maxDeferMs`: during a
 * backlog drain the analyses would compete with decoding and inserts for the cores, and most of
 * them would be redone as the conversations keep changing (docs/stream.md "Analysis under load").
 * A job held longer than `heartbeatMs` sends progress heartbeats (../heartbeat.ts), so the
 * consumer's ack wait never redelivers a job that is only waiting. On stop, the batch running finishes and every
 * job still held is nakked with the delay left until it is due, and a batch read but not analyzed at
 * once: redelivered, never dropped.
 */
import type { JsMsg, JetStreamClient } from '@nats-io/jetstream';
import type { Store } from '../../core/clickhouse.js';
import { createCategoryCache } from './categories.js';
import { attachMemories, type ConversationKey } from './loader.js';
import { mergeWorkOutputs } from './work-bytes.js';
import { createAlarm } from './alarm.js';
import { joinBatch, readBatch, type BatchReads } from './batch-reads.js';
import { nextVersion } from './version.js';
import { writeAnalysis } from './writer.js';
import { createToolRollupFlusher } from './tool-rollup-flusher.js';
import type { WorkOutput, WorkRequest } from './work.js';
import type { Logger } from '../../core/log.js';
import { backoffDelay } from '../../core/retry.js';
import { createRoomSignal, getConsumer, pullLoop } from '../pull.js';
import type { StreamMetrics } from '../metrics.js';
import { publishRetryJobs, type ConversationJob } from './publisher.js';
import { createCoverage, createHeldJobs, firstRunMs, noteAnalyzed, reanalysisSpacing } from './held-jobs.js';
import { deadLetterJob, exhausted, requeueFailed, type PendingRetries } from './failed-jobs.js';
import { startHeartbeats } from '../heartbeat.js';
import { conversationKey } from '../conversation-key.js';

export interface AnalyzeConsumerOptions {
  js: JetStreamClient;
  stream: string;
  durable: string;
  store: Store;
  /** Runs the CPU part of a batch (the Piscina pool; work.ts). */
  work(input: WorkRequest): Promise<WorkOutput>;
  /** Threads of that pool: a batch's tenants are split into this many parts analyzed at once. Default 1. */
  threads?: number;
  maxDeliver: number;
  /** Time transient write errors are retried before the analyzer is retried later. Default 10 s. */
  writeRetryMs?: number;
  /** Conversations analyzed together at most. Default 500. */
  maxBatch?: number;
  /** Age (ms) of the oldest message the `store` consumer holds; 0 when it holds none. */
  lagMs?: () => number;
  /** Lag above which due jobs are held (ANALYZE_DEFER_LAG_MS); 0 never holds. */
  deferLagMs?: number;
  /** Longest time a due job is held (ANALYZE_MAX_DEFER_MS). */
  maxDeferMs?: number;
  /** Shortest time between the starts of two batches (ANALYZE_BATCH_INTERVAL_MS); 0 runs each as soon as due. */
  batchIntervalMs?: number;
  /** Read a batch's conversations while the batch before it is analyzed (ANALYZE_PREFETCH). Default false. */
  prefetch?: boolean;
  /** Wait between two analyses of a conversation per message of it (ANALYZE_SPACING_PER_MESSAGE_MS); 0: none. */
  spacingPerMessageMs?: number;
  /** Shortest time between two passes of the tool-failure rollup's recompute (TOOL_ROLLUP_INTERVAL_MS). Default 1000. */
  toolRollupIntervalMs?: number;
  /** Period of the progress heartbeats of held jobs: a third of the consumer's ack wait. */
  heartbeatMs: number;
  metrics: StreamMetrics;
  log: Logger;
}

interface Held {
  m: JsMsg;
  job: ConversationJob;
}

/** Longest wait before the runner looks at the lag again while it holds deferred jobs. */
const LAG_POLL_MS = 250;

export function startAnalyzeConsumer(opts: AnalyzeConsumerOptions): { stop(): Promise<void> } {
  const { metrics, log } = opts;
  const maxBatch = Math.max(1, opts.maxBatch ?? 500);
  const deferLagMs = opts.deferLagMs ?? 0;
  const batchIntervalMs = opts.batchIntervalMs ?? 0;
  /** Start of the last batch (pacing). */
  let lastBatchMs = -Infinity;
  const labels = { consumer: opts.durable };
  let stopping = false;
  const maxDeferMs = opts.maxDeferMs ?? 30_000;
  const spacingPerMessageMs = opts.spacingPerMessageMs ?? 0;
  const coverage = createCoverage({
    marginMs: 250,
    maxEntries: 200_000,
    spacingMs: spacingPerMessageMs > 0 ? reanalysisSpacing(spacingPerMessageMs, maxDeferMs) : undefined,
    growingGapMs: maxDeferMs,
  });
  const jobs = createHeldJobs<Held>({ maxDeferMs, notBefore: (key) => coverage.notBefore(key) });
  let runner: Promise<void> | undefined;
  /** Jobs of the batches taken and not yet acked: the one analyzed and written, the next one loading. */
  const inFlight = new Set<Held[]>();
  const signal = createRoomSignal();
  const alarm = createAlarm();
  const categories = createCategoryCache(opts.store);
  /** Batches and rollup passes take turns on the engine (one statement at a time per session). */
  let lane: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = lane.then(fn, fn);
    lane = run.catch(() => undefined);
    return run;
  };
  const rollup = createToolRollupFlusher({ store: opts.store, log, metrics, minIntervalMs: opts.toolRollupIntervalMs ?? 1000, exclusive });
  // marks a crashed run left are recomputed by the first pass
  rollup.poke();
  const keyOf = (job: ConversationJob) => conversationKey(job.tenant_id, job.conversation_id);
  const publishedMs = (m: JsMsg) => m.info.timestampNanos / 1e6;
  /** Deferrals already counted in the metric. */
  let deferredSeen = 0;
  const lagging = () => deferLagMs > 0 && !!opts.lagMs && opts.lagMs() > deferLagMs;

  const heartbeat = startHeartbeats(
    function* () {
      for (const h of jobs.items()) yield h.m;
      for (const b of inFlight) for (const h of b) yield h.m;
    },
    opts.heartbeatMs,
    log,
    'analysis jobs',
  );

  const gauges = (now: number) => {
    metrics.analyzeHeld.set(jobs.dueCount(now));
    metrics.analyzeMaxDeferral.set(jobs.stats.maxDeferralMs / 1000);
  };

  const dead = (m: JsMsg, reason: 'poison' | 'max_deliver', error: string) => deadLetterJob({ js: opts.js, durable: opts.durable, metrics, log }, m, reason, error);

  const accept = (m: JsMsg) => {
    metrics.consumed.inc(labels);
    if (m.info.redelivered) metrics.redelivered.inc(labels);
    let job: ConversationJob;
    try {
      job = m.json<ConversationJob>();
      if (typeof job.tenant_id !== 'string' || typeof job.conversation_id !== 'string') throw new Error('job without tenant_id or conversation_id');
    } catch (err) {
      void dead(m, 'poison', (err as Error).message);
      return;
    }
    const spent = exhausted(job, m.info.deliveryCount, opts.maxDeliver);
    if (spent) {
      void dead(m, 'max_deliver', spent);
      return;
    }
    const dueMs = job.due_ms ?? 0;
    const now = Date.now();
    coverage.noteDelivery(now, publishedMs(m));
    // a change an analysis already saw: acked on arrival, never held (nor waiting for a spacing)
    if (coverage.covers(keyOf(job), publishedMs(m))) {
      m.ack();
      metrics.analyzeJobs.inc({ outcome: 'covered' });
      return;
    }
    const superseded = jobs.add({ key: keyOf(job), dueMs, item: { m, job } }, now);
    // the job kept for the conversation runs after every superseded one's change was stored
    for (const h of superseded) h.m.ack();
    if (superseded.length) metrics.analyzeJobs.inc({ outcome: 'superseded' }, superseded.length);
    // a job that may run before the runner's alarm (a retry, a requeued stale rollup) wakes it;
    // while the store path lags it runs at its deferral bound or when the lag clears, so it wakes
    // only a runner that would sleep past that bound or past its next look at the lag
    alarm.wakeBefore(lagging() ? Math.min(firstRunMs(dueMs, true, maxDeferMs), now + LAG_POLL_MS) : dueMs);
    runner ??= drain().finally(() => {
      runner = undefined;
      signal.wake();
    });
  };

  /** Runs batches until nothing is held or the consumer stops. */
  const drain = async () => {
    /** The batch being analyzed and written while the next one loads (never rejects), and its conversations. */
    let finishing: Promise<void> | undefined;
    let finishingKeys: ReadonlySet<string> = new Set();
    while (!stopping) {
      if (jobs.size === 0) {
        if (!finishing) break;
        // a job arriving or the batch in flight being written ends this wait
        await alarm.sleep(LAG_POLL_MS);
        continue;
      }
      // without prefetch, a batch is taken once the one before it is written
      if (!opts.prefetch && finishing) {
        await finishing;
        continue;
      }
      const now = Date.now();
      // pacing: due conversations gather until the interval has passed or a full batch is due
      const gather = lastBatchMs + batchIntervalMs - now;
      if (gather > 0 && jobs.runnableKeys(now, lagging(), maxBatch, (k) => !finishingKeys.has(k)) < maxBatch) {
        // only a job overdue already (or a stop) ends this wait early, not each job that arrives
        await alarm.sleep(gather, now);
        continue;
      }
      const lag = lagging();
      // a conversation of the batch in flight (with prefetch) waits for a load after that batch's write
      const busy = finishingKeys;
      const batch = jobs.take(now, lag, maxBatch, (k) => !busy.has(k));
      const deferred = jobs.stats.deferredTotal;
      gauges(now);
      if (deferred > deferredSeen) {
        metrics.analyzeDeferred.inc({}, deferred - deferredSeen);
        deferredSeen = deferred;
      }
      if (batch.length === 0) {
        const next = (jobs.nextRunMs(lag) ?? now + LAG_POLL_MS) - now;
        // while lagging, look again soon: the lag may clear before the deferral bound; while a
        // batch is in flight, what is due may be its conversations: its end wakes this wait
        const wait = finishing ? (next > 0 ? Math.min(next, LAG_POLL_MS) : LAG_POLL_MS) : lag ? Math.min(next, LAG_POLL_MS) : next;
        await alarm.sleep(Math.max(0, wait));
        continue;
      }
      lastBatchMs = now;
      inFlight.add(batch);
      signal.wake();
      // with prefetch, this batch's reads overlap the analysis of the batch before it (on the analysis thread)
      let prepared = await prepare(batch);
      // its users' memories and its write come after that batch's write
      await finishing;
      // what changed meanwhile in the conversations of that batch joins this one (read now): a
      // conversation that keeps changing is analyzed in every batch, as it would be one at a time
      const room = maxBatch - (prepared?.keys.size ?? 0);
      const more = busy.size && room > 0 && !stopping ? jobs.take(Date.now(), lagging(), room, (k) => busy.has(k)) : [];
      if (more.length) {
        batch.push(...more);
        prepared = await prepare(more, prepared);
      }
      if (!prepared) {
        inFlight.delete(batch);
        continue;
      }
      if (stopping) {
        // loaded, not analyzed: redelivered at once to the next start or another replica
        for (const h of prepared.batch) h.m.nak();
        inFlight.delete(batch);
        break;
      }
      const run = finish(prepared).finally(() => {
        inFlight.delete(batch);
        if (finishing === run) {
          finishing = undefined;
          finishingKeys = new Set();
        }
        alarm.wakeBefore(-Infinity);
        signal.wake();
      });
      finishing = run;
      finishingKeys = new Set(prepared.keys.keys());
    }
    await finishing;
    gauges(Date.now());
  };

  /** A batch whose conversations are read; the users' memories and the write come after the batch before it. */
  type Prepared = BatchReads & { batch: Held[] };

  /**
   * Acks what an analysis already covered and reads the rest's conversations; undefined when nothing
   * is left or the read failed (nakked). With `into`, the jobs join that batch (each conversation in
   * the part of its tenant) and it is returned, whatever becomes of them.
   */
  const prepare = async (all: Held[], into?: Prepared): Promise<Prepared | undefined> => {
    // jobs whose change an analysis already saw (published before a snapshot since analyzed)
    const batch: Held[] = [];
    let covered = 0;
    for (const h of all) {
      if (coverage.covers(keyOf(h.job), publishedMs(h.m))) {
        h.m.ack();
        covered++;
      } else batch.push(h);
    }
    if (covered) metrics.analyzeJobs.inc({ outcome: 'covered' }, covered);
    if (batch.length === 0) return into;
    const keys = new Map<string, ConversationKey>();
    for (const h of batch) keys.set(keyOf(h.job), { tenantId: h.job.tenant_id, conversationId: h.job.conversation_id });
    try {
      if (!into) {
        metrics.analyzeBatch.observe({}, keys.size);
        return { batch, ...(await readBatch(opts.store, keys, opts.threads ?? 1, exclusive)) };
      }
      await joinBatch(opts.store, into, keys, exclusive);
      into.batch.push(...batch);
      return into;
    } catch (err) {
      await retryLater(batch, err, keys.size);
      return into;
    }
  };

  const pendingRetries: PendingRetries = new Map(); // later failed jobs of a conversation wait for its retry
  const retryLater = async (batch: Held[], err: unknown, conversations: number) => {
    log.warn({ err, conversations }, 'analysis failed: jobs will be retried');
    metrics.analyzeJobs.inc({ outcome: 'retry' }, batch.length);
    await requeueFailed(opts.js, batch, (failures) => backoffDelay(failures, 500, 10_000), Date.now(), pendingRetries);
  };

  /** Reads the users' memories and known categories (after the batch before was written), analyzes, writes, acks. */
  const finish = async ({ batch, keys, parts, loadStartMs, loadSeconds }: Prepared): Promise<void> => {
    const conversations = [...keys.values()];
    let phaseStart = performance.now();
    const phase = (name: 'load' | 'work' | 'write', extraSeconds = 0) => {
      const now = performance.now();
      metrics.analyzePhase.observe({ phase: name }, (now - phaseStart) / 1000 + extraSeconds);
      phaseStart = now;
    };
    try {
      const known = await exclusive(async () => {
        await attachMemories(opts.store, parts.flat());
        return categories.known(conversations.map((c) => c.tenantId));
      });
      phase('load', loadSeconds);
      const version = nextVersion();
      // every part on a thread of its own; one write for the batch
      const out = mergeWorkOutputs(await Promise.all(parts.map((loaded) => opts.work({ version, loaded, categories: known, maxAttempts: opts.maxDeliver }))));
      phase('work');
      const categoryRows = categories.rows(out.createdCategories);
      const failures = await exclusive(() => writeAnalysis(out, { store: opts.store, log, version, retryDeadlineMs: opts.writeRetryMs ?? 10_000, maxAttempts: opts.maxDeliver, categoryRows }));
      phase('write');
      if (!failures.some((f) => f.analyzer === 'tool-calls')) categories.add(out.createdCategories);
      if (out.toolGroups.length) rollup.poke();
      const failed = new Set(failures.map((f) => `${f.conversationId}\u0000${f.analyzer}`));
      for (const item of out.items) {
        for (const o of item.outcomes) metrics.analyzerRuns.inc({ analyzer: o.name, outcome: failed.has(`${item.conversationId}\u0000${o.name}`) ? 'error' : 'ok' });
      }
      if (failures.length) {
        for (const f of failures) {
          if (!f.retry) log.error({ analyzer: f.analyzer, tenant: f.tenantId, conversation: f.conversationId, attempts: f.attempts, error: f.error }, 'analyzer keeps failing: no more retries until its version changes');
        }
        const again = failures.filter((f) => f.retry);
        if (again.length) {
          await publishRetryJobs(opts.js, again, (n) => backoffDelay(n, 1000, 60_000));
          log.warn({ analyzers: [...new Set(again.map((f) => f.analyzer))], conversations: new Set(again.map((f) => f.conversationId)).size }, 'analyzers failed: retries scheduled');
        }
      }
      for (const h of batch) h.m.ack();
      // a failed analyzer has its own retry job (published now, so never covered by this load)
      const counted = new Map(out.items.map((item) => [conversationKey(item.tenantId, item.conversationId), item.messageCount]));
      const sizes = new Map([...keys.keys()].map((k) => [k, counted.get(k) ?? 0]));
      // jobs held meanwhile whose change this snapshot saw: acked now, so they count toward no batch
      const covered = noteAnalyzed(coverage, jobs, sizes, loadStartMs, Date.now(), (h) => publishedMs(h.m));
      for (const h of covered) h.m.ack();
      if (covered.length) metrics.analyzeJobs.inc({ outcome: 'covered' }, covered.length);
      metrics.analyzeJobs.inc({ outcome: 'ok' }, batch.length);
    } catch (err) {
      await retryLater(batch, err, conversations.length);
    }
  };

  const loop = async () => {
    const consumer = await getConsumer(opts.js, opts.stream, opts.durable, log, () => stopping);
    if (consumer) {
      await pullLoop({
        consumer,
        // at most two batches held beside the ones in flight: the next one filling (or held)
        room: () => 2 * maxBatch - jobs.size,
        signal,
        onMessage: accept,
        stopped: () => stopping,
        log,
      });
    }
    // the batch running completes (acked or nakked); the jobs still held wait for a redelivery,
    // each when it is due, to this replica after a restart or to another one
    alarm.wakeBefore(-Infinity);
    while (runner) await runner;
    const left = jobs.clear();
    const now = Date.now();
    for (const h of left) h.item.m.nak(Math.max(0, h.dueMs - now));
    if (left.length) log.info({ jobs: left.length }, 'held analysis jobs left for redelivery');
    gauges(now);
  };
  const running = loop().catch((err) => log.error({ err }, 'analyze consumer stopped'));
  return {
    async stop() {
      stopping = true;
      signal.wake();
      alarm.wakeBefore(-Infinity);
      await running;
      heartbeat.stop();
      await rollup.stop();
    },
  };
}
