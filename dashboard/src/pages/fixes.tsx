// Fixes: the ranked queue (GET /api/tenants/:tenant/fixes) and a fix page with status, gate result
// and packet; advance, verify, submit and dismiss for admin keys (the fix routes).
import { useState } from 'preact/hooks';
import { api, enc, qs, useApi, type ApiError, type Principal } from '../api';
import { Link, setQuery, useLocation } from '../router';
import { Async, Empty, ErrorBox, fmtInt, fmtScore, fmtTime, Select, truncate } from '../ui';

// the statuses and channels are the server's own lists (schemas/api/fix-values.ts has no imports)
import { FIX_STATUSES, SUBMIT_CHANNELS, type GateVerdict, type SubmitChannel } from '../../../schemas/api/fix-values';

export { FIX_STATUSES };

const CHANNEL_LABELS: Record<SubmitChannel, string> = { pr: 'pull request', local_ref: 'local reference' };

interface GateResult {
  repair: { baseline: number; candidate: number; n: number };
  holdout: { baseline: number; candidate: number; n: number; wins: number; losses: number };
  noiseFloor: number;
  abstained: number;
  verdict: GateVerdict;
  reason: string;
}
interface Fix {
  id: string;
  shortRef: string;
  tenantId: string;
  problemId: string;
  rubricVersion: number;
  attemptNo: number;
  fixType: string;
  status: string;
  statusReason: string;
  targetArtifactKey: string | null;
  targetSourcePath: string | null;
  routeConfidence: number | null;
  promptId: string | null;
  baselineVersionId: string | null;
  repairCaseIds: string[];
  holdoutCaseIds: string[];
  gateRunId: string | null;
  gateResult: GateResult | null;
  deliveryChannel: string | null;
  prUrl: string | null;
  prBranch: string | null;
  problemRank: number | null;
  createdAt: string;
  updatedAt: string;
}
interface Packet {
  kind: string;
  title: string;
  cause_statement: string;
  target: Record<string, string>;
  evidence: Array<{ conversation_id: string; msg_index: number; url?: string }>;
  candidate?: { prompt_version_id?: string; diff_available: boolean };
  verify: { command: string; semantics: string };
  handback: { pr?: string; magic_word: string; constraints: string[] };
}

/** Packet text marks recorded user data as `<untrusted-data>…</untrusted-data>`: shown as quoted data. */
function Untrusted({ text }: { text: string }) {
  const parts = text.split(/<\/?untrusted-data>/);
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 1 ? (
          <span class="untrusted" key={i} title="recorded user data">
            {part}
          </span>
        ) : (
          part
        ),
      )}
    </>
  );
}

const fixesBase = (p: Principal) => `/api/tenants/${enc(p.tenant)}`;
const verdictClass = (v: string | undefined) => (v === 'pass' ? 'ok' : v === 'fail' ? 'bad' : 'warn');

function NotAvailable({ error }: { error: Error }) {
  if ((error as ApiError).status === 404)
    return (
      <Empty title="The fix pipeline is not enabled on this server.">
        <p class="muted small">Fixes are drafted from problems by the fix routes; this installation does not serve them.</p>
      </Empty>
    );
  return <ErrorBox error={error} />;
}

export function FixesPage({ principal }: { principal: Principal | null }) {
  const { query } = useLocation();
  const status = query.get('status') ?? '';
  const state = useApi<{ fixes: Fix[]; pagination: { has_more: boolean; next_cursor: string | null } }>(principal ? `${fixesBase(principal)}/fixes${qs({ status, limit: 50 })}` : null);
  return (
    <main class="page fixes">
      <div class="page-head">
        <h1>Fixes</h1>
        <form class="filters" onSubmit={(e) => e.preventDefault()}>
          <Select name="status" label="Status" value={status || 'all'} options={['all', ...FIX_STATUSES]} onChange={(v) => setQuery({ status: v === 'all' ? null : v })} />
        </form>
      </div>
      {state.error ? (
        <NotAvailable error={state.error} />
      ) : (
        <Async state={state} what="the fix queue">
          {(r) =>
            r.fixes.length === 0 ? (
              <Empty title={status ? `No fix with status ${status}.` : 'No fix drafted yet.'}>
                <p class="muted small">
                  An admin drafts a fix for a problem with <code>POST /api/tenants/{principal?.tenant}/problems/&lt;problem id&gt;/fixes</code>; the queue ranks them by the problem's rank.
                </p>
              </Empty>
            ) : (
              <div class="table-wrap">
                <table class="table" data-table="fixes">
                  <thead>
                    <tr>
                      <th>Fix</th>
                      <th>Problem</th>
                      <th>Type</th>
                      <th>Status</th>
                      <th>Gate</th>
                      <th class="num">Rank</th>
                      <th>Updated</th>
                    </tr>
                  </thead>
                  <tbody>
                    {r.fixes.map((f) => (
                      <tr key={f.id} data-fix={f.id}>
                        <td class="nowrap">
                          <Link href={`/fixes/${enc(f.id)}`}>SVC-FIX-{f.shortRef}</Link>
                        </td>
                        <td>
                          <Link href={`/problems/${enc(f.problemId)}`}>{f.problemId.slice(0, 8)}</Link> <span class="muted small">v{f.rubricVersion} · attempt {f.attemptNo}</span>
                        </td>
                        <td>{f.fixType}</td>
                        <td data-status>
                          <span class="badge">{f.status}</span>
                          <div class="muted small">{truncate(f.statusReason, 100)}</div>
                        </td>
                        <td>{f.gateResult ? <span class={`badge ${verdictClass(f.gateResult.verdict)}`}>{f.gateResult.verdict}</span> : <span class="muted">—</span>}</td>
                        <td class="num">{fmtScore(f.problemRank)}</td>
                        <td class="nowrap small">{fmtTime(f.updatedAt)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )
          }
        </Async>
      )}
    </main>
  );
}

function FixActions({ base, fix, onDone }: { base: string; fix: Fix; onDone: () => void }) {
  const [channel, setChannel] = useState<SubmitChannel>('pr');
  const [localRef, setLocalRef] = useState('');
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const run = async (name: string, body: Record<string, string>) => {
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const r = await api<Record<string, unknown>>(`${base}/fixes/${enc(fix.id)}/${name}`, { method: 'POST', body });
      setResult(`${name}: ${typeof r.status === 'string' ? r.status : r.gateRunId ? `gate run ${String(r.gateRunId)}` : 'done'}`);
      onDone();
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-labelledby="actions" data-admin-actions>
      <h2 id="actions">Actions</h2>
      <div class="filters">
        <button type="button" disabled={busy} onClick={() => run('advance', {})} data-action="advance">
          Advance one step
        </button>
        <button type="button" disabled={busy} onClick={() => run('verify', {})} data-action="verify">
          Verify (re-gate)
        </button>
      </div>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void run('submit', channel === 'local_ref' ? { channel, localRef: localRef.trim() } : { channel });
        }}
      >
        <Select name="channel" label="Deliver as" value={channel} options={SUBMIT_CHANNELS.map((value) => ({ value, label: CHANNEL_LABELS[value] }))} onChange={setChannel} />
        {channel === 'local_ref' && (
          <label class="field">
            <span>Local reference</span>
            <input type="text" name="localRef" maxLength={255} value={localRef} onInput={(e) => setLocalRef((e.currentTarget as HTMLInputElement).value)} />
          </label>
        )}
        <button type="submit" disabled={busy} data-action="submit">
          Submit
        </button>
      </form>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void run('dismiss', { reason: reason.trim() });
        }}
      >
        <label class="field">
          <span>Reason to dismiss</span>
          <input type="text" name="reason" value={reason} onInput={(e) => setReason((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <button type="submit" class="danger" disabled={busy || !reason.trim()} data-action="dismiss">
          Dismiss
        </button>
      </form>
      {result && (
        <p class="small" role="status" data-action-result>
          {result}
        </p>
      )}
      {error && <ErrorBox error={error} />}
    </section>
  );
}

export function FixPage({ id, principal }: { id: string; principal: Principal | null }) {
  const base = principal ? fixesBase(principal) : null;
  const fix = useApi<Fix>(base ? `${base}/fixes/${enc(id)}` : null);
  const packet = useApi<Packet>(base ? `${base}/fixes/${enc(id)}/packet` : null);
  return (
    <main class="page fix">
      <p class="small">
        <Link href="/fixes">← Fixes</Link>
      </p>
      {fix.error ? (
        <NotAvailable error={fix.error} />
      ) : (
        <Async state={fix} what="the fix">
          {(f) => (
            <>
              <div class="page-head">
                <div>
                  <h1>SVC-FIX-{f.shortRef}</h1>
                  <p>
                    <span class="badge" data-fix-status>
                      {f.status}
                    </span>{' '}
                    {f.statusReason}
                  </p>
                  <p class="small muted">
                    {f.fixType} fix for <Link href={`/problems/${enc(f.problemId)}`}>problem {f.problemId.slice(0, 8)}</Link> (rubric v{f.rubricVersion}, attempt {f.attemptNo}) · created {fmtTime(f.createdAt)} · updated {fmtTime(f.updatedAt)}
                  </p>
                </div>
              </div>
              <div class="columns">
                <section class="card" aria-labelledby="gate" data-panel="gate">
                  <h2 id="gate">Gate result</h2>
                  {f.gateResult ? (
                    <>
                      <p>
                        <span class={`badge ${verdictClass(f.gateResult.verdict)}`} data-verdict>
                          {f.gateResult.verdict}
                        </span>{' '}
                        {f.gateResult.reason}
                      </p>
                      <table class="table small" data-table="gate">
                        <tbody>
                          <tr>
                            <th>Holdout wins / losses</th>
                            <td data-wins>{fmtInt(f.gateResult.holdout.wins)}</td>
                            <td data-losses>{fmtInt(f.gateResult.holdout.losses)}</td>
                          </tr>
                          <tr>
                            <th>Noise floor</th>
                            <td data-noise colSpan={2}>
                              {fmtInt(f.gateResult.noiseFloor)}
                            </td>
                          </tr>
                          <tr>
                            <th>Abstained</th>
                            <td data-abstained colSpan={2}>
                              {fmtInt(f.gateResult.abstained)}
                            </td>
                          </tr>
                          <tr>
                            <th>Holdout baseline → candidate</th>
                            <td colSpan={2}>
                              {fmtScore(f.gateResult.holdout.baseline)} → {fmtScore(f.gateResult.holdout.candidate)} (n = {f.gateResult.holdout.n})
                            </td>
                          </tr>
                          <tr>
                            <th>Repair baseline → candidate</th>
                            <td colSpan={2}>
                              {fmtScore(f.gateResult.repair.baseline)} → {fmtScore(f.gateResult.repair.candidate)} (n = {f.gateResult.repair.n})
                            </td>
                          </tr>
                        </tbody>
                      </table>
                    </>
                  ) : (
                    <p class="muted small">No gate has run{f.gateRunId ? ' to completion yet' : ''}.</p>
                  )}
                </section>
                <section class="card" aria-labelledby="target" data-panel="target">
                  <h2 id="target">Target</h2>
                  <p class="small">
                    {f.targetSourcePath ? <code>{f.targetSourcePath}</code> : <span class="muted">not routed</span>}
                    {f.targetArtifactKey && <> · artifact {f.targetArtifactKey}</>}
                    {f.routeConfidence !== null && <> · confidence {fmtScore(f.routeConfidence)}</>}
                  </p>
                  <p class="small muted">
                    {fmtInt(f.repairCaseIds.length)} repair cases, {fmtInt(f.holdoutCaseIds.length)} holdout cases{f.promptId ? ` · prompt ${f.promptId}` : ''}
                  </p>
                  {f.prUrl && (
                    <p class="small">
                      Delivered: <a href={f.prUrl}>{f.prUrl}</a>
                    </p>
                  )}
                </section>
              </div>
              <section class="card" aria-labelledby="packet" data-panel="packet">
                <h2 id="packet">Packet</h2>
                <Async state={packet} what="the packet">
                  {(p) => (
                    <>
                      <p>
                        <strong>
                          <Untrusted text={p.title} />
                        </strong>
                      </p>
                      <p class="small">
                        <Untrusted text={p.cause_statement} />
                      </p>
                      <p class="small">
                        Target:{' '}
                        {Object.entries(p.target).map(([k, v]) => (
                          <span class="chip" key={k}>
                            {k.replace(/_/g, ' ')}: {v}
                          </span>
                        ))}
                      </p>
                      {p.evidence.length > 0 && (
                        <p class="small" data-list="packet-evidence">
                          Evidence:{' '}
                          {p.evidence.map((e) => (
                            <Link key={`${e.conversation_id}-${e.msg_index}`} href={`/conversations/${enc(e.conversation_id)}${qs({ msg: e.msg_index })}`} class="chip">
                              {truncate(e.conversation_id, 24)} #{e.msg_index}
                            </Link>
                          ))}
                        </p>
                      )}
                      <p class="small">
                        Verify with <code>{p.verify.command}</code>
                      </p>
                      <p class="small muted">{p.verify.semantics}</p>
                      <p class="small muted">
                        Hand back: {p.handback.magic_word}
                        {p.handback.constraints.length ? <> · <Untrusted text={p.handback.constraints.join(' ')} /></> : ''}
                      </p>
                    </>
                  )}
                </Async>
              </section>
              {principal?.role === 'admin' ? (
                <FixActions base={base!} fix={f} onDone={() => (fix.reload(), packet.reload())} />
              ) : (
                <p class="muted small" data-member-note>
                  Advancing, verifying, submitting and dismissing a fix need an admin key.
                </p>
              )}
            </>
          )}
        </Async>
      )}
    </main>
  );
}
