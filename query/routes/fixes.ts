/**
 * Fix routes under /api/tenants/:tenantId (spec/fix-pipeline.md "Fix routes") and the merge
 * notification webhook /api/webhooks/code-host. Auth: `x-api-key` (401), membership of the tenant
 * in the path for reads and the admin role for every POST (403), both before any validation.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type Router from '@koa/router';
import type { AppContext, RequestState } from '../../core/http.js';
import { BadRequestError, ForbiddenError, PayloadTooLargeError, UnavailableError } from '../../core/errors.js';
import type { KeyStore, Principal } from '../../core/keys.js';
import { WebhookSignatureError } from '../../fixes/errors.js';
import type { FixPipeline } from '../../fixes/pipeline.js';
import type { PromptEntryInput, PromptRegistry } from '../../fixes/prompts.js';
import type { FixStatus } from '../../fixes/types.js';
import { dismissFixBody, draftFixBody, emptyBody, FIX_BODY_MAX_BYTES, fixQueueQuery, promptSyncBody, submitFixBody, verifyFixBody } from '../../schemas/api/fixes.js';
import type { CursorCodec } from '../pagination.js';
import { compileBody, compileQuery, type RawQuery } from '../params.js';

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

async function readBody(ctx: AppContext): Promise<unknown> {
  const raw = (await readRaw(ctx, FIX_BODY_MAX_BYTES)).toString('utf8');
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
  const principal = await keys.authenticate(ctx.get('x-api-key') || undefined, {});
  if (principal.tenant !== tenant) throw new ForbiddenError('the API key is not a member of this workspace');
  if (write && principal.role !== 'admin') throw new ForbiddenError('this action needs the admin role');
  return principal;
}

const actorOf = (p: Principal) => `key:${p.keyId}`;

export function mountFixRoutes(router: Router<RequestState>, deps: FixRouteDeps): void {
  const { pipeline } = deps;
  const parseDraft = compileBody<{ fixType: 'auto' | 'prompt' }>(draftFixBody);
  const parseQueue = compileQuery<{ status?: FixStatus; limit: number; cursor?: string }>(fixQueueQuery);
  const parseVerify = compileBody<{ candidateContent?: string }>(verifyFixBody);
  const parseSubmit = compileBody<{ channel: 'pr' | 'local_ref'; localRef?: string }>(submitFixBody);
  const parseDismiss = compileBody<{ reason: string }>(dismissFixBody);
  const parseEmpty = compileBody<Record<string, never>>(emptyBody);
  const p = (ctx: AppContext) => (ctx as unknown as { params: Record<string, string> }).params;

  router.post('fixDraft', '/tenants/:tenantId/problems/:problemId/fixes', async (ctx) => {
    const { tenantId, problemId } = p(ctx);
    const who = await authorizeTenant(deps.keys, ctx, tenantId!, true);
    const body = parseDraft(await readBody(ctx));
    ctx.body = await pipeline.draft(tenantId!, problemId!, body, actorOf(who));
  });
  router.get('fixesOfProblem', '/tenants/:tenantId/problems/:problemId/fixes', async (ctx) => {
    const { tenantId, problemId } = p(ctx);
    await authorizeTenant(deps.keys, ctx, tenantId!, false);
    ctx.body = { fixes: await pipeline.listForProblem(tenantId!, problemId!) };
  });
  router.get('fixQueue', '/tenants/:tenantId/fixes', async (ctx) => {
    const { tenantId } = p(ctx);
    await authorizeTenant(deps.keys, ctx, tenantId!, false);
    const q = parseQueue(ctx.query as RawQuery);
    const scope = `fixes:${tenantId}:${q.status ?? ''}`;
    const offset = q.cursor ? deps.cursors.decode<{ o: number }>(scope, q.cursor).o : 0;
    if (!Number.isInteger(offset) || offset < 0) throw new BadRequestError('invalid cursor', { code: 'invalid_cursor' });
    const page = await pipeline.queue(tenantId!, { status: q.status, limit: q.limit, offset });
    ctx.body = {
      fixes: page.fixes,
      pagination: { limit: q.limit, has_more: page.hasMore, next_cursor: page.hasMore ? deps.cursors.encode(scope, { o: offset + q.limit }) : null },
    };
  });
  router.get('fixGet', '/tenants/:tenantId/fixes/:fixId', async (ctx) => {
    const { tenantId, fixId } = p(ctx);
    await authorizeTenant(deps.keys, ctx, tenantId!, false);
    ctx.body = await pipeline.get(tenantId!, fixId!);
  });
  router.get('fixPacket', '/tenants/:tenantId/fixes/:fixId/packet', async (ctx) => {
    const { tenantId, fixId } = p(ctx);
    await authorizeTenant(deps.keys, ctx, tenantId!, false);
    ctx.body = await pipeline.packet(tenantId!, fixId!);
  });
  router.post('fixAdvance', '/tenants/:tenantId/fixes/:fixId/advance', async (ctx) => {
    const { tenantId, fixId } = p(ctx);
    const who = await authorizeTenant(deps.keys, ctx, tenantId!, true);
    parseEmpty(await readBody(ctx));
    ctx.body = await pipeline.advance(tenantId!, fixId!, actorOf(who));
  });
  router.post('fixVerify', '/tenants/:tenantId/fixes/:fixId/verify', async (ctx) => {
    const { tenantId, fixId } = p(ctx);
    const who = await authorizeTenant(deps.keys, ctx, tenantId!, true);
    const body = parseVerify(await readBody(ctx));
    const r = await pipeline.verify(tenantId!, fixId!, body, actorOf(who));
    ctx.body = { gateRunId: r.gateRunId };
  });
  router.post('fixSubmit', '/tenants/:tenantId/fixes/:fixId/submit', async (ctx) => {
    const { tenantId, fixId } = p(ctx);
    const who = await authorizeTenant(deps.keys, ctx, tenantId!, true);
    const body = parseSubmit(await readBody(ctx));
    if (body.channel === 'local_ref' && !body.localRef) throw new BadRequestError('localRef is required with channel local_ref', { details: ['body/localRef is required with channel local_ref'] });
    const f = await pipeline.submit(tenantId!, fixId!, body, actorOf(who));
    ctx.body = { status: f.status, prUrl: f.prUrl, prBranch: f.prBranch };
  });
  router.post('fixDismiss', '/tenants/:tenantId/fixes/:fixId/dismiss', async (ctx) => {
    const { tenantId, fixId } = p(ctx);
    const who = await authorizeTenant(deps.keys, ctx, tenantId!, true);
    const body = parseDismiss(await readBody(ctx));
    ctx.body = await pipeline.dismiss(tenantId!, fixId!, body.reason, actorOf(who));
  });

  const parseSync = compileBody<{ prompts: PromptEntryInput[]; dryRun: boolean; sourceCommit?: string }>(promptSyncBody);
  router.post('promptSync', '/tenants/:tenantId/prompts/sync', async (ctx) => {
    const { tenantId } = p(ctx);
    await authorizeTenant(deps.keys, ctx, tenantId!, true);
    const body = parseSync(await readBody(ctx));
    ctx.body = await deps.prompts.sync(tenantId!, body.prompts, { dryRun: body.dryRun, ...(body.sourceCommit !== undefined ? { sourceCommit: body.sourceCommit } : {}) });
  });

  // merge notification of the code-hosting integration (GitHub `pull_request` event, signed)
  router.post('codeHostWebhook', '/webhooks/code-host', async (ctx) => {
    if (!deps.webhookSecret) throw new UnavailableError('the merge-notification webhook is not configured (FIX_WEBHOOK_SECRET)', 60, { code: 'webhook_unconfigured' });
    const raw = await readRaw(ctx, 5 * 1024 * 1024);
    verifySignature(deps.webhookSecret, raw, ctx.get('x-hub-signature-256'));
    let event: { action?: string; pull_request?: { merged?: boolean; body?: string | null; head?: { ref?: string }; html_url?: string; merge_commit_sha?: string | null; merged_at?: string | null } };
    try {
      event = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new BadRequestError('body is not valid JSON');
    }
    const pr = event.pull_request;
    if (ctx.get('x-github-event') !== 'pull_request' || event.action !== 'closed' || !pr?.merged) {
      ctx.status = 202;
      ctx.body = { accepted: true, fixes: [], ignored: 'not a merged pull request' };
      return;
    }
    const fixes = await pipeline.onMerge({ prBody: pr.body ?? '', headRef: pr.head?.ref ?? '', prUrl: pr.html_url ?? '', mergeCommit: pr.merge_commit_sha ?? '', mergedAt: pr.merged_at ?? '' });
    ctx.status = 202;
    ctx.body = { accepted: true, fixes };
  });
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
