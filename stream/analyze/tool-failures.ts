/**
 * The tool-failure rollup (docs/data-api.md "GET /tool-failures"): keeps `tool_call_facts` (one
 * row per call, keyed by tenant, tool, outcome and UTC day), `tool_failures_daily` (one row per
 * tenant, day, environment, tool and effect class), `tool_errors_daily` (one row per tenant, tool,
 * day, environment and error text of failed calls) and `tool_categories_daily` (per failure
 * category) in step with the calls of each analyzed conversation, so the tool-failure endpoints
 * read ≤ days × tools rows instead of folding every call of the tenant.
 *
 * It is the `tool-failure-rollup` analyzer of the analysis framework: the facts come from the
 * conversation's calls as the snapshot pairs them (a tool_use answered in order by its result, so a
 * reused call id is two calls), with their failure categories. Every write replaces rather than
 * increments (ReplacingMergeTree version, is_deleted), and the order of the writes makes a crash at
 * any point harmless:
 *   1. compare the calls with what was last written for them (tool_call_rollup_state) — pure,
 *      `planToolRollup` (tool-rollup-plan.ts), run in the worker;
 *   2. write the changed calls' facts, and a tombstone at the old key of a call whose tool, outcome
 *      or day changed;
 *   3. mark every (tenant, tool, day) a changed call was or is in (`tool_rollup_dirty`);
 *   4. record the new state.
 * A retry after a crash before 4 sees the old state again and repeats 2–3 with the same values;
 * after 4 nothing is left to do. The daily rows of the marked groups are recomputed from the facts
 * by paced passes (tool-rollup-flusher.ts), whose cost follows the day's calls, not the batch.
 */
import { TupleParam } from '@clickhouse/client';
import { namedQuery, type Store } from '../../core/clickhouse.js';
import { splitStatements } from '../../core/migrations.js';
import { nextVersion } from './version.js';

/** Conversations (or days) per statement: bounds the IN list and the memory of one query. */
const ROLLUP_CHUNK = 1000;

export { planToolRollup, type CallFact } from './tool-rollup-plan.js';

/**
 * Recomputes the daily rows of the (tenant, tool, UTC day) groups a changed call was or is in. Each
 * group is one primary-key range of `tool_call_facts` (sorted by tenant, tool, outcome, day), so the
 * cost follows one tool's calls of one day, not the tenant's month.
 */
export async function recomputeGroups(store: Store, groups: readonly [string, string, string][]) {
  for (let i = 0; i < groups.length; i += ROLLUP_CHUNK) {
    const chunk = groups.slice(i, i + ROLLUP_CHUNK);
    const params = {
      groups: chunk.map((g) => new TupleParam([g[0], g[1], g[2]])),
      // the same groups as plain lists: they let the key and partition pruning see each column
      tenants: [...new Set(chunk.map((g) => g[0]))],
      tools: [...new Set(chunk.map((g) => g[1]))],
      days: [...new Set(chunk.map((g) => g[2]))],
      // taken after the facts were written: a concurrent recompute that read older facts has a smaller version
      version: nextVersion(),
    };
    await store.command(namedQuery('stream-tool-failures-daily'), params);
    await store.command(namedQuery('stream-tool-errors-daily'), params);
    await store.command(namedQuery('stream-tool-categories-daily'), params);
  }
}

/**
 * Rebuilds the tool-failure rollup from `tool_calls` for one tenant, or for every tenant when
 * `tenant` is omitted: call it after writing rows straight into `tool_calls` (bulk loads, tests),
 * or to repair. Run it while the stream role is idle for those tenants (a concurrent analyzer run
 * may be overwritten by the rebuild's newer versions; the next job for a conversation corrects it).
 * Cost: one fold of the tenant's calls (the backfill of migration 0060, which does the same for
 * calls stored before the migration).
 */
export async function rebuildToolFailureRollup(store: Store, opts: { tenant?: string } = {}): Promise<void> {
  const v1 = nextVersion();
  const v2 = nextVersion();
  const v3 = nextVersion();
  for (const statement of splitStatements(namedQuery('stream-tool-rollup-rebuild'))) {
    await store.command(statement, { tenant: opts.tenant ?? '', v1, v2, v3 });
  }
}
