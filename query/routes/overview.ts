import type Router from '@koa/router';
import type { RequestState } from '../../core/http.js';
import type { Infer } from '../../schemas/api/infer.js';
import { overview, RECENT_ACTIVITY_DAYS, RECENT_ACTIVITY_LIMIT, TOP_CLUSTERS } from '../../schemas/api/overview.js';
import { createOverviewRepo } from '../repo/overview.js';
import { pct } from '../rates.js';
import { daysBackStartDayMs, daysBackStartMs } from '../time.js';
import { defineRoute } from './define.js';
import type { RouteDeps } from './deps.js';
import type { ClustersRepo } from '../repo/clusters.js';

type Query = Infer<(typeof overview)['query']>;
type Response = Infer<(typeof overview)['response']>;

/** spec: change versus the previous equal window, one decimal; 0 when the previous window is empty. */
export function trendPct(current: number, previous: number): number {
  return pct(current - previous, previous);
}

/** spec: the 10 largest clusters (use cases, depth 1) of the current run, largest first. */
async function topClusters(repo: ClustersRepo, tenant: string) {
  const run = await repo.currentRun(tenant);
  if (!run) return [];
  const [nodes, counts] = await Promise.all([repo.nodes(tenant, run.id), repo.segmentCounts(tenant, run.id)]);
  return nodes.list
    .filter((n) => n.node_type === 'cluster')
    .map((n) => ({ node_id: n.node_id, label: n.label, summary: n.summary, keywords: n.keywords, segment_count: counts.get(n.node_id) ?? 0 }))
    .sort((a, b) => b.segment_count - a.segment_count || a.label.localeCompare(b.label) || (a.node_id < b.node_id ? -1 : 1))
    .slice(0, TOP_CLUSTERS);
}

export function mountOverview(router: Router<RequestState>, deps: RouteDeps, clusters: ClustersRepo): void {
  const repo = createOverviewRepo(deps.store);
  defineRoute<Query>(router, deps.keys, overview, async ({ principal, query: q }): Promise<Response> => {
    const now = deps.now();
    const top = topClusters(clusters, principal.tenant);
    const r = await repo.read({
      tenant: principal.tenant,
      environment: q.environment,
      currentMs: daysBackStartMs(q.days_back, now),
      previousMs: daysBackStartMs(2 * q.days_back, now),
      // tool failures: the whole-UTC-day window of GET /tool-failures, so the two agree
      toolSinceMs: daysBackStartDayMs(q.days_back, now),
      recentSinceMs: daysBackStartMs(RECENT_ACTIVITY_DAYS, now),
      recentLimit: RECENT_ACTIVITY_LIMIT,
      nowMs: now,
    });
    return {
      period: { days: q.days_back },
      conversations: { total: r.conversations.current, trend_pct: trendPct(r.conversations.current, r.conversations.previous) },
      frustrations: r.frustrations,
      tool_failures: r.toolFailures,
      top_clusters: await top,
      recent_activity: r.recent,
      timeline: r.timeline,
    };
  });
}
