import type { AppContext } from '../../core/http.js';
import { requireJson } from '../body.js';
import { EventTooLargeError } from '../errors.js';
import { authenticate, bySize, runRequest, publishEvents, type RouteDeps } from './common.js';

type Result = { index: number; accepted: true; eventId: string; messageId?: string } | { index: number; accepted: false; reason: string };

/**
 * POST /v1/ingest: {environment?, events[]}. Every event is validated on its own; the response
 * (docs/ingestion.md) lists each index as accepted (with its event and message id) or rejected
 * (with one reason): {success, count, rejected, results[], requestId}. `success` is false only
 * when events were sent and none was accepted. A body that is not JSON is 415; an event too large
 * for one bus message makes the whole request 413 (nothing is published: split it and resend).
 */
export function directHandler(deps: RouteDeps) {
  return async (ctx: AppContext) => {
    const principal = await authenticate(deps, ctx);
    try {
      requireJson(ctx.get('content-type'));
    } catch (err) {
      // drain the unread body so the answer can be written on this connection
      ctx.req.resume();
      throw err;
    }
    await deps.publisher.admit();
    const out = await runRequest(deps, ctx, { route: 'ingest', agent: 'direct', encoding: 'json', tenant: principal.tenant });
    const { fit, oversized, limit } = bySize(deps.publisher, out.events);
    if (oversized.length) {
      const first = oversized[0]!;
      deps.counters.rejected('direct', 'ingest', 'oversized', oversized.length);
      throw new EventTooLargeError(first.index, Buffer.byteLength(first.json), limit);
    }
    const results: Result[] = [];
    for (const r of out.rejections) results[r.index] = { index: r.index, accepted: false, reason: r.reason };
    const ids = await publishEvents(deps, ctx, principal.tenant, 'ingest', out.receiveTime, fit);
    fit.forEach((e, i) => {
      results[e.index] = { index: e.index, accepted: true, eventId: ids[i]!, ...(e.messageId ? { messageId: e.messageId } : {}) };
    });
    deps.counters.rejected('direct', 'ingest', 'invalid', out.rejected);
    ctx.body = { success: !(out.rejected > 0 && fit.length === 0), count: fit.length, rejected: out.rejected, results: results.filter(Boolean), requestId: ctx.state.requestId };
  };
}
