import type Router from '@koa/router';
import type { AppContext, RequestState } from '../../core/http.js';
import type { KeyStore, Principal } from '../../core/keys.js';
import type { EndpointSpec } from '../../schemas/api/common.js';
import { readJsonBody } from '../body.js';
import { compileBody, compileQuery, type RawQuery } from '../params.js';

export interface RouteInput<Q, B> {
  principal: Principal;
  query: Q;
  body: B;
  params: Record<string, string>;
  ctx: AppContext;
}

/** `/conversations/{id}/context` -> `/conversations/:id/context`. */
export const koaPath = (openapiPath: string) => openapiPath.replace(/\{(\w+)\}/g, ':$1');

/**
 * Mounts one endpoint: authenticate the `x-api-key` (401 before anything else; its tenant scopes
 * every read), validate the query or body with the endpoint's schema, run the handler, answer
 * with the endpoint's status. Handlers never see unvalidated input.
 */
export function defineRoute<Q = Record<string, never>, B = undefined>(
  router: Router<RequestState>,
  keys: KeyStore,
  spec: EndpointSpec,
  handler: (input: RouteInput<Q, B>) => Promise<unknown>,
  opts: { maxBodyBytes?: number } = {},
): void {
  const parseQuery = compileQuery<Q>(spec.query);
  const parseBody = spec.body ? compileBody<B>(spec.body) : undefined;
  const path = koaPath(spec.path);
  router[spec.method](spec.operationId, path, async (ctx) => {
    const principal = await keys.authenticate(ctx.get('x-api-key') || undefined, { scope: 'read' });
    const query = parseQuery(ctx.query as RawQuery);
    const body = parseBody ? parseBody(await readJsonBody(ctx, opts.maxBodyBytes ?? 64 * 1024)) : (undefined as B);
    const params = (ctx as unknown as { params: Record<string, string> }).params ?? {};
    ctx.body = await handler({ principal, query, body, params, ctx });
    ctx.status = spec.status;
  });
}
