/**
 * "Conversation changed" jobs. Published after a batch's rows are inserted and before its messages
 * are acked (so a crash in between republishes them). Debounced by window: one job per conversation
 * per quiet period, deduplicated by a Nats-Msg-Id naming the window, and run only once the window
 * has closed, so every change inserted during the window is visible to the job.
 */
import { createHash } from 'node:crypto';
import type { JetStreamClient } from '@nats-io/jetstream';
import { analyzeSubject, isAnalyzeSubject } from '../../schemas/subjects.js';
import { conversationKey, splitConversationKey } from '../conversation-key.js';

export interface ConversationJob {
  v: 1;
  tenant_id: string;
  conversation_id: string;
  /** Earliest time (ms) the job may run: the end of its debounce window. */
  due_ms: number;
  /** Failed batches the job has been in (failed-jobs.ts); absent: none. */
  failures?: number;
}

export function jobFor(key: string, debounceMs: number, now = Date.now()): { job: ConversationJob; msgId: string } {
  const [tenant, conversation] = splitConversationKey(key);
  const windowMs = Math.max(1, debounceMs);
  const w = Math.floor(now / windowMs);
  const h = createHash('sha1').update(tenant).update('\u0000').update(conversation).digest('hex');
  return { job: { v: 1, tenant_id: tenant, conversation_id: conversation, due_ms: (w + 1) * windowMs }, msgId: `conv:${h}:${w}` };
}

/** Publishes in flight at once: bounds the memory and the burst a large key set makes. */
const PUBLISH_WINDOW = 1000;

/** Publishes the jobs of a set of conversation keys (`conversationKey`); resolves when JetStream stored them. */
export async function publishConversationJobs(js: JetStreamClient, keys: Iterable<string>, debounceMs: number): Promise<number> {
  const now = Date.now();
  const unique = [...new Set(keys)];
  for (let i = 0; i < unique.length; i += PUBLISH_WINDOW) {
    await Promise.all(
      unique.slice(i, i + PUBLISH_WINDOW).map((key) => {
        const { job, msgId } = jobFor(key, debounceMs, now);
        return js.publish(analyzeSubject(job.tenant_id), JSON.stringify(job), { msgID: msgId });
      }),
    );
  }
  return unique.length;
}

/**
 * Re-runs the analysis of conversations where an analyzer failed, after a backoff that grows with
 * its failures in a row (`attempts`). Deduplicated per conversation and attempt, so the replicas and
 * redeliveries of one batch publish one retry.
 */
export async function publishRetryJobs(
  js: JetStreamClient,
  retries: ReadonlyArray<{ tenantId: string; conversationId: string; attempts: number }>,
  delayOf: (attempts: number) => number,
  now = Date.now(),
): Promise<number> {
  const worst = new Map<string, { tenantId: string; conversationId: string; attempts: number }>();
  for (const r of retries) {
    const k = conversationKey(r.tenantId, r.conversationId);
    if ((worst.get(k)?.attempts ?? -1) < r.attempts) worst.set(k, r);
  }
  await Promise.all(
    [...worst.values()].map((r) => {
      const h = createHash('sha1').update(r.tenantId).update('\u0000').update(r.conversationId).digest('hex');
      const job: ConversationJob = { v: 1, tenant_id: r.tenantId, conversation_id: r.conversationId, due_ms: now + delayOf(r.attempts) };
      return js.publish(analyzeSubject(r.tenantId), JSON.stringify(job), { msgID: `retry:${h}:${r.attempts}` });
    }),
  );
  return worst.size;
}

/**
 * The bytes a dead-lettered message is replayed with: an analysis job starts again with no failures
 * (it was dead-lettered for carrying `STREAM_MAX_DELIVER` of them, and would be again at once);
 * anything else, or a job that cannot be read, is replayed as it was.
 */
export function replayBytes(subject: string, data: Uint8Array): Uint8Array {
  if (!isAnalyzeSubject(subject)) return data;
  try {
    const job = JSON.parse(Buffer.from(data).toString()) as ConversationJob;
    if (!job || typeof job !== 'object' || job.failures === undefined) return data;
    delete job.failures;
    return Buffer.from(JSON.stringify(job));
  } catch {
    return data;
  }
}
