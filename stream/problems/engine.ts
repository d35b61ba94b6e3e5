/**
 * One pass of the problems engine, pure and deterministic (docs/analyses.md "Problems"): the
 * previous run's problems, the tenant's negative signals and the pending feedback in; the next
 * run's problems, attributions, reports, change events and counts out.
 *
 * Order: feedback applied → cause signals attributed by `rubric_match` (or, for a claim checked
 * against a failed call, by `local_causal_chain` to that call's problem) → unexplained cause
 * signals grouped by cause, groups with support become problems → effect signals attributed to the
 * problem of the cause that precedes them (`local_causal_chain`) or held in the remainder →
 * merges → hierarchy → lifecycle → metrics and rank → verification.
 *
 * The steps live beside this file: feedback (apply-feedback.ts), attribution of causes and effects
 * (attribute.ts, by the criteria of criteria.ts), discovery and promotion (discover.ts), merges
 * (merge.ts), attribution rows (attribution-rows.ts), hierarchy (hierarchy.ts), lifecycle
 * (lifecycle.ts), metrics (metrics.ts), verification (verify.ts), reports and dossiers
 * (reports.ts); the state they share is run-state.ts, the pass's contract engine-contract.ts.
 */
import { applyFeedback } from './apply-feedback.js';
import { attributeEffects, createAttributionState, followFailedSegments } from './attribute.js';
import { attributionRows, groupByProblem } from './attribution-rows.js';
import { createDiscovery } from './discover.js';
import { DEFAULT_ENGINE_CONFIG, type EngineInput, type EngineOutput } from './engine-contract.js';
import { groupMacroProblems } from './hierarchy.js';
import { advanceLifecycles } from './lifecycle.js';
import { mergeProblems } from './merge.js';
import { computeMetrics } from './metrics.js';
import { rankScore } from './rank.js';
import { buildReports } from './reports.js';
import { createRunState } from './run-state.js';
import { PROBLEMS_ENGINE_VERSION, type RunStats, type Signal } from './types.js';
import { verifyProblems, type VerifyContext } from './verify.js';

export { DEFAULT_ENGINE_CONFIG, type EngineConfig, type EngineInput, type EngineOutput } from './engine-contract.js';
export { causeKeyOf, matches } from './criteria.js';
export { emptyMetrics, metricsOf } from './metrics.js';
export { attributionIdOf } from './attribution-rows.js';

/** One engine pass, in the order above. */
export function runEngine(input: EngineInput): EngineOutput {
  const cfg = { ...DEFAULT_ENGINE_CONFIG, ...input.config };
  const run = createRunState({ tenant: input.tenant, runId: input.runId, now: input.now, cfg, previous: input.previous });
  const { nowIso, problems, groundTruth } = run;

  // 1. feedback, oldest first
  const feedbackOut = applyFeedback(run, input.feedback, input.previousAttributions);

  const st = createAttributionState(run, input.signals);
  const { signals, conversations, sigIndex, causeSignals, explained, attributeByRubric, chainClaims } = st;

  // 2. cause signals: claims checked against a failed call chain to that call; the rest by rubric
  attributeByRubric(causeSignals.filter((s) => s.kind === 'tool_failure'));
  chainClaims();
  attributeByRubric(causeSignals);

  // 3. discovery from unexplained cause signals sharing a cause
  const discovery = createDiscovery(run, st, input.conversationCount);
  discovery.discover(causeSignals);
  chainClaims();
  attributeByRubric(causeSignals);

  // 4. effects through the cause that precedes them (unless flagged away from that problem)
  attributeEffects(run, st);

  // 4b. failed segments nothing above explains, grouped by use case and failure type; the
  // negative turns of such a segment after its first bad step follow it
  const stepSignals = signals.filter((s) => s.kind === 'step_score' && s.cluster_id);
  attributeByRubric(stepSignals);
  discovery.discover(stepSignals);
  attributeByRubric(stepSignals);
  followFailedSegments(st);

  // 5. merges: two live leaves explaining the same conversations are one cause; then the
  // promotion of emerging problems whose support grew
  mergeProblems(run, st, input.previous, discovery.counts);
  discovery.promote();

  // 6. attribution rows (one per problem, conversation and signal group)
  const rows = attributionRows(run, st, input.previousAttributions);
  const rowsOf = groupByProblem(rows);

  // 7. hierarchy: leaves failing the same way on different tools share a macro problem
  groupMacroProblems(run);

  // 8. lifecycle: recurrence after a fix reopens; a clean period resolves
  advanceLifecycles(run, rowsOf);

  // 9. metrics
  computeMetrics(run, st, input.blended, rowsOf);

  // 10. verification, then the rank of the problems it found current
  const causesByConversation = new Map<string, Signal[]>();
  for (const s of causeSignals) {
    let l = causesByConversation.get(s.conversation_id);
    if (!l) causesByConversation.set(s.conversation_id, (l = []));
    l.push(s);
  }
  const vctx: VerifyContext = { signals: sigIndex, explained, problems, rowsOf, config: cfg, now: nowIso, groundTruth, causesByConversation };
  const verifiedThisRun = verifyProblems(vctx);
  const replays = new Map<string, boolean>();
  for (const p of problems.values()) {
    for (const x of p.samples) if (x.kind === 'counterfactual_replay' && x.causal_content_version === p.rubric.causal_content_version) replays.set(x.attribution_id, x.passed);
  }
  for (const r of rows) r.replay_verified = replays.get(r.attribution_id) ?? null;
  for (const p of problems.values()) {
    if (p.status === 'merged') continue;
    p.metrics.rank_score = p.verification_status === 'current' ? rankScore(p.metrics) : 0;
  }

  // 11. reports and dossiers
  const reports = buildReports(run, st, rowsOf);

  // 12. counts
  const attributedSignals = [...explained].filter(([, e]) => {
    const p = problems.get(e.problem);
    return p && p.status === 'active' && p.lifecycle !== 'resolved';
  }).length;
  const liveProblems = [...problems.values()].filter((p) => p.status === 'active');
  const stats: RunStats = {
    signals: signals.length,
    cause_signals: causeSignals.length,
    attributed_signals: attributedSignals,
    unexplained_signals: signals.length - explained.size,
    historically_attributed_signals: explained.size,
    conversations: conversations.size,
    discovery: discovery.counts,
    verification: {
      live_total: liveProblems.length,
      current: liveProblems.filter((p) => p.verification_status === 'current').length,
      stale: liveProblems.filter((p) => p.verification_status === 'stale').length,
      failed: liveProblems.filter((p) => p.verification_status === 'failed').length,
      unverified: liveProblems.filter((p) => p.verification_status === 'unverified').length,
      verified_this_run: verifiedThisRun,
    },
    remainder_backlog: { pending_groups: discovery.backlog.pending_groups, pending_mass: discovery.backlog.pending_mass },
    feedback_applied: feedbackOut.filter((f) => f.applied).length,
  };
  return {
    problems: [...problems.values()].sort((a, b) => (a.problem_id < b.problem_id ? -1 : 1)),
    attributions: rows,
    reports,
    events: run.events,
    definitions: run.definitions,
    aliases: run.aliases,
    feedback: feedbackOut,
    stats,
    explained: new Map([...explained].map(([k, v]) => [k, v.problem])),
  };
}

export { PROBLEMS_ENGINE_VERSION };
