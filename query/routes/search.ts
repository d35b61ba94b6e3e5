import type Router from '@koa/router';
import type { RequestState } from '../../core/http.js';
import type { Infer } from '../../schemas/api/infer.js';
import { searchMessages } from '../../schemas/api/search.js';
import { createSearchRepo } from '../repo/search.js';
import { limitPage } from '../pagination.js';
import { timeRangeStartMs } from '../time.js';
import { defineRoute } from './define.js';
import type { RouteDeps } from './deps.js';

type Query = Infer<(typeof searchMessages)['query']>;
type Response = Infer<(typeof searchMessages)['response']>;

export function mountSearch(router: Router<RequestState>, deps: RouteDeps): void {
  const repo = createSearchRepo(deps.store);
  defineRoute<Query>(router, deps.keys, searchMessages, async ({ principal, query: q }): Promise<Response> => {
    const rows = await repo.keyword({
      tenant: principal.tenant,
      q: q.q,
      limit: q.limit + 1, // one extra row tells has_more
      conversationId: q.conversation_id ?? '',
      userId: q.user_id ?? '',
      environment: q.environment,
      sinceMs: timeRangeStartMs(q.time_range, deps.now()),
      sort: q.sort,
    });
    const page = limitPage(rows, q.limit);
    // no embeddings yet: semantic and hybrid requests are served by keyword search
    return { query: q.q, requested_mode: q.mode, search_mode: 'keyword', sort: q.sort, hits: page.rows, pagination: page.pagination };
  });
}
