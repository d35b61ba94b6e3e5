/**
 * The tenant's problems as a leased job (stream/analyze/scheduler.ts, one runner per tenant under
 * a renewed KV lease). Each tick runs one engine pass (stream/problems/api.ts `runProblemsOnce`)
 * when feedback is pending, or when the tenant's signals changed and the last run is at least
 * `minIntervalMs` old (5 minutes), or when the last run is an hour old.
 */
import type { Store } from '../../core/clickhouse.js';
import type { TenantJob, TenantJobContext } from '../analyze/scheduler.js';
import { runProblemsOnce } from '../problems/api.js';
import type { EngineConfig } from '../problems/engine.js';
import type { RefineConfig } from '../problems/refine.js';

export interface ProblemsJobOptions {
  config?: Partial<EngineConfig>;
  /** Optional summary refinement (PROBLEMS_LLM_URL); absent: templates only. */
  llm?: RefineConfig;
  /**
   * A tenant whose analyses keep changing is passed again at most this often (default 5 minutes);
   * pending feedback and the first run do not wait.
   */
  minIntervalMs?: number;
}

export function problemsJob(opts: ProblemsJobOptions = {}): TenantJob {
  return {
    name: 'problems',
    version: 1,
    scope: 'tenant',
    async run(ctx: TenantJobContext, tenant?: string) {
      if (!tenant) return;
      const r = await runProblemsOnce({ store: ctx.store as Store, config: opts.config, llm: opts.llm }, tenant, { onlyIfChanged: true, minIntervalMs: opts.minIntervalMs ?? 5 * 60_000, signal: ctx.signal });
      if (!r.skipped) ctx.log.info({ tenant, runId: r.run_id, signals: r.stats?.signals, attributed: r.stats?.attributed_signals }, 'problems: run complete');
    },
  };
}
