// Response shapes of GET /problems, GET /problems/:id and its sub-resources, as the problem pages read them.
export interface ProblemRow {
  problem_id: string;
  display_name: string;
  cause_statement: string;
  lifecycle: string;
  rank_score: number;
  rubric_version: number;
  total_attributions: number;
  affected_users: number;
  affected_conversations: number;
  agg_prm_delta: number;
  abandonment_rate: number;
  family_counts: Record<string, number>;
  coverage_overall: number;
  audit_pass_rate: number | null;
  verification_status: string;
}
export interface ProblemsResponse {
  summary: { days_back: number; open_problems: number; reopened: number; total_problems: number; signals_attributed: number; explained_coverage_pct: number };
  remainder: Remainder | null;
  problems: ProblemRow[];
  untrusted: ProblemRow[];
  hierarchy: { macros: Array<{ problem_id: string; display_name: string; display_description: string; child_count: number; children: string[] }>; unparented_leaf_count: number };
  emerging: Array<{ problem_id: string; display_name: string; display_description: string; family: string | null; evidence_support: { report_backed_members: number; attribution_count: number }; verification_status: string }>;
  freshness: { book_computed_at: string | null; latest_assignment_at: string | null; lag_seconds: number | null; verification: { live_total: number; current: number; stale: number; failed: number; unverified: number }; remainder_backlog: { pending_groups: number; pending_mass: number } };
  feedback_pending: number;
}
export interface Remainder {
  attributed_signals: number;
  unexplained_signals: number;
  coverage_pct: number;
  historically_attributed_signals: number;
  historical_coverage_pct: number;
}
export interface Evidence {
  attribution_id: string;
  conversation_id: string;
  anchor_msg_index: number;
  signal_family: string;
  signal_type: string;
  confidence: number;
  causal_rationale: string;
  door: string;
  replay_verified: boolean | null;
  evidence_snippet: string;
  dedup_count: number;
  user_id: string;
  assigned_at: string;
  snippet_parsed: { excerpt: string; mechanism: string } | null;
}
export interface Report {
  report_id: string;
  conversation_id: string;
  status: string;
  problem_found: boolean;
  mechanism: string;
  narrative: string;
  citations: Array<{ path: string; ref: string; quote: string }>;
  signals_explained: number;
  signals_total: number;
  suspected_surface: string;
  severity: string;
  confidence: number;
  primary_family: string;
  investigated_at: string;
}
export interface Sample {
  kind: string;
  passed: boolean;
  rubric_version: number;
  conversation_id: string;
  rationale: string;
  verified_at: string;
}
export interface ProblemDetail {
  found: boolean;
  problem_id: string | null;
  requested_problem_id: string;
  alias_resolved: boolean;
  header: ProblemRow | null;
  rubric: {
    version: number;
    cause_statement: string;
    display_name: string;
    display_description: string;
    change_reason: string;
    match_criteria: { any_of: Array<Record<string, string>> };
    counter_examples: Array<{ conversation_id: string; signal_family: string; signal_type: string; reason: string }>;
    scope_hints: string[];
    updated_at: string;
    tier: string;
    provisional: boolean;
    affected_surface: string;
    causal_content_version: number;
  } | null;
  trend: Array<{ run_ts: string; rank_score: number; total_attributions: number; rubric_version: number; coverage_overall: number }>;
  sub_problems: Array<{ problem_id: string; display_name: string; lifecycle: string }>;
  verification: { audit_pass_rate: number | null; judge_audit: { passed: number; total: number }; counterfactual_replay: { passed: number; total: number }; samples: Sample[] } | null;
  evidence: Evidence[];
  affected_conversations: Array<{ conversation_id: string; user_id: string; signal_count: number; family_counts: Record<string, number>; last_signal_at: string }>;
  remainder: Remainder | null;
  investigation_reports: { items: Report[]; has_more: boolean; next_cursor: string | null };
  confidence: { current_rubric_version: number; causal_content_version: number; verification_status: string; audited_causal_content_version: number | null } | null;
  change_history: Array<{ event_id: string; event_kind: string; related_problem_id: string | null; rubric_version: number; reason: string; created_ts: string }>;
  impact_identity: { known_users: number; unknown_identity_conversations: number; total_conversations: number; identity_coverage_pct: number } | null;
  hierarchy: { tier: string; parent: { problem_id: string; display_name: string } | null; children: Array<{ problem_id: string; display_name: string }> } | null;
  dossier: { executive_summary: string; causal_chain: Array<{ step: number; kind: string; description: string; count: number }>; suggested_investigation: string[]; limitations: string[]; computed_at: string } | null;
  stories: Array<{ story_kind: string; evidence: Evidence; verification: Sample | null }>;
}
export interface FeedbackRow {
  feedback_id: string;
  feedback_kind: string;
  reason: string;
  attribution_id: string | null;
  new_display_name: string | null;
  actor: string;
  status: string;
  created_at: string;
}
