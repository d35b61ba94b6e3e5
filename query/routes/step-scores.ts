import type Router from '@koa/router';
import type { RequestState } from '../../core/http.js';
import type { Infer } from '../../schemas/api/infer.js';
import { conversationStepScores } from '../../schemas/api/step-scores.js';
import { createStepScoresRepo } from '../repo/step-scores.js';
import { defineRoute } from './define.js';
import type { RouteDeps } from './deps.js';

type Response = Infer<(typeof conversationStepScores)['response']>;

/** spec/data-api.md GET /conversations/:id/step-scores: every trace is scored at segment grain, so the legacy fields are null. */
export function mountStepScores(router: Router<RequestState>, deps: RouteDeps): void {
  const repo = createStepScoresRepo(deps.store);
  defineRoute(router, deps.keys, conversationStepScores, async ({ principal, params }): Promise<Response> => {
    const id = params.id ?? '';
    const { segments, rollup } = await repo.load(principal.tenant, id);
    return { conversation_id: id, segments, rollup, model: null, failure_type: null, first_bad_step: null, steps: [] };
  });
}
