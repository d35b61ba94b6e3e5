/**
 * Step scores: for every segment, its units (agent steps: each agent message, each tool call with
 * its result), a progress score per unit, the chance each unit is the segment's first bad step
 * with the reason, a failure type for a segment that likely failed, and the conversation's
 * weighted rollup. A hazard model (docs/analyses.md "Step scores" has the formula):
 *
 *   h_u       = 1 − Π (1 − hazard) over the evidence against unit u (step-scores-evidence.ts);
 *               friction (base rate, failures made good, redundant reads, edits) takes at most
 *               FRICTION_MAX of a segment in total
 *   progress  = PRIOR × Π_{v ≤ u} (1 − h_v)                    (the goal still on track after u)
 *   first bad = Π_{v < u} (1 − h_v) × h_u                     (u is where it went wrong)
 *   segment   = progress of its last unit, lifted by CLOSURE_LIFT × (1 − progress) when the
 *               person closed the exchange after the segment's last agent message
 *   blended   = Σ w_s × segment_s / Σ w_s, w_s = units + ACTION_WEIGHT × state-changing actions
 *
 * Deterministic; reads the segments, tool calls, emotions and hallucinations of the analysis.
 */
import { createHash } from 'node:crypto';
import { FRUSTRATION_MIN, OUTCOME_ELICITORS, OUTCOME_NEGATIVE_BELOW, OUTCOME_POSITIVE_FROM } from '../../schemas/outcome.js';
import { callHazards, closedAfter, messageHazards, scoringContext, segmentCalls, BASE_UNITS, FRICTION_MAX, H_BASE, type Hazard, type HazardFamily, type SegmentWalk } from './step-scores-evidence.js';
import { isHandoff, threadIdOf } from './world-state-threads.js';
import type { ConversationAnalysis, ConversationSnapshot, EmotionDetection, Segment, SnapshotToolCall, StepScoreRollup, StepScores, StepScoreSegment, StepScoreStep } from './types.js';

export const STEP_SCORES_VERSION = 2;
export const MODEL_ID = `tracehouse-step-hazard-v${STEP_SCORES_VERSION}`;
/** Chance a goal is on track before any step. */
export const PRIOR = 0.9;
/** Share of the remaining doubt removed when the person closes the exchange. */
export const CLOSURE_LIFT = 0.1;
/** Extra weight of a segment in the rollup per state-changing action it took (a unit weighs 1). */
export const ACTION_WEIGHT = 5;
/** Share of the conversation's survival in the blended score (the rest is the segments' weighted mean). */
export const SURVIVAL_SHARE = 0.5;
/** A segment whose final progress is below this gets a failure type. */
export const FAILED_BELOW = 0.5;


const round = (x: number) => Math.round(x * 1e4) / 1e4;
const hash = (s: string, n: number) => createHash('sha1').update(s).digest('hex').slice(0, n);

interface Unit {
  kind: 'message' | 'call';
  messageIndex: number;
  call?: SnapshotToolCall;
}

/** Units of a segment in order: per message its text (an agent message), then its calls. */
function unitsOf(s: ConversationSnapshot, g: Segment, telemetryAt: Map<number, SnapshotToolCall[]>, callsAt: Map<number, SnapshotToolCall[]>): Unit[] {
  const units: Unit[] = [];
  for (let i = g.start_index; i <= g.end_index; i++) {
    const m = s.messages[i]!;
    if (m.role === 'assistant' && m.text.trim()) units.push({ kind: 'message', messageIndex: i });
    for (const c of callsAt.get(i) ?? []) units.push({ kind: 'call', messageIndex: i, call: c });
    for (const c of telemetryAt.get(i) ?? []) units.push({ kind: 'call', messageIndex: i, call: c });
  }
  return units;
}

function nodeType(u: Unit): string {
  if (u.kind === 'message') return 'agent_message';
  return isHandoff(u.call!) ? 'handoff' : `tool_${u.call!.effectClass}`;
}

/** The evidence family that weighs most over a segment's units (for its failure type). */
function dominantFamily(hazards: Hazard[][]): HazardFamily {
  const mass = new Map<HazardFamily, number>();
  for (const list of hazards) for (const h of list) mass.set(h.family, (mass.get(h.family) ?? 0) + h.h);
  let best: HazardFamily = 'base';
  let bestMass = -1;
  for (const [f, m] of mass) if (m > bestMass || (m === bestMass && f < best)) [best, bestMass] = [f, m];
  return best;
}

function featureMode(a: ConversationAnalysis): string {
  const parts = ['structural'];
  if (a.emotions.length) parts.push('emotions');
  if (a.hallucinations.length) parts.push('hallucinations');
  return parts.join('+');
}

export function scoreSteps(s: ConversationSnapshot, a: ConversationAnalysis): StepScores {
  const ctx = scoringContext(s, a);
  const callsAt = new Map<number, SnapshotToolCall[]>();
  const telemetryAt = new Map<number, SnapshotToolCall[]>();
  for (const c of s.toolCalls) {
    const at = c.messageIndex ?? Math.max(0, c.position);
    const map = c.messageIndex !== null ? callsAt : telemetryAt;
    map.set(at, [...(map.get(at) ?? []), c]);
  }
  // nothing looked up or done yet: no call of the conversation succeeded up to a segment's end
  const firstSuccess = s.toolCalls.reduce((first, c) => (c.success === true && (first < 0 || c.position < first) ? c.position : first), -1);
  const threads = new Set((a.world_state?.segments ?? []).flatMap((g) => g.openThreads.map((t) => t.id)));
  const graphId = 'g_' + hash(s.conversationId, 12);
  const mode = featureMode(a);
  let node = 0;
  /** Chance that no unit of the whole conversation was bad. */
  let survival = 1;
  const segments: StepScoreSegment[] = [];
  const scored: Array<{ score: number; weight: number }> = [];
  a.segments.forEach((g, k) => {
    const units = unitsOf(s, g, telemetryAt, callsAt);
    const calls = segmentCalls(units.filter((u) => u.kind === 'call').map((u) => u.call!));
    const walk: SegmentWalk = { seen: new Map(), recovered: 0, asked: new Set(), actions: 0, edits: 0, failures: 0, idle: !(firstSuccess >= 0 && firstSuccess <= g.end_index) };
    const hazards: Hazard[][] = [];
    const steps: StepScoreStep[] = [];
    let alive = 1;
    /** What friction has left of the segment (it may not go below 1 − FRICTION_MAX). */
    let smooth = 1;
    let callIndex = 0;
    units.forEach((u, idx) => {
      const evidence = u.kind === 'call' ? callHazards(u.call!, callIndex++, ctx, calls, walk) : messageHazards(s.messages[u.messageIndex]!, ctx, walk);
      const all: Hazard[] = idx < BASE_UNITS ? [{ family: 'base', h: H_BASE, reason: '', friction: true }, ...evidence] : evidence;
      hazards.push(evidence);
      const fromEvidence = 1 - all.reduce((p, x) => (x.friction ? p : p * (1 - Math.min(1, x.h))), 1);
      const wanted = 1 - all.reduce((p, x) => (x.friction ? p * (1 - Math.min(1, x.h)) : p), 1);
      const fromFriction = Math.min(wanted, Math.max(0, smooth - (1 - FRICTION_MAX)) / smooth);
      smooth *= 1 - fromFriction;
      const h = 1 - (1 - fromEvidence) * (1 - fromFriction);
      const firstBad = alive * h;
      alive *= 1 - h;
      survival *= 1 - h;
      const main = evidence.reduce<Hazard | null>((best, x) => (!best || x.h > best.h ? x : best), null);
      steps.push({
        unit_id: u.kind === 'call' ? `call:${u.call!.key}` : `msg:${u.messageIndex}`,
        message_index: u.messageIndex,
        unit_index: idx,
        node_type: nodeType(u),
        progress_score: round(PRIOR * alive),
        first_bad_step_probability: round(firstBad),
        first_bad_step_reason: main ? main.reason : null,
        graph_id: graphId,
        node_index: node++,
      });
    });
    let score = PRIOR * alive;
    const lastMessage = [...units].reverse().find((u) => u.kind === 'message');
    if (lastMessage && closedAfter(ctx, lastMessage.messageIndex)) {
      score += (1 - score) * CLOSURE_LIFT;
      steps[steps.length - 1]!.progress_score = round(score);
    }
    const members = s.messages.slice(g.start_index, g.end_index + 1).map((m) => m.messageId).join('\u0000');
    const threadId = threadIdOf(g.segment_id);
    segments.push({
      segment_id: g.segment_id,
      thread_id: threads.has(threadId) ? threadId : null,
      segment_status_at_scoring: k === a.segments.length - 1 ? 'open' : 'closed',
      segment_unit_count: units.length,
      member_hash: hash(members, 16),
      model_id: MODEL_ID,
      feature_mode: mode,
      scored_at: new Date(s.messages[g.end_index]?.ts ?? 0).toISOString(),
      failure_type: units.length && score < FAILED_BELOW ? { failure_type: dominantFamily(hazards), score: round(1 - score) } : null,
      steps,
    });
    scored.push({ score, weight: units.length ? units.length + ACTION_WEIGHT * (walk.actions + walk.edits) : 0 });
  });
  return { segments, rollup: rollupOf(scored, PRIOR * survival), model: null, failure_type: null, first_bad_step: null, steps: [] };
}

/**
 * The blend of the segments' weighted mean score (how well its goals went, typically) and the
 * conversation's survival (the chance no unit of any segment was bad); null until a segment
 * carries weight.
 */
export function rollupOf(scored: ReadonlyArray<{ score: number; weight: number }>, survival: number): StepScoreRollup | null {
  const weighted = scored.filter((x) => x.weight > 0);
  const total = weighted.reduce((t, x) => t + x.weight, 0);
  if (total === 0) return null;
  const mean = weighted.reduce((t, x) => t + x.weight * x.score, 0) / total;
  return {
    blended_score: round(SURVIVAL_SHARE * survival + (1 - SURVIVAL_SHARE) * mean),
    segment_count: scored.length,
    weighted_segment_count: weighted.length,
    total_weight: total,
  };
}

export { FRUSTRATION_MIN, OUTCOME_NEGATIVE_BELOW, OUTCOME_POSITIVE_FROM };

/** A frustration detection strong enough for the `outcome` filter. */
export const frustrated = (emotions: readonly EmotionDetection[]): boolean =>
  emotions.some((e) => e.family === 'frustration' && e.score >= FRUSTRATION_MIN && (OUTCOME_ELICITORS as readonly string[]).includes(e.elicitor));

/**
 * The conversation's `outcome` as GET /conversations decides it (null: neither): negative = blended
 * score below OUTCOME_NEGATIVE_BELOW or a frustration detection scoring at least FRUSTRATION_MIN that
 * the agent elicited (or that nothing attributes elsewhere: OUTCOME_ELICITORS);
 * positive = blended score at least OUTCOME_POSITIVE_FROM and no such detection.
 */
export function outcomeOf(rollup: StepScoreRollup | null, emotions: readonly EmotionDetection[]): 'positive' | 'negative' | null {
  const f = frustrated(emotions);
  if (f || (rollup && rollup.blended_score < OUTCOME_NEGATIVE_BELOW)) return 'negative';
  if (rollup && rollup.blended_score >= OUTCOME_POSITIVE_FROM) return 'positive';
  return null;
}
