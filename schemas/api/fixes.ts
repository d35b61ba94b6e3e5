/**
 * The fix routes (spec/fix-pipeline.md "Fix routes"), relative to FIX_API_BASE (`/api`): their
 * request schemas and FIX_ROUTES, the one route table that query/routes/fixes.ts mounts and
 * query/openapi.ts publishes. Response schemas: ./fix-objects.ts; values: ./fix-values.ts.
 */
import type { JsonSchema } from './common.js';
import {
  fixListResponse,
  fixObject,
  fixPacketSchema,
  fixQueueResponse,
  mergeNotificationBody,
  mergeNotificationResponse,
  promptSyncResponse,
  submitFixResponse,
  verifyFixResponse,
} from './fix-objects.js';
import {
  CANDIDATE_MAX_CHARS,
  CANDIDATE_MIN_CHARS,
  DISMISS_REASON_MAX_CHARS,
  DRAFT_ROUTES,
  FIX_QUEUE_DEFAULT_LIMIT,
  FIX_QUEUE_MAX_LIMIT,
  FIX_STATUSES,
  SUBMIT_CHANNELS,
} from './fix-values.js';

export { FIX_STATUSES, FIX_TYPES, CANDIDATE_MIN_CHARS, CANDIDATE_MAX_CHARS, DISMISS_REASON_MAX_CHARS } from './fix-values.js';

/** Where the fix routes are mounted (the data API is under /api/v1/data). */
export const FIX_API_BASE = '/api';
export const FIX_BODY_MAX_BYTES = 1024 * 1024;
export const WEBHOOK_BODY_MAX_BYTES = 5 * 1024 * 1024;

export const draftFixBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    fixType: { type: 'string', enum: DRAFT_ROUTES, default: 'auto', description: '`auto` routes from evidence; `prompt` considers prompt artifacts only.' },
  },
} as const;

export const fixQueueQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: FIX_STATUSES, description: 'Only fixes in this status; an unknown status gives 400.' },
    limit: { type: 'integer', minimum: 1, maximum: FIX_QUEUE_MAX_LIMIT, default: FIX_QUEUE_DEFAULT_LIMIT, description: `1–${FIX_QUEUE_MAX_LIMIT}, default ${FIX_QUEUE_DEFAULT_LIMIT}; outside the range gives 400 (not clamped).` },
    cursor: { type: 'string', maxLength: 2048, description: 'Opaque: the `next_cursor` of the previous page, unchanged.' },
  },
} as const;

export const verifyFixBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    candidateContent: {
      type: 'string',
      minLength: CANDIDATE_MIN_CHARS,
      maxLength: CANDIDATE_MAX_CHARS,
      description: 'Gate this uploaded candidate instead of the proposed one; recorded by hash only, not registered as a version.',
    },
  },
} as const;

export const submitFixBody = {
  type: 'object',
  additionalProperties: false,
  required: ['channel'],
  properties: {
    channel: { type: 'string', enum: SUBMIT_CHANNELS, description: '`pr` opens a draft pull request; `local_ref` records a branch applied locally.' },
    localRef: { type: 'string', minLength: 1, maxLength: 255, description: 'Branch name; required with channel `local_ref`.' },
  },
} as const;

export const dismissFixBody = {
  type: 'object',
  additionalProperties: false,
  required: ['reason'],
  properties: {
    reason: { type: 'string', minLength: 1, maxLength: DISMISS_REASON_MAX_CHARS, description: 'Recorded as problem feedback (feeds problem discovery).' },
  },
} as const;

/** POST /tenants/:tenantId/prompts/sync (wire names of the tool interface's prompts_sync). */
export const promptSyncBody = {
  type: 'object',
  additionalProperties: false,
  required: ['prompts'],
  properties: {
    prompts: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['key', 'content'],
        properties: {
          key: { type: 'string', minLength: 1, maxLength: 256 },
          content: { type: 'string', maxLength: 200_000 },
          name: { type: 'string', maxLength: 256 },
          description: { type: 'string', maxLength: 4000 },
          category: { type: 'string', maxLength: 256 },
          systemPrompt: { type: 'string', maxLength: 200_000 },
          messages: { type: 'array' },
          variables: { type: 'array' },
          variablesSchema: { type: 'object' },
          modelConfig: { type: 'object' },
          toolRefs: { type: 'array' },
          responseSchema: { type: 'object' },
          sourcePath: { type: 'string', maxLength: 1024 },
        },
      },
    },
    dryRun: { type: 'boolean', default: false },
    sourceCommit: { type: 'string', maxLength: 256 },
  },
} as const;

export const emptyBody = { type: 'object', additionalProperties: false, properties: {} } as const;

type PathParam = { readonly description: string; readonly schema: JsonSchema };
const tenantParam: PathParam = { description: "Workspace (tenant) ID; must be the API key's tenant (403 otherwise).", schema: { type: 'string' } };
const problemParam: PathParam = { description: 'Problem ID (UUID); a merged-away ID folds to its survivor.', schema: { type: 'string' } };
const fixParam: PathParam = { description: 'Fix ID (`id` of the fix object), or its short reference or magic word `SVC-FIX-<SHORTREF>`.', schema: { type: 'string' } };

/**
 * One fix route. `path` is in OpenAPI form relative to FIX_API_BASE; `access` says who may call
 * it (`member`: any key of the tenant; `admin`: an admin key of the tenant; `signature`: no key,
 * an HMAC signature of the body); `errors` are codes of the error registry (core/errors.ts) the
 * route can answer besides the generic 400/401/403/413.
 */
export interface FixRouteSpec {
  readonly operationId: string;
  readonly method: 'get' | 'post';
  readonly path: string;
  readonly tag: 'fixes' | 'prompts' | 'webhooks';
  readonly summary: string;
  readonly description: string;
  readonly access: 'member' | 'admin' | 'signature';
  readonly pathParams: Readonly<Record<string, PathParam>>;
  readonly query?: JsonSchema;
  readonly body?: JsonSchema;
  /** An empty body is accepted (as `{}`) unless this is set. */
  readonly bodyRequired?: boolean;
  readonly maxBodyBytes?: number;
  readonly response: JsonSchema;
  readonly status: 200 | 202;
  readonly errors: readonly string[];
}

const defineFixRoute = <const R extends FixRouteSpec>(r: R): R => r;

/** Every route answers 503 `data_store_unavailable` when NATS or ClickHouse does not answer (fixes/unavailable.ts). */
const STORE_UNAVAILABLE = 'data_store_unavailable';

/** Every fix route, in the order of the OpenAPI document (docs/fixes.md lists the same). */
export const FIX_ROUTES = [
  defineFixRoute({
    operationId: 'fixDraft',
    method: 'post',
    path: '/tenants/{tenantId}/problems/{problemId}/fixes',
    tag: 'fixes',
    summary: 'Draft a fix for a problem',
    description: 'Creates a fix at `DRAFT`. Drafting again while a fix of the problem is active returns that fix.',
    access: 'admin',
    pathParams: { tenantId: tenantParam, problemId: problemParam },
    body: draftFixBody,
    response: fixObject,
    status: 200,
    errors: ['invalid_problem_id', 'problem_not_found', 'fix_wrong_status', STORE_UNAVAILABLE],
  }),
  defineFixRoute({
    operationId: 'fixesOfProblem',
    method: 'get',
    path: '/tenants/{tenantId}/problems/{problemId}/fixes',
    tag: 'fixes',
    summary: 'Fixes of one problem',
    description: 'Every fix of the problem, newest first, without pagination.',
    access: 'member',
    pathParams: { tenantId: tenantParam, problemId: problemParam },
    response: fixListResponse,
    status: 200,
    errors: ['invalid_problem_id', 'problem_not_found', STORE_UNAVAILABLE],
  }),
  defineFixRoute({
    operationId: 'fixQueue',
    method: 'get',
    path: '/tenants/{tenantId}/fixes',
    tag: 'fixes',
    summary: 'Ranked fix queue',
    description: 'Fixes by problem rank (descending), then recency. Reading reconciles confirmation state (SHIPPED → HELD or REGRESSED) lazily. An invalid cursor gives 400.',
    access: 'member',
    pathParams: { tenantId: tenantParam },
    query: fixQueueQuery,
    response: fixQueueResponse,
    status: 200,
    errors: [STORE_UNAVAILABLE],
  }),
  defineFixRoute({
    operationId: 'fixGet',
    method: 'get',
    path: '/tenants/{tenantId}/fixes/{fixId}',
    tag: 'fixes',
    summary: 'One fix, with its gate result',
    description: 'Reading reconciles confirmation state lazily.',
    access: 'member',
    pathParams: { tenantId: tenantParam, fixId: fixParam },
    response: fixObject,
    status: 200,
    errors: ['fix_not_found', STORE_UNAVAILABLE],
  }),
  defineFixRoute({
    operationId: 'fixPacket',
    method: 'get',
    path: '/tenants/{tenantId}/fixes/{fixId}/packet',
    tag: 'fixes',
    summary: 'Fix packet',
    description: 'Everything needed to apply the fix by hand (snake_case, `tracehouse.fix_packet.v1`); every fix has one, diagnosis-only fixes too.',
    access: 'member',
    pathParams: { tenantId: tenantParam, fixId: fixParam },
    response: fixPacketSchema,
    status: 200,
    errors: ['fix_not_found', STORE_UNAVAILABLE],
  }),
  defineFixRoute({
    operationId: 'fixAdvance',
    method: 'post',
    path: '/tenants/{tenantId}/fixes/{fixId}/advance',
    tag: 'fixes',
    summary: 'One pipeline step',
    description: 'Scopes (DRAFT/SCOPING), proposes (PROPOSING), starts the gate (PROPOSED) or polls it (GATING); other statuses are unchanged. Idempotent; on concurrent calls the loser gets the current fix unchanged.',
    access: 'admin',
    pathParams: { tenantId: tenantParam, fixId: fixParam },
    body: emptyBody,
    response: fixObject,
    status: 200,
    errors: ['fix_not_found', 'fix_candidate_invalid', 'fix_wrong_status', 'replay_unavailable', 'proposer_unavailable', STORE_UNAVAILABLE],
  }),
  defineFixRoute({
    operationId: 'fixVerify',
    method: 'post',
    path: '/tenants/{tenantId}/fixes/{fixId}/verify',
    tag: 'fixes',
    summary: 'Re-gate',
    description: 'Fresh gate and control runs from PROPOSED, VERIFIED, GATE_FAILED or GATE_INCONCLUSIVE; the fix moves to GATING.',
    access: 'admin',
    pathParams: { tenantId: tenantParam, fixId: fixParam },
    body: verifyFixBody,
    response: verifyFixResponse,
    status: 200,
    errors: ['fix_not_found', 'fix_candidate_invalid', 'fix_wrong_status', 'replay_unavailable', STORE_UNAVAILABLE],
  }),
  defineFixRoute({
    operationId: 'fixSubmit',
    method: 'post',
    path: '/tenants/{tenantId}/fixes/{fixId}/submit',
    tag: 'fixes',
    summary: 'Deliver a verified fix',
    description: 'Channel `pr` opens a draft pull request on branch `svc/fix/<shortref>` (→ PR_OPEN); `local_ref` records the branch (→ APPLIED_LOCALLY). Only a VERIFIED fix can be submitted; open fix PRs are throttled.',
    access: 'admin',
    pathParams: { tenantId: tenantParam, fixId: fixParam },
    body: submitFixBody,
    bodyRequired: true,
    response: submitFixResponse,
    status: 200,
    errors: ['fix_not_found', 'fix_delivery_invalid', 'fix_wrong_status', 'fix_throttled', 'code_host_unavailable', STORE_UNAVAILABLE],
  }),
  defineFixRoute({
    operationId: 'fixDismiss',
    method: 'post',
    path: '/tenants/{tenantId}/fixes/{fixId}/dismiss',
    tag: 'fixes',
    summary: 'Reject a fix',
    description: 'Moves the fix to REJECTED and records the reason as problem feedback. Refused for REJECTED, SUPERSEDED, ABANDONED and HELD fixes.',
    access: 'admin',
    pathParams: { tenantId: tenantParam, fixId: fixParam },
    body: dismissFixBody,
    bodyRequired: true,
    response: fixObject,
    status: 200,
    errors: ['fix_not_found', 'fix_wrong_status', STORE_UNAVAILABLE],
  }),
  defineFixRoute({
    operationId: 'promptSync',
    method: 'post',
    path: '/tenants/{tenantId}/prompts/sync',
    tag: 'prompts',
    summary: 'Prompt registry sync (complete set)',
    description: 'Registers the complete set of prompts: changed content becomes a new version, keys absent from the set are marked removed. `dryRun` reports without writing.',
    access: 'admin',
    pathParams: { tenantId: tenantParam },
    body: promptSyncBody,
    bodyRequired: true,
    response: promptSyncResponse,
    status: 200,
    errors: [STORE_UNAVAILABLE],
  }),
  defineFixRoute({
    operationId: 'codeHostWebhook',
    method: 'post',
    path: '/webhooks/code-host',
    tag: 'webhooks',
    summary: 'Merge notification of the code-hosting integration',
    description:
      'Called by the code host, not with an API key: the raw body must be signed with `x-hub-signature-256: sha256=<hex HMAC-SHA256 of the body with FIX_WEBHOOK_SECRET>`. A merged pull request whose body or head branch carries `SVC-FIX-<SHORTREF>` ships that fix and posts a `mark_fixed` problem feedback; redeliveries converge. Anything else is accepted and ignored.',
    access: 'signature',
    pathParams: {},
    body: mergeNotificationBody,
    bodyRequired: true,
    maxBodyBytes: WEBHOOK_BODY_MAX_BYTES,
    response: mergeNotificationResponse,
    status: 202,
    errors: ['webhook_signature', 'webhook_unconfigured', STORE_UNAVAILABLE],
  }),
] as const satisfies readonly FixRouteSpec[];

export type FixOperationId = (typeof FIX_ROUTES)[number]['operationId'];
