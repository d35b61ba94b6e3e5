/**
 * The `analyze` consumer: analyzes the conversations of "conversation changed" jobs once their
 * debounce windows have closed, in batches. Jobs are pulled continuously into a bounded queue; one
 * runner waits for the earliest due time, takes every job due by then (up to `maxBatch`), loads one
 * snapshot of each distinct conversation (a few reads for the whole batch, of every tenant), runs
 * every analyzer on them in the Piscina pool, and writes each analyzer's table (writer.ts).
 * An analyzer that fails — in the worker or in its write — is recorded with its error in
 * `analysis_state` and retried on its own schedule (a retry job with backoff) while the others'
 * results stand; the batch's jobs are acked once the outcomes are recorded. Only a failure to load
 * or to record outcomes naks the batch (backoff; dead-lettered after `maxDeliver` deliveries).
 */
import type { JsMsg, JetStreamClient } from '@nats-io/jetstream';
import type { Store } from '../../core/clickhouse.js';
import { createCategoryCache } from './categories.js';
import { loadWorkItems, type ConversationKey } from './loader.js';
import { nextVersion } from './version.js';
import { writeAnalysis } from './writer.js';
import type { WorkInput, WorkOutput } from './work.js';
import type { Logger } from '../../core/log.js';
import { backoffDelay, sleep } from '../../core/retry.js';
import { createRoomSignal, getConsumer, pullLoop } from '../pull.js';
import { deadLetter } from '../dlq.js';
import type { StreamMetrics } from '../metrics.js';
import { publishRetryJobs, type ConversationJob } from './publisher.js';

export interface AnalyzeConsumerOptions {
  js: JetStreamClient;
  stream: string;
  durable: string;
  store: Store;
  /** Runs the CPU part of a batch (the Piscina pool; work.ts). */
  work(input: WorkInput): Promise<WorkOutput>;
  maxDeliver: number;
  /** Time transient write errors are retried before the analyzer is retried later. Default 10 s. */
  writeRetryMs?: number;
  /** Jobs analyzed together at most. Default 500. */
  maxBatch?: number;
  metrics: StreamMetrics;
  log: Logger;
}

interface Held {
  m: JsMsg;
  job: ConversationJob;
}

export function startAnalyzeConsumer(opts: AnalyzeConsumerOptions): { stop(): Promise<void> } {
  const { metrics, log } = opts;
  const maxBatch = Math.max(1, opts.maxBatch ?? 500);
  const labels = { consumer: opts.durable };
  let stopping = false;
  let queue: Held[] = [];
  let runner: Promise<void> | undefined;
  /** Jobs of the batch being analyzed. */
  let busy = 0;
  const signal = createRoomSignal();
  const categories = createCategoryCache(opts.store);

  const dead = async (m: JsMsg, reason: 'poison' | 'max_deliver', error: string) => {
    try {
      await deadLetter(opts.js, m, opts.durable, reason, error);
      metrics.deadLetters.inc({ consumer: opts.durable, reason });
      metrics.analyzeJobs.inc({ outcome: 'dead_letter' });
      log.error({ reason, error, seq: m.info.streamSequence }, 'analyze job dead-lettered');
    } catch (err) {
      log.warn({ err }, 'dead-lettering failed: job will be redelivered');
      m.nak(1000);
    }
  };

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
    if (m.info.deliveryCount > opts.maxDeliver) {
      void dead(m, 'max_deliver', `analysis failed ${opts.maxDeliver} times`);
      return;
    }
    queue.push({ m, job });
    runner ??= drain().finally(() => {
      runner = undefined;
      signal.wake();
    });
  };

  /** Runs batches until the queue is empty. */
  const drain = async () => {
    while (queue.length > 0) {
      let earliest = Infinity;
      for (const h of queue) earliest = Math.min(earliest, h.job.due_ms ?? 0);
      const wait = earliest - Date.now();
      if (wait > 0) await sleep(wait);
      const now = Date.now();
      const batch: Held[] = [];
      const rest: Held[] = [];
      for (const h of queue) ((h.job.due_ms ?? 0) <= now && batch.length < maxBatch ? batch : rest).push(h);
      queue = rest;
      busy = batch.length;
      signal.wake();
      await runBatch(batch).finally(() => (busy = 0));
    }
  };

  const runBatch = async (batch: Held[]) => {
    const keys = new Map<string, ConversationKey>();
    for (const h of batch) keys.set(`${h.job.tenant_id}\u0000${h.job.conversation_id}`, { tenantId: h.job.tenant_id, conversationId: h.job.conversation_id });
    const conversations = [...keys.values()];
    metrics.analyzeBatch.observe({}, conversations.length);
    try {
      const items = await loadWorkItems(opts.store, conversations);
      const known = await categories.known(conversations.map((c) => c.tenantId));
      const version = nextVersion();
      const out = await opts.work({ version, items, categories: known });
      const categoryRows = categories.rows(out.createdCategories);
      const failures = await writeAnalysis(out, { store: opts.store, log, version, retryDeadlineMs: opts.writeRetryMs ?? 10_000, maxAttempts: opts.maxDeliver, categoryRows });
      if (!failures.some((f) => f.analyzer === 'tool-calls')) categories.add(out.createdCategories);
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
      metrics.analyzeJobs.inc({ outcome: 'ok' }, batch.length);
    } catch (err) {
      log.warn({ err, conversations: conversations.length }, 'analysis failed: jobs will be redelivered');
      metrics.analyzeJobs.inc({ outcome: 'retry' }, batch.length);
      for (const h of batch) h.m.nak(backoffDelay(h.m.info.deliveryCount, 500, 10_000));
    }
  };

  const loop = async () => {
    const consumer = await getConsumer(opts.js, opts.stream, opts.durable, log, () => stopping);
    if (consumer) {
      await pullLoop({
        consumer,
        // at most two batches held: the one running and the next one filling
        room: () => 2 * maxBatch - queue.length - busy,
        signal,
        onMessage: accept,
        stopped: () => stopping,
        log,
      });
    }
    // every held job is analyzed (they are due within one debounce window) and acked or nakked
    while (runner) await runner;
  };
  const running = loop().catch((err) => log.error({ err }, 'analyze consumer stopped'));
  return {
    async stop() {
      stopping = true;
      signal.wake();
      await running;
    },
  };
}
