/**
 * Leased jobs on a schedule. Every replica ticks every `intervalMs` (the first tick soon after
 * start); a tick never overlaps the previous one on the same replica, and a KV lease per job — per
 * tenant for tenant-wide jobs — lets exactly one replica run each, renewed while the job runs
 * (core/lease.ts). A job whose lease is lost mid-run sees its signal aborted and stops.
 */
import type { KV } from '@nats-io/kv';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { namedQuery, type Store } from '../../core/clickhouse.js';
import { withLease } from '../../core/lease.js';
import type { Logger } from '../../core/log.js';
import type { StreamMetrics } from '../metrics.js';
import { publishConversationJobs } from './publisher.js';
import { conversationKey } from '../conversation-key.js';
import { withFields } from '../../core/own.js';

export interface TenantJobContext {
  store: Store;
  js: JetStreamClient;
  jsm: JetStreamManager;
  log: Logger;
  intervalMs: number;
  debounceMs: number;
  /** Aborted when the job's lease is lost or the role stops. */
  signal: AbortSignal;
}

export interface TenantJob {
  name: string;
  version: number;
  /** `global`: one run for all tenants; `tenant`: one run per tenant, each under its own lease. */
  scope: 'global' | 'tenant';
  run(ctx: TenantJobContext, tenant?: string): Promise<void>;
}

/** Republishes "conversation changed" jobs for conversations whose rollup is missing or stale. */
export const reconcileConversations: TenantJob = {
  name: 'reconcile-conversations',
  version: 1,
  scope: 'global',
  async run(ctx) {
    const since = new Date(Date.now() - Math.max(3 * ctx.intervalMs, 10 * 60_000)).toISOString().replace('T', ' ').replace('Z', '');
    const rows = await ctx.store.query<{ tenant_id: string; conversation_id: string }>(namedQuery('stream-stale-conversations'), { since, limit: 5000 });
    if (rows.length === 0) return;
    const n = await publishConversationJobs(ctx.js, rows.map((r) => conversationKey(r.tenant_id, r.conversation_id)), ctx.debounceMs);
    ctx.log.info({ conversations: n }, 'stale conversation rollups requeued');
  },
};

export const defaultTenantJobs: TenantJob[] = [reconcileConversations];

/** Tenants that have conversations: the tenants a tenant-scoped job runs for. */
async function knownTenants(store: Store): Promise<string[]> {
  const rows = await store.query<{ tenant_id: string }>(`SELECT DISTINCT tenant_id FROM {{db}}.conversations`);
  return rows.map((r) => r.tenant_id).sort();
}

export interface SchedulerOptions {
  kv: Promise<KV>;
  jobs: readonly TenantJob[];
  ctx: Omit<TenantJobContext, 'signal'>;
  holder: string;
  metrics: StreamMetrics;
  /** Delay of the first tick. Default 1 s (a version change is noticed soon after a restart). */
  firstTickMs?: number;
}

export function startScheduler(opts: SchedulerOptions): { stop(): Promise<void>; tick(): Promise<void> } {
  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  // the lease outlives a renewal period comfortably; renewals keep a long run covered
  const ttlMs = Math.max(3_000, Math.round(opts.ctx.intervalMs * 0.9));

  const runOne = async (kv: KV, job: TenantJob, tenant?: string) => {
    const key = tenant === undefined ? `job.${job.name}` : `job.${job.name}.${tenant}`;
    const labels = { job: job.name };
    const started = performance.now();
    try {
      const out = await withLease(
        kv,
        key,
        opts.holder,
        ttlMs,
        (signal) => job.run(withFields(opts.ctx, { signal: AbortSignal.any([signal, stopping.signal]) }), tenant),
        (what, err) => opts.ctx.log.warn({ err, job: job.name, tenant, what }, 'job lease trouble'),
      );
      if (out.ran) {
        opts.metrics.leaseRuns.inc(withFields(labels, { outcome: 'ok' }));
        opts.metrics.leaseRunSeconds.observe(labels, (performance.now() - started) / 1000);
      }
    } catch (err) {
      if (stopping.signal.aborted) {
        // the role is stopping: the job was told to give up, it did not fail (its next run resumes it)
        opts.metrics.leaseRuns.inc(withFields(labels, { outcome: 'stopped' }));
        opts.ctx.log.info({ job: job.name, tenant }, 'leased job stopped: the role is stopping');
        return;
      }
      opts.metrics.leaseRuns.inc(withFields(labels, { outcome: 'error' }));
      opts.metrics.leaseRunSeconds.observe(labels, (performance.now() - started) / 1000);
      opts.ctx.log.warn({ err, job: job.name, tenant }, 'leased job failed');
    }
  };

  const tick = async () => {
    const kv = await opts.kv;
    let tenants: string[] | undefined;
    for (const job of opts.jobs) {
      if (stopping.signal.aborted) return;
      if (job.scope === 'global') {
        await runOne(kv, job);
        continue;
      }
      tenants ??= await knownTenants(opts.ctx.store);
      for (const t of tenants) {
        if (stopping.signal.aborted) return;
        await runOne(kv, job, t);
      }
    }
  };

  /** Starts a tick unless the previous one still runs (ticks never overlap). */
  const fire = () => {
    if (running || stopping.signal.aborted) return running;
    running = tick()
      .catch((err) => opts.ctx.log.warn({ err }, 'job tick failed'))
      .finally(() => (running = undefined));
    return running;
  };
  const first = setTimeout(fire, opts.firstTickMs ?? 1000);
  const timer = setInterval(fire, opts.ctx.intervalMs);
  first.unref();
  timer.unref();
  return {
    tick: async () => {
      await running;
      await fire();
    },
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      stopping.abort();
      await running;
    },
  };
}
