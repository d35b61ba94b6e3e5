/**
 * Typed reads of the use-case taxonomy (tables of migration 0100): the current run, its nodes with
 * live segment counts, its text model (for semantic search), conversations by node and the
 * cluster of each conversation. A run never changes once complete, so its nodes and model are
 * cached by run id; segment counts are read per request (new segments are assigned continuously).
 */
import { namedQuery, type Store } from '../../core/clickhouse.js';
import { createRunCache } from '../../core/run-cache.js';
import type { TextModel } from '../../core/vectors/model.js';
import { runModel } from '../../core/vectors/stored-model.js';
import { isoTimestamp } from '../time.js';
import { withFields } from '../../core/own.js';

export interface CurrentRun {
  id: string;
  num_categories: number;
  num_clusters: number;
  num_segments: number;
  completed_at: string;
}

export interface NodeRow {
  node_id: string;
  parent_id: string;
  depth: number;
  node_type: 'category' | 'cluster';
  label: string;
  summary: string;
  keywords: string[];
  has_children: boolean;
  centroid: Float32Array;
}

/** Nodes of a run by id, plus live counts. */
export interface RunNodes {
  byId: Map<string, NodeRow>;
  list: NodeRow[];
}

/** Bytes of run nodes the data API keeps (core/run-cache.ts; models: core/vectors/stored-model.ts). */
const NODE_CACHE_BYTES = 32 * 1024 * 1024;
/** Per node: its strings and map entry beside the centroid. */
const NODE_OVERHEAD_BYTES = 512;

const nodesBytes = (n: RunNodes) => n.list.reduce((sum, node) => sum + node.centroid.byteLength + 2 * (node.label.length + node.summary.length) + NODE_OVERHEAD_BYTES, 0);

export function createClustersRepo(store: Store) {
  const nodeCache = createRunCache<RunNodes>({ maxBytes: NODE_CACHE_BYTES, sizeOf: nodesBytes });

  return {
    async currentRun(tenant: string): Promise<CurrentRun | undefined> {
      const rows = await store.query<{ run_id: string; num_categories: number | string; num_clusters: number | string; num_segments: number | string; completed_at: string }>(namedQuery('taxonomy-current-run'), { tenant });
      const r = rows[0];
      return r && { id: r.run_id, num_categories: Number(r.num_categories), num_clusters: Number(r.num_clusters), num_segments: Number(r.num_segments), completed_at: isoTimestamp(r.completed_at) };
    },

    nodes(tenant: string, runId: string): Promise<RunNodes> {
      return nodeCache.get(`${tenant}\u0000${runId}`, async () => {
        const rows = await store.query<Omit<NodeRow, 'has_children' | 'centroid' | 'depth'> & { has_children: number | string; depth: number | string; centroid: number[] }>(
          `SELECT node_id, parent_id, depth, node_type, label, summary, keywords, has_children, centroid FROM {{db}}.cluster_nodes FINAL WHERE tenant_id = {tenant:String} AND run_id = {run:String}`,
          { tenant, run: runId },
        );
        const list = rows.map((r) => withFields(r, { depth: Number(r.depth), has_children: Number(r.has_children) === 1, centroid: Float32Array.from(r.centroid) }));
        return { byId: new Map(list.map((n) => [n.node_id, n])), list };
      });
    },

    /** Segments per node now (leaves by node, categories by category). */
    async segmentCounts(tenant: string, runId: string): Promise<Map<string, number>> {
      const rows = await store.query<{ node_id: string; category_id: string; n: string }>(
        `SELECT node_id, category_id, count() AS n FROM {{db}}.cluster_assignments FINAL WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND node_id != '' GROUP BY node_id, category_id`,
        { tenant, run: runId },
      );
      const counts = new Map<string, number>();
      for (const r of rows) {
        counts.set(r.node_id, (counts.get(r.node_id) ?? 0) + Number(r.n));
        counts.set(r.category_id, (counts.get(r.category_id) ?? 0) + Number(r.n));
      }
      return counts;
    },

    model(tenant: string, runId: string): Promise<TextModel | undefined> {
      return runModel(store, tenant, runId);
    },

    /** Conversations with a segment in the node (or its clusters), newest first, with the exact total. */
    async nodeConversations(tenant: string, runId: string, nodeId: string, limit: number, offset: number) {
      const rows = await store.query<{ conversation_id: string; summary: string; message_count: string | number; total: string | number }>(namedQuery('query-cluster-conversations'), { tenant, run: runId, node: nodeId, limit, offset });
      const total =
        rows.length > 0 ? Number(rows[0]!.total)
        : offset === 0 ? 0
        : Number((await store.query<{ n: string }>(namedQuery('query-cluster-conversations-count'), { tenant, run: runId, node: nodeId }))[0]?.n ?? 0);
      return { total, rows: rows.map((r) => ({ conversation_id: r.conversation_id, summary: r.summary, message_count: Number(r.message_count) })) };
    },

    /**
     * The cluster of each conversation: the leaf holding most of its segments (ties: the higher
     * mean similarity, then the greater id). Conversations without an assigned segment are absent.
     */
    async conversationClusters(tenant: string, runId: string, conversations: readonly string[]): Promise<Map<string, string>> {
      if (conversations.length === 0) return new Map();
      const rows = await store.query<{ conversation_id: string; node_id: string }>(namedQuery('query-conversation-clusters'), { tenant, run: runId, conversations });
      return new Map(rows.map((r) => [r.conversation_id, r.node_id]));
    },

    /** Conversations by their best segment's similarity to a query vector (at least `floor`). */
    async semanticConversations(tenant: string, runId: string, vector: Float32Array, floor: number, limit: number): Promise<Array<{ conversation_id: string; similarity: number }>> {
      const rows = await store.query<{ conversation_id: string; sim: number }>(namedQuery('query-semantic-conversations'), { tenant, run: runId, q: Array.from(vector), floor, limit });
      return rows.map((r) => ({ conversation_id: r.conversation_id, similarity: Number(r.sim) }));
    },

    /** Segments by similarity to a query vector, with their message range (anchor search). */
    async semanticSegments(tenant: string, runId: string, vector: Float32Array, f: { floor: number; limit: number; conversationId: string; userId: string; environment: string }) {
      const rows = await store.query<{ conversation_id: string; segment_id: string; sim: number; start_index: number | string; end_index: number | string }>(namedQuery('query-semantic-segments'), {
        tenant,
        run: runId,
        q: Array.from(vector),
        floor: f.floor,
        limit: f.limit,
        conversation_id: f.conversationId,
        user_id: f.userId,
        environment: f.environment,
      });
      return rows.map((r) => ({ conversation_id: r.conversation_id, segment_id: r.segment_id, similarity: Number(r.sim), start_index: Number(r.start_index), end_index: Number(r.end_index) }));
    },
  };
}

export type ClustersRepo = ReturnType<typeof createClustersRepo>;
