/**
 * Tenant-wide jobs on a schedule. Every replica ticks every `intervalMs`; a KV lease per job
 * (bucket th_leases: `kv.create` when absent, `kv.update` with the seen revision when expired)
 * lets exactly one replica run each job per interval.
 */
import type { KV } from '@nats-io/kv';
import type { JetStreamClient } from '@nats-io/jetstream';
import { namedQuery, type Store } from '../../core/clickhouse.js';
import type { Logger } from '../../core/log.js';
import type { StreamMetrics } from '../metrics.js';
import { publishConversationJobs } from './publisher.js';

export interface TenantJobContext {
  store: Store;
  js: JetStreamClient;
  log: Logger;
  intervalMs: number;
  debounceMs: number;
}

export interface TenantJob {
  name: string;
  version: number;
  run(ctx: TenantJobContext): Promise<void>;
}

interface Lease {
  holder: string;
  until: number;
}

/** Takes the lease `job.<name>` until `now + ttlMs` if nobody holds an unexpired one. */
export async function acquireLease(kv: KV, name: string, holder: string, ttlMs: number, now = Date.now()): Promise<boolean> {
  const key = `job.${name}`;
  const value = JSON.stringify({ holder, until: now + ttlMs } satisfies Lease);
  try {
    await kv.create(key, value);
    return true;
  } catch {
    // exists (or a concurrent create won): take it over only when expired, by compare-and-set
  }
  const e = await kv.get(key);
  if (!e) return false;
  let current: Lease | undefined;
  try {
    current = e.json<Lease>();
  } catch {
    current = undefined;
  }
  if (current && current.until > now) return false;
  try {
    await kv.update(key, value, e.revision);
    return true;
  } catch {
    return false; // another replica updated it first
  }
}

/** Republishes "conversation changed" jobs for conversations whose rollup is missing or stale. */
export const reconcileConversations: TenantJob = {
  name: 'reconcile-conversations',
  version: 1,
  async run(ctx) {
    const since = new Date(Date.now() - Math.max(3 * ctx.intervalMs, 10 * 60_000)).toISOString().replace('T', ' ').replace('Z', '');
    const rows = await ctx.store.query<{ tenant_id: string; conversation_id: string }>(namedQuery('stream-stale-conversations'), { since, limit: 5000 });
    if (rows.length === 0) return;
    const n = await publishConversationJobs(ctx.js, rows.map((r) => `${r.tenant_id}\u0000${r.conversation_id}`), ctx.debounceMs);
    ctx.log.info({ conversations: n }, 'stale conversation rollups requeued');
  },
};

export const defaultTenantJobs: TenantJob[] = [reconcileConversations];

export function startScheduler(opts: {
  kv: Promise<KV>;
  jobs: readonly TenantJob[];
  ctx: TenantJobContext;
  holder: string;
  metrics: StreamMetrics;
}): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = (async () => {
      const kv = await opts.kv;
      for (const job of opts.jobs) {
        // the lease outlives the tick a little so a slow peer's clock cannot run the job twice
        if (!(await acquireLease(kv, job.name, opts.holder, Math.round(opts.ctx.intervalMs * 0.9)))) continue;
        try {
          await job.run(opts.ctx);
          opts.metrics.leaseRuns.inc({ job: job.name, outcome: 'ok' });
        } catch (err) {
          opts.metrics.leaseRuns.inc({ job: job.name, outcome: 'error' });
          opts.ctx.log.warn({ err, job: job.name }, 'tenant job failed');
        }
      }
    })().catch((err) => opts.ctx.log.warn({ err }, 'tenant job tick failed'));
  };
  const timer = setInterval(tick, opts.ctx.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
