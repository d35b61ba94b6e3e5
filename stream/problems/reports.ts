/**
 * Reports and dossiers of a pass (docs/analyses.md "Problems", Reports): one report per leaf problem
 * and conversation it explains (`investigated`; `no_problem` where its audit rejected the cause),
 * one per counter-example conversation (`rejected`), and the dossier of every live problem.
 */
import type { AttributionState } from './attribute.js';
import { buildDossier } from './dossier.js';
import { round3 } from './metrics.js';
import type { RunState } from './run-state.js';
import { uuidFrom } from './text.js';
import { CAUSE_KINDS, type Attribution, type ProblemState, type Report, type Signal } from './types.js';

/** The reports of the leaves (and sets every live problem's dossier). */
export function buildReports(run: RunState, st: AttributionState, rowsOf: ReadonlyMap<string, Attribution[]>): Report[] {
  const { nowIso, problems } = run;
  const { byConv, explained } = st;
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
  return reports;
}

/** The report of problem `p` in conversation `conv`, from its rows `rs` there. */
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
