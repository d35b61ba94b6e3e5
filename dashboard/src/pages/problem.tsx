// A problem page with every block of GET /problems/:id, paged evidence and reports, and the feedback
// actions for admin keys (POST /problems/:id/feedback).
import { enc, useApi, type Principal } from '../api';
import { Link } from '../router';
import { Async, Empty, fmtInt, fmtPct, fmtScore, fmtTime, Kpi, TimeChart, truncate } from '../ui';
import { FeedbackBlock, ProblemFixes } from './problem-actions';
import { EvidenceBlock, ReportsBlock } from './problem-evidence';
import { anchorHref, label, RemainderMeter, statusBadge } from './problem-format';
import type { ProblemDetail } from './problem-types';

export function ProblemPage({ id, principal }: { id: string; principal: Principal | null }) {
  const state = useApi<ProblemDetail>(`/problems/${enc(id)}`);
  return (
    <main class="page problem">
      <p class="small">
        <Link href="/problems">← Problems</Link>
      </p>
      <Async state={state} what="the problem">
        {(p) =>
          !p.found || !p.header ? (
            <Empty title="No such problem.">
              <p class="muted small">The id names no problem of this workspace.</p>
            </Empty>
          ) : (
            <>
              <div class="page-head">
                <div>
                  <h1 data-problem-name>{p.header.display_name}</h1>
                  <p>{p.header.cause_statement}</p>
                  {p.alias_resolved && <p class="small muted">{p.requested_problem_id} was merged into this problem.</p>}
                </div>
              </div>
              <section class="kpis" aria-label="Problem figures">
                <Kpi id="rank" label="Rank score" value={fmtScore(p.header.rank_score)} sub={<>{label(p.header.lifecycle)} · {statusBadge(p.header.verification_status)}</>} />
                <Kpi id="attributions" label="Evidence" value={fmtInt(p.header.total_attributions)} sub={<>{fmtInt(p.header.affected_conversations)} conversations, {fmtInt(p.header.affected_users)} users</>} />
                <Kpi id="coverage" label="Explains" value={fmtPct(p.header.coverage_overall * 100)} sub="of the negative signals of its conversations" />
                <Kpi id="step-delta" label="Step score vs others" value={p.header.agg_prm_delta >= 0 ? `+${fmtScore(p.header.agg_prm_delta)}` : fmtScore(p.header.agg_prm_delta)} sub={<>abandonment {fmtPct(p.header.abandonment_rate * 100)}</>} />
              </section>
              <div class="columns">
                <section class="card" aria-labelledby="rubric" data-panel="rubric">
                  <h2 id="rubric">Definition (rubric v{p.rubric?.version ?? p.header.rubric_version})</h2>
                  {p.rubric ? (
                    <>
                      <p>{p.rubric.display_description}</p>
                      <p class="small">
                        Matches signals where:{' '}
                        {p.rubric.match_criteria.any_of.map((c, i) => (
                          <span class="chip" key={i}>
                            {Object.entries(c)
                              .filter(([, v]) => v)
                              .map(([k, v]) => `${k} = ${v}`)
                              .join(', ')}
                          </span>
                        ))}
                      </p>
                      {p.rubric.scope_hints.length > 0 && <p class="small">Scope: {p.rubric.scope_hints.join('; ')}</p>}
                      {p.rubric.counter_examples.length > 0 && (
                        <p class="small">
                          Not this problem: {p.rubric.counter_examples.map((c) => `${label(c.signal_type)} (${c.reason})`).join('; ')}
                        </p>
                      )}
                      <p class="muted small">
                        {p.rubric.tier} · {p.rubric.provisional ? 'provisional · ' : ''}surface {p.rubric.affected_surface || '—'} · causal content v{p.rubric.causal_content_version} · updated {fmtTime(p.rubric.updated_at)}
                        {p.rubric.change_reason && <> · {p.rubric.change_reason}</>}
                      </p>
                    </>
                  ) : (
                    <p class="muted">No definition recorded.</p>
                  )}
                </section>
                <section class="card" aria-labelledby="trend" data-panel="trend">
                  <h2 id="trend">Trend</h2>
                  {p.trend.length === 0 ? (
                    <p class="muted small">One run so far.</p>
                  ) : (
                    <TimeChart
                      title="Evidence per run"
                      days={[...p.trend].reverse().map((t) => t.run_ts.slice(0, 16).replace('T', ' '))}
                      series={[{ name: 'evidence', cls: 's1', values: [...p.trend].reverse().map((t) => t.total_attributions) }]}
                    />
                  )}
                  {p.trend.length > 0 && <p class="muted small">Rank score now {fmtScore(p.trend[0]!.rank_score)}, {p.trend.length} run{p.trend.length === 1 ? "" : "s"}.</p>}
                </section>
              </div>
              {p.dossier ? (
                <section class="card" aria-labelledby="dossier" data-panel="dossier">
                  <h2 id="dossier">Dossier</h2>
                  <p>{p.dossier.executive_summary}</p>
                  {p.dossier.causal_chain.length > 0 && (
                    <ol class="small">
                      {p.dossier.causal_chain.map((c) => (
                        <li key={c.step}>
                          <strong>{label(c.kind)}</strong>: {c.description} ({fmtInt(c.count)})
                        </li>
                      ))}
                    </ol>
                  )}
                  {p.dossier.suggested_investigation.length > 0 && (
                    <>
                      <h3>Suggested investigation</h3>
                      <ul class="small">{p.dossier.suggested_investigation.map((s, i) => <li key={i}>{s}</li>)}</ul>
                    </>
                  )}
                  {p.dossier.limitations.length > 0 && <p class="muted small">Limitations: {p.dossier.limitations.join(' ')}</p>}
                </section>
              ) : (
                <p class="muted small">No dossier generated yet.</p>
              )}
              {p.stories.length > 0 && (
                <section class="card" aria-labelledby="stories" data-panel="stories">
                  <h2 id="stories">Stories</h2>
                  <ul class="matches" data-list="stories">
                    {p.stories.map((s) => (
                      <li key={`${s.story_kind}-${s.evidence.attribution_id}`}>
                        <span class="badge">{label(s.story_kind)}</span>{' '}
                        <Link href={anchorHref(s.evidence.conversation_id, s.evidence.anchor_msg_index)} class="anchor">
                          {truncate(s.evidence.conversation_id, 30)} #{s.evidence.anchor_msg_index}
                        </Link>{' '}
                        <span class="small">{s.evidence.causal_rationale}</span>
                        {s.verification && <span class={`badge ${s.verification.passed ? 'ok' : 'bad'}`}>{label(s.verification.kind)} {s.verification.passed ? 'passed' : 'failed'}</span>}
                      </li>
                    ))}
                  </ul>
                </section>
              )}
              <EvidenceBlock id={p.problem_id!} first={p.evidence} />
              <div class="columns">
                <section class="card" aria-labelledby="verification" data-panel="verification">
                  <h2 id="verification">Verification</h2>
                  {p.verification ? (
                    <>
                      <p class="small">
                        Audit pass rate {p.verification.audit_pass_rate === null ? '—' : fmtPct(p.verification.audit_pass_rate * 100)} · judge audit {p.verification.judge_audit.passed}/{p.verification.judge_audit.total} · counterfactual replay{' '}
                        {p.verification.counterfactual_replay.passed}/{p.verification.counterfactual_replay.total}
                      </p>
                      {p.confidence && (
                        <p class="muted small">
                          Status {label(p.confidence.verification_status)} for causal content v{p.confidence.causal_content_version}
                          {p.confidence.audited_causal_content_version !== null ? ` (audited v${p.confidence.audited_causal_content_version})` : ''}
                        </p>
                      )}
                      <ul class="small">
                        {p.verification.samples.slice(0, 8).map((s, i) => (
                          <li key={i}>
                            <span class={`badge ${s.passed ? 'ok' : 'bad'}`}>{label(s.kind)}</span> <Link href={`/conversations/${enc(s.conversation_id)}`}>{truncate(s.conversation_id, 24)}</Link> {truncate(s.rationale, 140)}
                          </li>
                        ))}
                      </ul>
                    </>
                  ) : (
                    <p class="muted small">Not verified yet.</p>
                  )}
                </section>
                <section class="card" aria-labelledby="impact" data-panel="impact">
                  <h2 id="impact">Impact</h2>
                  {p.impact_identity && (
                    <p class="small">
                      {fmtInt(p.impact_identity.known_users)} known users, {fmtInt(p.impact_identity.unknown_identity_conversations)} conversations without a user id, {fmtInt(p.impact_identity.total_conversations)} in all
                    </p>
                  )}
                  {p.remainder && <RemainderMeter r={p.remainder} />}
                  {p.hierarchy && (
                    <p class="small">
                      {p.hierarchy.tier}
                      {p.hierarchy.parent && (
                        <>
                          {' '}
                          under <Link href={`/problems/${enc(p.hierarchy.parent.problem_id)}`}>{p.hierarchy.parent.display_name}</Link>
                        </>
                      )}
                      {p.hierarchy.children.length > 0 && <> · {p.hierarchy.children.map((c) => <Link key={c.problem_id} href={`/problems/${enc(c.problem_id)}`} class="chip">{c.display_name}</Link>)}</>}
                    </p>
                  )}
                  {p.sub_problems.length > 0 && (
                    <p class="small">
                      Sub-problems:{' '}
                      {p.sub_problems.map((s) => (
                        <Link key={s.problem_id} href={`/problems/${enc(s.problem_id)}`} class="chip">
                          {s.display_name}
                        </Link>
                      ))}
                    </p>
                  )}
                  <table class="table small" data-table="affected">
                    <tbody>
                      {p.affected_conversations.slice(0, 10).map((c) => (
                        <tr key={c.conversation_id}>
                          <td>
                            <Link href={`/conversations/${enc(c.conversation_id)}`}>{truncate(c.conversation_id, 28)}</Link>
                          </td>
                          <td>{c.user_id || <span class="muted">no user</span>}</td>
                          <td class="num">{fmtInt(c.signal_count)} signals</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </section>
              </div>
              <ReportsBlock id={p.problem_id!} first={p.investigation_reports} />
              <FeedbackBlock id={p.problem_id!} principal={principal} evidence={p.evidence} />
              <ProblemFixes id={p.problem_id!} principal={principal} />
              <section class="card" aria-labelledby="history" data-panel="history">
                <h2 id="history">History</h2>
                {p.change_history.length === 0 ? (
                  <p class="muted small">No changes recorded.</p>
                ) : (
                  <ul class="small" data-list="history">
                    {p.change_history.map((h) => (
                      <li key={h.event_id}>
                        {fmtTime(h.created_ts)} <strong>{label(h.event_kind)}</strong> (rubric v{h.rubric_version}) {h.reason}
                        {h.related_problem_id && (
                          <>
                            {' '}
                            · <Link href={`/problems/${enc(h.related_problem_id)}`}>related problem</Link>
                          </>
                        )}
                      </li>
                    ))}
                  </ul>
                )}
              </section>
            </>
          )
        }
      </Async>
    </main>
  );
}
