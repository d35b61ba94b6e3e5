import type Router from '@koa/router';
import type { RequestState } from '../../core/http.js';
import type { Infer } from '../../schemas/api/infer.js';
import { conversationContext, listConversations } from '../../schemas/api/conversations.js';
import { createConversationsRepo, worldStateTerms } from '../repo/conversations.js';
import { createContextRepo } from '../repo/context.js';
import type { ClustersRepo } from '../repo/clusters.js';
import { hybridPage, withClusters } from './conversation-search.js';
import { offsetPage } from '../pagination.js';
import { timeRangeStartMs } from '../time.js';
import { defineRoute } from './define.js';
import type { RouteDeps } from './deps.js';

type ListQuery = Infer<(typeof listConversations)['query']>;
type ListResponse = Infer<(typeof listConversations)['response']>;
type ContextQuery = Infer<(typeof conversationContext)['query']>;
type ContextResponse = Infer<(typeof conversationContext)['response']>;

/** spec: hybrid runs only when `search` is the sole filter. */
const searchOnly = (q: ListQuery) =>
  q.search !== undefined && q.search.trim() !== '' && q.cluster_id === undefined && q.user_id === undefined && q.time_range === 'all' && q.environment === 'all' && q.world_state === undefined && q.outcome === 'any';

export function mountConversations(router: Router<RequestState>, deps: RouteDeps, clusters: ClustersRepo): void {
  const conversations = createConversationsRepo(deps.store);
  const context = createContextRepo(deps.store);

  defineRoute<ListQuery>(router, deps.keys, listConversations, async ({ principal, query: q }): Promise<ListResponse> => {
    if (searchOnly(q)) {
      const hybrid = await hybridPage(deps.store, clusters, conversations, principal.tenant, q.search!, q.limit, q.offset);
      if (hybrid) return { conversations: await withClusters(clusters, principal.tenant, hybrid.rows), search_mode: 'hybrid', pagination: offsetPage(q.limit, q.offset, hybrid.total) };
    }
    const run = q.cluster_id !== undefined ? await clusters.currentRun(principal.tenant) : undefined;
    // a cluster filter before the first taxonomy matches nothing
    if (q.cluster_id !== undefined && !run) return { conversations: [], search_mode: 'keyword', pagination: offsetPage(q.limit, q.offset, 0) };
    const { rows, total } = await conversations.list(
      {
        tenant: principal.tenant,
        environment: q.environment,
        userId: q.user_id ?? '',
        sinceMs: timeRangeStartMs(q.time_range, deps.now()),
        search: q.search ?? '',
        outcome: q.outcome,
        worldStateTerms: worldStateTerms(q.world_state),
        clusterId: q.cluster_id ?? '',
        clusterRun: run?.id ?? '',
      },
      q.limit,
      q.offset,
    );
    return { conversations: await withClusters(clusters, principal.tenant, rows), search_mode: 'keyword', pagination: offsetPage(q.limit, q.offset, total) };
  });

  defineRoute<ContextQuery>(router, deps.keys, conversationContext, async ({ principal, query: q, params }): Promise<ContextResponse> => {
    const id = params.id ?? '';
    const w = await context.window(principal.tenant, id, q.msg_index, q.window);
    return {
      conversation_id: id,
      total_messages: w.total,
      summary: w.summary,
      context: { center_index: w.center, from_index: w.from, to_index: w.to, messages: w.messages },
    };
  });
}
