/**
 * Error codes of the fix pipeline (registry: core/errors.ts `defineError`); statuses follow
 * spec/fix-pipeline.md "Errors". 503s use core `UnavailableError` with their own code so they carry
 * Retry-After.
 */
import { defineError, UnavailableError } from '../core/errors.js';

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

export const replayUnavailable = (detail = 'no replay worker answers (start one with `tracehouse replay-worker`)') =>
  new UnavailableError(detail, 5, { code: 'replay_unavailable' });
export const codeHostUnavailable = (detail = 'the code-hosting integration is not configured (FIX_GITHUB_TOKEN, FIX_GITHUB_REPO)') =>
  new UnavailableError(detail, 30, { code: 'code_host_unavailable' });
export const proposerUnavailable = (detail: string) => new UnavailableError(detail, 10, { code: 'proposer_unavailable' });
