/**
 * The `analyze` consumer: runs the analyzer list for each "conversation changed" job once its
 * debounce window has closed. Acks after every analyzer succeeded; failures are redelivered with
 * backoff and dead-lettered after `maxDeliver` deliveries.
 */
import type { JsMsg, JetStreamClient } from '@nats-io/jetstream';
import type { Store } from '../../core/clickhouse.js';
import type { Logger } from '../../core/log.js';
import { backoffDelay, sleep } from '../../core/retry.js';
import { deadLetter } from '../dlq.js';
import type { StreamMetrics } from '../metrics.js';
import { nextVersion, type Analyzer } from './analyzers.js';
import type { ConversationJob } from './publisher.js';

export interface AnalyzeConsumerOptions {
  js: JetStreamClient;
  stream: string;
  durable: string;
  store: Store;
  analyzers: readonly Analyzer[];
  maxDeliver: number;
  concurrency: number;
  metrics: StreamMetrics;
  log: Logger;
}

export function startAnalyzeConsumer(opts: AnalyzeConsumerOptions): { stop(): Promise<void> } {
  let stopping = false;
  let active = 0;
  const { metrics, log } = opts;
  const labels = { consumer: opts.durable };

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

  const process = async (m: JsMsg) => {
    metrics.consumed.inc(labels);
    if (m.info.redelivered) metrics.redelivered.inc(labels);
    let job: ConversationJob;
    try {
      job = m.json<ConversationJob>();
      if (typeof job.tenant_id !== 'string' || typeof job.conversation_id !== 'string') throw new Error('job without tenant_id or conversation_id');
    } catch (err) {
      return dead(m, 'poison', (err as Error).message);
    }
    if (m.info.deliveryCount > opts.maxDeliver) return dead(m, 'max_deliver', `analysis failed ${opts.maxDeliver} times`);
    const wait = (job.due_ms ?? 0) - Date.now();
    if (wait > 0) await sleep(wait);
    try {
      for (const a of opts.analyzers) {
        try {
          await a.run({ store: opts.store, log, tenantId: job.tenant_id, conversationId: job.conversation_id, version: nextVersion() });
          metrics.analyzerRuns.inc({ analyzer: a.name, outcome: 'ok' });
        } catch (err) {
          metrics.analyzerRuns.inc({ analyzer: a.name, outcome: 'error' });
          throw err;
        }
      }
      m.ack();
      metrics.analyzeJobs.inc({ outcome: 'ok' });
    } catch (err) {
      log.warn({ err, conversation: job.conversation_id }, 'analysis failed: will be redelivered');
      metrics.analyzeJobs.inc({ outcome: 'retry' });
      m.nak(backoffDelay(m.info.deliveryCount, 500, 10_000));
    }
  };

  const loop = async () => {
    let consumer;
    for (let attempt = 1; !stopping && !consumer; attempt++) {
      try {
        consumer = await opts.js.consumers.get(opts.stream, opts.durable);
      } catch (err) {
        log.warn({ err: (err as Error)?.message }, 'analyze consumer not available yet');
        await sleep(backoffDelay(attempt, 200, 5000));
      }
    }
    const inflight = new Set<Promise<void>>();
    while (!stopping && consumer) {
      const room = opts.concurrency - active;
      if (room <= 0) {
        await Promise.race(inflight);
        continue;
      }
      try {
        const iter = await consumer.fetch({ max_messages: room, expires: 1000 });
        for await (const m of iter) {
          active++;
          const p: Promise<void> = process(m).finally(() => {
            active--;
            inflight.delete(p);
          });
          inflight.add(p);
        }
      } catch (err) {
        if (stopping) break;
        log.warn({ err: (err as Error)?.message }, 'analyze fetch failed: retrying');
        await sleep(250);
      }
    }
    await Promise.all(inflight);
  };
  const running = loop().catch((err) => log.error({ err }, 'analyze consumer stopped'));
  return {
    async stop() {
      stopping = true;
      await running;
    },
  };
}
