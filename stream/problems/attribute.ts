/**
 * Attribution of signals to problems within one pass (docs/analyses.md "Problems"): a cause signal
 * is explained by the most specific rubric that matches it (`rubric_match`), or, for a claim
 * checked against a failed call, by that call's problem (`local_causal_chain`); an effect follows
 * the explained cause it references or the nearest one before it; the negative turns of a failed
 * segment follow its first bad step. A counter-example of a problem keeps the signal away from it.
 */
import { matches, specificity } from './criteria.js';
import type { RunState } from './run-state.js';
import { CAUSE_KINDS, type ProblemState, type Signal } from './types.js';

/** Why a signal is explained: its problem, the door it came through and the cause behind it. */
export interface Explanation {
  problem: string;
  door: 'rubric_match' | 'local_causal_chain';
  cause: Signal;
  explicit: boolean;
}

export interface AttributionState {
  /** The pass's signals ordered by conversation, message and id. */
  signals: Signal[];
  conversations: Set<string>;
  sigIndex: Map<string, Signal>;
  sigById(id: string): Signal;
  byConv: Map<string, Signal[]>;
  causeSignals: Signal[];
  /** Failed calls by conversation and call key. */
  failureByCall: Map<string, Signal>;
  /** signal id → its explanation. */
  explained: Map<string, Explanation>;
  /** Signals a counter-example kept from the problem that would have explained them. */
  flaggedAway: Set<string>;
  /** Explains each signal of `list` by the most specific matching rubric of a live leaf. */
  attributeByRubric(list: readonly Signal[]): void;
  /** Explains each claim checked against a failed call by that call's problem. */
  chainClaims(): void;
  /** Explains effect `s` by `cause`'s problem, unless a counter-example keeps it away. */
  chain(s: Signal, problemId: string, cause: Signal, explicit: boolean): void;
}

export function createAttributionState(run: RunState, inputSignals: readonly Signal[]): AttributionState {
  const { problems } = run;
  const signals = [...inputSignals].sort((a, b) => (a.conversation_id < b.conversation_id ? -1 : a.conversation_id > b.conversation_id ? 1 : a.msg_index - b.msg_index || (a.signal_id < b.signal_id ? -1 : 1)));
  const conversations = new Set(signals.map((s) => s.conversation_id));
  const sigIndex = new Map(signals.map((s) => [s.signal_id, s]));
  const sigById = (id: string): Signal => sigIndex.get(id)!;
  const byConv = new Map<string, Signal[]>();
  for (const s of signals) {
    let l = byConv.get(s.conversation_id);
    if (!l) byConv.set(s.conversation_id, (l = []));
    l.push(s);
  }
  const explained = new Map<string, Explanation>();
  const excluded = (p: ProblemState, s: Signal) => p.rubric.counter_examples.some((c) => c.conversation_id === s.conversation_id && c.signal_family === s.family && c.signal_type === s.type);
  const flaggedAway = new Set<string>();

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
  const chain = (s: Signal, problemId: string, cause: Signal, explicit: boolean) => {
    const p = problems.get(problemId);
    if (p && excluded(p, s)) {
      flaggedAway.add(s.signal_id);
      return;
    }
    explained.set(s.signal_id, { problem: problemId, door: 'local_causal_chain', cause, explicit });
  };
  return { signals, conversations, sigIndex, sigById, byConv, causeSignals, failureByCall, explained, flaggedAway, attributeByRubric, chainClaims, chain };
}

/** Effects through the cause that precedes them (unless flagged away from that problem). */
export function attributeEffects(run: RunState, st: AttributionState): void {
  const { cfg } = run;
  const { byConv, explained, failureByCall, chain } = st;
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
}

/** The negative turns of a failed segment after its first bad step follow it. */
export function followFailedSegments(st: AttributionState): void {
  const { byConv, explained, flaggedAway, chain } = st;
  for (const [, list] of byConv) {
    for (const s of list) {
      if (explained.has(s.signal_id) || flaggedAway.has(s.signal_id) || (s.kind !== 'emotion' && s.kind !== 'abandonment')) continue;
      const step = list.find((x) => x.kind === 'step_score' && x.segment_id === s.segment_id && x.msg_index <= s.msg_index && explained.get(x.signal_id)?.door === 'rubric_match');
      if (step) chain(s, explained.get(step.signal_id)!.problem, step, false);
    }
  }
}
