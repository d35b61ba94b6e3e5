/**
 * Recomputes conversations after an analyzer's version changed (or that were never analyzed): a
 * leased job per tenant that finds the conversations whose `analysis_state` lacks some analyzer at
 * its current version and publishes ordinary "conversation changed" jobs for them, bounded — at
 * most `maxPerRun` per run, and only while the ANALYZE backlog stays under `maxBacklog` — so a
 * version bump over millions of conversations proceeds at the pace the analysis keeps up with,
 * without starving new conversations. Progress (pending, published, versions) is kept in KV per
 * tenant (`backfill.<tenant>`), shown by `tracehouse status`; once a scan of the current versions
 * finds nothing, later runs skip the scan until the versions change again.
 */
import { TupleParam } from '@clickhouse/client';
import type { KV } from '@nats-io/kv';
import { namedQuery } from '../../core/clickhouse.js';
import { kvCompareAndSet, kvGet } from '../../core/kv.js';
import { STREAMS } from '../../schemas/subjects.js';
import { publishConversationJobs } from './publisher.js';
import type { TenantJob } from './scheduler.js';
import { FRAMEWORK_ANALYZERS } from './tables.js';
import { conversationKey } from '../conversation-key.js';

export interface BackfillProgress {
  /** `analyzer@version,…`: the versions this progress is about. */
  versions: string;
  /** Conversations not yet at these versions, as of `updated_at`. */
  pending: number;
  /** Jobs published for these versions so far. */
  published: number;
  complete: boolean;
  updated_at: string;
}

export const currentVersions = (): string => FRAMEWORK_ANALYZERS.map((a) => `${a.name}@${a.version}`).join(',');
export const backfillKey = (tenant: string) => `backfill.${tenant}`;

export interface BackfillOptions {
  kv: Promise<KV>;
  /** Jobs published per run at most. Default 5,000. */
  maxPerRun?: number;
  /** Publish only while the ANALYZE stream holds fewer messages. Default 10,000. */
  maxBacklog?: number;
}

export function analysisBackfill(opts: BackfillOptions): TenantJob {
  const maxPerRun = opts.maxPerRun ?? 5000;
  const maxBacklog = opts.maxBacklog ?? 10_000;
  return {
    name: 'analysis-backfill',
    version: 1,
    scope: 'tenant',
    async run(ctx, tenant) {
      if (!tenant) return;
      const kv = await opts.kv;
      const versions = currentVersions();
      const known = await kvGet(kv, backfillKey(tenant));
      const progress = known?.json<BackfillProgress>();
      if (progress?.versions === versions && progress.complete) return;
      const backlog = (await ctx.jsm.streams.info(STREAMS.ANALYZE.name)).state.messages;
      const room = Math.min(maxPerRun, maxBacklog - backlog);
      if (room <= 0) return;
      const current = FRAMEWORK_ANALYZERS.map((a) => new TupleParam([a.name, a.version]));
      const rows = await ctx.store.query<{ conversation_id: string; pending: string }>(namedQuery('stream-analysis-backfill'), { tenant, current, limit: room });
      if (ctx.signal.aborted) return;
      const pending = Number(rows[0]?.pending ?? 0);
      if (rows.length) await publishConversationJobs(ctx.js, rows.map((r) => conversationKey(tenant, r.conversation_id)), ctx.debounceMs);
      await kvCompareAndSet<BackfillProgress>(kv, backfillKey(tenant), (p) => ({
        versions,
        pending,
        published: (p?.versions === versions ? p.published : 0) + rows.length,
        complete: pending === 0,
        updated_at: new Date().toISOString(),
      }));
      if (rows.length) ctx.log.info({ tenant, published: rows.length, pending, versions }, 'analysis backfill: conversations requeued');
    },
  };
}
