import type { AppContext } from '../../core/http.js';
import { agentParam, authenticate, bySize, runRequest, publishEvents, type RouteDeps } from './common.js';

/**
 * POST /v1/otel/{agent}/hooks: an object or an array of objects. Each payload becomes one event
 * or is counted in `malformed` and skipped; the batch never fails for one payload.
 * Response: {success, count (events stored), malformed, requestId}.
 */
export function hooksHandler(deps: RouteDeps) {
  return async (ctx: AppContext) => {
    // the key first: every route answers 401 to a missing or invalid key, an unknown agent included
    const principal = await authenticate(deps, ctx);
    const agent = agentParam(ctx);
    await deps.publisher.admit();
    const out = await runRequest(deps, ctx, { route: 'hooks', agent, encoding: 'json', tenant: principal.tenant });
    const { fit, oversized } = bySize(deps.publisher, out.events);
    const malformed = out.rejected + oversized.length;
    for (const r of out.rejections.slice(0, 20)) ctx.state.log.debug(r, 'malformed hook payload');
    deps.counters.rejected(agent, 'hooks', 'malformed', malformed);
    await publishEvents(deps, ctx, principal.tenant, 'hooks', out.receiveTime, fit);
    ctx.body = { success: true, count: fit.length, malformed, requestId: ctx.state.requestId };
  };
}
