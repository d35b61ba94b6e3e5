import type Router from '@koa/router';
import type { RequestState } from '../../core/http.js';
import type { Infer } from '../../schemas/api/infer.js';
import { listEmotions } from '../../schemas/api/emotions.js';
import { listHallucinations } from '../../schemas/api/hallucinations.js';
import { createEmotionsRepo } from '../repo/emotions.js';
import { createHallucinationsRepo } from '../repo/hallucinations.js';
import { offsetPage } from '../pagination.js';
import { timeRangeStartMs } from '../time.js';
import { defineRoute } from './define.js';
import type { RouteDeps } from './deps.js';

type EmotionsQuery = Infer<(typeof listEmotions)['query']>;
type EmotionsResponse = Infer<(typeof listEmotions)['response']>;
type HallucinationsQuery = Infer<(typeof listHallucinations)['query']>;
type HallucinationsResponse = Infer<(typeof listHallucinations)['response']>;

/** GET /emotions and GET /hallucinations: the per-message signals of the conversation analyses. */
export function mountSignals(router: Router<RequestState>, deps: RouteDeps): void {
  const emotions = createEmotionsRepo(deps.store);
  const hallucinations = createHallucinationsRepo(deps.store);

  defineRoute<EmotionsQuery>(router, deps.keys, listEmotions, async ({ principal, query: q }): Promise<EmotionsResponse> => {
    const r = await emotions.read(
      {
        tenant: principal.tenant,
        conversationId: q.conversation_id ?? '',
        family: q.family ?? '',
        signal: q.signal ?? '',
        environment: q.environment,
        sinceMs: timeRangeStartMs(q.time_range, deps.now()),
        minScore: q.min_score,
      },
      q.limit,
      q.offset,
    );
    return {
      detections: r.detections,
      aggregates: r.aggregates,
      frustrations: r.frustrations,
      pagination: offsetPage(q.limit, q.offset, r.aggregates.total),
    };
  });

  defineRoute<HallucinationsQuery>(router, deps.keys, listHallucinations, async ({ principal, query: q }): Promise<HallucinationsResponse> => {
    const r = await hallucinations.read(
      {
        tenant: principal.tenant,
        conversationId: q.conversation_id ?? '',
        verdict: q.verdict ?? '',
        claimType: q.claim_type ?? '',
        environment: q.environment,
        sinceMs: timeRangeStartMs(q.time_range, deps.now()),
      },
      q.limit,
      q.offset,
    );
    return {
      findings: r.findings,
      rates: r.rates,
      pagination: offsetPage(q.limit, q.offset, r.total),
    };
  });
}
