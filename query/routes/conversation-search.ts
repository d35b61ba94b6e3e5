/**
 * The taxonomy's part of GET /conversations: `cluster_id`/`cluster_name` on every row, and hybrid
 * search (spec: hybrid runs when `search` is the only filter and semantic search is available).
 * Hybrid ranks the union of the keyword matches (newest first, as keyword mode lists them) and the
 * conversations whose best segment is semantically close to the query, by reciprocal rank fusion;
 * `pagination.total` is the size of that candidate pool.
 */
import { namedQuery, type Store } from '../../core/clickhouse.js';
import { embedText } from '../../core/vectors/model.js';
import { reciprocalRankFusion } from '../../core/vectors/ranking.js';
import type { ClustersRepo } from '../repo/clusters.js';
import type { ConversationRow, createConversationsRepo } from '../repo/conversations.js';
import { isoTimestamp } from '../time.js';
import { withFields } from '../../core/own.js';

/** Candidates taken from each ranking (keyword, semantic). */
export const HYBRID_POOL = 100;
/** A conversation joins the semantic ranking when its best segment reaches this cosine similarity. */
export const CONVERSATION_SEMANTIC_FLOOR = 0.2;

/** Fills `cluster_id` / `cluster_name` of a page from the current run (null without one). */
export async function withClusters(repo: ClustersRepo, tenant: string, rows: ConversationRow[]): Promise<ConversationRow[]> {
  if (rows.length === 0) return rows;
  const run = await repo.currentRun(tenant);
  if (!run) return rows;
  const [nodes, of] = await Promise.all([repo.nodes(tenant, run.id), repo.conversationClusters(tenant, run.id, rows.map((r) => r.conversation_id))]);
  return rows.map((r) => {
    const node = nodes.byId.get(of.get(r.conversation_id) ?? '');
    return node ? withFields(r, { cluster_id: node.node_id, cluster_name: node.label }) : r;
  });
}

type ConversationsRepo = ReturnType<typeof createConversationsRepo>;

/**
 * One page of hybrid results, or undefined when semantic search is unavailable (no taxonomy run,
 * no model, or no word of the query in the run's vocabulary): keyword mode then serves.
 */
export async function hybridPage(
  store: Store,
  clusters: ClustersRepo,
  conversations: ConversationsRepo,
  tenant: string,
  search: string,
  limit: number,
  offset: number,
): Promise<{ rows: ConversationRow[]; total: number } | undefined> {
  const run = await clusters.currentRun(tenant);
  if (!run) return undefined;
  const model = await clusters.model(tenant, run.id);
  const vector = model ? embedText(model, search) : null;
  if (!vector) return undefined;
  const [keyword, semantic] = await Promise.all([
    conversations.list({ tenant, environment: 'all', userId: '', sinceMs: 0, search }, HYBRID_POOL, 0),
    clusters.semanticConversations(tenant, run.id, vector, CONVERSATION_SEMANTIC_FLOOR, HYBRID_POOL),
  ]);
  const pool = reciprocalRankFusion([keyword.rows.map((r) => r.conversation_id), semantic.map((s) => s.conversation_id)]).map((x) => x.id);
  const ids = pool.slice(offset, offset + limit);
  if (ids.length === 0) return { rows: [], total: pool.length };
  const known = new Map(keyword.rows.map((r) => [r.conversation_id, r]));
  const missing = ids.filter((id) => !known.has(id));
  if (missing.length) {
    const rows = await store.query<{ conversation_id: string; summary: string; message_count: string | number; first_ts: string; last_ts: string; environment: string }>(namedQuery('query-conversations-by-ids'), { tenant, ids: missing });
    for (const r of rows) {
      known.set(r.conversation_id, {
        conversation_id: r.conversation_id,
        summary: r.summary,
        message_count: Number(r.message_count),
        first_timestamp: isoTimestamp(r.first_ts),
        last_timestamp: isoTimestamp(r.last_ts),
        cluster_id: null,
        cluster_name: null,
        environment: r.environment,
      });
    }
  }
  // a vector of a conversation whose rollup is gone (deleted) is skipped, not shown half-empty
  return { rows: ids.map((id) => known.get(id)).filter((r): r is ConversationRow => r !== undefined), total: pool.length };
}
