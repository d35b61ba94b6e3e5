/**
 * Error codes of the fix pipeline (registry: core/errors.ts `defineError`); statuses follow
 * spec/fix-pipeline.md "Errors". 503s are declared with `defineUnavailable` so they carry
 * Retry-After.
 */
import { defineError, defineUnavailable } from '../core/errors.js';

export const InvalidProblemIdError = defineError('invalid_problem_id', 400, 'InvalidProblemIdError', (id: string) => `problem id "${id.slice(0, 80)}" is not a UUID`, 'problem id in a fix route that is not a UUID');
/** 404 for an unknown problem: the problems engine's own code (`problem_not_found`). */
export { ProblemNotFoundError } from '../stream/problems/errors.js';
export const FixNotFoundError = defineError('fix_not_found', 404, 'FixNotFoundError', (id: string) => `no fix ${id.slice(0, 80)}`, 'unknown fix');
export const FixStatusConflictError = defineError(
  'fix_wrong_status',
  409,
  'FixStatusConflictError',
  (action: string, status: string, allowed: string) => `cannot ${action} a fix in status ${status}${allowed ? ` (allowed from ${allowed})` : ''}`,
  'the action is not allowed from the fix status',
);
export const FixThrottledError = defineError('fix_throttled', 409, 'FixThrottledError', (detail: string) => detail, 'an open fix PR limit is reached; the message names the sibling');
export const FixDeliveryInvalidError = defineError('fix_delivery_invalid', 400, 'FixDeliveryInvalidError', (detail: string) => detail, 'submit without what the channel needs');
export const FixCandidateInvalidError = defineError('fix_candidate_invalid', 400, 'FixCandidateInvalidError', (detail: string) => detail, 'a fix action that needs a candidate the fix does not have');
export const WebhookSignatureError = defineError('webhook_signature', 401, 'WebhookSignatureError', (detail: string) => detail, 'merge notification without a valid HMAC signature');

export const replayUnavailable = defineUnavailable('replay_unavailable', 5, 'no replay worker answers (start one with `tracehouse replay-worker`)', 'no replay worker answers the gate or replay request');
export const codeHostUnavailable = defineUnavailable(
  'code_host_unavailable',
  30,
  'the code-hosting integration is not configured (FIX_GITHUB_TOKEN, FIX_GITHUB_REPO)',
  'the code-hosting integration is unconfigured, refused or failed',
);
export const proposerUnavailable = defineUnavailable('proposer_unavailable', 10, 'the proposer model endpoint did not answer', 'the proposer model endpoint did not answer usably');
export const webhookUnconfigured = defineUnavailable('webhook_unconfigured', 60, 'the merge-notification webhook is not configured (FIX_WEBHOOK_SECRET)', 'the merge-notification webhook has no secret configured');
/** Raised by `asUnavailable` (fixes/unavailable.ts) for the failures it classes as an outage. */
export const dataStoreUnavailable = defineUnavailable(
  'data_store_unavailable',
  5,
  'a data store of the fix pipeline does not answer; retry later',
  'a data store is unavailable: NATS JetStream (fix state, API keys, replay queues) or ClickHouse (fix history, evidence)',
);
