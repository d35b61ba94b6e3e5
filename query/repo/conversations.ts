import { namedQuery, type Store } from '../../core/clickhouse.js';
import { FRUSTRATION_MIN, OUTCOME_NEGATIVE_BELOW, OUTCOME_POSITIVE_FROM } from '../../schemas/outcome.js';
import { isoTimestamp } from '../time.js';
import { withFields } from '../../core/own.js';

export interface ConversationFilter {
  tenant: string;
  environment: string;
  userId: string;
  sinceMs: number;
  search: string;
  /** `any`, `positive` or `negative` (schemas/outcome.ts). */
  outcome?: string;
  /** Lower-cased terms that must all occur in the world-state search text; empty: no filter. */
  worldStateTerms?: string[];
  /** A taxonomy node (leaf or category) of the run `clusterRun`; '' for no cluster filter. */
  clusterId?: string;
  clusterRun?: string;
}

export interface ConversationRow {
  conversation_id: string;
  summary: string;
  message_count: number;
  first_timestamp: string;
  last_timestamp: string;
  cluster_id: string | null;
  cluster_name: string | null;
  environment: string;
}

interface RawRow {
  conversation_id: string;
  summary: string;
  message_count: number | string;
  first_ts: string;
  last_ts: string;
  environment: string;
  total: number | string;
}

const filterParams = (f: ConversationFilter) => ({
  tenant: f.tenant,
  environment: f.environment,
  user_id: f.userId,
  since_ms: f.sinceMs,
  search: f.search,
  outcome: f.outcome ?? 'any',
  negative_below: OUTCOME_NEGATIVE_BELOW,
  positive_from: OUTCOME_POSITIVE_FROM,
  frustration_min: FRUSTRATION_MIN,
  world_state_terms: f.worldStateTerms ?? [],
  cluster_id: f.clusterId ?? '',
  cluster_run: f.clusterRun ?? '',
});

/** spec/data-api.md `world_state`: comma-separated terms, ANDed, matched case-insensitively; blank terms are ignored. */
export const worldStateTerms = (text: string | undefined): string[] =>
  (text ?? '').split(',').map((t) => t.trim().toLowerCase()).filter(Boolean);

/**
 * Typed reads behind GET /conversations: one page with the exact total in one statement; a page
 * past the end (no rows to carry the total) asks for the total alone.
 */
export function createConversationsRepo(store: Store) {
  return {
    async list(f: ConversationFilter, limit: number, offset: number): Promise<{ rows: ConversationRow[]; total: number }> {
      const params = filterParams(f);
      const rows = await store.query<RawRow>(namedQuery('query-conversations-list'), withFields(params, { limit, offset }));
      const total =
        rows.length > 0 ? Number(rows[0]!.total)
        : offset === 0 ? 0
        : Number((await store.query<{ total: string | number }>(namedQuery('query-conversations-count'), params))[0]?.total ?? 0);
      return {
        total,
        rows: rows.map((r) => ({
          conversation_id: r.conversation_id,
          summary: r.summary,
          message_count: Number(r.message_count),
          first_timestamp: isoTimestamp(r.first_ts),
          last_timestamp: isoTimestamp(r.last_ts),
          // clusters join here once the taxonomy exists
          cluster_id: null,
          cluster_name: null,
          environment: r.environment,
        })),
      };
    },
  };
}
