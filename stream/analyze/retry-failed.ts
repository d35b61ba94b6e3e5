/**
 * Analyses that gave up, run again on request. An analyzer that failed `STREAM_MAX_DELIVER` times
 * in a row for a conversation is recorded `failed` and not retried until its version changes
 * (docs/stream.md "The analysis framework"); once the cause is gone (a fixed release, a repaired
 * table), `tracehouse retry-analyses` asks the running stream role, over NATS request/reply, to
 * publish an ordinary "conversation changed" job for each such conversation. Each gets one more
 * run: an analyzer that now succeeds is recorded `ok`; one that fails again is `failed` again at
 * once (its failures in a row already reached the limit). The embedded store is locked to the
 * running process, hence the request instead of a query from the CLI.
 */
import type { JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Store } from '../../core/clickhouse.js';
import type { Logger } from '../../core/log.js';
import { startResponder } from '../../core/responder.js';
import { publishConversationJobs } from './publisher.js';
import { conversationKey } from '../conversation-key.js';

/** Request subject; replicas answer as one queue group (one reply per request). */
export const RETRY_FAILED_SUBJECT = 'tracehouse.analysis.retry-failed';
/** Conversations one request runs again, at most (the request may be repeated). */
export const RETRY_FAILED_MAX = 100_000;

export interface RetryFailedRequest {
  /** Only this tenant's conversations; all tenants when absent. */
  tenant?: string;
  /** At most this many conversations (default and ceiling `RETRY_FAILED_MAX`). */
  limit?: number;
}

export interface RetryFailedResult {
  /** Conversations a job was published for. */
  conversations: number;
  /** Their analyzers recorded `failed`, by name. */
  analyzers: Record<string, number>;
}

/** Publishes a job for every conversation (of `tenant`, up to `limit`) with an analyzer recorded `failed`. */
export async function retryFailedAnalyses(store: Store, js: JetStreamClient, req: RetryFailedRequest, debounceMs: number): Promise<RetryFailedResult> {
  const limit = Math.min(RETRY_FAILED_MAX, Math.max(1, Math.floor(req.limit ?? RETRY_FAILED_MAX)));
  const rows = await store.query<{ tenant_id: string; conversation_id: string; analyzers: string[] }>(
    `SELECT tenant_id, conversation_id, groupArray(analyzer) AS analyzers
     FROM {{db}}.analysis_state FINAL
     WHERE outcome = 'failed'${req.tenant === undefined ? '' : ' AND tenant_id = {tenant:String}'}
     GROUP BY tenant_id, conversation_id
     ORDER BY tenant_id, conversation_id
     LIMIT {limit:UInt32}`,
    req.tenant === undefined ? { limit } : { tenant: req.tenant, limit },
  );
  const analyzers: Record<string, number> = {};
  for (const r of rows) for (const a of r.analyzers) analyzers[a] = (analyzers[a] ?? 0) + 1;
  const conversations = await publishConversationJobs(js, rows.map((r) => conversationKey(r.tenant_id, r.conversation_id)), debounceMs);
  return { conversations, analyzers };
}

/** What a request may hold; anything else is refused with a clear error. */
function requestOf(data: string): RetryFailedRequest {
  const body: unknown = data.trim() ? JSON.parse(data) : {};
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('the request must be a JSON object');
  const { tenant, limit } = body as Record<string, unknown>;
  if (tenant !== undefined && (typeof tenant !== 'string' || tenant === '')) throw new Error('tenant must be a non-empty string');
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)) throw new Error('limit must be a positive integer');
  return { tenant, limit };
}

export function startRetryFailedResponder(nc: NatsConnection, store: Store, js: JetStreamClient, debounceMs: number, log: Logger): { stop(): void } {
  return startResponder(nc, RETRY_FAILED_SUBJECT, 'retry-failed', async (data) => {
    const result = await retryFailedAnalyses(store, js, requestOf(data), debounceMs);
    log.info(result, 'analyses that gave up: jobs published');
    return result;
  }, log);
}
