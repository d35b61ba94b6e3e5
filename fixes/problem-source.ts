/**
 * The narrow view of the problems engine the fix pipeline needs (spec/data-api.md "Problems"):
 * read a problem (aliases resolved), list ranked problems, read its trusted attributions, post
 * problem feedback, and run the engine once. One adapter binds it to the engine; tests of the
 * pipeline alone may bind it to anything that keeps the same contract.
 */
export type ProblemLifecycle = 'open' | 'fixed_monitoring' | 'reopened' | 'resolved';

export interface ProblemInfo {
  /** The surviving problem id (a merged-away id resolves to its survivor). */
  problemId: string;
  requestedProblemId: string;
  aliasResolved: boolean;
  lifecycle: ProblemLifecycle;
  /** When the problem last entered fixed-monitoring (mark_fixed applied by a run); null when it never did. */
  fixedAt: string | null;
  rubricVersion: number;
  displayName: string;
  causeStatement: string;
  rankScore: number;
  /** Rubric match criteria (free-form object of the problem definition). */
  matchCriteria: Record<string, unknown>;
  counterExamples: string[];
  /** Signal families seen in the problem's evidence (e.g. tool-failure or emotion families). */
  families: string[];
}

export interface TrustedAttribution {
  conversationId: string;
  /** Message index of the anchor signal (feeds the context endpoint). */
  msgIndex: number;
}

export interface ProblemFeedbackInput {
  action: 'mark_fixed' | 'dismiss';
  actor: string;
  reason?: string;
  fix_ref?: { fix_id: string; short_ref: string; pr_url: string; merge_commit: string; prompt_version_id: string };
}

export interface ProblemSource {
  /** One run of the engine for a tenant (applies pending feedback, reopens recurrences). */
  runOnce(tenant: string): Promise<void>;
  /** null for an unknown problem. */
  get(tenant: string, problemId: string): Promise<ProblemInfo | null>;
  /** Trusted, ranked problems, best first, at most `limit`. */
  listRanked(tenant: string, limit: number): Promise<ProblemInfo[]>;
  trustedAttributions(tenant: string, problemId: string): Promise<TrustedAttribution[]>;
  /** Posts problem feedback; identical pending feedback returns the same id with `duplicate: true`. */
  submitFeedback(tenant: string, problemId: string, input: ProblemFeedbackInput): Promise<{ feedbackId: string; duplicate: boolean }>;
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
