/**
 * Error codes of the problems engine and its feedback channel (registry: core/errors.ts
 * `defineError`); the data API answers them with their status (spec/data-api.md "Errors").
 */
import { defineError } from '../../core/errors.js';

/** 400: a problem or attribution id that is not a UUID, or a feedback body breaking its rules. */
export const InvalidProblemFeedbackError = defineError(
  'invalid_problem_feedback',
  400,
  'InvalidProblemFeedbackError',
  (detail: string) => detail,
  'POST /problems/:id/feedback: non-UUID problem or attribution id, or a body that breaks the feedback rules',
);

/** 404: feedback about a problem that does not exist (any run) in the tenant. */
export const ProblemNotFoundError = defineError(
  'problem_not_found',
  404,
  'ProblemNotFoundError',
  (id: string) => `problem ${id} not found`,
  'POST /problems/:id/feedback for a well-formed id that names no problem of the tenant',
);

/** 404: `attribution_id` (a UUID) that is not one of the problem's attributions. */
export const AttributionNotFoundError = defineError(
  'attribution_not_found',
  404,
  'AttributionNotFoundError',
  (id: string) => `attribution ${id} does not belong to this problem`,
  'flag_attribution feedback naming an attribution of another problem, or none',
);

/** 503: another pass of the tenant's problems held the lease for longer than the caller waits. */
export const ProblemsRunBusyError = defineError(
  'problems_run_busy',
  503,
  'ProblemsRunBusyError',
  (tenant: string) => `a problems run of tenant ${tenant} is in progress; try again`,
  'runProblemsOnce with a lease: another pass held the tenant lease past the wait',
);
