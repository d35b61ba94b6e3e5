// Problems: the ranked list with untrusted and emerging sections and the hierarchy (GET /problems).
// The problem page (GET /problems/:id) is in problem.tsx.
import { enc, qs, useApi } from '../api';
import { Link, setQuery, useLocation } from '../router';
import { Async, DAYS_BACK, Empty, fmtInt, fmtPct, fmtScore, fmtTime, Kpi, Select, truncate } from '../ui';
import { label, RemainderMeter, statusBadge } from './problem-format';
import type { ProblemRow, ProblemsResponse } from './problem-types';

function ProblemTable({ rows, name }: { rows: ProblemRow[]; name: string }) {
  return (
    <div class="table-wrap">
      <table class="table" data-table={name}>
        <thead>
          <tr>
            <th>{name === 'problems' ? '#' : ''}</th>
            <th>Problem</th>
            <th>Lifecycle</th>
            <th class="num">Rank</th>
            <th class="num">Evidence</th>
            <th class="num">Conv.</th>
            <th class="num">Users</th>
            <th class="num">Explains</th>
            <th>Verification</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((p, i) => (
            <tr key={p.problem_id} data-problem={p.problem_id}>
              <td class="muted">{name === 'problems' ? i + 1 : ''}</td>
              <td>
                <Link href={`/problems/${enc(p.problem_id)}`}>{p.display_name}</Link>
                <div class="muted small">{truncate(p.cause_statement, 160)}</div>
                <div class="small">
                  {Object.entries(p.family_counts).map(([f, n]) => (
                    <span class="chip" key={f}>
                      {label(f)} {fmtInt(n)}
                    </span>
                  ))}
                </div>
              </td>
              <td>{label(p.lifecycle)}</td>
              <td class="num" data-rank>
                {fmtScore(p.rank_score)}
              </td>
              <td class="num" data-attributions>
                {fmtInt(p.total_attributions)}
              </td>
              <td class="num">{fmtInt(p.affected_conversations)}</td>
              <td class="num">{fmtInt(p.affected_users)}</td>
              <td class="num">{fmtPct(p.coverage_overall * 100)}</td>
              <td>{statusBadge(p.verification_status)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ProblemsPage() {
  const { query } = useLocation();
  const days = query.get('days_back') ?? '30';
  const state = useApi<ProblemsResponse>(`/problems${qs({ days_back: days === '30' ? undefined : days })}`);
  return (
    <main class="page problems">
      <div class="page-head">
        <h1>Problems</h1>
        <form class="filters" onSubmit={(e) => e.preventDefault()}>
          <Select name="days_back" label="Period (days)" value={days} options={['7', '14', '30', '90'].includes(days) ? ['7', '14', '30', '90'] : [...DAYS_BACK, days]} onChange={(v) => setQuery({ days_back: v === '30' ? null : v })} />
        </form>
      </div>
      <Async state={state} what="problems">
        {(r) => (
          <>
            <section class="kpis" aria-label="Summary">
              <Kpi id="open-problems" label="Open problems" value={fmtInt(r.summary.open_problems)} sub={<>{fmtInt(r.summary.reopened)} reopened · {fmtInt(r.summary.total_problems)} in all</>} />
              <Kpi id="signals-attributed" label="Signals attributed" value={fmtInt(r.summary.signals_attributed)} />
              <Kpi id="explained" label="Explained coverage" value={fmtPct(r.summary.explained_coverage_pct)} />
              <Kpi id="feedback-pending" label="Feedback pending" value={fmtInt(r.feedback_pending)} />
            </section>
            {r.remainder && <RemainderMeter r={r.remainder} />}
            <p class="muted small">
              Computed {fmtTime(r.freshness.book_computed_at)}
              {r.freshness.lag_seconds !== null ? ` (${fmtInt(Math.round(r.freshness.lag_seconds))} s behind the latest signal)` : ''} · verification: {fmtInt(r.freshness.verification.current)} current, {fmtInt(r.freshness.verification.stale)} stale, {fmtInt(r.freshness.verification.failed)} failed,{' '}
              {fmtInt(r.freshness.verification.unverified)} unverified · backlog {fmtInt(r.freshness.remainder_backlog.pending_groups)} groups
            </p>
            <section class="card" aria-labelledby="ranked">
              <h2 id="ranked">Ranked problems</h2>
              {r.problems.length === 0 ? (
                <Empty title="No verified problem yet.">
                  <p class="muted small">Problems are found from negative signals (failed tool calls, frustration, contradicted claims, low step scores) that share a cause; they rank once verified.</p>
                </Empty>
              ) : (
                <ProblemTable rows={r.problems} name="problems" />
              )}
            </section>
            {r.untrusted.length > 0 && (
              <section class="card" aria-labelledby="untrusted">
                <h2 id="untrusted">Not trusted yet</h2>
                <p class="muted small">Verification failed, is missing or is stale for the current definition: listed, never ranked.</p>
                <ProblemTable rows={r.untrusted} name="untrusted" />
              </section>
            )}
            {r.emerging.length > 0 && (
              <section class="card" aria-labelledby="emerging">
                <h2 id="emerging">Emerging</h2>
                <ul class="matches" data-list="emerging">
                  {r.emerging.map((e) => (
                    <li key={e.problem_id} data-problem={e.problem_id}>
                      <Link href={`/problems/${enc(e.problem_id)}`}>{e.display_name}</Link> {e.family && <span class="chip">{label(e.family)}</span>} {statusBadge(e.verification_status)}
                      <div class="small muted">
                        {truncate(e.display_description, 200)} · {fmtInt(e.evidence_support.attribution_count)} attributions, {fmtInt(e.evidence_support.report_backed_members)} backed by reports
                      </div>
                    </li>
                  ))}
                </ul>
              </section>
            )}
            {r.hierarchy.macros.length > 0 && (
              <section class="card" aria-labelledby="hierarchy">
                <h2 id="hierarchy">Hierarchy</h2>
                <ul class="matches" data-list="macros">
                  {r.hierarchy.macros.map((m) => (
                    <li key={m.problem_id} data-problem={m.problem_id}>
                      <Link href={`/problems/${enc(m.problem_id)}`}>{m.display_name}</Link> <span class="muted small">{fmtInt(m.child_count)} sub-problems</span>
                      <div class="small">
                        {m.children.map((c) => {
                          const child = [...r.problems, ...r.untrusted].find((p) => p.problem_id === c);
                          return (
                            <Link key={c} href={`/problems/${enc(c)}`} class="chip">
                              {child?.display_name ?? c.slice(0, 8)}
                            </Link>
                          );
                        })}
                      </div>
                    </li>
                  ))}
                </ul>
                <p class="muted small">{fmtInt(r.hierarchy.unparented_leaf_count)} problems without a parent.</p>
              </section>
            )}
          </>
        )}
      </Async>
    </main>
  );
}
