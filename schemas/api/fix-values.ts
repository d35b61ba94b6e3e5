/**
 * The values of the fix pipeline (spec/fix-pipeline.md), one list each: the implementation
 * (fixes/, query/routes/fixes.ts, mcp/fix-tools.ts), the request and response schemas
 * (schemas/api/fixes.ts, schemas/api/fix-objects.ts) and the dashboard's fix pages import them
 * from here. Plain constants only, so the dashboard bundle can import this module as is.
 */

/** Fix statuses of spec "States and transitions". */
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
export type FixStatus = (typeof FIX_STATUSES)[number];

/** What a fix changes (`fixType` of the fix object). */
export const FIX_TYPES = ['PROMPT', 'TOOL_SCHEMA', 'SKILL', 'GUARDRAIL', 'UNROUTED'] as const;
export type FixType = (typeof FIX_TYPES)[number];

/** `fixType` of a draft request: `auto` routes from evidence, `prompt` considers prompt artifacts only. */
export const DRAFT_ROUTES = ['auto', 'prompt'] as const;
export type DraftRoute = (typeof DRAFT_ROUTES)[number];

/** `channel` of a submit request. */
export const SUBMIT_CHANNELS = ['pr', 'local_ref'] as const;
export type SubmitChannel = (typeof SUBMIT_CHANNELS)[number];

/** `deliveryChannel` of a delivered fix. */
export const DELIVERY_CHANNELS = ['pr', 'local'] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];

/** `gateResult.verdict`. */
export const GATE_VERDICTS = ['pass', 'fail', 'inconclusive'] as const;
export type GateVerdict = (typeof GATE_VERDICTS)[number];

/** What a prompt sync did to one prompt. */
export const PROMPT_SYNC_ACTIONS = ['created', 'updated', 'unchanged'] as const;
export type PromptSyncAction = (typeof PROMPT_SYNC_ACTIONS)[number];

/** What a merge notification did to one fix it names. */
export const MERGE_OUTCOMES = ['shipped', 'converged', 'ignored'] as const;
export type MergeOutcome = (typeof MERGE_OUTCOMES)[number];

/** Bounds of spec "Limits". */
export const CANDIDATE_MIN_CHARS = 40;
export const CANDIDATE_MAX_CHARS = 200_000;
export const DISMISS_REASON_MAX_CHARS = 2000;
export const FIX_QUEUE_MAX_LIMIT = 100;
export const FIX_QUEUE_DEFAULT_LIMIT = 25;

/** `kind` of the fix packet (spec "Fix packet", `<service>.fix_packet.v1`). */
export const PACKET_KIND = 'tracehouse.fix_packet.v1';
