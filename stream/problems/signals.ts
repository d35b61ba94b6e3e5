/**
 * The negative signals of one conversation, from what the per-conversation analyses recorded
 * (docs/analyses.md "Problems", Signals). One pure mapping serves the stream role (rows read from
 * the analysis tables) and the offline evaluation (analyses computed in memory):
 *
 * - every failed tool call (`tool_failure`, family = failure family, type = category label);
 * - negative emotion detections of at least 0.3 whose elicitor is not the user (`emotion`);
 * - laziness detections that count alone (confidence ≥ 0.5, not truncated data) (`laziness`);
 * - claims contradicted by the record (`hallucination`);
 * - scored segments that failed (final progress below 0.5), anchored at their most likely first
 *   bad step, with the segment's use-case cluster when the taxonomy assigned one (`step_score`);
 * - a negative turn (≥ 0.45, not mere confusion) among the conversation's last two messages:
 *   the user left unhappy (`abandonment`).
 */
import type { CauseRef, ConversationAnalysis, ConversationSnapshot, StepScoreStep } from '../analyses/types.js';
import type { Signal } from './types.js';
import { withFields } from '../../core/own.js';

export const MIN_EMOTION_SCORE = 0.3;
export const ABANDONMENT_SCORE = 0.45;
export const MIN_LAZINESS_CONFIDENCE = 0.5;

export interface SignalSource {
  conversation_id: string;
  user_id: string;
  message_count: number;
  /** Segments with their use-case cluster (node id and label of the latest taxonomy), when assigned. */
  segments: Array<{ id: string; start: number; cluster_id?: string; cluster_label?: string }>;
  /** Failed calls only. */
  calls: Array<{ item_key: string; tool_name: string; message_index: number; result_index: number; ts: string; error: string; family: string; label: string; likely_cause: string }>;
  emotions: Array<{ item_key: string; message_index: number; ts: string; family: string; signal: string; score: number; elicitor: string; cause: CauseRef | null; quotes: string[] }>;
  laziness: Array<{ item_key: string; message_index: number; ts: string; pattern: string; confidence: number; quote: string; truncated: boolean }>;
  /** Contradicted claims only. */
  claims: Array<{ item_key: string; message_index: number; ts: string; claim_type: string; claim: string; evidence_call: string | null; evidence_index: number | null }>;
  /** Failed scored segments only; `score` is the final progress score. */
  steps: Array<{ segment_id: string; score: number; failure_type: string; scored_at: string; steps: Array<Pick<StepScoreStep, 'unit_id' | 'message_index' | 'first_bad_step_probability' | 'first_bad_step_reason'>> }>;
  blended: number | null;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

export function extractSignals(src: SignalSource): Signal[] {
  const c = src.conversation_id;
  const segs = [...src.segments].sort((a, b) => a.start - b.start);
  const segmentOf = (msg: number) => {
    let id = '';
    for (const s of segs) if (s.start <= msg) id = s.id;
    return id || segs[0]?.id || '';
  };
  const out: Signal[] = [];
  const toolOfCall = new Map<string, string>();
  for (const r of src.calls) {
    const msg = r.result_index >= 0 ? r.result_index : Math.max(0, r.message_index);
    toolOfCall.set(r.item_key, r.tool_name);
    out.push({
      signal_id: `tool_failure:${c}:${r.item_key}`,
      conversation_id: c,
      user_id: src.user_id,
      kind: 'tool_failure',
      family: r.family || 'other',
      type: r.label || r.family || 'failure',
      msg_index: msg,
      ts: r.ts,
      segment_id: segmentOf(msg),
      confidence: 1,
      text: r.error,
      tool_name: r.tool_name,
      detail: r.likely_cause,
      call_key: r.item_key,
      call_msg_index: r.message_index >= 0 ? r.message_index : msg,
    });
  }
  for (const e of src.emotions) {
    if (e.family === 'satisfaction' || e.score < MIN_EMOTION_SCORE || e.elicitor === 'user') continue;
    const base = { conversation_id: c, user_id: src.user_id, msg_index: e.message_index, ts: e.ts, segment_id: segmentOf(e.message_index), confidence: r3(e.score), text: e.quotes.join(' … '), cause_ref: e.cause ?? undefined };
    out.push(withFields(base, { signal_id: `emotion:${c}:${e.item_key}`, kind: 'emotion', family: e.family, type: e.signal, elicitor: e.elicitor }));
    if (e.score >= ABANDONMENT_SCORE && e.family !== 'confusion' && e.message_index >= src.message_count - 2) {
      out.push(withFields(base, { signal_id: `abandonment:${c}:${e.item_key}`, kind: 'abandonment', family: 'abandonment', type: 'left_after_negative_turn' }));
    }
  }
  for (const l of src.laziness) {
    if (l.truncated || l.confidence < MIN_LAZINESS_CONFIDENCE) continue;
    out.push({
      signal_id: `laziness:${c}:${l.item_key}`,
      conversation_id: c,
      user_id: src.user_id,
      kind: 'laziness',
      family: 'laziness',
      type: l.pattern,
      msg_index: l.message_index,
      ts: l.ts,
      segment_id: segmentOf(l.message_index),
      confidence: r3(l.confidence),
      text: l.quote,
    });
  }
  for (const h of src.claims) {
    out.push({
      signal_id: `hallucination:${c}:${h.item_key}`,
      conversation_id: c,
      user_id: src.user_id,
      kind: 'hallucination',
      family: 'hallucination',
      type: h.claim_type,
      msg_index: h.message_index,
      ts: h.ts,
      segment_id: segmentOf(h.message_index),
      confidence: 0.9,
      text: h.claim,
      tool_name: h.evidence_call ? toolOfCall.get(h.evidence_call) : undefined,
      cause_ref: h.evidence_call ? { kind: 'tool_failure', message_index: h.evidence_index, tool_use_id: h.evidence_call } : undefined,
    });
  }
  const clusterOf = new Map(segs.filter((g) => g.cluster_id).map((g) => [g.id, { cluster_id: g.cluster_id!, cluster_label: g.cluster_label ?? '' }]));
  for (const s of src.steps) {
    const worst = [...s.steps].sort((a, b) => b.first_bad_step_probability - a.first_bad_step_probability || a.message_index - b.message_index)[0];
    if (!worst) continue;
    out.push({
      signal_id: `step_score:${c}:${s.segment_id}`,
      conversation_id: c,
      user_id: src.user_id,
      kind: 'step_score',
      family: 'step_score',
      type: s.failure_type || 'low_progress',
      msg_index: worst.message_index,
      ts: s.scored_at,
      segment_id: s.segment_id,
      confidence: r3(1 - s.score),
      text: worst.first_bad_step_reason ?? '',
      step_unit: worst.unit_id,
      ...clusterOf.get(s.segment_id),
    });
  }
  return out;
}

const isoOf = (ms: number) => new Date(Number.isFinite(ms) ? ms : 0).toISOString();

/** The signal source of a conversation analyzed in memory (offline analysis, evaluation). */
export function sourceFromAnalysis(s: ConversationSnapshot, a: ConversationAnalysis): SignalSource {
  const tsOf = (i: number | null) => isoOf(i !== null && s.messages[i] ? s.messages[i]!.ts : (s.messages[s.messages.length - 1]?.ts ?? 0));
  const byCall = new Map(s.toolCalls.map((c) => [c.key, c]));
  const calls: SignalSource['calls'] = [];
  for (const t of a.tool_calls) {
    const c = byCall.get(t.tool_use_id);
    if (!c) continue;
    const failed = t.success === false || (t.success === null && c.decision === 'reject');
    if (!failed) continue;
    calls.push({ item_key: t.tool_use_id, tool_name: t.tool_name, message_index: t.message_index ?? -1, result_index: c.resultIndex ?? -1, ts: isoOf(c.ts), error: c.resultText, family: t.category?.family ?? '', label: t.category?.label ?? '', likely_cause: t.category?.likely_cause ?? '' });
  }
  const steps = (a.step_scores?.segments ?? [])
    .filter((g) => g.failure_type)
    .map((g) => ({ segment_id: g.segment_id, score: 1 - g.failure_type!.score, failure_type: g.failure_type!.failure_type, scored_at: g.scored_at, steps: g.steps }));
  return {
    conversation_id: s.conversationId,
    user_id: s.userId,
    message_count: s.messages.length,
    segments: a.segments.map((g) => ({ id: g.segment_id, start: g.start_index, ...(g.cluster ? { cluster_id: g.cluster.node_id, cluster_label: g.cluster.label } : {}) })),
    calls,
    emotions: a.emotions.map((e) => ({ item_key: `${e.message_index}:${e.signal}`, message_index: e.message_index, ts: tsOf(e.message_index), family: e.family, signal: e.signal, score: e.score, elicitor: e.elicitor, cause: e.cause, quotes: e.quotes })),
    laziness: a.laziness.map((l) => ({ item_key: `${l.message_index}:${l.pattern}`, message_index: l.message_index, ts: tsOf(l.message_index), pattern: l.pattern, confidence: l.confidence, quote: l.quote, truncated: l.truncated_data })),
    claims: a.hallucinations
      .filter((h) => h.verdict === 'contradicted')
      .map((h, i) => ({ item_key: `${h.message_index}:${h.claim_type}:${i}`, message_index: h.message_index, ts: tsOf(h.message_index), claim_type: h.claim_type, claim: h.claim, evidence_call: h.evidence.tool_use_id, evidence_index: h.evidence.message_index })),
    steps,
    blended: a.step_scores?.rollup?.blended_score ?? null,
  };
}
