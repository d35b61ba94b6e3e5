/**
 * The contract of one problems engine pass (stream/problems/engine.ts): its configuration with the
 * defaults, what it takes in and what it gives back.
 */
import type { Attribution, ChangeEvent, FeedbackOutcome, PendingFeedback, ProblemState, Report, Rubric, RunStats, Signal } from './types.js';

export interface EngineConfig {
  /** A group of unexplained cause signals becomes a (trusted) problem from this many conversations… */
  minSupport: number;
  /** …or this share of the tenant's conversations, whichever is larger. */
  minShare: number;
  /** Groups from this many conversations become provisional (emerging) problems. */
  emergingSupport: number;
  /** Messages back an effect may reach for its cause without an explicit reference. */
  chainWindow: number;
  /** A fixed problem with no recurrence for this long is resolved. */
  cleanPeriodMs: number;
  /** Two problems whose conversations overlap this much (Jaccard) are one cause. */
  mergeJaccard: number;
  /** Attributions re-checked per problem and verification. */
  sampleSize: number;
  /** Problems verified per run at most (the rest stay stale or unverified until the next). */
  verifyBudget: number;
}

export const DEFAULT_ENGINE_CONFIG: EngineConfig = {
  minSupport: 5,
  minShare: 0.02,
  emergingSupport: 3,
  chainWindow: 8,
  cleanPeriodMs: 7 * 86_400_000,
  mergeJaccard: 0.8,
  sampleSize: 20,
  verifyBudget: 50,
};

export interface EngineInput {
  tenant: string;
  runId: string;
  now: number;
  signals: readonly Signal[];
  /** Every problem of the previous complete run (merged and dismissed ones too). */
  previous: readonly ProblemState[];
  /** Attributions of the previous run: id → what it was (flag_attribution, first assignment). */
  previousAttributions: ReadonlyMap<string, { first_assigned_at: string; conversation_id: string; signal_family: string; signal_type: string; problem_id: string; segment_id: string }>;
  feedback: readonly PendingFeedback[];
  /** Conversations of the tenant (with or without signals): the base of `minShare`. */
  conversationCount?: number;
  /** Blended step score per conversation (for `agg_prm_delta`). */
  blended: ReadonlyMap<string, number>;
  config?: Partial<EngineConfig>;
}

export interface EngineOutput {
  problems: ProblemState[];
  attributions: Attribution[];
  reports: Report[];
  events: ChangeEvent[];
  /** New rubric versions written this run. */
  definitions: Array<{ problem_id: string; rubric: Rubric }>;
  aliases: Array<{ alias_id: string; problem_id: string }>;
  feedback: FeedbackOutcome[];
  stats: RunStats;
  /** signal id → problem id, for every explained signal (evaluation). */
  explained: Map<string, string>;
}
