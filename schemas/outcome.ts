/**
 * The thresholds of a conversation's `outcome` (spec/data-api.md GET /conversations `outcome`),
 * shared by the step-score analysis (stream/analyses/step-scores.ts `outcomeOf`, what the
 * evaluation measures) and the list query (sql/queries/query-conversations-*.sql), so both decide
 * alike. docs/analyses.md "Step scores" explains how they were chosen.
 */

/** `negative`: the rollup's blended score is below this … */
export const OUTCOME_NEGATIVE_BELOW = 0.6;
/** … or a frustration detection scores at least this (explicit frustration; a plain correction stays below). */
export const FRUSTRATION_MIN = 0.5;
/** `positive`: the blended score is at least this and no such frustration detection exists. */
export const OUTCOME_POSITIVE_FROM = 0.7;

/**
 * Elicitors of a frustration that count for `outcome`: the agent's doing, or unattributed. One the
 * detector puts on an external factor (a delayed flight, an outage) or on the person themself says
 * nothing about how the conversation went.
 */
export const OUTCOME_ELICITORS = ['agent', 'ambiguous'] as const;
