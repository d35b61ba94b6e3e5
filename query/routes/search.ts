import type Router from '@koa/router';
import type { RequestState } from '../../core/http.js';
import type { Infer } from '../../schemas/api/infer.js';
import { searchMessages } from '../../schemas/api/search.js';
import { createSearchRepo } from '../repo/search.js';
import { limitPage } from '../pagination.js';
import { timeRangeStartMs } from '../time.js';
import { defineRoute } from './define.js';
import type { RouteDeps } from './deps.js';
import type { ClustersRepo } from '../repo/clusters.js';
import { ANCHOR_POOL, fuseHits, semanticHits } from './anchor-search.js';

type Query = Infer<(typeof searchMessages)['query']>;
type Response = Infer<(typeof searchMessages)['response']>;

const newestFirst = (a: { timestamp: string }, b: { timestamp: string }) => Date.parse(b.timestamp) - Date.parse(a.timestamp);

export function mountSearch(router: Router<RequestState>, deps: RouteDeps, clusters: ClustersRepo): void {
  const repo = createSearchRepo(deps.store);
  defineRoute<Query>(router, deps.keys, searchMessages, async ({ principal, query: q }): Promise<Response> => {
    const filter = {
      tenant: principal.tenant,
      q: q.q,
      conversationId: q.conversation_id ?? '',
      userId: q.user_id ?? '',
      environment: q.environment,
      sinceMs: timeRangeStartMs(q.time_range, deps.now()),
    };
    if (q.mode !== 'keyword') {
      // semantic and hybrid pick the best hits by relevance; `sort=recent` then orders them newest first
      const semantic = await semanticHits(deps.store, clusters, { ...filter, limit: q.mode === 'hybrid' ? ANCHOR_POOL : q.limit + 1 });
      if (semantic) {
        const hits = q.mode === 'semantic' ? semantic : fuseHits(await repo.keyword({ ...filter, limit: ANCHOR_POOL, sort: 'relevance' }), semantic);
        const page = limitPage(hits, q.limit);
        return { query: q.q, requested_mode: q.mode, search_mode: q.mode, sort: q.sort, hits: q.sort === 'recent' ? [...page.rows].sort(newestFirst) : page.rows, pagination: page.pagination };
      }
    }
    // keyword mode, or semantic search unavailable (no taxonomy run, or no query word in its vocabulary)
    const rows = await repo.keyword({ ...filter, limit: q.limit + 1, sort: q.sort }); // one extra row tells has_more
    const page = limitPage(rows, q.limit);
    return { query: q.q, requested_mode: q.mode, search_mode: 'keyword', sort: q.sort, hits: page.rows, pagination: page.pagination };
  });
}
