import { namedQuery, type Store } from '../../core/clickhouse.js';
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

type Raw<T> = { [K in keyof T]: unknown };

const EPOCH_PREFIX = '1970-01-01';
/** maxIf over no failures yields the epoch; that means "never". */
const nullableTs = (v: unknown): string | null => {
  const s = isoTimestamp(v);
  return !s || s.startsWith(EPOCH_PREFIX) ? null : s;
};

/** Typed reads behind the tool-failure endpoints. */
export function createToolFailuresRepo(store: Store) {
  return {
    async stats(opts: { tenant: string; environment: string; sinceMs: number; tool: string }): Promise<StatsRow[]> {
      const rows = await store.query<Raw<StatsRow>>(namedQuery('query-tool-failures-stats'), {
        tenant: opts.tenant,
        environment: opts.environment,
        since_ms: opts.sinceMs,
        tool: opts.tool,
      });
      return rows.map((r) => ({
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
      }));
    },
    async errors(opts: { tenant: string; environment: string; sinceMs: number; tool: string; limit: number }): Promise<ErrorRow[]> {
      const rows = await store.query<Raw<ErrorRow>>(namedQuery('query-tool-failures-errors'), {
        tenant: opts.tenant,
        environment: opts.environment,
        since_ms: opts.sinceMs,
        tool: opts.tool,
        limit: opts.limit,
      });
      return rows.map((r) => ({
        error: String(r.error),
        error_type: String(r.error_type),
        count: Number(r.count),
        last_seen: nullableTs(r.last_seen),
        examples: ((r.examples as unknown[][]) ?? []).map((e) => ({
          conversation_id: String(e[0]),
          call_id: String(e[1]),
          timestamp: nullableTs(e[2]),
        })),
      }));
    },
  };
}
