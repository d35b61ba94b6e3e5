import type { AppContext } from '../../core/http.js';
import { authenticate, bySize, runRequest, publishEvents, type RouteDeps } from './common.js';

type Result = { index: number; accepted: true; eventId: string; messageId?: string } | { index: number; accepted: false; reason: string };

/**
 * POST /v1/ingest: {environment?, events[]}. Every event is validated on its own; the response
 * (docs/ingestion.md) lists each index as accepted (with its event and message id) or rejected
 * (with one reason): {success, count, rejected, results[], requestId}. `success` is false only
 * when events were sent and none was accepted.
 */
export function directHandler(deps: RouteDeps) {
  return async (ctx: AppContext) => {
    const principal = await authenticate(deps, ctx);
    await deps.publisher.admit();
    const out = await runRequest(deps, ctx, { route: 'ingest', agent: 'direct', encoding: 'json', tenant: principal.tenant });
    const { fit, oversized, limit } = bySize(deps.publisher, out.events);
    const results: Result[] = [];
    for (const r of out.rejections) results[r.index] = { index: r.index, accepted: false, reason: r.reason };
    for (const o of oversized) results[o.index] = { index: o.index, accepted: false, reason: `event larger than ${limit} bytes` };
    const ids = await publishEvents(deps, ctx, principal.tenant, 'ingest', out.receiveTime, fit);
    fit.forEach((e, i) => {
      results[e.index] = { index: e.index, accepted: true, eventId: ids[i]!, ...(e.messageId ? { messageId: e.messageId } : {}) };
    });
    const rejected = out.rejected + oversized.length;
    deps.counters.rejected('direct', 'ingest', 'invalid', rejected);
    ctx.body = { success: !(rejected > 0 && fit.length === 0), count: fit.length, rejected, results: results.filter(Boolean), requestId: ctx.state.requestId };
  };
}
