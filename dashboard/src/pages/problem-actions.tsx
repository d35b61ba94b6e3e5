// The actions of the problem page: the fixes drafted for it (fix routes) and the feedback list with the
// feedback form (POST /problems/:id/feedback, open to every key of the tenant).
import { useState } from 'preact/hooks';
import { api, enc, useApi, type Principal } from '../api';
import { Link, navigate } from '../router';
import { Async, ErrorBox, fmtTime, Select, truncate } from '../ui';
import { label } from './problem-format';
import type { Evidence, FeedbackRow } from './problem-types';

/** Fixes drafted for the problem (fix routes); hidden when the server has no fix routes. */
export function ProblemFixes({ id, principal }: { id: string; principal: Principal | null }) {
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

export function FeedbackBlock({ id, principal, evidence }: { id: string; principal: Principal | null; evidence: Evidence[] }) {
  const list = useApi<{ feedback: FeedbackRow[]; pending_count: number }>(`/problems/${enc(id)}/feedback`);
  const [action, setAction] = useState<(typeof ACTIONS)[number]>('mark_fixed');
  const [reason, setReason] = useState('');
  const [attribution, setAttribution] = useState('');
  const [name, setName] = useState('');
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
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
      {principal ? (
        <form
          class="filters feedback-form"
          data-feedback-actions
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
              <input type="text" name="new_display_name" value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
            </label>
          )}
          <label class="field">
            <span>Reason{action === 'dismiss' || action === 'flag_attribution' ? ' (required)' : ''}</span>
            <input type="text" name="reason" value={reason} onInput={(e) => setReason((e.currentTarget as HTMLInputElement).value)} />
          </label>
          <button type="submit">Send feedback</button>
        </form>
      ) : (
        <p class="muted small" data-member-note>
          Sign in with a key of this tenant to send feedback (mark fixed, dismiss, flag evidence, rename).
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
