import { namedQuery, type Store } from '../../core/clickhouse.js';
import type { FailureFamily } from '../../stream/analyses/types.js';
import { isoTimestamp } from '../time.js';

export interface StatsRow {
  dim: 'tool' | 'effect' | 'day' | 'total';
  tool: string;
  effect: string;
  day: string;
  calls: number;
  failures: number;
  conversations: number;
  tools: number;
  last_failure_at: string | null;
  example_errors: string[];
}

export interface ErrorRow {
  error: string;
  error_type: string;
  count: number;
  last_seen: string | null;
  examples: { conversation_id: string; call_id: string; timestamp: string | null }[];
}

export interface CategoryRow {
  category_id: string;
  label: string;
  family: FailureFamily;
  likely_cause: string;
  action_hint: string;
  failures: number;
  conversations: number;
  tools: string[];
  last_seen: string | null;
  example_error: string;
}

type Raw<T> = { [K in keyof T]: unknown };

const EPOCH_PREFIX = '1970-01-01';
/** maxIf over no failures yields the epoch; that means "never". */
const nullableTs = (v: unknown): string | null => {
  const s = isoTimestamp(v);
  return !s || s.startsWith(EPOCH_PREFIX) ? null : s;
};

const statsRow = (r: Raw<StatsRow>): StatsRow => ({
  dim: r.dim as StatsRow['dim'],
  tool: String(r.tool),
  effect: String(r.effect),
  day: String(r.day),
  calls: Number(r.calls),
  failures: Number(r.failures),
  conversations: Number(r.conversations),
  tools: Number(r.tools),
  last_failure_at: nullableTs(r.last_failure_at),
  example_errors: (r.example_errors as string[]) ?? [],
});

let detail: string | undefined;
/** query-tool-failures-stats and -errors as one statement; errors come back as rows with dim 'error'. */
const detailSql = () =>
  (detail ??= `SELECT dim, tool, effect, day, calls, failures, conversations, tools, last_failure_at, example_errors,
       '' AS error, '' AS error_type, toUInt64(0) AS count, toDateTime64(0, 3, 'UTC') AS last_seen,
       CAST([], 'Array(Tuple(String, String, DateTime64(3, \\'UTC\\')))') AS examples
FROM (
${namedQuery('query-tool-failures-stats')}
)
UNION ALL
SELECT 'error', '', '', '', toUInt64(0), toUInt64(0), toUInt64(0), toUInt64(0), toDateTime64(0, 3, 'UTC'), CAST([], 'Array(String)'),
       error, error_type, count, last_seen, examples
FROM (
${namedQuery('query-tool-failures-errors')}
)`);

const categoryRow = (r: Raw<CategoryRow>): CategoryRow => ({
  category_id: String(r.category_id),
  label: String(r.label),
  family: String(r.family) as FailureFamily,
  likely_cause: String(r.likely_cause),
  action_hint: String(r.action_hint),
  failures: Number(r.failures),
  conversations: Number(r.conversations),
  tools: ((r.tools as unknown[]) ?? []).map(String),
  last_seen: nullableTs(r.last_seen),
  example_error: String(r.example_error),
});

/** Typed reads behind the tool-failure endpoints. */
export function createToolFailuresRepo(store: Store) {
  return {
    /** Every failure category of the window (of one tool when `tool` is set), most failures first. */
    async categories(opts: { tenant: string; environment: string; sinceMs: number; tool: string; family: string }): Promise<CategoryRow[]> {
      const rows = await store.query<Raw<CategoryRow>>(namedQuery('query-tool-failures-categories'), {
        tenant: opts.tenant,
        environment: opts.environment,
        since_ms: opts.sinceMs,
        tool: opts.tool,
        family: opts.family,
      });
      return rows.map(categoryRow);
    },
    async stats(opts: { tenant: string; environment: string; sinceMs: number; tool: string }): Promise<StatsRow[]> {
      const rows = await store.query<Raw<StatsRow>>(namedQuery('query-tool-failures-stats'), {
        tenant: opts.tenant,
        environment: opts.environment,
        since_ms: opts.sinceMs,
        tool: opts.tool,
      });
      return rows.map(statsRow);
    },
    /**
     * GET /tool-failures/:tool in one round trip: the tool's stats rows and its error list, as one
     * UNION ALL of the two named queries (the embedded engine runs the branches in parallel; two
     * round trips cost about their sum).
     */
    async detail(opts: { tenant: string; environment: string; sinceMs: number; tool: string; limit: number }): Promise<{ stats: StatsRow[]; errors: ErrorRow[] }> {
      const rows = await store.query<Raw<StatsRow> & Raw<ErrorRow>>(detailSql(), {
        tenant: opts.tenant,
        environment: opts.environment,
        since_ms: opts.sinceMs,
        tool: opts.tool,
        limit: opts.limit,
      });
      const errors = rows
        .filter((r) => r.dim === 'error')
        .map((r) => ({
          error: String(r.error),
          error_type: String(r.error_type),
          count: Number(r.count),
          last_seen: nullableTs(r.last_seen),
          examples: ((r.examples as unknown[][]) ?? []).map((e) => ({
            conversation_id: String(e[0]),
            call_id: String(e[1]),
            timestamp: nullableTs(e[2]),
          })),
        }))
        // the query's order (count, newest, text) does not survive the UNION
        .sort((a, b) => b.count - a.count || (b.last_seen ?? '').localeCompare(a.last_seen ?? '') || (a.error < b.error ? -1 : a.error > b.error ? 1 : 0));
      return { stats: rows.filter((r) => r.dim !== 'error').map(statsRow), errors };
    },
  };
}
