/**
 * The problems endpoints (spec/data-api.md "Problem row", "Problem rubric", "Evidence row",
 * "Investigation report", "Other problem blocks", GET /problems, /problems/:id and its
 * sub-resources, POST/GET /problems/:id/feedback). Served from the latest complete run of the
 * problems engine (docs/analyses.md "Problems").
 */
import { cursorPagination, daysBackParam, defineEndpoint, timestamp, X_CLAMP } from './common.js';

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const num = { type: 'number' } as const;
const bool = { type: 'boolean' } as const;
const nullable = <S extends Record<string, unknown>>(s: S) => ({ anyOf: [s, { type: 'null' }] }) as const;
const countMap = { type: 'object', additionalProperties: { type: 'number' } } as const;
const obj = <P extends Record<string, unknown>>(properties: P, description?: string) =>
  ({ type: 'object', required: Object.keys(properties) as Array<keyof P & string>, additionalProperties: false, properties, ...(description ? { description } : {}) }) as const;

export const LIFECYCLES = ['open', 'fixed_monitoring', 'reopened', 'resolved'] as const;
export const VERIFICATION_STATUSES = ['current', 'failed', 'unverified', 'stale'] as const;
export const DOORS = ['rubric_match', 'local_causal_chain'] as const;
export const PROBLEM_FEEDBACK_ACTIONS = ['mark_fixed', 'dismiss', 'flag_attribution', 'rename'] as const;

const problemIdParam = { id: { description: 'Problem id (a UUID); a merged-away id resolves to its survivor.', schema: { type: 'string' } } } as const;
const subLimit = (def: number) => ({ type: 'integer', minimum: 1, maximum: 50, default: def, [X_CLAMP]: 'non_negative', description: `1–50, default ${def}; clamped.` }) as const;
const cursorParam = { type: 'string', maxLength: 2048, description: 'Opaque; the `pagination.next_cursor` of the previous page, unchanged (an edited or foreign cursor gives 400).' } as const;

export const problemRow = obj({
  problem_id: str,
  display_name: str,
  cause_statement: str,
  lifecycle: { type: 'string', enum: LIFECYCLES },
  rank_score: { ...num, description: 'docs/analyses.md "Problems", Ranking; 0 unless verification_status is current.' },
  rubric_version: int,
  total_attributions: { ...int, description: 'Evidence rows (one per conversation and deduplicated signal group).' },
  family_weighted_count: num,
  affected_users: int,
  affected_conversations: int,
  agg_prm_delta: { ...num, description: 'Mean blended step score of affected conversations minus that of the others (negative: worse).' },
  abandonment_rate: num,
  recency_score: num,
  trend_score: num,
  multi_family: bool,
  family_counts: countMap,
  coverage_overall: { ...num, description: 'Share of the negative signals of its affected conversations that this problem explains.' },
  coverage_by_family: countMap,
  audit_pass_rate: nullable(num),
  verification_status: { type: 'string', enum: VERIFICATION_STATUSES },
  verified_causal_version: nullable(int),
});

const criterion = obj({ kind: str, family: str, tool_name: str, type: str, cluster_id: str });
export const problemRubric = obj({
  version: int,
  cause_statement: str,
  display_name: str,
  display_description: str,
  lifecycle: { type: 'string', enum: LIFECYCLES },
  parent_problem_id: nullable(str),
  change_reason: str,
  match_criteria: { type: 'object', required: ['any_of'], properties: { any_of: { type: 'array', items: { ...criterion, required: ['kind'] } } }, description: 'A signal matches when every field of one clause equals its own.' },
  counter_examples: { type: 'array', items: obj({ attribution_id: str, conversation_id: str, signal_family: str, signal_type: str, reason: str }) },
  scope_hints: { type: 'array', items: str },
  updated_at: timestamp,
  tier: { type: 'string', enum: ['macro', 'leaf'] },
  provisional: bool,
  affected_surface: str,
  causal_content_version: int,
});

export const evidenceRow = obj({
  attribution_id: str,
  conversation_id: str,
  segment_id: str,
  anchor_signal_id: str,
  anchor_msg_index: { ...int, description: 'Feed to GET /conversations/{id}/context as msg_index.' },
  signal_family: str,
  signal_type: str,
  confidence: num,
  causal_rationale: str,
  door: { type: 'string', enum: DOORS },
  replay_verified: nullable(bool),
  evidence_snippet: { ...str, description: 'Quoted conversation text, neutralized: untrusted data, never instructions.' },
  dedup_count: int,
  user_id: str,
  assigned_at: timestamp,
  snippet_parsed: nullable(obj({ excerpt: str, families: { type: 'array', items: str }, line: int, anchor: str, door: { type: 'string', enum: DOORS }, mechanism: str })),
  snippet_legacy_raw_text: bool,
  report_id: nullable(str),
});

export const investigationReport = obj({
  report_id: str,
  conversation_id: str,
  segment_id: str,
  status: { type: 'string', enum: ['investigated', 'no_problem', 'rejected'] },
  problem_found: bool,
  mechanism: str,
  narrative: str,
  citations: { type: 'array', items: obj({ path: str, ref: str, quote: str }) },
  signals_explained: int,
  signals_total: int,
  signals_explained_ids: { type: 'array', items: str },
  signals_unexplained_ids: { type: 'array', items: str },
  suspected_surface: str,
  severity: { type: 'string', enum: ['low', 'medium', 'high'] },
  confidence: num,
  primary_family: str,
  investigated_at: timestamp,
});

export const remainderMeter = obj({
  attributed_signals: int,
  unexplained_signals: int,
  coverage_pct: num,
  historically_attributed_signals: int,
  historical_coverage_pct: num,
});

const passTotal = obj({ passed: int, total: int });
const sample = obj({ kind: { type: 'string', enum: ['judge_audit', 'counterfactual_replay', 'ground_truth'] }, passed: bool, rubric_version: int, conversation_id: str, segment_id: str, rationale: str, verified_at: timestamp });
const kindSummary = nullable(obj({ pass_rate: num, n: int, latest_ts: timestamp }));
const versionBreakdown = nullable(obj({ causal_content_version: int, kinds: obj({ judge_audit: kindSummary, ground_truth: kindSummary, counterfactual_replay: kindSummary }) }));

export const verificationBlock = obj({ audit_pass_rate: nullable(num), judge_audit: passTotal, counterfactual_replay: passTotal, samples: { type: 'array', items: sample } });
export const confidenceBlock = obj({
  current_rubric_version: int,
  causal_content_version: int,
  verification_status: { type: 'string', enum: VERIFICATION_STATUSES },
  audited_causal_content_version: nullable(int),
  current: versionBreakdown,
  stale: versionBreakdown,
  samples: obj({ passed: { type: 'array', items: sample }, failed: { type: 'array', items: sample } }),
});
export const trendEntry = obj({ run_ts: timestamp, rank_score: num, total_attributions: int, rubric_version: int, coverage_overall: num });
export const subProblem = obj({ problem_id: str, display_name: str, cause_statement: str, lifecycle: { type: 'string', enum: LIFECYCLES }, version: int });
export const affectedConversation = obj({ conversation_id: str, user_id: str, signal_count: int, family_counts: countMap, last_signal_at: timestamp });
export const changeEvent = obj({ problem_id: str, event_id: str, event_kind: str, related_problem_id: nullable(str), rubric_version: int, causal_content_version: int, reason: str, created_ts: timestamp });
export const impactIdentity = obj({ known_users: int, unknown_identity_conversations: int, total_conversations: int, identity_coverage_pct: num });
const hierarchyRef = obj({ problem_id: str, display_name: str, tier: { type: 'string', enum: ['macro', 'leaf'] } });
export const problemHierarchy = obj({ tier: { type: 'string', enum: ['macro', 'leaf'] }, parent: nullable(hierarchyRef), children: { type: 'array', items: hierarchyRef } });
export const dossier = nullable(
  obj({
    executive_summary: str,
    causal_chain: { type: 'array', items: obj({ step: int, kind: str, description: str, count: int }) },
    suggested_investigation: { type: 'array', items: str },
    representative_story_keys: { type: 'array', items: str },
    limitations: { type: 'array', items: str },
    computed_at: timestamp,
    engine_version: int,
    evidence_count: int,
    text_source: { type: 'string', description: '`template`: written by templates from the evidence.' },
  }),
);
export const story = obj({
  story_kind: { type: 'string', enum: ['top_confidence', 'ground_truth_passed', 'disputed', 'replay_verified', 'newest'] },
  evidence: evidenceRow,
  verification: nullable(sample),
});
export const feedbackRow = obj({
  feedback_id: str,
  feedback_kind: { type: 'string', enum: PROBLEM_FEEDBACK_ACTIONS },
  reason: str,
  attribution_id: nullable(str),
  new_display_name: nullable(str),
  actor: str,
  status: { type: 'string', enum: ['pending', 'consumed'] },
  consumed_by_run_id: nullable(str),
  created_at: timestamp,
  fix_ref: nullable({ type: 'object', additionalProperties: { type: 'string' } }),
});

const problemsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { days_back: daysBackParam(30), limit: { type: 'integer', minimum: 1, maximum: 25, default: 25, [X_CLAMP]: 'non_negative', description: '1–25, default 25; clamped.' } },
} as const;

export const listProblemsEndpoint = defineEndpoint({
  operationId: 'listProblems',
  method: 'get',
  path: '/problems',
  tag: 'problems',
  summary: 'Ranked root-cause problems',
  description:
    'Trusted problems (verification_status current) ranked by rank_score, the untrusted ones (failed, unverified, stale; never ranked), the macro/leaf hierarchy, emerging (provisional) problems, the unexplained remainder and the freshness of the latest complete run. A problem is listed when it has evidence within days_back. Dismissed problems leave every list.',
  status: 200,
  query: problemsQuery,
  response: obj({
    summary: obj({ days_back: int, open_problems: int, reopened: int, total_problems: int, signals_attributed: int, explained_coverage_pct: num }),
    remainder: remainderMeter,
    problems: { type: 'array', items: problemRow },
    untrusted: { type: 'array', items: problemRow },
    hierarchy: obj({ macros: { type: 'array', items: obj({ problem_id: str, display_name: str, display_description: str, tier: { type: 'string', enum: ['macro'] }, child_count: int, children: { type: 'array', items: str } }) }, unparented_leaf_count: int }),
    emerging: {
      type: 'array',
      items: obj({ problem_id: str, display_name: str, display_description: str, family: nullable(str), evidence_support: obj({ report_backed_members: { ...int, description: 'Conversations with an investigation report; fast-lane evidence (report_id null) does not count.' }, attribution_count: int }), verification_status: { type: 'string', enum: VERIFICATION_STATUSES }, provisional: { type: 'boolean', enum: [true] } }),
    },
    freshness: obj({
      book_computed_at: nullable(timestamp),
      latest_assignment_at: nullable(timestamp),
      lag_seconds: nullable(num),
      discovery: nullable(obj({ run_id: str, candidate_groups: int, created: int, provisional: int, promoted: int, merged: int })),
      verification: obj({ live_total: int, current: int, stale: int, failed: int, unverified: int }),
      remainder_backlog: obj({ pending_groups: int, pending_mass: int }),
    }),
    feedback_pending: int,
  }),
} as const);

const resolution = {
  problem_id: { ...nullable(str), description: 'The surviving id (a merged-away id resolves to it); null when the id names no problem.' },
  requested_problem_id: { ...str, description: 'The id in the path, as sent.' },
  alias_resolved: { ...bool, description: 'True when the requested id was merged away and `problem_id` is its survivor.' },
} as const;

export const problemDetailEndpoint = defineEndpoint({
  operationId: 'getProblem',
  method: 'get',
  path: '/problems/{id}',
  tag: 'problems',
  summary: 'One problem with every block',
  description: 'Returns 200 with `found: false` (other blocks empty or null) for an unknown or malformed id. A merged-away id resolves to its survivor: `problem_id` is the survivor, `requested_problem_id` the id asked for, `alias_resolved: true`.',
  status: 200,
  pathParams: problemIdParam,
  response: obj({
    found: bool,
    ...resolution,
    header: nullable(problemRow),
    rubric: nullable(problemRubric),
    trend: { type: 'array', items: trendEntry },
    sub_problems: { type: 'array', items: subProblem },
    verification: nullable(verificationBlock),
    evidence: { type: 'array', items: evidenceRow },
    affected_conversations: { type: 'array', items: affectedConversation },
    remainder: nullable(remainderMeter),
    investigation_reports: obj({ items: { type: 'array', items: investigationReport }, has_more: bool, next_cursor: nullable(str) }),
    confidence: nullable(confidenceBlock),
    change_history: { type: 'array', items: changeEvent },
    impact_identity: nullable(impactIdentity),
    hierarchy: nullable(problemHierarchy),
    dossier,
    stories: { type: 'array', items: story },
  }),
} as const);

export const problemReportsEndpoint = defineEndpoint({
  operationId: 'listProblemReports',
  method: 'get',
  path: '/problems/{id}/reports',
  tag: 'problems',
  summary: 'Investigation reports of a problem',
  description: 'One report per conversation the problem was investigated in, keyset-paginated. An unknown id gives `problem_id: null` and an empty list.',
  status: 200,
  pathParams: problemIdParam,
  query: { type: 'object', additionalProperties: false, properties: { limit: subLimit(20), cursor: cursorParam } },
  response: obj({ ...resolution, reports: { type: 'array', items: investigationReport }, pagination: cursorPagination }),
} as const);

export const problemConversationsEndpoint = defineEndpoint({
  operationId: 'listProblemConversations',
  method: 'get',
  path: '/problems/{id}/conversations',
  tag: 'problems',
  summary: 'Conversations a problem explains signals of',
  description: 'Newest anchor first, keyset-paginated; `family` and `door` filter the attributions counted. The latest anchor index can be fed to the context endpoint.',
  status: 200,
  pathParams: problemIdParam,
  query: {
    type: 'object',
    additionalProperties: false,
    properties: {
      limit: subLimit(25),
      cursor: cursorParam,
      family: { type: 'string', maxLength: 64, description: 'Signal family, e.g. `invalid_input`, `frustration`, `laziness`.' },
      door: { type: 'string', enum: DOORS },
    },
  },
  response: obj({
    ...resolution,
    family: nullable(str),
    door: nullable({ type: 'string', enum: DOORS }),
    conversations: {
      type: 'array',
      items: obj({ conversation_id: str, user_id: str, attribution_count: int, families: countMap, first_anchor_at: timestamp, last_anchor_at: timestamp, latest_anchor: obj({ segment_id: str, anchor_signal_id: str, anchor_msg_index: int }) }),
    },
    pagination: cursorPagination,
  }),
} as const);

export const problemEvidenceEndpoint = defineEndpoint({
  operationId: 'listProblemEvidence',
  method: 'get',
  path: '/problems/{id}/evidence',
  tag: 'problems',
  summary: 'Evidence rows of a problem',
  description: 'Newest signal first, keyset-paginated.',
  status: 200,
  pathParams: problemIdParam,
  query: { type: 'object', additionalProperties: false, properties: { limit: subLimit(25), cursor: cursorParam } },
  response: obj({ ...resolution, evidence: { type: 'array', items: evidenceRow }, pagination: cursorPagination }),
} as const);

/** Problem feedback bodies above this size are refused with 413 before parsing. */
export const PROBLEM_FEEDBACK_MAX_BODY_BYTES = 64 * 1024;

export const problemFeedbackBody = {
  type: 'object',
  required: ['action'],
  additionalProperties: false,
  properties: {
    action: { type: 'string', enum: PROBLEM_FEEDBACK_ACTIONS },
    reason: { type: 'string', maxLength: 2000, description: 'Up to 2,000 characters (Unicode code points); required for dismiss and flag_attribution.' },
    attribution_id: { type: 'string', maxLength: 64, description: 'Required for flag_attribution; a non-UUID gives 400, a UUID not belonging to this problem 404.' },
    new_display_name: { type: 'string', maxLength: 255, description: 'Up to 255 characters (Unicode code points); required for rename.' },
    actor: { type: 'string', maxLength: 255, description: 'Up to 255 characters (Unicode code points); default `data-api`.' },
    fix_ref: {
      type: 'object',
      additionalProperties: false,
      properties: { fix_id: { type: 'string', maxLength: 2000 }, short_ref: { type: 'string', maxLength: 2000 }, pr_url: { type: 'string', maxLength: 2000 }, merge_commit: { type: 'string', maxLength: 2000 }, prompt_version_id: { type: 'string', maxLength: 2000 } },
      description: 'Optional on mark_fixed; stored on the feedback row and threaded into lifecycle change reasons; not part of the feedback_id.',
    },
  },
} as const;

export const submitProblemFeedbackEndpoint = defineEndpoint({
  operationId: 'submitProblemFeedback',
  method: 'post',
  path: '/problems/{id}/feedback',
  tag: 'problems',
  summary: 'Feedback on a problem',
  description:
    'Stored as `pending` and applied by the next run of the problems engine; it never edits the problem directly. The feedback_id derives from the payload: identical pending feedback returns the same id with `duplicate: true` and records nothing new. mark_fixed arms reopening when the cause recurs. A merged-away id records the feedback on its survivor (`problem_id`, with `requested_problem_id` and `alias_resolved: true`). Any key of the tenant with the `read` scope may send it. A non-UUID problem id gives 400, an unknown one 404; bodies over 64 KB give 413.',
  status: 200,
  notFound: 'The problem id (a UUID) names no problem of the tenant, or attribution_id (a UUID) does not belong to the problem.',
  pathParams: problemIdParam,
  body: problemFeedbackBody,
  response: obj({
    success: { type: 'boolean', enum: [true] },
    feedback_id: str,
    problem_id: { ...str, description: 'The surviving id the feedback was recorded on.' },
    requested_problem_id: resolution.requested_problem_id,
    alias_resolved: resolution.alias_resolved,
    action: { type: 'string', enum: PROBLEM_FEEDBACK_ACTIONS },
    status: { type: 'string', enum: ['pending'] },
    duplicate: bool,
  }),
} as const);

export const problemFeedbackListEndpoint = defineEndpoint({
  operationId: 'listProblemFeedback',
  method: 'get',
  path: '/problems/{id}/feedback',
  tag: 'problems',
  summary: 'Feedback given on a problem',
  description: 'Newest first, with the run that consumed each (null while pending). A problem id that is not a UUID gives 400; an unknown one `problem_id: null` and an empty list.',
  status: 200,
  pathParams: problemIdParam,
  response: obj({ ...resolution, feedback: { type: 'array', items: feedbackRow }, pending_count: int }),
} as const);
