/**
 * Attribution rows of a pass: one per problem, conversation and signal group (kind, family, type),
 * counting the signals it deduplicates, with the causal rationale, the neutralized evidence
 * snippet and a confidence by the door it came through. Evidence that was attributed before under
 * another id (a merge, a more specific problem) keeps its first time.
 */
import type { AttributionState } from './attribute.js';
import type { EngineInput } from './engine-contract.js';
import type { RunState } from './run-state.js';
import { mechanismOf, snippetOf, uuidFrom } from './text.js';
import type { Attribution } from './types.js';

/** Attribution id: stable for a problem, a conversation and a deduplicated signal group. */
export const attributionIdOf = (problemId: string, conversationId: string, kind: string, family: string, type: string) => uuidFrom('attr', problemId, conversationId, kind, family, type);

/** The rows of every explained signal, in the order of the pass's signals. */
export function attributionRows(run: RunState, st: AttributionState, previousAttributions: EngineInput['previousAttributions']): Attribution[] {
  const { nowIso } = run;
  const { signals, explained } = st;
  const seenBefore = new Map<string, string>();
  for (const a of previousAttributions.values()) {
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
    const prev = previousAttributions.get(id);
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
  return [...rowsByKey.values()];
}

/** Rows by problem id (problems in the order of their first row). */
export function groupByProblem(rows: readonly Attribution[]): Map<string, Attribution[]> {
  const rowsOf = new Map<string, Attribution[]>();
  for (const r of rows) {
    let l = rowsOf.get(r.problem_id);
    if (!l) rowsOf.set(r.problem_id, (l = []));
    l.push(r);
  }
  return rowsOf;
}
