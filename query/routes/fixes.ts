/**
 * Fix routes under /api/tenants/:tenantId (spec/fix-pipeline.md "Fix routes") and the merge
 * notification webhook /api/webhooks/code-host, mounted from FIX_ROUTES. Auth: `x-api-key` (401), the
 * key's `read` scope (what the data API requires), membership of the tenant in the path for reads
 * and the admin role for every POST (403), all before any validation. A data store that does not
 * answer is a 503 with Retry-After (fixes/unavailable.ts), never a 500.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type Router from '@koa/router';
import type { AppContext, RequestState } from '../../core/http.js';
import { BadRequestError, ForbiddenError, PayloadTooLargeError } from '../../core/errors.js';
import type { KeyStore, Principal } from '../../core/keys.js';
import { WebhookSignatureError, webhookUnconfigured } from '../../fixes/errors.js';
import { asUnavailable } from '../../fixes/unavailable.js';
import type { FixPipeline } from '../../fixes/pipeline.js';
import type { PromptRegistry } from '../../fixes/prompts.js';
import { FIX_BODY_MAX_BYTES, FIX_ROUTES, WEBHOOK_BODY_MAX_BYTES, type FixOperationId, type FixRouteSpec } from '../../schemas/api/fixes.js';
import type { Infer } from '../../schemas/api/infer.js';
import type { CursorCodec } from '../pagination.js';
import { compileBody, compileQuery, type RawQuery } from '../params.js';
import { koaPath } from './define.js';

export interface FixRouteDeps {
  keys: KeyStore;
  pipeline: FixPipeline;
  prompts: PromptRegistry;
  cursors: CursorCodec;
  webhookSecret: string;
}

async function readRaw(ctx: AppContext, maxBytes: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > maxBytes) throw new PayloadTooLargeError(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new PayloadTooLargeError(maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function readBody(ctx: AppContext, maxBytes: number): Promise<unknown> {
  const raw = (await readRaw(ctx, maxBytes)).toString('utf8');
  if (!raw.trim()) return {};
  const type = ctx.get('content-type');
  if (type && !/^application\/(?:[\w.+-]*\+)?json\b/i.test(type)) throw new BadRequestError('body must be application/json');
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new BadRequestError('body is not valid JSON', { details: ['body is not valid JSON'] });
  }
}

export async function authorizeTenant(keys: KeyStore, ctx: AppContext, tenant: string, write: boolean): Promise<Principal> {
  const principal = await keys.authenticate(ctx.get('x-api-key') || undefined, { scope: 'read' });
  if (principal.tenant !== tenant) throw new ForbiddenError('the API key is not a member of this workspace');
  if (write && principal.role !== 'admin') throw new ForbiddenError('this action needs the admin role');
  return principal;
}

const actorOf = (p: Principal) => `key:${p.keyId}`;

type RouteOf<Id extends FixOperationId> = Extract<(typeof FIX_ROUTES)[number], { operationId: Id }>;

/** What a handler gets: the query and body already validated against the route's schemas (typed by them). */
interface FixInput<Id extends FixOperationId> {
  params: Record<string, string>;
  query: RouteOf<Id> extends { query: infer Q } ? Infer<Q> : undefined;
  body: RouteOf<Id> extends { body: infer B } ? Infer<B> : undefined;
  /** Who called (empty for the signed webhook). */
  actor: string;
  ctx: AppContext;
}

/**
 * Mounts every route of FIX_ROUTES (schemas/api/fixes.ts), the same table the OpenAPI document is
 * built from: authorization by the route's `access` (before any validation), then its query and
 * body schemas, then the handler of its operationId; the answer gets the route's status.
 */
export function mountFixRoutes(router: Router<RequestState>, deps: FixRouteDeps): void {
  const { pipeline } = deps;
  const handlers: { [Id in FixOperationId]: (input: FixInput<Id>) => Promise<unknown> } = {
    fixDraft: ({ params, body, actor }) => pipeline.draft(params.tenantId!, params.problemId!, body, actor),
    fixesOfProblem: async ({ params }) => ({ fixes: await pipeline.listForProblem(params.tenantId!, params.problemId!) }),
    fixQueue: async ({ params, query: q }) => {
      const scope = `fixes:${params.tenantId}:${q.status ?? ''}`;
      const offset = q.cursor ? deps.cursors.decode<{ o: number }>(scope, q.cursor).o : 0;
      if (!Number.isInteger(offset) || offset < 0) throw new BadRequestError('invalid cursor', { code: 'invalid_cursor' });
      const page = await pipeline.queue(params.tenantId!, { status: q.status, limit: q.limit, offset });
      return {
        fixes: page.fixes,
        pagination: { limit: q.limit, has_more: page.hasMore, next_cursor: page.hasMore ? deps.cursors.encode(scope, { o: offset + q.limit }) : null },
      };
    },
    fixGet: ({ params }) => pipeline.get(params.tenantId!, params.fixId!),
    fixPacket: ({ params }) => pipeline.packet(params.tenantId!, params.fixId!),
    fixAdvance: ({ params, actor }) => pipeline.advance(params.tenantId!, params.fixId!, actor),
    fixVerify: async ({ params, body, actor }) => {
      const r = await pipeline.verify(params.tenantId!, params.fixId!, body, actor);
      return { gateRunId: r.gateRunId };
    },
    fixSubmit: async ({ params, body: b, actor }) => {
      if (b.channel === 'local_ref' && !b.localRef) throw new BadRequestError('localRef is required with channel local_ref', { details: ['body/localRef is required with channel local_ref'] });
      const f = await pipeline.submit(params.tenantId!, params.fixId!, b, actor);
      return { status: f.status, prUrl: f.prUrl, prBranch: f.prBranch };
    },
    fixDismiss: ({ params, body, actor }) => pipeline.dismiss(params.tenantId!, params.fixId!, body.reason, actor),
    promptSync: ({ params, body: b }) =>
      deps.prompts.sync(params.tenantId!, b.prompts, { dryRun: b.dryRun, ...(b.sourceCommit !== undefined ? { sourceCommit: b.sourceCommit } : {}) }),
    // merge notification of the code-hosting integration (GitHub `pull_request` event, signed)
    codeHostWebhook: async ({ ctx }) => {
      if (!deps.webhookSecret) throw webhookUnconfigured();
      const raw = await readRaw(ctx, WEBHOOK_BODY_MAX_BYTES);
      verifySignature(deps.webhookSecret, raw, ctx.get('x-hub-signature-256'));
      let event: { action?: string; pull_request?: { merged?: boolean; body?: string | null; head?: { ref?: string }; html_url?: string; merge_commit_sha?: string | null; merged_at?: string | null } };
      try {
        event = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new BadRequestError('body is not valid JSON');
      }
      const pr = event.pull_request;
      if (ctx.get('x-github-event') !== 'pull_request' || event.action !== 'closed' || !pr?.merged) return { accepted: true, fixes: [], ignored: 'not a merged pull request' };
      const fixes = await pipeline.onMerge({ prBody: pr.body ?? '', headRef: pr.head?.ref ?? '', prUrl: pr.html_url ?? '', mergeCommit: pr.merge_commit_sha ?? '', mergedAt: pr.merged_at ?? '' });
      return { accepted: true, fixes };
    },
  };

  for (const route of FIX_ROUTES as readonly FixRouteSpec[]) {
    const handler = handlers[route.operationId as FixOperationId] as (input: FixInput<FixOperationId>) => Promise<unknown>;
    const parseQuery = route.query ? compileQuery<unknown>(route.query) : undefined;
    const parseBody = route.body && route.access !== 'signature' ? compileBody<unknown>(route.body) : undefined;
    router[route.method](route.operationId, koaPath(route.path), async (ctx) => {
      const params = (ctx as unknown as { params: Record<string, string> }).params ?? {};
      try {
        let actor = '';
        if (route.access !== 'signature') actor = actorOf(await authorizeTenant(deps.keys, ctx, params.tenantId!, route.access === 'admin'));
        const query = parseQuery ? parseQuery(ctx.query as RawQuery) : undefined;
        const body = parseBody ? parseBody(await readBody(ctx, route.maxBodyBytes ?? FIX_BODY_MAX_BYTES)) : undefined;
        ctx.body = await handler({ params, query, body, actor, ctx } as FixInput<FixOperationId>);
        ctx.status = route.status;
      } catch (err) {
        // NATS or ClickHouse not answering (the key store included): 503 with Retry-After
        throw asUnavailable(err);
      }
    });
  }
}

/** `x-hub-signature-256: sha256=<hex HMAC-SHA256 of the raw body>`; anything else is 401. */
export function verifySignature(secret: string, raw: Buffer, header: string | undefined): void {
  if (!header) throw new WebhookSignatureError('missing x-hub-signature-256 signature');
  const m = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (!m) throw new WebhookSignatureError('malformed x-hub-signature-256 signature');
  const expected = createHmac('sha256', secret).update(raw).digest();
  const got = Buffer.from(m[1]!, 'hex');
  if (got.length !== expected.length || !timingSafeEqual(got, expected)) throw new WebhookSignatureError('wrong x-hub-signature-256 signature');
}

export function signPayload(secret: string, raw: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
}
