/**
 * The tool-failure rollup (docs/data-api.md "GET /tool-failures"): keeps `tool_call_facts` (one
 * row per folded call, keyed by tenant, tool, outcome and UTC day), `tool_failures_daily` (one
 * row per tenant, day, environment, tool and effect class) and `tool_errors_daily` (one row per
 * tenant, tool, day, environment and error text of failed calls) in step with `tool_calls`, so the
 * tool-failure endpoints read ≤ days × tools rows instead of folding every call of the tenant.
 *
 * Runs as an analyzer on the batch of changed conversations (the debounced conversation jobs), so
 * every later, duplicated or out-of-order row of a call reaches it. Every write replaces rather
 * than increments (ReplacingMergeTree version, is_deleted), and the order of the writes makes a
 * crash at any point harmless:
 *   1. fold the calls of the batch's conversations (tool_calls, by primary key) and read what was
 *      last written for them (tool_call_rollup_state);
 *   2. write the changed calls' facts, and a tombstone at the old key of a call whose tool, outcome
 *      or day changed;
 *   3. recompute the daily rows of every (tenant, tool, day) a changed call was or is in, from the facts;
 *   4. record the new state.
 * A retry after a crash before 4 sees the old state again and repeats 2–3 with the same values;
 * after 4 nothing is left to do.
 */
import { TupleParam } from '@clickhouse/client';
import { namedQuery, splitStatements, type Store } from '../../core/clickhouse.js';
import type { Analyzer, ConversationKey } from './analyzers.js';
import { nextVersion } from './version.js';

/** Conversations (or days) per statement: bounds the IN list and the memory of one query. */
const ROLLUP_CHUNK = 1000;

interface CallFact {
  tenant_id: string;
  conversation_id: string;
  call_id: string;
  tool_name: string;
  failed: number;
  day: string;
  environment: string;
  effect_class: string;
  ts: string;
  error: string;
  error_type: string;
}

const FIELDS = ['tool_name', 'failed', 'day', 'environment', 'effect_class', 'ts', 'error', 'error_type'] as const;
const callKey = (f: CallFact) => `${f.tenant_id}\u0000${f.conversation_id}\u0000${f.call_id}`;
/** The fact table's key beyond the call: a change here moves the row. */
const factKey = (f: CallFact) => `${f.tool_name}\u0000${Number(f.failed)}\u0000${f.day}`;
const same = (a: CallFact, b: CallFact) => FIELDS.every((k) => String(a[k]) === String(b[k]));

const factRow = (f: CallFact, version: number, isDeleted: 0 | 1) => ({
  tenant_id: f.tenant_id,
  tool_name: f.tool_name,
  failed: Number(f.failed),
  day: f.day,
  conversation_id: f.conversation_id,
  call_id: f.call_id,
  version,
  is_deleted: isDeleted,
  environment: f.environment,
  effect_class: f.effect_class,
  ts: f.ts,
  error: f.error,
  error_type: f.error_type,
});

/** Pure: the writes that bring the stored state of some calls to their current fold. */
export function planToolRollup(current: readonly CallFact[], previous: readonly CallFact[]) {
  const before = new Map(previous.map((p) => [callKey(p), p]));
  const changed: CallFact[] = [];
  const tombstones: CallFact[] = [];
  const groups = new Map<string, [string, string, string]>();
  const touch = (f: CallFact) => groups.set(`${f.tenant_id}\u0000${f.tool_name}\u0000${f.day}`, [f.tenant_id, f.tool_name, f.day]);
  for (const c of current) {
    const p = before.get(callKey(c));
    if (p && same(p, c)) continue;
    changed.push(c);
    touch(c);
    if (p) {
      touch(p);
      if (factKey(p) !== factKey(c)) tombstones.push(p);
    }
  }
  return { changed, tombstones, groups: [...groups.values()] };
}

/** Recomputes the daily rows (tool_failures_daily, tool_errors_daily) of (tenant, day) pairs from tool_call_facts. */
/**
 * Recomputes the daily rows of the (tenant, tool, UTC day) groups a changed call was or is in. Each
 * group is one primary-key range of `tool_call_facts` (sorted by tenant, tool, outcome, day), so the
 * cost follows one tool's calls of one day, not the tenant's month.
 */
async function recomputeGroups(store: Store, groups: readonly [string, string, string][]) {
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
  }
}

export const toolFailureRollup: Analyzer = {
  name: 'tool-failure-rollup',
  version: 1,
  async run(ctx, conversations: readonly ConversationKey[]) {
    for (let i = 0; i < conversations.length; i += ROLLUP_CHUNK) {
      const keys = conversations.slice(i, i + ROLLUP_CHUNK).map((k) => new TupleParam([k.tenantId, k.conversationId]));
      const [current, previous] = await Promise.all([
        ctx.store.query<CallFact>(namedQuery('stream-tool-calls-fold'), { keys }),
        ctx.store.query<CallFact>(namedQuery('stream-tool-rollup-state'), { keys }),
      ]);
      const plan = planToolRollup(current, previous);
      if (plan.changed.length === 0) continue;
      await ctx.store.insert('tool_call_facts', [
        ...plan.tombstones.map((f) => factRow(f, ctx.version, 1)),
        ...plan.changed.map((f) => factRow(f, ctx.version, 0)),
      ]);
      await recomputeGroups(ctx.store, plan.groups);
      await ctx.store.insert(
        'tool_call_rollup_state',
        plan.changed.map((f) => {
          const { is_deleted: _d, ...row } = factRow(f, ctx.version, 0);
          return row;
        }),
      );
    }
  },
};

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
