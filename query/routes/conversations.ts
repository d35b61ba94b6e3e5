import type Router from '@koa/router';
import type { RequestState } from '../../core/http.js';
import type { Infer } from '../../schemas/api/infer.js';
import { conversationContext, listConversations } from '../../schemas/api/conversations.js';
import { createConversationsRepo, worldStateTerms } from '../repo/conversations.js';
import { createContextRepo } from '../repo/context.js';
import { offsetPage } from '../pagination.js';
import { timeRangeStartMs } from '../time.js';
import { defineRoute } from './define.js';
import type { RouteDeps } from './deps.js';

type ListQuery = Infer<(typeof listConversations)['query']>;
type ListResponse = Infer<(typeof listConversations)['response']>;
type ContextQuery = Infer<(typeof conversationContext)['query']>;
type ContextResponse = Infer<(typeof conversationContext)['response']>;

/**
 * Filters that need analyses not built yet (clusters) are validated now; no conversation carries
 * such data yet, so an active one matches nothing.
 */
function needsMissingAnalysis(q: ListQuery): boolean {
  return q.cluster_id !== undefined;
}

export function mountConversations(router: Router<RequestState>, deps: RouteDeps): void {
  const conversations = createConversationsRepo(deps.store);
  const context = createContextRepo(deps.store);

  defineRoute<ListQuery>(router, deps.keys, listConversations, async ({ principal, query: q }): Promise<ListResponse> => {
    if (needsMissingAnalysis(q)) {
      return { conversations: [], search_mode: 'keyword', pagination: offsetPage(q.limit, q.offset, 0) };
    }
    const { rows, total } = await conversations.list(
      {
        tenant: principal.tenant,
        environment: q.environment,
        userId: q.user_id ?? '',
        sinceMs: timeRangeStartMs(q.time_range, deps.now()),
        search: q.search ?? '',
        outcome: q.outcome,
        worldStateTerms: worldStateTerms(q.world_state),
      },
      q.limit,
      q.offset,
    );
    // semantic search does not exist yet: keyword always serves, and says so
    return { conversations: rows, search_mode: 'keyword', pagination: offsetPage(q.limit, q.offset, total) };
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
