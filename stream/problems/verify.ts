/**
 * Verification of problems (docs/analyses.md "Problems", Verification). For a sample of a problem's
 * attributions a deterministic judge re-checks each against the current rubric (the cause signal
 * still matches, is not a counter-example, precedes its effect closely enough), and a
 * counterfactual replay removes the problem and asks whether the signal would still be explained
 * (by another problem's rubric, or another cause between the attributed one and the effect): if so
 * the attribution did not depend on this cause and the replay fails. Results are stamped with the
 * problem's `causal_content_version`; a problem whose definition changed since it was verified is
 * `stale` until verified again.
 */
import { unitHash } from './text.js';
import { CAUSE_KINDS, type Attribution, type ProblemState, type Signal, type VerificationSample } from './types.js';
import { matches } from './criteria.js';
import type { EngineConfig } from './engine-contract.js';

export interface VerifyContext {
  signals: ReadonlyMap<string, Signal>;
  explained: ReadonlyMap<string, { problem: string; door: string; cause: Signal; explicit: boolean }>;
  problems: Map<string, ProblemState>;
  rowsOf: ReadonlyMap<string, Attribution[]>;
  config: EngineConfig;
  now: string;
  /**
   * Ground truth from feedback: a flagged attribution (failed), or an audited attribution of a
   * problem an analyst confirmed or whose fix held (passed, stamped with the causal version the
   * confirmation saw).
   */
  groundTruth: ReadonlyArray<GroundTruth>;
  /** Cause signals of each conversation. */
  causesByConversation?: ReadonlyMap<string, readonly Signal[]>;
}

export interface GroundTruth {
  problem_id: string;
  attribution_id: string;
  conversation_id: string;
  segment_id: string;
  reason: string;
  passed?: boolean;
  causal_content_version?: number;
}

/** Judge pass rate and counterfactual pass rate needed for `current`. */
export const JUDGE_THRESHOLD = 0.7;
export const COUNTERFACTUAL_THRESHOLD = 0.6;
/** Implicit chains (nearest preceding cause) farther than this many messages fail the judge. */
export const IMPLICIT_CHAIN_LIMIT = 4;

export function judge(p: ProblemState, r: Attribution, ctx: Pick<VerifyContext, 'signals' | 'explained'>): { passed: boolean; rationale: string } {
  const anchor = ctx.signals.get(r.anchor_signal_id);
  const cause = ctx.signals.get(r.cause_signal_id);
  if (!anchor || !cause) return { passed: false, rationale: 'the signal is no longer recorded' };
  if (!p.rubric.match_criteria.any_of.some((c) => matches(c, cause))) return { passed: false, rationale: 'the cause signal no longer matches the rubric' };
  if (p.rubric.counter_examples.some((c) => c.conversation_id === r.conversation_id && c.signal_family === r.signal_family && c.signal_type === r.signal_type)) {
    return { passed: false, rationale: 'the signal is a counter-example of the rubric' };
  }
  if (r.door === 'rubric_match') {
    return anchor.confidence >= 0.3 ? { passed: true, rationale: `the ${anchor.kind.replace('_', ' ')} matches the rubric` } : { passed: false, rationale: `detection confidence ${anchor.confidence} is too weak` };
  }
  const start = cause.call_msg_index ?? cause.msg_index;
  if (start > anchor.msg_index) return { passed: false, rationale: 'the cause comes after the effect' };
  const e = ctx.explained.get(anchor.signal_id);
  const explicit = e?.explicit ?? false;
  const distance = Math.max(0, anchor.msg_index - cause.msg_index);
  if (!explicit && distance > IMPLICIT_CHAIN_LIMIT) return { passed: false, rationale: `no reference links the ${anchor.kind} to the cause, ${distance} messages apart` };
  return { passed: true, rationale: explicit ? 'the analysis links the signal to the cause' : `the cause precedes the signal by ${distance} message(s)` };
}

export function counterfactual(p: ProblemState, r: Attribution, ctx: Pick<VerifyContext, 'signals' | 'explained' | 'problems' | 'causesByConversation'>): { passed: boolean; rationale: string } {
  const anchor = ctx.signals.get(r.anchor_signal_id);
  const cause = ctx.signals.get(r.cause_signal_id);
  if (!anchor || !cause) return { passed: false, rationale: 'the signal is no longer recorded' };
  for (const q of ctx.problems.values()) {
    if (q.problem_id === p.problem_id || q.status === 'merged' || q.rubric.tier !== 'leaf') continue;
    if (q.rubric.match_criteria.any_of.some((c) => matches(c, cause))) return { passed: false, rationale: `without this problem, "${q.rubric.display_name}" would explain it` };
  }
  if (r.door === 'local_causal_chain' && !CAUSE_KINDS.has(anchor.kind)) {
    for (const s of ctx.causesByConversation?.get(anchor.conversation_id) ?? []) {
      const e = ctx.explained.get(s.signal_id);
      if (!e || e.problem === p.problem_id) continue;
      if (s.msg_index > cause.msg_index && s.msg_index <= anchor.msg_index) return { passed: false, rationale: `another cause (${s.kind} at message ${s.msg_index}) sits between the attributed cause and the signal` };
    }
  }
  return { passed: true, rationale: 'without this cause the signal would be unexplained' };
}

/** Verifies the problems that need it (within budget), sets every problem's status; returns how many were verified. */
export function verifyProblems(ctx: VerifyContext): number {
  const { config, problems } = ctx;
  for (const g of ctx.groundTruth) {
    const p = problems.get(g.problem_id);
    if (!p) continue;
    const passed = g.passed === true;
    const ccv = g.causal_content_version ?? p.rubric.causal_content_version;
    // an attribution flagged once is never confirmed later; a confirmation is recorded once per version
    if (passed && p.samples.some((s) => s.kind === 'ground_truth' && s.attribution_id === g.attribution_id && (!s.passed || s.causal_content_version === ccv))) continue;
    if (!passed) p.samples = p.samples.filter((s) => !(s.kind === 'ground_truth' && s.passed && s.attribution_id === g.attribution_id));
    p.samples.push({ kind: 'ground_truth', passed, rubric_version: p.rubric.version, causal_content_version: ccv, attribution_id: g.attribution_id, conversation_id: g.conversation_id, segment_id: g.segment_id, rationale: passed ? g.reason : `flagged: ${g.reason}`, verified_at: ctx.now });
  }
  const candidates = [...problems.values()].filter((p) => p.status !== 'merged' && p.rubric.tier === 'leaf' && !p.rubric.provisional && (ctx.rowsOf.get(p.problem_id)?.length ?? 0) > 0);
  const needs = (p: ProblemState) => p.verified_causal_version !== p.rubric.causal_content_version || p.metrics.signal_count >= Math.max(p.support_at_verification * 1.25, p.support_at_verification + 5);
  const queue = candidates.filter(needs).sort((a, b) => b.metrics.signal_count - a.metrics.signal_count || (a.problem_id < b.problem_id ? -1 : 1));
  let verified = 0;
  for (const p of queue.slice(0, config.verifyBudget)) {
    const ccv = p.rubric.causal_content_version;
    const rows = (ctx.rowsOf.get(p.problem_id) ?? [])
      .map((r) => ({ r, h: unitHash(`${r.attribution_id}:${ccv}`) }))
      .sort((a, b) => a.h - b.h)
      .slice(0, config.sampleSize)
      .map((x) => x.r);
    const fresh: VerificationSample[] = [];
    for (const r of rows) {
      const j = judge(p, r, ctx);
      const c = counterfactual(p, r, ctx);
      const base = { rubric_version: p.rubric.version, causal_content_version: ccv, attribution_id: r.attribution_id, conversation_id: r.conversation_id, segment_id: r.segment_id, verified_at: ctx.now };
      fresh.push({ kind: 'judge_audit', passed: j.passed, rationale: j.rationale, ...base }, { kind: 'counterfactual_replay', passed: c.passed, rationale: c.rationale, ...base });
    }
    // keep ground truth, and audits of the current and the previous causal version
    p.samples = [...p.samples.filter((s) => s.kind === 'ground_truth' || (s.causal_content_version !== ccv && s.causal_content_version >= ccv - 1)), ...fresh];
    const rate = (kind: string) => {
      const xs = fresh.filter((s) => s.kind === kind);
      return xs.length ? xs.filter((s) => s.passed).length / xs.length : 0;
    };
    p.verified_causal_version = ccv;
    p.verified_total = rows.length;
    p.support_at_verification = p.metrics.signal_count;
    p.verification_status = rate('judge_audit') >= JUDGE_THRESHOLD && rate('counterfactual_replay') >= COUNTERFACTUAL_THRESHOLD ? 'current' : 'failed';
    verified += 1;
  }
  for (const p of problems.values()) {
    if (p.status === 'merged') continue;
    if (p.rubric.tier === 'macro') {
      const kids = [...problems.values()].filter((c) => c.rubric.parent_problem_id === p.problem_id && c.status === 'active');
      p.verification_status = kids.length && kids.filter((c) => c.verification_status === 'current').length * 2 >= kids.length ? 'current' : 'unverified';
      p.verified_causal_version = p.verification_status === 'current' ? p.rubric.causal_content_version : null;
      continue;
    }
    if (p.rubric.provisional || p.verified_causal_version === null) p.verification_status = 'unverified';
    else if (p.verified_causal_version !== p.rubric.causal_content_version) p.verification_status = 'stale';
  }
  return verified;
}

/** Pass rate of one kind of check at one causal version: `{pass_rate, n, latest_ts}` or null. */
export function kindSummary(samples: readonly VerificationSample[], kind: VerificationSample['kind'], ccv: number): { pass_rate: number; n: number; latest_ts: string } | null {
  const xs = samples.filter((s) => s.kind === kind && s.causal_content_version === ccv);
  if (xs.length === 0) return null;
  return { pass_rate: Math.round((xs.filter((s) => s.passed).length / xs.length) * 1000) / 1000, n: xs.length, latest_ts: xs.map((s) => s.verified_at).sort().at(-1)! };
}
