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
 */
import {
  CAUSE_KINDS,
  PROBLEMS_ENGINE_VERSION,
  type Attribution,
  type ChangeEvent,
  type Criterion,
  type FeedbackOutcome,
  type PendingFeedback,
  type ProblemMetrics,
  type ProblemState,
  type Report,
  type Rubric,
  type RunStats,
  type Signal,
} from './types.js';
import { describeCause, mechanismOf, snippetOf, uuidFrom } from './text.js';
import { buildDossier } from './dossier.js';
import { rankScore, FAMILY_WEIGHTS } from './rank.js';
import { verifyProblems, type GroundTruth, type VerifyContext } from './verify.js';

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

const iso = (ms: number) => new Date(ms).toISOString();

export function causeKeyOf(s: Signal): string {
  if (s.kind === 'tool_failure') return `tool_failure|${s.tool_name ?? ''}|${s.family}`;
  if (s.kind === 'laziness') return 'laziness';
  if (s.kind === 'step_score') return `step_score|${s.cluster_id ?? ''}|${s.type}`;
  return `hallucination|${s.type}`;
}

function criterionOf(s: Signal): Criterion {
  if (s.kind === 'tool_failure') return { kind: 'tool_failure', tool_name: s.tool_name ?? '', family: s.family };
  if (s.kind === 'laziness') return { kind: 'laziness' };
  if (s.kind === 'step_score') return { kind: 'step_score', cluster_id: s.cluster_id ?? '', type: s.type };
  return { kind: 'hallucination', type: s.type };
}

export function matches(c: Criterion, s: Signal): boolean {
  return c.kind === s.kind && (c.family === undefined || c.family === s.family) && (c.tool_name === undefined || c.tool_name === s.tool_name) && (c.type === undefined || c.type === s.type) && (c.cluster_id === undefined || c.cluster_id === s.cluster_id);
}

const specificity = (c: Criterion) => (c.family !== undefined ? 1 : 0) + (c.tool_name !== undefined ? 1 : 0) + (c.type !== undefined ? 1 : 0) + (c.cluster_id !== undefined ? 1 : 0);

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

export function emptyMetrics(): ProblemMetrics {
  return {
    total_attributions: 0,
    signal_count: 0,
    family_weighted_count: 0,
    affected_users: 0,
    affected_conversations: 0,
    unknown_identity_conversations: 0,
    agg_prm_delta: 0,
    abandonment_rate: 0,
    recency_score: 0,
    trend_score: 0,
    multi_family: false,
    family_counts: {},
    coverage_overall: 0,
    coverage_by_family: {},
    first_signal_at: '',
    last_signal_at: '',
    rank_score: 0,
  };
}

/** Attribution id: stable for a problem, a conversation and a deduplicated signal group. */
export const attributionIdOf = (problemId: string, conversationId: string, kind: string, family: string, type: string) => uuidFrom('attr', problemId, conversationId, kind, family, type);

export function runEngine(input: EngineInput): EngineOutput {
  const cfg = { ...DEFAULT_ENGINE_CONFIG, ...input.config };
  const nowIso = iso(input.now);
  const events: ChangeEvent[] = [];
  const definitions: Array<{ problem_id: string; rubric: Rubric }> = [];
  const aliases: Array<{ alias_id: string; problem_id: string }> = [];
  const feedbackOut: FeedbackOutcome[] = [];
  const problems = new Map<string, ProblemState>(input.previous.map((p) => [p.problem_id, clone(p)]));
  let eventSeq = 0;
  const event = (p: ProblemState, kind: string, reason: string, related: string | null = null) => {
    events.push({
      problem_id: p.problem_id,
      event_id: uuidFrom('event', input.tenant, input.runId, p.problem_id, String(eventSeq++)),
      event_kind: kind,
      related_problem_id: related,
      rubric_version: p.rubric.version,
      causal_content_version: p.rubric.causal_content_version,
      reason,
      created_ts: nowIso,
    });
  };
  const bump = (p: ProblemState, reason: string, causal: boolean) => {
    p.rubric.version += 1;
    if (causal) p.rubric.causal_content_version += 1;
    p.rubric.change_reason = reason;
    p.rubric.updated_at = nowIso;
    p.updated_at = nowIso;
    definitions.push({ problem_id: p.problem_id, rubric: clone(p.rubric) });
    event(p, 'rubric_version', reason);
  };
  const survivor = (id: string): ProblemState | undefined => {
    let p = problems.get(id);
    for (let i = 0; p && p.status === 'merged' && p.merged_into && i < 20; i++) p = problems.get(p.merged_into);
    return p;
  };

  // 1. feedback, oldest first
  const groundTruth: GroundTruth[] = [];
  /**
   * Passed ground truth: the attributions of `p` its judge passed at its current causal version
   * (the evidence the problem's page showed) are confirmed by an analyst action that accepts the
   * problem as real — mark_fixed, rename — or by a fix that held through the clean period.
   */
  const confirm = (p: ProblemState, why: string) => {
    const ccv = p.rubric.causal_content_version;
    const flagged = new Set(p.samples.filter((s) => s.kind === 'ground_truth' && !s.passed).map((s) => s.attribution_id));
    for (const s of p.samples) {
      if (s.kind !== 'judge_audit' || !s.passed || s.causal_content_version !== ccv || flagged.has(s.attribution_id)) continue;
      groundTruth.push({ problem_id: p.problem_id, attribution_id: s.attribution_id, conversation_id: s.conversation_id, segment_id: s.segment_id, reason: why, passed: true, causal_content_version: ccv });
    }
  };
  for (const f of [...input.feedback].sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.feedback_id < b.feedback_id ? -1 : 1))) {
    const p = survivor(f.problem_id);
    if (!p) {
      feedbackOut.push({ feedback_id: f.feedback_id, applied: false, outcome: 'problem_missing' });
      continue;
    }
    const who = f.actor || 'data-api';
    if (f.feedback_kind === 'mark_fixed') {
      const ref = f.fix_ref ? ` (fix ${[f.fix_ref.short_ref, f.fix_ref.pr_url, f.fix_ref.merge_commit, f.fix_ref.prompt_version_id, f.fix_ref.fix_id].filter(Boolean).join(', ')})` : '';
      const from = p.lifecycle;
      p.lifecycle = 'fixed_monitoring';
      p.fixed_at = nowIso;
      p.fix_ref = f.fix_ref ? { ...f.fix_ref } : null;
      p.reopen_armed = true;
      p.updated_at = nowIso;
      event(p, 'lifecycle', `${from} -> fixed_monitoring: marked fixed by ${who}${ref}${f.reason ? `: ${f.reason}` : ''}`);
      confirm(p, `confirmed: the problem was marked fixed by ${who}${ref} and the judge found this evidence matching`);
    } else if (f.feedback_kind === 'dismiss') {
      p.status = 'dismissed';
      p.dismissed_reason = f.reason;
      p.updated_at = nowIso;
      event(p, 'dismissed', `dismissed by ${who}: ${f.reason}`);
    } else if (f.feedback_kind === 'rename') {
      const old = p.rubric.display_name;
      p.rubric.display_name = f.new_display_name;
      p.rubric.renamed = true;
      confirm(p, `confirmed: ${who} renamed the problem after reviewing it and the judge found this evidence matching`);
      event(p, 'renamed', `renamed by ${who} from "${old}" to "${f.new_display_name}"`);
      bump(p, `rename by ${who}`, false);
    } else if (f.feedback_kind === 'flag_attribution') {
      const a = input.previousAttributions.get(f.attribution_id);
      if (!a) {
        feedbackOut.push({ feedback_id: f.feedback_id, applied: false, outcome: 'attribution_missing' });
        continue;
      }
      p.rubric.counter_examples.push({ attribution_id: f.attribution_id, conversation_id: a.conversation_id, signal_family: a.signal_family, signal_type: a.signal_type, reason: f.reason });
      groundTruth.push({ problem_id: p.problem_id, attribution_id: f.attribution_id, conversation_id: a.conversation_id, segment_id: a.segment_id, reason: f.reason });
      event(p, 'attribution_flagged', `attribution ${f.attribution_id} flagged by ${who}: ${f.reason}`);
      bump(p, `counter-example added: ${f.reason}`, true);
    }
    feedbackOut.push({ feedback_id: f.feedback_id, applied: true, outcome: f.feedback_kind });
  }

  const signals = [...input.signals].sort((a, b) => (a.conversation_id < b.conversation_id ? -1 : a.conversation_id > b.conversation_id ? 1 : a.msg_index - b.msg_index || (a.signal_id < b.signal_id ? -1 : 1)));
  const conversations = new Set(signals.map((s) => s.conversation_id));
  const sigIndex = new Map(signals.map((s) => [s.signal_id, s]));
  const sigById = (id: string): Signal => sigIndex.get(id)!;
  const byConv = new Map<string, Signal[]>();
  for (const s of signals) {
    let l = byConv.get(s.conversation_id);
    if (!l) byConv.set(s.conversation_id, (l = []));
    l.push(s);
  }
  const explained = new Map<string, { problem: string; door: 'rubric_match' | 'local_causal_chain'; cause: Signal; explicit: boolean }>();
  const excluded = (p: ProblemState, s: Signal) => p.rubric.counter_examples.some((c) => c.conversation_id === s.conversation_id && c.signal_family === s.family && c.signal_type === s.type);
  const flaggedAway = new Set<string>();

  // 2. cause signals: claims checked against a failed call chain to that call; the rest by rubric
  const ruleList = () =>
    [...problems.values()]
      .filter((p) => p.status !== 'merged' && p.rubric.tier === 'leaf')
      .flatMap((p) => p.rubric.match_criteria.any_of.map((c) => ({ p, c })))
      .sort((a, b) => specificity(b.c) - specificity(a.c) || (a.p.created_at < b.p.created_at ? -1 : a.p.created_at > b.p.created_at ? 1 : a.p.problem_id < b.p.problem_id ? -1 : 1));
  const attributeByRubric = (list: readonly Signal[]) => {
    const rules = ruleList();
    for (const s of list) {
      if (explained.has(s.signal_id)) continue;
      let hitExcluded = false;
      for (const { p, c } of rules) {
        if (!matches(c, s)) continue;
        if (excluded(p, s)) {
          hitExcluded = true;
          continue;
        }
        explained.set(s.signal_id, { problem: p.problem_id, door: 'rubric_match', cause: s, explicit: true });
        break;
      }
      if (hitExcluded && !explained.has(s.signal_id)) flaggedAway.add(s.signal_id);
    }
  };
  const failureByCall = new Map<string, Signal>();
  for (const s of signals) if (s.kind === 'tool_failure' && s.call_key) failureByCall.set(`${s.conversation_id}\u0000${s.call_key}`, s);
  const causeSignals = signals.filter((s) => CAUSE_KINDS.has(s.kind));
  const chainClaims = () => {
    for (const s of causeSignals) {
      if (s.kind !== 'hallucination' || explained.has(s.signal_id) || !s.cause_ref?.tool_use_id) continue;
      const f = failureByCall.get(`${s.conversation_id}\u0000${s.cause_ref.tool_use_id}`);
      const e = f && explained.get(f.signal_id);
      if (!f || !e) continue;
      const p = problems.get(e.problem);
      if (p && excluded(p, s)) flaggedAway.add(s.signal_id);
      else explained.set(s.signal_id, { problem: e.problem, door: 'local_causal_chain', cause: f, explicit: true });
    }
  };
  attributeByRubric(causeSignals.filter((s) => s.kind === 'tool_failure'));
  chainClaims();
  attributeByRubric(causeSignals);

  // 3. discovery from unexplained cause signals sharing a cause
  const support = Math.max(cfg.minSupport, Math.ceil(cfg.minShare * Math.max(conversations.size, input.conversationCount ?? 0)));
  const discovery = { candidate_groups: 0, created: 0, provisional: 0, promoted: 0, merged: 0 };
  let pendingGroups = 0;
  let pendingMass = 0;
  const discover = (list: readonly Signal[]) => {
    const groups = new Map<string, Signal[]>();
    for (const s of list) {
      if (explained.has(s.signal_id) || flaggedAway.has(s.signal_id)) continue;
      const k = causeKeyOf(s);
      let g = groups.get(k);
      if (!g) groups.set(k, (g = []));
      g.push(s);
    }
    discovery.candidate_groups += groups.size;
    for (const [key, group] of [...groups].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const convs = new Set(group.map((s) => s.conversation_id)).size;
      if (convs < cfg.emergingSupport) {
        pendingGroups += 1;
        pendingMass += group.length;
        continue;
      }
      const first = group[0]!;
      const id = uuidFrom('problem', input.tenant, key);
      if (problems.has(id)) continue; // an existing problem of this cause no longer matching (merged away): leave unexplained
      const t = describeCause(first.kind, first.family, { tool_name: first.tool_name, type: first.kind === 'tool_failure' ? undefined : first.type, cluster_label: first.cluster_label }, group);
      const provisional = convs < support;
      const rubric: Rubric = {
        version: 1,
        causal_content_version: 1,
        ...t,
        change_reason: `discovered from ${group.length} unexplained signals in ${convs} conversations`,
        match_criteria: { any_of: [criterionOf(first)] },
        counter_examples: [],
        tier: 'leaf',
        provisional,
        parent_problem_id: null,
        updated_at: nowIso,
        renamed: false,
      };
      const p: ProblemState = {
        problem_id: id,
        cause_key: key,
        status: 'active',
        merged_into: null,
        lifecycle: 'open',
        rubric,
        created_at: nowIso,
        updated_at: nowIso,
        fixed_at: null,
        fix_ref: null,
        reopen_armed: false,
        dismissed_reason: null,
        verification_status: 'unverified',
        verified_causal_version: null,
        verified_total: 0,
        samples: [],
        metrics: emptyMetrics(),
        dossier: null,
        support_at_verification: 0,
      };
      problems.set(id, p);
      definitions.push({ problem_id: id, rubric: clone(rubric) });
      event(p, 'created', rubric.change_reason);
      if (provisional) discovery.provisional += 1;
      else discovery.created += 1;
    }
  };
  discover(causeSignals);
  chainClaims();
  attributeByRubric(causeSignals);

  // 4. effects through the cause that precedes them (unless flagged away from that problem)
  const chain = (s: Signal, problemId: string, cause: Signal, explicit: boolean) => {
    const p = problems.get(problemId);
    if (p && excluded(p, s)) {
      flaggedAway.add(s.signal_id);
      return;
    }
    explained.set(s.signal_id, { problem: problemId, door: 'local_causal_chain', cause, explicit });
  };
  for (const [, list] of byConv) {
    const causesBefore = (i: number) => list.filter((c) => CAUSE_KINDS.has(c.kind) && explained.has(c.signal_id) && c.msg_index <= i && i - c.msg_index <= cfg.chainWindow);
    const explicitCause = (s: Signal): Signal | undefined => {
      const ref = s.cause_ref;
      if (s.kind === 'step_score' && s.step_unit) {
        if (s.step_unit.startsWith('call:')) return failureByCall.get(`${s.conversation_id}\u0000${s.step_unit.slice(5)}`);
        const m = Number(s.step_unit.slice(4));
        return list.find((c) => ((c.kind === 'laziness' || c.kind === 'hallucination') && c.msg_index === m) || (c.kind === 'tool_failure' && c.call_msg_index === m));
      }
      if (!ref) return undefined;
      if (ref.kind === 'tool_failure' && ref.tool_use_id) return failureByCall.get(`${s.conversation_id}\u0000${ref.tool_use_id}`);
      if ((ref.kind === 'claim' || ref.kind === 'agent_message') && ref.message_index !== null) {
        return list.find((c) => (c.kind === 'hallucination' || c.kind === 'laziness') && c.msg_index === ref.message_index);
      }
      return undefined;
    };
    const resolve = (s: Signal): { cause: Signal; explicit: boolean } | undefined => {
      const e = explicitCause(s);
      if (e && explained.has(e.signal_id)) return { cause: e, explicit: true };
      const near = causesBefore(s.msg_index);
      const c = near[near.length - 1];
      return c ? { cause: c, explicit: false } : undefined;
    };
    for (const s of list) {
      if (CAUSE_KINDS.has(s.kind) || s.kind === 'abandonment') continue;
      const r = resolve(s);
      if (r) chain(s, explained.get(r.cause.signal_id)!.problem, r.cause, r.explicit);
    }
    for (const s of list) {
      if (s.kind !== 'abandonment') continue;
      const lastEffect = [...list].reverse().find((e) => e.kind === 'emotion' && e.msg_index <= s.msg_index && explained.has(e.signal_id));
      if (lastEffect) {
        const e = explained.get(lastEffect.signal_id)!;
        chain(s, e.problem, e.cause, e.explicit);
        continue;
      }
      const r = resolve(s);
      if (r) chain(s, explained.get(r.cause.signal_id)!.problem, r.cause, r.explicit);
    }
  }

  // 4b. failed segments nothing above explains, grouped by use case and failure type; the
  // negative turns of such a segment after its first bad step follow it
  const stepSignals = signals.filter((s) => s.kind === 'step_score' && s.cluster_id);
  attributeByRubric(stepSignals);
  discover(stepSignals);
  attributeByRubric(stepSignals);
  for (const [, list] of byConv) {
    for (const s of list) {
      if (explained.has(s.signal_id) || flaggedAway.has(s.signal_id) || (s.kind !== 'emotion' && s.kind !== 'abandonment')) continue;
      const step = list.find((x) => x.kind === 'step_score' && x.segment_id === s.segment_id && x.msg_index <= s.msg_index && explained.get(x.signal_id)?.door === 'rubric_match');
      if (step) chain(s, explained.get(step.signal_id)!.problem, step, false);
    }
  }

  // 5. merges: two live leaves explaining the same conversations are one cause
  const causeConvs = new Map<string, Set<string>>();
  for (const [sid, e] of explained) {
    const sig = sigById(sid);
    if (!CAUSE_KINDS.has(sig.kind)) continue;
    let set = causeConvs.get(e.problem);
    if (!set) causeConvs.set(e.problem, (set = new Set()));
    set.add(sig.conversation_id);
  }
  const convsOf = (id: string) => new Set(causeConvs.get(id) ?? []);
  const live = [...problems.values()].filter((p) => p.status === 'active' && p.rubric.tier === 'leaf' && !p.rubric.provisional);
  const convSets = new Map(live.map((p) => [p.problem_id, convsOf(p.problem_id)]));
  const mergedAway = new Set<string>();
  const bySize = [...live].sort((a, b) => convSets.get(b.problem_id)!.size - convSets.get(a.problem_id)!.size || (a.created_at < b.created_at ? -1 : 1));
  for (let i = 0; i < bySize.length; i++) {
    const a = bySize[i]!;
    if (mergedAway.has(a.problem_id)) continue;
    for (let j = i + 1; j < bySize.length; j++) {
      const b = bySize[j]!;
      if (mergedAway.has(b.problem_id)) continue;
      const A = convSets.get(a.problem_id)!;
      const B = convSets.get(b.problem_id)!;
      let inter = 0;
      for (const c of B) if (A.has(c)) inter++;
      const union = A.size + B.size - inter;
      if (inter < cfg.minSupport || union === 0 || inter / union < cfg.mergeJaccard) continue;
      // b merges into a
      mergedAway.add(b.problem_id);
      a.rubric.match_criteria.any_of.push(...b.rubric.match_criteria.any_of);
      a.rubric.counter_examples.push(...b.rubric.counter_examples);
      a.rubric.scope_hints = [...new Set([...a.rubric.scope_hints, ...b.rubric.scope_hints])];
      b.status = 'merged';
      b.merged_into = a.problem_id;
      b.updated_at = nowIso;
      aliases.push({ alias_id: b.problem_id, problem_id: a.problem_id });
      for (const al of input.previous) if (al.merged_into === b.problem_id) aliases.push({ alias_id: al.problem_id, problem_id: a.problem_id });
      event(a, 'merged', `absorbed "${b.rubric.display_name}" (${inter} of ${union} conversations shared)`, b.problem_id);
      event(b, 'merged', `merged into "${a.rubric.display_name}"`, a.problem_id);
      bump(a, `merged with ${b.problem_id}`, true);
      for (const [sid, e] of explained) if (e.problem === b.problem_id) explained.set(sid, { ...e, problem: a.problem_id });
      discovery.merged += 1;
      if (a.lifecycle === 'fixed_monitoring' || b.lifecycle === 'open' || b.lifecycle === 'reopened') {
        // the survivor inherits the more urgent state of the two
        if (b.lifecycle === 'open' || b.lifecycle === 'reopened') {
          if (a.lifecycle === 'resolved' || a.lifecycle === 'fixed_monitoring') {
            const from = a.lifecycle;
            a.lifecycle = 'reopened';
            event(a, 'lifecycle', `${from} -> reopened: merged with open problem ${b.problem_id}`);
          }
        }
      }
    }
  }

  // promotion of emerging problems whose support grew
  const allConvs = new Map<string, Set<string>>();
  for (const [sid, e] of explained) {
    let set = allConvs.get(e.problem);
    if (!set) allConvs.set(e.problem, (set = new Set()));
    set.add(sigById(sid).conversation_id);
  }
  for (const p of problems.values()) {
    if (p.status !== 'active' || !p.rubric.provisional) continue;
    const n = allConvs.get(p.problem_id)?.size ?? 0;
    if (n >= support) {
      p.rubric.provisional = false;
      event(p, 'promoted', `evidence grew to ${n} conversations (threshold ${support})`);
      bump(p, `promoted from emerging: ${n} conversations`, false);
      discovery.promoted += 1;
    }
  }

  // 6. attribution rows (one per problem, conversation and signal group); evidence that was
  // attributed before under another id (a merge, a more specific problem) keeps its first time
  const seenBefore = new Map<string, string>();
  for (const a of input.previousAttributions.values()) {
    const k = `${a.conversation_id}\u0000${a.signal_family}\u0000${a.signal_type}`;
    const t = seenBefore.get(k);
    if (!t || a.first_assigned_at < t) seenBefore.set(k, a.first_assigned_at);
  }
  const rowsByKey = new Map<string, Attribution>();
  for (const s of signals) {
    const e = explained.get(s.signal_id);
    if (!e) continue;
    const id = attributionIdOf(e.problem, s.conversation_id, s.kind, s.family, s.type);
    const existing = rowsByKey.get(id);
    if (existing) {
      existing.dedup_count += 1;
      existing.signal_ids.push(s.signal_id);
      continue;
    }
    const mechanism = mechanismOf(e.cause);
    const rationale =
      e.door === 'rubric_match'
        ? `matches the rubric: ${mechanism}`
        : `${s.kind === 'hallucination' ? 'the claim' : (s.kind === 'emotion' ? `${s.family} (${s.type})` : s.kind.replace('_', ' '))} at message ${s.msg_index} follows ${mechanism} at message ${e.cause.msg_index}${e.explicit ? ' (referenced by the analysis)' : ' (nearest preceding cause)'}`;
    const snip = snippetOf(s, e.door, [s.family], mechanism);
    const prev = input.previousAttributions.get(id);
    const confidence = e.door === 'rubric_match' ? Math.min(1, 0.6 + 0.4 * s.confidence) : Math.min(1, s.confidence * (e.explicit ? 0.95 : 0.75));
    rowsByKey.set(id, {
      attribution_id: id,
      problem_id: e.problem,
      conversation_id: s.conversation_id,
      segment_id: s.segment_id,
      anchor_signal_id: s.signal_id,
      anchor_msg_index: s.msg_index,
      signal_kind: s.kind,
      signal_family: s.family,
      signal_type: s.type,
      confidence: Math.round(confidence * 1000) / 1000,
      door: e.door,
      cause_signal_id: e.cause.signal_id,
      cause_msg_index: e.cause.msg_index,
      causal_rationale: rationale,
      replay_verified: null,
      evidence_snippet: snip.text,
      snippet: snip.parsed,
      dedup_count: 1,
      user_id: s.user_id,
      signal_ts: s.ts,
      assigned_at: nowIso,
      first_assigned_at: prev && prev.problem_id === e.problem ? prev.first_assigned_at : (seenBefore.get(`${s.conversation_id}\u0000${s.family}\u0000${s.type}`) ?? nowIso),
      report_id: uuidFrom('report', e.problem, s.conversation_id),
      signal_ids: [s.signal_id],
    });
  }
  const rows = [...rowsByKey.values()];
  const rowsOf = new Map<string, Attribution[]>();
  for (const r of rows) {
    let l = rowsOf.get(r.problem_id);
    if (!l) rowsOf.set(r.problem_id, (l = []));
    l.push(r);
  }

  // 7. hierarchy: leaves failing the same way on different tools share a macro problem
  const macroGroups = new Map<string, ProblemState[]>();
  for (const p of problems.values()) {
    if (p.status !== 'active' || p.rubric.tier !== 'leaf' || p.rubric.provisional) continue;
    const c = p.rubric.match_criteria.any_of[0];
    if (!c || c.kind !== 'tool_failure' || !c.family) continue;
    const k = `macro|tool_failure|${c.family}`;
    let g = macroGroups.get(k);
    if (!g) macroGroups.set(k, (g = []));
    g.push(p);
  }
  for (const [k, leaves] of macroGroups) {
    if (leaves.length < 2) continue;
    const id = uuidFrom('problem', input.tenant, k);
    const family = k.split('|')[2]!;
    let m = problems.get(id);
    if (!m) {
      const rubric: Rubric = {
        version: 1,
        causal_content_version: 1,
        display_name: `Tool calls failing with ${family.replace(/_/g, ' ')}`,
        cause_statement: `Several tools fail the same way (${family.replace(/_/g, ' ')}).`,
        display_description: `Groups the problems whose calls fail with ${family.replace(/_/g, ' ')} on different tools.`,
        change_reason: `grouped ${leaves.length} leaf problems sharing the failure family ${family}`,
        match_criteria: { any_of: [{ kind: 'tool_failure', family }] },
        counter_examples: [],
        scope_hints: [`failure_family=${family}`],
        tier: 'macro',
        provisional: false,
        affected_surface: 'tools',
        parent_problem_id: null,
        updated_at: nowIso,
        renamed: false,
      };
      m = { ...clone(leaves[0]!), problem_id: id, cause_key: k, status: 'active', merged_into: null, lifecycle: 'open', rubric, created_at: nowIso, updated_at: nowIso, fixed_at: null, fix_ref: null, reopen_armed: false, dismissed_reason: null, verification_status: 'unverified', verified_causal_version: null, verified_total: 0, samples: [], metrics: emptyMetrics(), dossier: null, support_at_verification: 0 };
      problems.set(id, m);
      definitions.push({ problem_id: id, rubric: clone(rubric) });
      event(m, 'created', rubric.change_reason);
    }
    for (const leaf of leaves) {
      if (leaf.rubric.parent_problem_id === id) continue;
      leaf.rubric.parent_problem_id = id;
      event(leaf, 'parented', `grouped under "${m.rubric.display_name}"`, id);
      bump(leaf, `parent set to ${id}`, false);
    }
  }

  // 8. lifecycle: recurrence after a fix reopens; a clean period resolves
  for (const p of problems.values()) {
    if (p.status === 'merged' || p.rubric.tier !== 'leaf') continue;
    const list = rowsOf.get(p.problem_id) ?? [];
    if ((p.lifecycle === 'fixed_monitoring' || p.lifecycle === 'resolved') && p.reopen_armed && p.fixed_at) {
      const fixedAt = p.fixed_at;
      const recurred = list.filter((r) => r.first_assigned_at > fixedAt);
      if (recurred.length > 0) {
        const from = p.lifecycle;
        p.lifecycle = 'reopened';
        p.reopen_armed = false;
        p.updated_at = nowIso;
        const convs = new Set(recurred.map((r) => r.conversation_id));
        const ref = p.fix_ref ? ` after fix ${String((p.fix_ref as Record<string, unknown>).short_ref ?? (p.fix_ref as Record<string, unknown>).fix_id ?? '')}`.trimEnd() : '';
        event(p, 'lifecycle', `${from} -> reopened: the cause recurred${ref} in ${convs.size} conversation(s) (${[...convs].slice(0, 3).join(', ')})`);
        continue;
      }
    }
    if (p.lifecycle === 'fixed_monitoring' && p.fixed_at && input.now - Date.parse(p.fixed_at) >= cfg.cleanPeriodMs) {
      p.lifecycle = 'resolved';
      p.updated_at = nowIso;
      event(p, 'lifecycle', `fixed_monitoring -> resolved: no recurrence for ${Math.round(cfg.cleanPeriodMs / 86_400_000)} days since the fix`);
      confirm(p, `confirmed: the fix held, no recurrence for ${Math.round(cfg.cleanPeriodMs / 86_400_000)} days after it`);
    }
  }

  // 9. metrics and rank
  const negByConv = new Map<string, Map<string, number>>();
  for (const s of signals) {
    let m = negByConv.get(s.conversation_id);
    if (!m) negByConv.set(s.conversation_id, (m = new Map()));
    m.set(s.family, (m.get(s.family) ?? 0) + 1);
  }
  const abandoned = new Set(signals.filter((s) => s.kind === 'abandonment').map((s) => s.conversation_id));
  const blendedAll = [...input.blended.values()];
  for (const p of problems.values()) {
    if (p.status === 'merged') continue;
    const list = p.rubric.tier === 'macro' ? [...problems.values()].filter((c) => c.rubric.parent_problem_id === p.problem_id && c.status === 'active').flatMap((c) => rowsOf.get(c.problem_id) ?? []) : (rowsOf.get(p.problem_id) ?? []);
    p.metrics = metricsOf(list, { now: input.now, negByConv, abandoned, blended: input.blended, blendedAll });
  }

  // 10. verification
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
  const reports: Report[] = [];
  for (const p of problems.values()) {
    if (p.status === 'merged' || p.rubric.tier !== 'leaf') continue;
    const list = rowsOf.get(p.problem_id) ?? [];
    const byC = new Map<string, Attribution[]>();
    for (const r of list) {
      let l = byC.get(r.conversation_id);
      if (!l) byC.set(r.conversation_id, (l = []));
      l.push(r);
    }
    const reportByConv = new Map<string, Report>();
    for (const [conv, rs] of byC) {
      const rep = reportOf(p, conv, rs, byConv.get(conv) ?? [], explained, nowIso, 'investigated');
      reportByConv.set(conv, rep);
      reports.push(rep);
    }
    for (const ce of p.rubric.counter_examples) {
      if (byC.has(ce.conversation_id)) continue;
      reports.push({ ...reportOf(p, ce.conversation_id, [], byConv.get(ce.conversation_id) ?? [], explained, nowIso, 'rejected'), narrative: `Attribution rejected by feedback: ${ce.reason}` });
    }
    for (const s of p.samples) {
      if (s.kind !== 'judge_audit' || s.passed || s.causal_content_version !== p.rubric.causal_content_version) continue;
      const rep = reportByConv.get(s.conversation_id);
      if (rep && rep.status === 'investigated') {
        rep.status = 'no_problem';
        rep.problem_found = false;
        rep.narrative = `${rep.narrative} The audit did not confirm the cause here: ${s.rationale}`;
      }
    }
    p.dossier = buildDossier(p, list, p.metrics, nowIso);
  }
  for (const p of problems.values()) {
    if (p.rubric.tier === 'macro' && p.status === 'active') p.dossier = buildDossier(p, [], p.metrics, nowIso);
  }

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
    discovery,
    verification: {
      live_total: liveProblems.length,
      current: liveProblems.filter((p) => p.verification_status === 'current').length,
      stale: liveProblems.filter((p) => p.verification_status === 'stale').length,
      failed: liveProblems.filter((p) => p.verification_status === 'failed').length,
      unverified: liveProblems.filter((p) => p.verification_status === 'unverified').length,
      verified_this_run: verifiedThisRun,
    },
    remainder_backlog: { pending_groups: pendingGroups, pending_mass: pendingMass },
    feedback_applied: feedbackOut.filter((f) => f.applied).length,
  };
  return {
    problems: [...problems.values()].sort((a, b) => (a.problem_id < b.problem_id ? -1 : 1)),
    attributions: rows,
    reports,
    events,
    definitions,
    aliases,
    feedback: feedbackOut,
    stats,
    explained: new Map([...explained].map(([k, v]) => [k, v.problem])),
  };
}

interface MetricsContext {
  now: number;
  negByConv: ReadonlyMap<string, ReadonlyMap<string, number>>;
  abandoned: ReadonlySet<string>;
  blended: ReadonlyMap<string, number>;
  blendedAll: readonly number[];
}

export function metricsOf(list: readonly Attribution[], ctx: MetricsContext): ProblemMetrics {
  const m = emptyMetrics();
  if (list.length === 0) return m;
  const convs = new Set<string>();
  const users = new Set<string>();
  const unknown = new Set<string>();
  let first = '';
  let last = '';
  let recent = 0;
  let before = 0;
  const week = 7 * 86_400_000;
  const explainedByFamily = new Map<string, number>();
  for (const r of list) {
    m.total_attributions += 1;
    m.signal_count += r.dedup_count;
    m.family_counts[r.signal_family] = (m.family_counts[r.signal_family] ?? 0) + r.dedup_count;
    m.family_weighted_count += r.dedup_count * (FAMILY_WEIGHTS[r.signal_family] ?? FAMILY_WEIGHTS[r.signal_kind] ?? 1);
    explainedByFamily.set(r.signal_family, (explainedByFamily.get(r.signal_family) ?? 0) + r.dedup_count);
    convs.add(r.conversation_id);
    if (r.user_id) users.add(r.user_id);
    else unknown.add(r.conversation_id);
    if (!first || r.signal_ts < first) first = r.signal_ts;
    if (!last || r.signal_ts > last) last = r.signal_ts;
    const age = ctx.now - Date.parse(r.signal_ts);
    if (age <= week) recent += r.dedup_count;
    else if (age <= 2 * week) before += r.dedup_count;
  }
  m.family_weighted_count = Math.round(m.family_weighted_count * 100) / 100;
  m.affected_conversations = convs.size;
  m.affected_users = users.size;
  m.unknown_identity_conversations = [...unknown].filter((c) => !list.some((r) => r.conversation_id === c && r.user_id)).length;
  m.first_signal_at = first;
  m.last_signal_at = last;
  m.multi_family = Object.keys(m.family_counts).length > 1;
  let total = 0;
  const totalByFamily = new Map<string, number>();
  for (const c of convs) {
    for (const [f, n] of ctx.negByConv.get(c) ?? []) {
      total += n;
      totalByFamily.set(f, (totalByFamily.get(f) ?? 0) + n);
    }
  }
  m.coverage_overall = total ? round3(m.signal_count / total) : 0;
  for (const [f, n] of explainedByFamily) m.coverage_by_family[f] = round3(n / (totalByFamily.get(f) || n));
  m.abandonment_rate = round3([...convs].filter((c) => ctx.abandoned.has(c)).length / convs.size);
  const inside = [...convs].map((c) => ctx.blended.get(c)).filter((x): x is number => x !== undefined);
  const outside: number[] = [];
  for (const [c, v] of ctx.blended) if (!convs.has(c)) outside.push(v);
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  m.agg_prm_delta = inside.length && outside.length ? round3(mean(inside) - mean(outside)) : 0;
  const ageDays = last ? Math.max(0, (ctx.now - Date.parse(last)) / 86_400_000) : 365;
  m.recency_score = round3(Math.exp(-ageDays / 7));
  m.trend_score = round3(Math.max(-1, Math.min(1, (recent - before) / Math.max(1, recent + before))));
  return m;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

function reportOf(p: ProblemState, conv: string, rs: readonly Attribution[], convSignals: readonly Signal[], explained: ReadonlyMap<string, { problem: string }>, nowIso: string, status: Report['status']): Report {
  const explainedIds = rs.flatMap((r) => r.signal_ids);
  const mine = new Set(explainedIds);
  const unexplained = convSignals.filter((s) => !mine.has(s.signal_id) && !explained.has(s.signal_id)).map((s) => s.signal_id);
  const causes = rs.filter((r) => r.door === 'rubric_match' || CAUSE_KINDS.has(r.signal_kind));
  const effects = rs.filter((r) => !CAUSE_KINDS.has(r.signal_kind));
  const families = new Map<string, number>();
  for (const r of rs) families.set(r.signal_family, (families.get(r.signal_family) ?? 0) + r.dedup_count);
  const primary = [...families].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
  const severe = rs.some((r) => r.signal_kind === 'abandonment') || rs.some((r) => r.signal_kind === 'emotion' && r.signal_family === 'frustration' && r.confidence >= 0.45);
  const firstCause = causes.sort((a, b) => a.anchor_msg_index - b.anchor_msg_index)[0];
  const narrative =
    status === 'investigated'
      ? `${p.rubric.cause_statement} In this conversation: ${causes.length ? `${causes.reduce((a, r) => a + r.dedup_count, 0)} cause signal(s) from message ${firstCause?.anchor_msg_index}` : 'no cause signal of its own'}${effects.length ? `, followed by ${effects.map((r) => `${r.signal_family} at message ${r.anchor_msg_index}`).join(', ')}` : ''}.`
      : '';
  return {
    report_id: uuidFrom('report', p.problem_id, conv),
    problem_id: p.problem_id,
    conversation_id: conv,
    segment_id: rs[0]?.segment_id ?? '',
    status,
    problem_found: status === 'investigated',
    mechanism: firstCause ? firstCause.snippet.mechanism : p.rubric.cause_statement,
    narrative,
    citations: rs.slice(0, 5).map((r) => ({ path: `conversations/${conv}/messages/${r.anchor_msg_index}`, ref: r.anchor_signal_id, quote: r.snippet.excerpt })),
    signals_explained: explainedIds.length,
    signals_total: convSignals.length,
    signals_explained_ids: explainedIds,
    signals_unexplained_ids: unexplained,
    suspected_surface: p.rubric.affected_surface,
    severity: severe ? 'high' : effects.length ? 'medium' : 'low',
    confidence: rs.length ? round3(Math.max(...rs.map((r) => r.confidence))) : 0,
    primary_family: primary,
    investigated_at: nowIso,
  };
}

export { PROBLEMS_ENGINE_VERSION };
