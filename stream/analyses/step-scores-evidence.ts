/**
 * The evidence against each unit of a segment, as hazards: the chance, from what the conversation
 * shows, that the unit is where the segment went wrong. Every hazard has one family (the reason
 * and the segment's failure type name it). The constants and the formula that combines them are
 * documented in docs/analyses.md "Step scores"; step-scores.ts does the combining.
 */
import { isBookkeeping } from './world-state-slots.js';
import { askedIdKeys } from './world-state-speech.js';
import { isHandoff } from './world-state-threads.js';
import { asksQuestion, closureCue, correctionCue, deferralCue, goAheadCue, inabilityCue, withdrawalCue } from './text/reactions.js';
import { isHumanTurn, requestText } from './text/turns.js';
import type { ConversationAnalysis, ConversationSnapshot, EmotionFamily, SnapshotMessage, SnapshotToolCall } from './types.js';

export type HazardFamily = 'base' | 'tool_failure' | 'repeated_call' | 'risky_action' | 'user_correction' | 'frustration' | 'hallucination' | 'abandonment' | 'no_progress';

export interface Hazard {
  family: HazardFamily;
  /** 0–1. */
  h: number;
  reason: string;
  /**
   * Friction of ordinary work (the per-step base rate, a failure a later call made good, a
   * redundant read, a reversible edit) rather than evidence of failure: a segment loses at most
   * FRICTION_MAX to friction in total, so long working sessions are not failures by length alone.
   */
  friction?: boolean;
}

/** The most a segment's progress can lose to friction (see `Hazard.friction`). */
export const FRICTION_MAX = 0.35;

/** Every unit's share of risk, before any evidence (for the first `BASE_UNITS` units of a segment). */
export const H_BASE = 0.01;
export const BASE_UNITS = 40;
/**
 * A failed call that a later call of the same tool in the segment made good (the k-th such failure
 * of the segment carries H_FAIL_RECOVERED / k: trial and error is how work gets done) / that
 * nothing made good.
 */
export const H_FAIL_RECOVERED = 0.06;
export const H_FAIL = 0.15;
/** A call the user declined. */
export const H_DECLINED = 0.3;
/**
 * The same call (tool and input) again in the segment with nothing changed since (no action or
 * edit in between: re-reading a file or re-running tests after an edit is not a loop): redundant
 * for a read or a computation, more for anything else; failing again after it failed is a loop
 * (a retry that works is not).
 */
export const H_REPEAT_READ = 0.04;
export const H_REPEAT = 0.12;
export const H_REPEAT_AFTER_FAILURE = 0.1;
/**
 * A state-changing action. Transactions (bookings, cancellations, payments, messages sent) cannot
 * be taken back: each carries H_ACTION, plus the extras below. File edits can (and a later passing
 * check covers them): the k-th edit of the segment carries H_ACTION / k, halved when a later check
 * passed.
 */
export const H_ACTION = 0.2;
/** Added to a transaction taken after a call of the segment failed (acting on a state that went wrong). */
export const H_ACTION_AFTER_FAILURE = 0.1;
/** Added to a transaction whose last person turn before it gave no go-ahead (acted on a choice or a detail, not a consent). */
export const H_UNCONFIRMED = 0.15;
/** The agent asks again for an id it asked for earlier in the segment and still does not have. */
export const H_STALL = 0.15;
/** An agent message saying it cannot help when no call of the conversation succeeded up to the segment's end (nothing was looked up or done). */
export const H_NO_PROGRESS = 0.2;
/** The person's next turn corrects the agent / drops or defers the request. */
export const H_CORRECTION = 0.3;
export const H_ABANDON = 0.25;
/** An agent message a hallucination check contradicted. */
export const H_CONTRADICTION = 0.4;
/** Weight of an emotion detection's score in the person's next turn: frustration / other negative families. */
export const W_FRUSTRATION = 0.5;
export const W_NEGATIVE_EMOTION = 0.25;
const NEGATIVE_FAMILIES: ReadonlySet<EmotionFamily> = new Set(['confusion', 'distrust', 'impatience', 'disappointment']);

/** A call that edits files: local and reversible, unlike a transaction. */
const FILE_EDIT_NAMES = /^(?:write|edit|multiedit|notebookedit|apply_patch|str_replace\w*|create_file|write_file|delete_file|move_file|insert|replace|patch)$/i;
export const isFileEdit = (c: SnapshotToolCall): boolean =>
  FILE_EDIT_NAMES.test(c.toolName.split('__').pop() ?? '') || (c.command !== '' && c.effectClass === 'write') || /"(?:file_path|path|filename|notebook_path)"\s*:/.test(c.input.slice(0, 200));

/** A later call that checks work (tests, builds, type checks, linters). */
const CHECK = /\b(?:test|tests|pytest|jest|vitest|mocha|uvu|go test|cargo (?:test|build|check)|tsc|build|lint|eslint|ruff|mypy|make|mvn|gradle|verify|check)\b/i;

export const isFailed = (c: SnapshotToolCall): boolean => c.success === false || (c.success === null && c.decision === 'reject');

/** What the scorer reads about a conversation, indexed once. */
export interface ScoringContext {
  s: ConversationSnapshot;
  /** Index of the next person turn after each message (−1 when none). */
  nextHuman: Int32Array;
  /** For each person turn, the last agent text message (main thread) before it (−1 when none). */
  lastAgentBefore: Int32Array;
  /** Whether the last person turn at or before each message gave a go-ahead. */
  goAheadAt: Uint8Array;
  /** Max score per emotion class at each person turn. */
  frustrationAt: Map<number, number>;
  negativeAt: Map<number, number>;
  contradictedAt: Set<number>;
  declined: Set<string>;
  /** Message at which each slot was first known (from the world state). */
  slotKnownAt: Map<string, number>;
}

export function scoringContext(s: ConversationSnapshot, a: ConversationAnalysis): ScoringContext {
  const n = s.messages.length;
  const nextHuman = new Int32Array(n).fill(-1);
  let next = -1;
  for (let i = n - 1; i >= 0; i--) {
    nextHuman[i] = next;
    if (isHumanTurn(s.messages[i]!)) next = i;
  }
  const lastAgentBefore = new Int32Array(n).fill(-1);
  let lastAgent = -1;
  for (let i = 0; i < n; i++) {
    const m = s.messages[i]!;
    if (isHumanTurn(m)) lastAgentBefore[i] = lastAgent;
    else if (m.role === 'assistant' && m.threadId === '' && m.text.trim()) lastAgent = i;
  }
  const goAheadAt = new Uint8Array(n);
  let consent = 0;
  for (let i = 0; i < n; i++) {
    if (isHumanTurn(s.messages[i]!)) consent = goAheadCue(requestText(s.messages[i]!)) ? 1 : 0;
    goAheadAt[i] = consent;
  }
  const frustrationAt = new Map<number, number>();
  const negativeAt = new Map<number, number>();
  for (const e of a.emotions) {
    // a feeling about something else (a delayed flight, the person's own slip) is no hazard of a step
    if (e.elicitor === 'external' || e.elicitor === 'user') continue;
    // other negative feelings weigh only when aimed at what the agent did: unattributed confusion or
    // doubt is as common where the conversation goes well
    const target = e.family === 'frustration' ? frustrationAt : NEGATIVE_FAMILIES.has(e.family) && e.elicitor === 'agent' ? negativeAt : null;
    if (target) target.set(e.message_index, Math.max(target.get(e.message_index) ?? 0, e.score));
  }
  const contradictedAt = new Set(a.hallucinations.filter((h) => h.verdict === 'contradicted').map((h) => h.message_index));
  const declined = new Set(a.tool_calls.filter((t) => t.category?.family === 'user_rejected').map((t) => t.tool_use_id));
  const slotKnownAt = new Map<string, number>();
  for (const e of a.world_state?.events ?? []) if ((e.eventType === 'slot_set' || e.eventType === 'carry_in') && !slotKnownAt.has(e.slotKey)) slotKnownAt.set(e.slotKey, e.msgIndex);
  return { s, nextHuman, lastAgentBefore, goAheadAt, frustrationAt, negativeAt, contradictedAt, declined, slotKnownAt };
}

/** A segment's calls, indexed for the call hazards (one pass, so long segments stay linear). */
export interface SegmentCalls {
  /** Index (within the segment's calls) of the last successful call of each tool. */
  lastSuccessOf: Map<string, number>;
  /** Index of the last successful check (tests, build …), −1 when none. */
  lastCheck: number;
}

export function segmentCalls(calls: readonly SnapshotToolCall[]): SegmentCalls {
  const lastSuccessOf = new Map<string, number>();
  let lastCheck = -1;
  calls.forEach((c, k) => {
    if (c.success === true) {
      lastSuccessOf.set(c.toolName, k);
      if (CHECK.test(c.command) || (c.effectClass !== 'write' && CHECK.test(c.toolName))) lastCheck = k;
    }
  });
  return { lastSuccessOf, lastCheck };
}

/** Running facts of the segment as the scorer walks it. */
export interface SegmentWalk {
  /** Each call signature seen: whether it failed, and the actions + edits taken by then. */
  seen: Map<string, { failed: boolean; changes: number }>;
  /** Failed calls made good later, so far. */
  recovered: number;
  /** Transactions and file edits taken so far. */
  actions: number;
  edits: number;
  failures: number;
  /** No call of the conversation succeeded up to the end of the segment. */
  idle: boolean;
  /** Id slots the agent asked for so far in the segment. */
  asked: Set<string>;
}

/** Hazards of the k-th call of a segment. */
export function callHazards(c: SnapshotToolCall, k: number, ctx: ScoringContext, calls: SegmentCalls, walk: SegmentWalk): Hazard[] {
  const out: Hazard[] = [];
  const name = c.toolName || 'unknown tool';
  if (isFailed(c)) {
    if (ctx.declined.has(c.key) || c.decision === 'reject') out.push({ family: 'tool_failure', h: H_DECLINED, reason: `${name} was declined by the user` });
    else if ((calls.lastSuccessOf.get(c.toolName) ?? -1) > k) out.push({ family: 'tool_failure', h: H_FAIL_RECOVERED / ++walk.recovered, reason: `${name} failed (a later call of it succeeded)`, friction: true });
    else out.push({ family: 'tool_failure', h: H_FAIL, reason: `${name} failed and was not recovered` });
  }
  const sig = `${c.toolName}\u0000${c.input}`;
  const earlier = walk.seen.get(sig);
  const changes = walk.actions + walk.edits;
  if (earlier && earlier.changes === changes && !(earlier.failed && !isFailed(c))) {
    const loop = earlier.failed && isFailed(c);
    const h = loop ? H_REPEAT + H_REPEAT_AFTER_FAILURE : c.effectClass === 'read' || c.effectClass === 'compute' ? H_REPEAT_READ : H_REPEAT;
    out.push({ family: 'repeated_call', h, reason: loop ? `${name} repeated unchanged and failed again` : `${name} repeated with the same input`, friction: h === H_REPEAT_READ });
  }
  walk.seen.set(sig, { failed: isFailed(c) || (earlier?.changes === changes && earlier.failed), changes });
  if ((c.effectClass === 'write' || c.effectClass === 'send') && !isHandoff(c) && !isBookkeeping(c) && !isFailed(c)) {
    const edit = isFileEdit(c);
    if (edit) walk.edits++;
    else walk.actions++;
    const checked = edit && calls.lastCheck > k;
    const afterFailure = !edit && walk.failures > 0;
    const unconfirmed = !edit && c.messageIndex !== null && !ctx.goAheadAt[c.messageIndex];
    const h = edit ? (H_ACTION / walk.edits) * (checked ? 0.5 : 1) : H_ACTION + (afterFailure ? H_ACTION_AFTER_FAILURE : 0) + (unconfirmed ? H_UNCONFIRMED : 0);
    const why = [afterFailure ? 'after a failed call' : '', unconfirmed ? 'without a go-ahead' : '', checked ? '(checked later)' : ''].filter(Boolean).join(' ');
    out.push({ family: 'risky_action', h, reason: `state-changing action ${name}${why ? ' ' + why : ''}`, friction: edit });
  }
  if (isFailed(c)) walk.failures++;
  return out;
}

/** The person's turn that reacts to agent message i (the next person turn, when i is the last agent text before it). */
export function reactionTo(ctx: ScoringContext, i: number): SnapshotMessage | null {
  const j = ctx.nextHuman[i]!;
  // a later agent message before the person's turn takes the reaction
  return j >= 0 && ctx.lastAgentBefore[j] === i ? ctx.s.messages[j]! : null;
}

/** Hazards of an agent message: what it said, and how the person reacted. */
export function messageHazards(m: SnapshotMessage, ctx: ScoringContext, walk: SegmentWalk): Hazard[] {
  const out: Hazard[] = [];
  if (ctx.contradictedAt.has(m.index)) out.push({ family: 'hallucination', h: H_CONTRADICTION, reason: 'a claim contradicted by a recorded result' });
  const stalled = askedIdKeys(m.text).filter((key) => {
    const again = walk.asked.has(key) && (ctx.slotKnownAt.get(key) ?? Infinity) > m.index;
    walk.asked.add(key);
    return again;
  });
  if (stalled.length) out.push({ family: 'no_progress', h: H_STALL, reason: `the agent asked again for ${stalled.join(', ')}, still not provided` });
  if (walk.idle && inabilityCue(m.text)) out.push({ family: 'no_progress', h: H_NO_PROGRESS, reason: 'the agent declined and nothing had been looked up or done' });
  const r = reactionTo(ctx, m.index);
  if (!r) return out;
  const turn = requestText(r);
  if (withdrawalCue(turn) || deferralCue(turn)) out.push({ family: 'abandonment', h: H_ABANDON, reason: 'the user dropped or put off the request after this message' });
  else if (correctionCue(turn, asksQuestion(m.text))) out.push({ family: 'user_correction', h: H_CORRECTION, reason: 'the user corrected the agent after this message' });
  const f = ctx.frustrationAt.get(r.index) ?? 0;
  if (f > 0) out.push({ family: 'frustration', h: W_FRUSTRATION * f, reason: `frustration (${f.toFixed(2)}) in the user's next turn` });
  const neg = ctx.negativeAt.get(r.index) ?? 0;
  if (neg > 0) out.push({ family: 'frustration', h: W_NEGATIVE_EMOTION * neg, reason: `negative emotion (${neg.toFixed(2)}) in the user's next turn` });
  return out;
}

/** The person closed the exchange after the agent's message i (thanks, it works, that's all). */
export function closedAfter(ctx: ScoringContext, i: number): boolean {
  const r = reactionTo(ctx, i);
  if (!r) return false;
  const turn = requestText(r);
  return closureCue(turn) && !correctionCue(turn, true) && !withdrawalCue(turn) && !deferralCue(turn);
}
