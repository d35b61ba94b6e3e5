// Problems: the ranked list with untrusted and emerging sections and the hierarchy (GET /problems),
// and a problem page with every block of GET /problems/:id, paged evidence and reports, and the
// feedback actions for admin keys (POST /problems/:id/feedback).
import { useState } from 'preact/hooks';
import { api, enc, qs, useApi, type Principal } from '../api';
import { Link, navigate, setQuery, useLocation } from '../router';
import { Async, DAYS_BACK, Empty, ErrorBox, fmtInt, fmtPct, fmtScore, fmtTime, Kpi, Select, TimeChart, truncate } from '../ui';

interface ProblemRow {
  problem_id: string;
  display_name: string;
  cause_statement: string;
  lifecycle: string;
  rank_score: number;
  rubric_version: number;
  total_attributions: number;
  affected_users: number;
  affected_conversations: number;
  agg_prm_delta: number;
  abandonment_rate: number;
  family_counts: Record<string, number>;
  coverage_overall: number;
  audit_pass_rate: number | null;
  verification_status: string;
}
interface ProblemsResponse {
  summary: { days_back: number; open_problems: number; reopened: number; total_problems: number; signals_attributed: number; explained_coverage_pct: number };
  remainder: Remainder | null;
  problems: ProblemRow[];
  untrusted: ProblemRow[];
  hierarchy: { macros: Array<{ problem_id: string; display_name: string; display_description: string; child_count: number; children: string[] }>; unparented_leaf_count: number };
  emerging: Array<{ problem_id: string; display_name: string; display_description: string; family: string | null; evidence_support: { report_backed_members: number; attribution_count: number }; verification_status: string }>;
  freshness: { book_computed_at: string | null; latest_assignment_at: string | null; lag_seconds: number | null; verification: { live_total: number; current: number; stale: number; failed: number; unverified: number }; remainder_backlog: { pending_groups: number; pending_mass: number } };
  feedback_pending: number;
}
interface Remainder {
  attributed_signals: number;
  unexplained_signals: number;
  coverage_pct: number;
  historically_attributed_signals: number;
  historical_coverage_pct: number;
}
interface Evidence {
  attribution_id: string;
  conversation_id: string;
  anchor_msg_index: number;
  signal_family: string;
  signal_type: string;
  confidence: number;
  causal_rationale: string;
  door: string;
  replay_verified: boolean | null;
  evidence_snippet: string;
  dedup_count: number;
  user_id: string;
  assigned_at: string;
  snippet_parsed: { excerpt: string; mechanism: string } | null;
}
interface Report {
  report_id: string;
  conversation_id: string;
  status: string;
  problem_found: boolean;
  mechanism: string;
  narrative: string;
  citations: Array<{ path: string; ref: string; quote: string }>;
  signals_explained: number;
  signals_total: number;
  suspected_surface: string;
  severity: string;
  confidence: number;
  primary_family: string;
  investigated_at: string;
}
interface Sample {
  kind: string;
  passed: boolean;
  rubric_version: number;
  conversation_id: string;
  rationale: string;
  verified_at: string;
}
interface ProblemDetail {
  found: boolean;
  problem_id: string | null;
  requested_problem_id: string;
  alias_resolved: boolean;
  header: ProblemRow | null;
  rubric: {
    version: number;
    cause_statement: string;
    display_name: string;
    display_description: string;
    change_reason: string;
    match_criteria: { any_of: Array<Record<string, string>> };
    counter_examples: Array<{ conversation_id: string; signal_family: string; signal_type: string; reason: string }>;
    scope_hints: string[];
    updated_at: string;
    tier: string;
    provisional: boolean;
    affected_surface: string;
    causal_content_version: number;
  } | null;
  trend: Array<{ run_ts: string; rank_score: number; total_attributions: number; rubric_version: number; coverage_overall: number }>;
  sub_problems: Array<{ problem_id: string; display_name: string; lifecycle: string }>;
  verification: { audit_pass_rate: number | null; judge_audit: { passed: number; total: number }; counterfactual_replay: { passed: number; total: number }; samples: Sample[] } | null;
  evidence: Evidence[];
  affected_conversations: Array<{ conversation_id: string; user_id: string; signal_count: number; family_counts: Record<string, number>; last_signal_at: string }>;
  remainder: Remainder | null;
  investigation_reports: { items: Report[]; has_more: boolean; next_cursor: string | null };
  confidence: { current_rubric_version: number; causal_content_version: number; verification_status: string; audited_causal_content_version: number | null } | null;
  change_history: Array<{ event_id: string; event_kind: string; related_problem_id: string | null; rubric_version: number; reason: string; created_ts: string }>;
  impact_identity: { known_users: number; unknown_identity_conversations: number; total_conversations: number; identity_coverage_pct: number } | null;
  hierarchy: { tier: string; parent: { problem_id: string; display_name: string } | null; children: Array<{ problem_id: string; display_name: string }> } | null;
  dossier: { executive_summary: string; causal_chain: Array<{ step: number; kind: string; description: string; count: number }>; suggested_investigation: string[]; limitations: string[]; computed_at: string } | null;
  stories: Array<{ story_kind: string; evidence: Evidence; verification: Sample | null }>;
}
interface FeedbackRow {
  feedback_id: string;
  feedback_kind: string;
  reason: string;
  attribution_id: string | null;
  new_display_name: string | null;
  actor: string;
  status: string;
  created_at: string;
}

const label = (s: string) => s.replace(/_/g, ' ');
const statusBadge = (s: string) => <span class={`badge ${s === 'current' ? 'ok' : s === 'failed' ? 'bad' : 'warn'}`}>{label(s)}</span>;
const anchorHref = (conversation: string, msg: number) => `/conversations/${enc(conversation)}${qs({ msg })}`;

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

function RemainderMeter({ r }: { r: Remainder }) {
  return (
    <p class="small" data-remainder>
      <strong>{fmtPct(r.coverage_pct)}</strong> of negative signals explained ({fmtInt(r.attributed_signals)} attributed, <span data-unexplained>{fmtInt(r.unexplained_signals)}</span> unexplained); historically {fmtPct(r.historical_coverage_pct)}.
    </p>
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

function EvidenceTable({ rows }: { rows: Evidence[] }) {
  return (
    <div class="table-wrap">
      <table class="table small" data-table="evidence">
        <thead>
          <tr>
            <th>Conversation · message</th>
            <th>Signal</th>
            <th class="num">Conf.</th>
            <th>Why</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((e) => (
            <tr key={e.attribution_id} data-attribution={e.attribution_id}>
              <td class="nowrap">
                <Link href={anchorHref(e.conversation_id, e.anchor_msg_index)} class="anchor" title="Open the conversation at this message">
                  {truncate(e.conversation_id, 28)} #{e.anchor_msg_index}
                </Link>
                <div class="muted">{fmtTime(e.assigned_at)}</div>
              </td>
              <td>
                {label(e.signal_family)} / {label(e.signal_type)}
                <div class="muted">
                  {label(e.door)}
                  {e.replay_verified === true ? ' · replay verified' : e.replay_verified === false ? ' · replay failed' : ''}
                  {e.dedup_count > 1 ? ` · ×${e.dedup_count}` : ''}
                </div>
              </td>
              <td class="num">{fmtScore(e.confidence)}</td>
              <td>
                {e.causal_rationale}
                {(e.snippet_parsed?.excerpt || e.evidence_snippet) && <q class="muted">{truncate(e.snippet_parsed?.excerpt || e.evidence_snippet, 220)}</q>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A block read through a keyset-paginated sub-resource: the first page from the detail, then "more". */
function useMore<T>(path: string, key: string, first: T[], cursor: string | null, hasMore: boolean) {
  const [extra, setExtra] = useState<{ rows: T[]; cursor: string | null; hasMore: boolean; error?: Error; busy: boolean }>({ rows: [], cursor, hasMore, busy: false });
  const more = async () => {
    setExtra((s) => ({ ...s, busy: true }));
    try {
      const r = await api<Record<string, unknown> & { pagination: { has_more: boolean; next_cursor: string | null } }>(`${path}${qs({ cursor: extra.cursor ?? undefined })}`);
      setExtra((s) => ({ rows: [...s.rows, ...((r[key] as T[]) ?? [])], cursor: r.pagination.next_cursor, hasMore: r.pagination.has_more, busy: false }));
    } catch (error) {
      setExtra((s) => ({ ...s, error: error as Error, busy: false }));
    }
  };
  return { rows: [...first, ...extra.rows], hasMore: extra.hasMore && extra.cursor !== null, more, busy: extra.busy, error: extra.error };
}

/** All evidence through GET /problems/:id/evidence, one keyset page at a time (mounted once the first page is in). */
function EvidencePager({ id, first }: { id: string; first: { evidence: Evidence[]; pagination: { has_more: boolean; next_cursor: string | null } } }) {
  const more = useMore<Evidence>(`/problems/${enc(id)}/evidence`, 'evidence', first.evidence, first.pagination.next_cursor, first.pagination.has_more);
  return (
    <>
      <EvidenceTable rows={more.rows} />
      {more.error && <ErrorBox error={more.error} />}
      {more.hasMore && (
        <button type="button" class="secondary" disabled={more.busy} onClick={more.more}>
          More evidence
        </button>
      )}
    </>
  );
}

function EvidenceBlock({ id, first }: { id: string; first: Evidence[] }) {
  // the detail carries the first page; "page through" switches to the evidence endpoint
  const [started, setStarted] = useState(false);
  const page = useApi<{ evidence: Evidence[]; pagination: { has_more: boolean; next_cursor: string | null } }>(started ? `/problems/${enc(id)}/evidence` : null);
  return (
    <section class="card" aria-labelledby="evidence" data-panel="evidence">
      <h2 id="evidence">Evidence</h2>
      {!started ? (
        first.length === 0 ? (
          <Empty title="No evidence in the current run." />
        ) : (
          <>
            <EvidenceTable rows={first} />
            <button type="button" class="secondary" onClick={() => setStarted(true)}>
              Page through all evidence
            </button>
          </>
        )
      ) : (
        <Async state={page} what="evidence">
          {(data) => <EvidencePager id={id} first={data} />}
        </Async>
      )}
    </section>
  );
}

function ReportsBlock({ id, first }: { id: string; first: ProblemDetail['investigation_reports'] }) {
  const more = useMore<Report>(`/problems/${enc(id)}/reports`, 'reports', first.items, first.next_cursor, first.has_more);
  return (
    <section class="card" aria-labelledby="reports">
      <h2 id="reports">Investigation reports</h2>
      {more.rows.length === 0 ? (
        <Empty title="No investigation report." />
      ) : (
        <ul class="matches" data-list="reports">
          {more.rows.map((r) => (
            <li key={r.report_id} data-report={r.report_id}>
              <span class={`badge ${r.problem_found ? 'bad' : 'ok'}`}>{label(r.status)}</span> <strong>{r.mechanism || label(r.primary_family)}</strong>{' '}
              <span class="muted small">
                {r.severity} severity · confidence {fmtScore(r.confidence)} · explains {r.signals_explained}/{r.signals_total} signals · {fmtTime(r.investigated_at)}
              </span>
              <div class="small">
                <Link href={`/conversations/${enc(r.conversation_id)}`}>{truncate(r.conversation_id, 40)}</Link>
                {r.suspected_surface && <> · suspected surface: {r.suspected_surface}</>}
              </div>
              {r.narrative && <p class="small">{truncate(r.narrative, 600)}</p>}
              {r.citations.length > 0 && (
                <ul class="small">
                  {r.citations.map((c, i) => (
                    <li key={i}>
                      <code>{c.path}</code> {c.ref} {c.quote && <q>{truncate(c.quote, 160)}</q>}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      )}
      {more.error && <ErrorBox error={more.error} />}
      {more.hasMore && (
        <button type="button" class="secondary" disabled={more.busy} onClick={more.more}>
          More reports
        </button>
      )}
    </section>
  );
}

/** Fixes drafted for the problem (fix routes); hidden when the server has no fix routes. */
function ProblemFixes({ id, principal }: { id: string; principal: Principal | null }) {
  const state = useApi<{ fixes: Array<{ id: string; shortRef: string; status: string; statusReason: string; fixType: string }> }>(principal ? `/api/tenants/${enc(principal.tenant)}/problems/${enc(id)}/fixes` : null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  if (!state.data) return null;
  return (
    <section class="card" aria-labelledby="problem-fixes" data-panel="fixes">
      <h2 id="problem-fixes">Fixes</h2>
      {state.data.fixes.length === 0 ? (
        <p class="muted small">No fix drafted for this problem.</p>
      ) : (
        <ul class="small" data-list="problem-fixes">
          {state.data.fixes.map((f) => (
            <li key={f.id} data-fix={f.id}>
              <Link href={`/fixes/${enc(f.id)}`}>SVC-FIX-{f.shortRef}</Link> <span class="badge">{f.status}</span> {f.fixType} · {truncate(f.statusReason, 120)}
            </li>
          ))}
        </ul>
      )}
      {principal?.role === 'admin' && (
        <button
          type="button"
          disabled={busy}
          data-action="draft-fix"
          onClick={async () => {
            setBusy(true);
            setError(null);
            try {
              const f = await api<{ id: string }>(`/api/tenants/${enc(principal.tenant)}/problems/${enc(id)}/fixes`, { method: 'POST', body: { fixType: 'auto' } });
              navigate(`/fixes/${enc(f.id)}`);
            } catch (e) {
              setError(e as Error);
              setBusy(false);
            }
          }}
        >
          Draft a fix
        </button>
      )}
      {error && <ErrorBox error={error} />}
    </section>
  );
}

const ACTIONS = ['mark_fixed', 'dismiss', 'flag_attribution', 'rename'] as const;

function FeedbackBlock({ id, principal, evidence }: { id: string; principal: Principal | null; evidence: Evidence[] }) {
  const list = useApi<{ feedback: FeedbackRow[]; pending_count: number }>(`/problems/${enc(id)}/feedback`);
  const [action, setAction] = useState<(typeof ACTIONS)[number]>('mark_fixed');
  const [reason, setReason] = useState('');
  const [attribution, setAttribution] = useState('');
  const [name, setName] = useState('');
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const isAdmin = principal?.role === 'admin';
  return (
    <section class="card" aria-labelledby="feedback" data-panel="feedback">
      <h2 id="feedback">Feedback</h2>
      <Async state={list} what="feedback">
        {(f) =>
          f.feedback.length === 0 ? (
            <p class="muted small">No feedback on this problem yet.</p>
          ) : (
            <ul class="small" data-list="feedback">
              {f.feedback.map((x) => (
                <li key={x.feedback_id} data-feedback={x.feedback_id}>
                  <strong>{label(x.feedback_kind)}</strong> by {x.actor} · {x.status} · {fmtTime(x.created_at)}
                  {x.reason && <> — {x.reason}</>}
                  {x.new_display_name && <> → “{x.new_display_name}”</>}
                </li>
              ))}
            </ul>
          )
        }
      </Async>
      {isAdmin ? (
        <form
          class="filters feedback-form"
          data-admin-actions
          onSubmit={async (e) => {
            e.preventDefault();
            setError(null);
            setResult(null);
            try {
              const body: Record<string, string> = { action, actor: 'dashboard' };
              if (reason.trim()) body.reason = reason.trim();
              if (action === 'flag_attribution') body.attribution_id = attribution;
              if (action === 'rename') body.new_display_name = name.trim();
              const r = await api<{ feedback_id: string; duplicate: boolean; status: string }>(`/problems/${enc(id)}/feedback`, { method: 'POST', body });
              setResult(`${r.duplicate ? 'Already recorded' : 'Recorded'}: ${r.status}, applied at the next run (${r.feedback_id.slice(0, 8)}).`);
              list.reload();
            } catch (err) {
              setError(err as Error);
            }
          }}
        >
          <Select name="action" label="Action" value={action} options={ACTIONS} onChange={setAction} />
          {action === 'flag_attribution' && (
            <label class="field">
              <span>Evidence</span>
              <select name="attribution_id" value={attribution} onChange={(e) => setAttribution((e.currentTarget as HTMLSelectElement).value)}>
                <option value="">choose…</option>
                {evidence.map((e) => (
                  <option key={e.attribution_id} value={e.attribution_id}>
                    {truncate(e.conversation_id, 24)} #{e.anchor_msg_index} {e.signal_type}
                  </option>
                ))}
              </select>
            </label>
          )}
          {action === 'rename' && (
            <label class="field">
              <span>New name</span>
              <input type="text" name="new_display_name" maxLength={255} value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
            </label>
          )}
          <label class="field">
            <span>Reason{action === 'dismiss' || action === 'flag_attribution' ? ' (required)' : ''}</span>
            <input type="text" name="reason" maxLength={2000} value={reason} onInput={(e) => setReason((e.currentTarget as HTMLInputElement).value)} />
          </label>
          <button type="submit">Send feedback</button>
        </form>
      ) : (
        <p class="muted small" data-member-note>
          Feedback actions (mark fixed, dismiss, flag evidence, rename) need an admin key.
        </p>
      )}
      {result && (
        <p class="small" role="status" data-feedback-result>
          {result}
        </p>
      )}
      {error && <ErrorBox error={error} />}
    </section>
  );
}

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
