/**
 * Request schemas of the fix routes (spec/fix-pipeline.md "Fix routes"), relative to /api:
 * validation of bodies and queries; responses are fix objects (fixes/types.ts).
 */
/** Fix statuses of spec/fix-pipeline.md "States and transitions". */
export const FIX_STATUSES = [
  'DRAFT',
  'SCOPING',
  'NO_EVIDENCE',
  'BLOCKED_COVERAGE',
  'UNROUTED',
  'PROPOSING',
  'NO_HEADROOM',
  'PROPOSED',
  'GATING',
  'GATE_FAILED',
  'GATE_INCONCLUSIVE',
  'VERIFIED',
  'PR_OPEN',
  'APPLIED_LOCALLY',
  'HANDED_OFF',
  'SHIPPED',
  'CONFIRMING',
  'HELD',
  'REGRESSED',
  'REJECTED',
  'SUPERSEDED',
  'ABANDONED',
] as const;

export const FIX_TYPES = ['PROMPT', 'TOOL_SCHEMA', 'SKILL', 'GUARDRAIL', 'UNROUTED'] as const;

export const CANDIDATE_MIN_CHARS = 40;
export const CANDIDATE_MAX_CHARS = 200_000;
export const DISMISS_REASON_MAX_CHARS = 2000;
export const FIX_BODY_MAX_BYTES = 1024 * 1024;

export const draftFixBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    fixType: { type: 'string', enum: ['auto', 'prompt'], default: 'auto', description: '`auto` routes from evidence; `prompt` considers prompt artifacts only.' },
  },
} as const;

export const fixQueueQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: FIX_STATUSES },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    cursor: { type: 'string', maxLength: 2048 },
  },
} as const;

export const verifyFixBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    candidateContent: { type: 'string', minLength: CANDIDATE_MIN_CHARS, maxLength: CANDIDATE_MAX_CHARS },
  },
} as const;

export const submitFixBody = {
  type: 'object',
  additionalProperties: false,
  required: ['channel'],
  properties: {
    channel: { type: 'string', enum: ['pr', 'local_ref'] },
    localRef: { type: 'string', minLength: 1, maxLength: 255 },
  },
} as const;

export const dismissFixBody = {
  type: 'object',
  additionalProperties: false,
  required: ['reason'],
  properties: {
    reason: { type: 'string', minLength: 1, maxLength: DISMISS_REASON_MAX_CHARS },
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

/** Route table (docs/fixes.md lists the same). */
export const FIX_ROUTES = [
  { method: 'post', path: '/tenants/{tenantId}/problems/{problemId}/fixes', summary: 'Draft a fix', write: true },
  { method: 'get', path: '/tenants/{tenantId}/problems/{problemId}/fixes', summary: 'Fixes of one problem', write: false },
  { method: 'get', path: '/tenants/{tenantId}/fixes', summary: 'Ranked fix queue', write: false },
  { method: 'get', path: '/tenants/{tenantId}/fixes/{fixId}', summary: 'One fix', write: false },
  { method: 'get', path: '/tenants/{tenantId}/fixes/{fixId}/packet', summary: 'Fix packet', write: false },
  { method: 'post', path: '/tenants/{tenantId}/fixes/{fixId}/advance', summary: 'One pipeline step', write: true },
  { method: 'post', path: '/tenants/{tenantId}/fixes/{fixId}/verify', summary: 'Re-gate', write: true },
  { method: 'post', path: '/tenants/{tenantId}/fixes/{fixId}/submit', summary: 'Deliver', write: true },
  { method: 'post', path: '/tenants/{tenantId}/fixes/{fixId}/dismiss', summary: 'Reject', write: true },
  { method: 'post', path: '/tenants/{tenantId}/prompts/sync', summary: 'Prompt registry sync (complete set)', write: true },
] as const;
