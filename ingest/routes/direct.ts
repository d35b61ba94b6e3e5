import type { AppContext } from '../../core/http.js';
import type { Environment } from '../../schemas/events.js';
import { BadRequestError } from '../../core/errors.js';
import { normalizeDirect } from '../normalize/direct.js';
import type { EventDraft, NormalizeContext } from '../normalize/event.js';
import { check } from '../validate.js';
import { authenticate, bySize, publishDrafts, type RouteDeps } from './common.js';
import { jsonBody } from './hooks.js';

type Result = { index: number; accepted: true; eventId: string; messageId?: string } | { index: number; accepted: false; reason: string };

/**
 * POST /v1/ingest: {environment?, events[]}. Every event is validated on its own; the response
 * (docs/ingestion.md) lists each index as accepted (with its event id) or rejected (with one reason):
 * {success, count, rejected, results[], requestId}. `success` is false only when events were
 * sent and none was accepted.
 */
export function directHandler(deps: RouteDeps) {
  return async (ctx: AppContext) => {
    const principal = await authenticate(deps, ctx);
    await deps.publisher.admit();
    const parsed = await jsonBody(deps, ctx);
    const invalid = check('envelope', parsed);
    if (invalid) throw new BadRequestError(`invalid ingest envelope: ${invalid}`, { code: 'invalid_envelope' });
    const env = parsed as { environment?: Environment; events: unknown[] };
    const nctx: NormalizeContext = { tenant: principal.tenant, agent: 'direct', source: 'ingest', receiveTime: new Date(), environment: env.environment };
    const results: Result[] = new Array(env.events.length);
    const drafts: Array<{ index: number; draft: EventDraft }> = [];
    env.events.forEach((raw, index) => {
      const out = normalizeDirect(nctx, raw, index);
      if (out.kind === 'event') drafts.push({ index, draft: out.event });
      else results[index] = { index, accepted: false, reason: out.reason };
    });
    const { fit, oversized, limit } = bySize(deps.publisher, drafts);
    for (const o of oversized) results[o.index] = { index: o.index, accepted: false, reason: `event larger than ${limit} bytes` };
    const stored = await publishDrafts(deps, ctx, principal.tenant, 'ingest', fit.map((f) => f.draft));
    fit.forEach((f, i) => {
      const e = stored[i]!;
      results[f.index] = { index: f.index, accepted: true, eventId: e.event_id, ...(e.message ? { messageId: e.message.message_id } : {}) };
    });
    const rejected = results.filter((r) => !r.accepted).length;
    deps.counters.rejected('direct', 'ingest', 'invalid', rejected);
    ctx.body = { success: !(rejected > 0 && fit.length === 0), count: fit.length, rejected, results, requestId: ctx.state.requestId };
  };
}
