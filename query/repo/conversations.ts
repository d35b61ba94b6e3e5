import { namedQuery, type Store } from '../../core/clickhouse.js';
import { isoTimestamp } from '../time.js';

export interface ConversationFilter {
  tenant: string;
  environment: string;
  userId: string;
  sinceMs: number;
  search: string;
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
}

const filterParams = (f: ConversationFilter) => ({
  tenant: f.tenant,
  environment: f.environment,
  user_id: f.userId,
  since_ms: f.sinceMs,
  search: f.search,
});

/** Typed reads behind GET /conversations: one page and the exact total, in parallel. */
export function createConversationsRepo(store: Store) {
  return {
    async list(f: ConversationFilter, limit: number, offset: number): Promise<{ rows: ConversationRow[]; total: number }> {
      const params = filterParams(f);
      const [rows, count] = await Promise.all([
        store.query<RawRow>(namedQuery('query-conversations-list'), { ...params, limit, offset }),
        store.query<{ total: string | number }>(namedQuery('query-conversations-count'), params),
      ]);
      return {
        total: Number(count[0]?.total ?? 0),
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
