import type { AppContext } from '../../core/http.js';
import { bodyText, CorruptBodyError } from '../body.js';
import { InvalidJsonError } from '../errors.js';
import type { EventDraft, NormalizeContext } from '../normalize/event.js';
import { normalizeHook } from '../normalize/hooks.js';
import { check } from '../validate.js';
import { agentParam, authenticate, body, bySize, publishDrafts, type RouteDeps } from './common.js';

/** Reads a JSON body for hooks and direct ingest; invalid JSON is a 400 `{error}`. */
export async function jsonBody(deps: RouteDeps, ctx: AppContext): Promise<unknown> {
  let raw: Buffer;
  try {
    raw = await body(deps, ctx);
  } catch (err) {
    if (err instanceof CorruptBodyError) throw new InvalidJsonError('the compressed body does not inflate', { cause: err });
    throw err;
  }
  try {
    return JSON.parse(bodyText(raw));
  } catch (err) {
    throw new InvalidJsonError((err as Error).message.slice(0, 200), { cause: err });
  }
}

/**
 * POST /v1/otel/{agent}/hooks: an object or an array of objects. Each payload becomes one event
 * or is counted in `malformed` and skipped; the batch never fails for one payload.
 * Response: {success, count (events stored), malformed, requestId}.
 */
export function hooksHandler(deps: RouteDeps) {
  return async (ctx: AppContext) => {
    const agent = agentParam(ctx);
    const principal = await authenticate(deps, ctx);
    await deps.publisher.admit();
    const parsed = await jsonBody(deps, ctx);
    const payloads = Array.isArray(parsed) ? parsed : [parsed];
    const nctx: NormalizeContext = { tenant: principal.tenant, agent, source: 'hooks', receiveTime: new Date() };
    const drafts: Array<{ index: number; draft: EventDraft }> = [];
    let malformed = 0;
    payloads.forEach((p, index) => {
      const invalid = p && typeof p === 'object' && !Array.isArray(p) ? check('hook', p) : 'hook payload must be an object';
      const out = invalid ? ({ kind: 'malformed', reason: invalid } as const) : normalizeHook(nctx, p, index);
      if (out.kind === 'event') drafts.push({ index, draft: out.event });
      else {
        malformed++;
        ctx.state.log.debug({ index, reason: out.reason }, 'malformed hook payload');
      }
    });
    const { fit, oversized } = bySize(deps.publisher, drafts);
    malformed += oversized.length;
    deps.counters.rejected(agent, 'hooks', 'malformed', malformed);
    await publishDrafts(deps, ctx, principal.tenant, 'hooks', fit.map((f) => f.draft));
    ctx.body = { success: true, count: fit.length, malformed, requestId: ctx.state.requestId };
  };
}
