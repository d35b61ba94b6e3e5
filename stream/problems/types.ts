/**
 * Types of the problems engine (docs/analyses.md "Problems"). A signal is one negative observation
 * of a conversation; cause signals (a failed call, a lazy step, a contradicted claim) can define a
 * problem, effect signals (a negative emotion, a low step score, abandonment) are explained through
 * the cause that precedes them.
 */

export const PROBLEMS_ENGINE_VERSION = 1;

export const SIGNAL_KINDS = ['tool_failure', 'laziness', 'hallucination', 'emotion', 'step_score', 'abandonment'] as const;
export type SignalKind = (typeof SIGNAL_KINDS)[number];
export const CAUSE_KINDS: ReadonlySet<SignalKind> = new Set(['tool_failure', 'laziness', 'hallucination']);

export interface Signal {
  /** Unique within the tenant: `<kind>:<conversation>:<item key>`. */
  signal_id: string;
  conversation_id: string;
  user_id: string;
  kind: SignalKind;
  /** Tool-failure family (`invalid_input`…), emotion family (`frustration`…), or the kind for the others. */
  family: string;
  /** Category label, emotion signal, laziness pattern, claim type, failure type, … */
  type: string;
  msg_index: number;
  /** ISO time of the message. */
  ts: string;
  segment_id: string;
  confidence: number;
  /** Verbatim text behind the signal (untrusted: neutralized before display). */
  text: string;
  /** The call's tool (tool failures), the tool a claim was checked against (hallucinations). */
  tool_name?: string;
  category_id?: string;
  /** The analysis's reading of the cause (a failure category's likely cause), when it has one. */
  detail?: string;
  /** The call's key (tool failures). */
  call_key?: string;
  /** The message holding the call (tool failures; `msg_index` is its result). */
  call_msg_index?: number;
  /** What an effect reacts to, when the analysis recorded it. */
  cause_ref?: { kind: string; message_index: number | null; tool_use_id?: string };
  /** Emotion elicitor. */
  elicitor?: string;
  /** Step scores: the first bad step's unit id (`call:<key>` / `msg:<i>`). */
  step_unit?: string;
  /** The use-case cluster of the signal's segment (latest taxonomy), when there is one. */
  cluster_id?: string;
  cluster_label?: string;
}

/** One clause of a rubric: a signal matches when every field given equals the signal's. */
export interface Criterion {
  kind: SignalKind;
  family?: string;
  tool_name?: string;
  type?: string;
  /** Use-case cluster (step-score problems). */
  cluster_id?: string;
}

export interface MatchCriteria {
  any_of: Criterion[];
}

export interface CounterExample {
  attribution_id: string;
  conversation_id: string;
  signal_family: string;
  signal_type: string;
  reason: string;
}

export type Lifecycle = 'open' | 'fixed_monitoring' | 'reopened' | 'resolved';
export type VerificationStatus = 'current' | 'failed' | 'unverified' | 'stale';
export type Door = 'rubric_match' | 'local_causal_chain';

export interface Rubric {
  version: number;
  causal_content_version: number;
  cause_statement: string;
  display_name: string;
  display_description: string;
  change_reason: string;
  match_criteria: MatchCriteria;
  counter_examples: CounterExample[];
  scope_hints: string[];
  tier: 'macro' | 'leaf';
  provisional: boolean;
  affected_surface: string;
  parent_problem_id: string | null;
  updated_at: string;
  /** The user-chosen name survives regenerated text. */
  renamed: boolean;
}

export interface VerificationSample {
  kind: 'judge_audit' | 'counterfactual_replay' | 'ground_truth';
  passed: boolean;
  rubric_version: number;
  causal_content_version: number;
  attribution_id: string;
  conversation_id: string;
  segment_id: string;
  rationale: string;
  verified_at: string;
}

export interface ProblemMetrics {
  total_attributions: number;
  signal_count: number;
  family_weighted_count: number;
  affected_users: number;
  affected_conversations: number;
  unknown_identity_conversations: number;
  agg_prm_delta: number;
  abandonment_rate: number;
  recency_score: number;
  trend_score: number;
  multi_family: boolean;
  family_counts: Record<string, number>;
  coverage_overall: number;
  coverage_by_family: Record<string, number>;
  first_signal_at: string;
  last_signal_at: string;
  rank_score: number;
}

export interface Dossier {
  executive_summary: string;
  causal_chain: Array<{ step: number; kind: string; description: string; count: number }>;
  suggested_investigation: string[];
  representative_story_keys: string[];
  limitations: string[];
  computed_at: string;
  engine_version: number;
  evidence_count: number;
  /** `template`, or `llm` when the optional endpoint refined the summary (stream/problems/refine.ts). */
  text_source: 'template' | 'llm';
}

/** The whole state of one problem as a run leaves it (the `doc` of `problems`). */
export interface ProblemState {
  problem_id: string;
  /** Identity of the cause it was discovered from (stable across runs). */
  cause_key: string;
  status: 'active' | 'merged' | 'dismissed';
  merged_into: string | null;
  lifecycle: Lifecycle;
  rubric: Rubric;
  created_at: string;
  updated_at: string;
  fixed_at: string | null;
  fix_ref: Record<string, unknown> | null;
  reopen_armed: boolean;
  dismissed_reason: string | null;
  verification_status: VerificationStatus;
  verified_causal_version: number | null;
  verified_total: number;
  samples: VerificationSample[];
  metrics: ProblemMetrics;
  dossier: Dossier | null;
  /** Signal support when discovered / last verified (re-verification when evidence grows). */
  support_at_verification: number;
  /** The last refined summary and the template text it was made from (optional LLM). */
  refined?: { template: string; summary: string; model: string } | null;
}

export interface Attribution {
  attribution_id: string;
  problem_id: string;
  conversation_id: string;
  segment_id: string;
  anchor_signal_id: string;
  anchor_msg_index: number;
  signal_kind: SignalKind;
  signal_family: string;
  signal_type: string;
  confidence: number;
  door: Door;
  cause_signal_id: string;
  cause_msg_index: number;
  causal_rationale: string;
  replay_verified: boolean | null;
  evidence_snippet: string;
  snippet: SnippetParsed;
  dedup_count: number;
  user_id: string;
  signal_ts: string;
  assigned_at: string;
  first_assigned_at: string;
  report_id: string;
  /** Every signal id the row stands for (dedup). */
  signal_ids: string[];
}

export interface SnippetParsed {
  excerpt: string;
  families: string[];
  line: number;
  anchor: string;
  door: Door;
  mechanism: string;
}

export interface Report {
  report_id: string;
  problem_id: string;
  conversation_id: string;
  segment_id: string;
  status: 'investigated' | 'no_problem' | 'rejected';
  problem_found: boolean;
  mechanism: string;
  narrative: string;
  citations: Array<{ path: string; ref: string; quote: string }>;
  signals_explained: number;
  signals_total: number;
  signals_explained_ids: string[];
  signals_unexplained_ids: string[];
  suspected_surface: string;
  severity: 'low' | 'medium' | 'high';
  confidence: number;
  primary_family: string;
  investigated_at: string;
}

export interface ChangeEvent {
  problem_id: string;
  event_id: string;
  event_kind: string;
  related_problem_id: string | null;
  rubric_version: number;
  causal_content_version: number;
  reason: string;
  created_ts: string;
}

export type FeedbackAction = 'mark_fixed' | 'dismiss' | 'flag_attribution' | 'rename';
export const FEEDBACK_ACTIONS: readonly FeedbackAction[] = ['mark_fixed', 'dismiss', 'flag_attribution', 'rename'];

export interface FixRef {
  fix_id?: string;
  short_ref?: string;
  pr_url?: string;
  merge_commit?: string;
  prompt_version_id?: string;
}

export interface PendingFeedback {
  feedback_id: string;
  problem_id: string;
  feedback_kind: FeedbackAction;
  reason: string;
  attribution_id: string;
  new_display_name: string;
  actor: string;
  fix_ref: FixRef | null;
  created_at: string;
}

export interface FeedbackOutcome {
  feedback_id: string;
  applied: boolean;
  outcome: string;
}

export interface RunStats {
  signals: number;
  cause_signals: number;
  attributed_signals: number;
  unexplained_signals: number;
  historically_attributed_signals: number;
  conversations: number;
  discovery: { candidate_groups: number; created: number; provisional: number; promoted: number; merged: number } | null;
  verification: { live_total: number; current: number; stale: number; failed: number; unverified: number; verified_this_run: number };
  remainder_backlog: { pending_groups: number; pending_mass: number };
  feedback_applied: number;
  /**
   * How the run read its signals: `full` (every conversation from the analysis tables) or
   * `incremental` (only the changed ones; the others from the signal store), and when the last
   * full recompute ran.
   */
  incremental?: { mode: 'full' | 'incremental'; reason: string; read_conversations: number; reused_conversations: number; last_full_at: string };
  /** Summaries refined by the optional LLM endpoint this run. */
  refinement?: { requested: number; refined: number; reused: number; rejected: number; failed: number };
}
