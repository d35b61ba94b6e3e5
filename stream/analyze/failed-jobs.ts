/**
 * How the analyze consumer bounds a job that keeps failing without counting deliveries that were
 * not failures (docs/stream.md "Failed batches and restarts").
 *
 * JetStream counts every delivery of a job: the redeliveries after its batch failed (the
 * conversations could not be read, or the outcomes not recorded), but also those after the role
 * stopped or died while it held the job — in its debounce window, behind a lagging store path (up
 * to ANALYZE_MAX_DEFER_MS), waiting for a growing conversation's spacing. A job held across
 * STREAM_MAX_DELIVER restarts was dead-lettered as "analysis failed 5 times" though no analysis of
 * it had failed, and its conversation kept an older analysis until it changed again.
 *
 * So the count of failures travels with the job: a failed batch publishes each of its jobs again,
 * with one failure more and due after the backoff of that many, and acks the delivery that failed.
 * A job is dead-lettered once it carries `maxDeliver` failures, as before. Deliveries alone bound
 * only a crash loop (a job whose batch takes the process down every time), at CRASH_LOOP_FACTOR
 * times `maxDeliver`.
 */
import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { withFields } from '../../core/own.js';
import type { Logger } from '../../core/log.js';
import { deadLetter } from '../dlq.js';
import type { StreamMetrics } from '../metrics.js';
import type { ConversationJob } from './publisher.js';
import { conversationKey } from '../conversation-key.js';

/** Deliveries of one job, in multiples of `maxDeliver`, after which it is taken for a crash loop. */
export const CRASH_LOOP_FACTOR = 4;

/** Failed batches a job has been in (0 for a job that names none or an unusable count). */
export function failuresOf(job: ConversationJob): number {
  const n = job.failures;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/** Why a job delivered for the `deliveryCount`-th time is dead-lettered now; undefined when it may run. */
export function exhausted(job: ConversationJob, deliveryCount: number, maxDeliver: number): string | undefined {
  const failures = failuresOf(job);
  if (failures >= maxDeliver) return `analysis failed ${failures} times`;
  if (deliveryCount > CRASH_LOOP_FACTOR * maxDeliver) {
    return `delivered ${deliveryCount} times without an analysis completing (the role stopped each time while it held or analyzed the job)`;
  }
  return undefined;
}

/** The job after one more failure, due `backoff(failures)` after `now`. */
export function failedAgain(job: ConversationJob, now: number, backoff: (failures: number) => number): ConversationJob {
  const failures = failuresOf(job) + 1;
  return withFields(job, { failures, due_ms: now + backoff(failures) });
}

/**
 * The retry job each conversation has pending from this process: when it comes due. Bounded by the
 * conversations failing at once (entries past their time are dropped on each use).
 */
export type PendingRetries = Map<string, number>;

/**
 * Publishes the jobs of a failed batch again (`failedAgain`) and then acks the deliveries that
 * failed: one job per conversation. A conversation changed in several debounce windows, or
 * requeued by the reconciler, has a job for each, and a batch analyzes it once for all of them;
 * published again one by one, they went on as separate jobs that failed together and were
 * dead-lettered once each. Its job with the most failures goes on (so the conversation is
 * dead-lettered no later than its oldest job would have been), and every delivery of the
 * conversation is acked once that job is stored. A conversation that already has a retry pending
 * from this process, not yet due, is covered by it: that job analyzes the conversation after
 * everything these jobs announced was stored, so these deliveries are acked without another.
 * The message id names the chosen job's stream sequence and the new count, so a delivery failed
 * twice (its ack lost) is published once. A conversation whose publish fails has its deliveries
 * nakked with the backoff instead: their failure then counts as a delivery only.
 */
export async function requeueFailed(
  js: JetStreamClient,
  held: ReadonlyArray<{ m: JsMsg; job: ConversationJob }>,
  backoff: (failures: number) => number,
  now = Date.now(),
  pending: PendingRetries = new Map(),
): Promise<{ published: number; covered: number }> {
  for (const [k, due] of pending) if (due <= now) pending.delete(k);
  const byConversation = new Map<string, Array<{ m: JsMsg; job: ConversationJob }>>();
  for (const h of held) {
    const k = conversationKey(h.job.tenant_id, h.job.conversation_id);
    const group = byConversation.get(k);
    if (group) group.push(h);
    else byConversation.set(k, [h]);
  }
  const counts = { published: 0, covered: 0 };
  await Promise.all(
    [...byConversation].map(async ([key, group]) => {
      if (pending.has(key)) {
        for (const h of group) h.m.ack();
        counts.covered += group.length;
        return;
      }
      let first = group[0]!;
      for (const h of group) if (failuresOf(h.job) > failuresOf(first.job)) first = h;
      const again = failedAgain(first.job, now, backoff);
      try {
        await js.publish(first.m.subject, JSON.stringify(again), { msgID: `failed:${first.m.info.streamSequence}:${again.failures}` });
        pending.set(key, again.due_ms);
        for (const h of group) h.m.ack();
        counts.published++;
      } catch {
        for (const h of group) h.m.nak(backoff(again.failures!));
      }
    }),
  );
  return counts;
}

/**
 * Moves a job to the DLQ (`poison`: unreadable; `max_deliver`: `exhausted`), counted and logged; a
 * job that cannot be dead-lettered now is nakked and comes back.
 */
export async function deadLetterJob(
  ctx: { js: JetStreamClient; durable: string; metrics: StreamMetrics; log: Logger },
  m: JsMsg,
  reason: 'poison' | 'max_deliver',
  error: string,
): Promise<void> {
  try {
    await deadLetter(ctx.js, m, ctx.durable, reason, error);
    ctx.metrics.deadLetters.inc({ consumer: ctx.durable, reason });
    ctx.metrics.analyzeJobs.inc({ outcome: 'dead_letter' });
    ctx.log.error({ reason, error, seq: m.info.streamSequence }, 'analyze job dead-lettered');
  } catch (err) {
    ctx.log.warn({ err }, 'dead-lettering failed: job will be redelivered');
    m.nak(1000);
  }
}
