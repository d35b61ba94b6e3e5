import type Router from '@koa/router';
import type { RequestState } from '../../core/http.js';
import { embedText } from '../../core/vectors/model.js';
import type { Infer } from '../../schemas/api/infer.js';
import { clusterConversations, listClusters, searchTaskClusters } from '../../schemas/api/clusters.js';
import { ancestorPath, rankNodes } from '../cluster-search.js';
import { offsetPage } from '../pagination.js';
import { validationError } from '../params.js';
import type { ClustersRepo, NodeRow } from '../repo/clusters.js';
import { defineRoute } from './define.js';
import type { RouteDeps } from './deps.js';

type ListQuery = Infer<(typeof listClusters)['query']>;
type ListResponse = Infer<(typeof listClusters)['response']>;
type ConvQuery = Infer<(typeof clusterConversations)['query']>;
type ConvResponse = Infer<(typeof clusterConversations)['response']>;
type SearchQuery = Infer<(typeof searchTaskClusters)['query']>;
type SearchResponse = Infer<(typeof searchTaskClusters)['response']>;

const nodeView = (n: NodeRow, counts: ReadonlyMap<string, number>) => ({
  node_id: n.node_id,
  label: n.label,
  summary: n.summary,
  keywords: n.keywords,
  node_type: n.node_type,
  segment_count: counts.get(n.node_id) ?? 0,
  has_children: n.has_children,
  depth: n.depth,
});

/** Largest first, ties by label then id (spec: "ordered by size"). */
const bySize = (a: { segment_count: number; label: string; node_id: string }, b: typeof a) => b.segment_count - a.segment_count || a.label.localeCompare(b.label) || (a.node_id < b.node_id ? -1 : 1);

export function mountClusters(router: Router<RequestState>, deps: RouteDeps, repo: ClustersRepo): void {
  defineRoute<ListQuery>(router, deps.keys, listClusters, async ({ principal, query: q }): Promise<ListResponse> => {
    const run = await repo.currentRun(principal.tenant);
    if (!run) return { cluster_run: null, breadcrumb: [], clusters: [], meta: { total_clusters: 0, total_segments: 0 } };
    const [nodes, counts] = await Promise.all([repo.nodes(principal.tenant, run.id), repo.segmentCounts(principal.tenant, run.id)]);
    const parent = q.parent_id ?? '';
    const known = parent === '' || nodes.byId.has(parent);
    const level = known ? nodes.list.filter((n) => n.parent_id === parent).map((n) => nodeView(n, counts)).sort(bySize) : [];
    const breadcrumb = parent && known ? [...ancestorPath(parent, nodes.byId).path.map((a) => ({ node_id: a.nodeId, label: a.label })), { node_id: parent, label: nodes.byId.get(parent)!.label }] : [];
    return {
      cluster_run: run,
      breadcrumb,
      clusters: level,
      meta: { total_clusters: level.length, total_segments: level.reduce((s, n) => s + n.segment_count, 0) },
    };
  });

  defineRoute<ConvQuery>(router, deps.keys, clusterConversations, async ({ principal, query: q, params }): Promise<ConvResponse> => {
    const nodeId = params.nodeId ?? '';
    const empty = { cluster: null, conversations: [], pagination: offsetPage(q.limit, q.offset, 0) };
    const run = await repo.currentRun(principal.tenant);
    if (!run) return empty;
    const nodes = await repo.nodes(principal.tenant, run.id);
    const node = nodes.byId.get(nodeId);
    // spec: an unknown node answers 200 with cluster null and an empty list
    if (!node) return empty;
    const [counts, page] = await Promise.all([repo.segmentCounts(principal.tenant, run.id), repo.nodeConversations(principal.tenant, run.id, nodeId, q.limit, q.offset)]);
    return {
      cluster: { node_id: node.node_id, label: node.label, summary: node.summary, segment_count: counts.get(node.node_id) ?? 0 },
      conversations: page.rows,
      pagination: offsetPage(q.limit, q.offset, page.total),
    };
  });

  defineRoute<SearchQuery>(router, deps.keys, searchTaskClusters, async ({ principal, query: q }): Promise<SearchResponse> => {
    if (q.q === undefined && q.node_id === undefined) throw validationError(['q is required unless node_id is given']);
    const text = q.q ?? '';
    const run = await repo.currentRun(principal.tenant);
    // no taxonomy run: no model, so semantic search is unavailable and the fallback (fuzzy, over no nodes) is what ran
    if (!run) return { clusterRunId: null, query: text, search_mode: rankNodes(text, null, [], q.mode).mode, matches: [] };
    const [nodes, counts] = await Promise.all([repo.nodes(principal.tenant, run.id), repo.segmentCounts(principal.tenant, run.id)]);
    const match = (n: NodeRow, similarity?: number) => {
      const { path, truncated } = ancestorPath(n.node_id, nodes.byId);
      const { summary, ...view } = nodeView(n, counts);
      return {
        ...view,
        description: summary,
        parent_id: n.parent_id || null,
        ancestor_path: path,
        path_truncated: truncated,
        ...(similarity === undefined ? {} : { similarity: Math.round(similarity * 10_000) / 10_000 }),
      };
    };
    if (q.node_id !== undefined) {
      // exact lookup: the node with its ancestors. No vector is computed and the match carries no
      // similarity, whatever `mode` asked: reported as `fuzzy`, the one mode without vectors (docs/data-api.md)
      const n = nodes.byId.get(q.node_id);
      return { clusterRunId: run.id, query: text, search_mode: 'fuzzy', matches: n ? [match(n)] : [] };
    }
    const model = q.mode === 'fuzzy' ? undefined : await repo.model(principal.tenant, run.id);
    const vector = model ? embedText(model, text) : null;
    const { mode, ranked } = rankNodes(text, vector, nodes.list, q.mode);
    return { clusterRunId: run.id, query: text, search_mode: mode, matches: ranked.slice(0, q.limit).map((r) => match(nodes.byId.get(r.node_id)!, r.similarity)) };
  });
}
