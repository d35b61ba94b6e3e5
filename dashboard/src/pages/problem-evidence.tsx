// The paged blocks of the problem page: evidence (GET /problems/:id/evidence) and investigation reports
// (GET /problems/:id/reports), each starting from the first page the detail carries.
import { useState } from 'preact/hooks';
import { api, enc, qs, useApi } from '../api';
import { Link } from '../router';
import { Async, Empty, ErrorBox, fmtScore, fmtTime, truncate } from '../ui';
import { anchorHref, label } from './problem-format';
import type { Evidence, ProblemDetail, Report } from './problem-types';

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

export function EvidenceBlock({ id, first }: { id: string; first: Evidence[] }) {
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

export function ReportsBlock({ id, first }: { id: string; first: ProblemDetail['investigation_reports'] }) {
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
