// One conversation: the message timeline (context windows), emotion detections and hallucination
// contradictions on their messages, step scores per step, and the world state with a replay slider.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, enc, qs, useApi } from '../api';
import { Link, setQuery, useLocation } from '../router';
import { Async, Empty, ErrorBox, fmtInt, fmtScore, fmtTime, Loading, truncate } from '../ui';

interface Message {
  index: number;
  role: string;
  content: string;
  tool_calls: Array<{ id: string; name: string; input: string }>;
  tool_results: Array<{ tool_use_id: string; content: string; is_error: boolean }>;
  timestamp: string;
}
interface ContextResponse {
  conversation_id: string;
  total_messages: number;
  summary: string;
  context: { center_index: number | null; from_index: number | null; to_index: number | null; messages: Message[] };
}
interface Detection {
  message_index: number;
  family: string;
  signal: string;
  score: number;
  risk_score: number;
  trajectory: string;
  elicitor: string;
  cause: { kind: string; message_index: number; tool_use_id?: string } | null;
  quotes: string[];
}
interface Finding {
  message_index: number;
  claim_type: string;
  claim: string;
  verdict: 'contradicted' | 'verified';
  evidence: { message_index: number | null; tool_use_id: string | null; quote: string };
}
interface Step {
  unit_id: string;
  message_index: number;
  unit_index: number;
  node_type: string;
  progress_score: number;
  first_bad_step_probability: number;
  first_bad_step_reason: string | null;
}
interface StepSegment {
  segment_id: string;
  segment_status_at_scoring: string;
  segment_unit_count: number;
  feature_mode: string;
  failure_type: { failure_type: string; score: number } | null;
  steps: Step[];
}
interface StepScores {
  segments: StepSegment[];
  rollup: { blended_score: number; segment_count: number; weighted_segment_count: number; total_weight: number } | null;
}
interface Slot {
  value: unknown;
  source?: { source?: string; tool?: string; msgIndex?: number };
}
interface WorldState {
  hasData: boolean;
  userId: string | null;
  segments: Array<{ segmentIndex: number; startMsgIdx: number; endMsgIdx: number; openThreads: Array<{ id: string; status: string; summary?: string; goal?: string }> }>;
  events: Array<{ eventId: string; msgIndex: number; blockIndex: number; eventType: string; slotKey: string | null; oldValue: unknown; newValue: unknown; provenance: { source?: string; tool?: string } | null }>;
  summary: { eventCount: number; segmentCount: number; lastUpdatedAt: string | null };
}
interface Frame {
  msgIndex: number;
  segmentIndex: number;
  blockIndex: number;
  slots: Record<string, Slot | unknown>;
  openThreads: string[];
  hasSnapshot: boolean;
}

const WINDOW = 5; // messages each side: one context call returns up to 11
const FIRST_LOAD = 110;

/** Loads messages [0, upTo) through GET /conversations/:id/context windows, in parallel. */
function useMessages(id: string, want: number) {
  const cache = useRef<{ id: string; head: ContextResponse | null; messages: Map<number, Message> }>({ id, head: null, messages: new Map() });
  const [, rerender] = useState(0);
  const [error, setError] = useState<Error | null>(null);
  const [loading, setLoading] = useState(true);
  if (cache.current.id !== id) cache.current = { id, head: null, messages: new Map() };
  useEffect(() => {
    const ctl = new AbortController();
    const mine = cache.current;
    (async () => {
      setLoading(true);
      setError(null);
      const first = mine.head ?? (await api<ContextResponse>(`/conversations/${enc(id)}/context${qs({ msg_index: WINDOW, window: WINDOW })}`, { signal: ctl.signal }));
      const got = new Map(mine.messages);
      for (const m of first.context.messages) got.set(m.index, m);
      const upTo = Math.min(first.total_messages, want);
      const centres: number[] = [];
      for (let c = WINDOW; c - WINDOW < upTo; c += 2 * WINDOW + 1) if (!got.has(c - WINDOW) || !got.has(Math.min(c + WINDOW, first.total_messages - 1))) centres.push(c);
      const windows = await Promise.all(centres.map((c) => api<ContextResponse>(`/conversations/${enc(id)}/context${qs({ msg_index: c, window: WINDOW })}`, { signal: ctl.signal })));
      for (const w of windows) for (const m of w.context.messages) got.set(m.index, m);
      if (ctl.signal.aborted || cache.current !== mine) return;
      mine.head = first;
      mine.messages = got;
      setLoading(false);
      rerender((n) => n + 1);
    })().catch((e: Error) => {
      if (!ctl.signal.aborted) {
        setError(e);
        setLoading(false);
      }
    });
    return () => ctl.abort();
  }, [id, want]);
  const { head, messages } = cache.current;
  return { head, messages: [...messages.values()].sort((a, b) => a.index - b.index), error, loading };
}

function ToolCall({ call, result }: { call: Message['tool_calls'][number]; result?: Message['tool_results'][number] }) {
  return (
    <details class={`tool ${result?.is_error ? 'tool-error' : ''}`} data-tool-call={call.name}>
      <summary>
        <span class="tool-name">{call.name}</span> <span class="muted small">{truncate(call.input.replace(/\s+/g, ' '), 80)}</span>
      </summary>
      <pre class="tool-body">{call.input}</pre>
    </details>
  );
}

function ToolResult({ result }: { result: Message['tool_results'][number] }) {
  return (
    <details class={`tool result ${result.is_error ? 'tool-error' : ''}`} open={result.is_error} data-tool-result={result.is_error ? 'error' : 'ok'}>
      <summary>
        {result.is_error ? <span class="badge bad">error</span> : <span class="badge">result</span>} <span class="muted small">{truncate(result.content.replace(/\s+/g, ' '), 100)}</span>
      </summary>
      <pre class="tool-body">{result.content}</pre>
    </details>
  );
}

function MessageCard({ m, detections, findings, selected }: { m: Message; detections: Detection[]; findings: Finding[]; selected: boolean }) {
  const [expanded, setExpanded] = useState(false);
  const long = m.content.length > 1200;
  const hasError = m.tool_results.some((r) => r.is_error);
  return (
    <li id={`m-${m.index}`} class={`msg role-${m.role} ${hasError ? 'has-error' : ''} ${selected ? 'selected' : ''}`} data-msg-index={m.index} tabIndex={-1}>
      <div class="msg-head">
        <a href={`?msg=${m.index}`} class="msg-index" onClick={(e) => (e.preventDefault(), setQuery({ msg: m.index }, { replace: true }))}>
          #{m.index}
        </a>{' '}
        <span class="msg-role">{m.role}</span> <span class="muted small">{fmtTime(m.timestamp)}</span>
      </div>
      {m.content && m.role === 'system' && (
        <details class="tool">
          <summary>System prompt ({fmtInt(m.content.length)} characters)</summary>
          <div class="msg-body">{m.content}</div>
        </details>
      )}
      {m.content && m.role !== 'system' && (
        <div class="msg-body">
          {long && !expanded ? truncate(m.content, 1200) : m.content}
          {long && (
            <button type="button" class="link" onClick={() => setExpanded(!expanded)}>
              {expanded ? 'Show less' : 'Show all'}
            </button>
          )}
        </div>
      )}
      {m.tool_calls.map((c) => (
        <ToolCall key={c.id} call={c} />
      ))}
      {m.tool_results.map((r) => (
        <ToolResult key={r.tool_use_id} result={r} />
      ))}
      {detections.map((d, i) => (
        <div class="annotation emotion" key={`e${i}`} data-emotion={`${d.family}/${d.signal}`}>
          <span class={`badge ${d.score >= 0.5 ? 'bad' : 'warn'}`}>
            {d.family} · {d.signal} {fmtScore(d.score)}
          </span>{' '}
          <span class="small">
            risk {fmtScore(d.risk_score)}, {d.trajectory}, elicited by {d.elicitor}
            {d.cause && (
              <>
                {' '}
                · cause: {d.cause.kind.replace(/_/g, ' ')} at <a href={`?msg=${d.cause.message_index}`} onClick={(e) => (e.preventDefault(), setQuery({ msg: d.cause!.message_index }, { replace: true }))}>#{d.cause.message_index}</a>
              </>
            )}
          </span>
          {d.quotes.length > 0 && <q class="small">{d.quotes.join(' … ')}</q>}
        </div>
      ))}
      {findings.map((f, i) => (
        <div class={`annotation claim claim-${f.verdict}`} key={`h${i}`} data-claim={f.verdict}>
          <span class={`badge ${f.verdict === 'contradicted' ? 'bad' : 'ok'}`}>{f.verdict === 'contradicted' ? 'contradicted claim' : 'verified claim'}</span> <q>{f.claim}</q>{' '}
          <span class="small muted">({f.claim_type.replace(/_/g, ' ')})</span>
          <div class="small">
            evidence{f.evidence.message_index !== null && (
              <>
                {' '}
                at <a href={`?msg=${f.evidence.message_index}`} onClick={(e) => (e.preventDefault(), setQuery({ msg: f.evidence.message_index }, { replace: true }))}>#{f.evidence.message_index}</a>
              </>
            )}
            : <q>{truncate(f.evidence.quote, 200)}</q>
          </div>
        </div>
      ))}
    </li>
  );
}

/** The step most likely to be where a segment went wrong, when the evidence says so. */
export function firstBadStep(seg: StepSegment): Step | null {
  let best: Step | null = null;
  for (const s of seg.steps) if (!best || s.first_bad_step_probability > best.first_bad_step_probability) best = s;
  if (!best) return null;
  return seg.failure_type || best.first_bad_step_probability >= 0.25 ? best : null;
}

function StepScoresPanel({ id }: { id: string }) {
  const state = useApi<StepScores>(`/conversations/${enc(id)}/step-scores`);
  return (
    <section class="card" aria-labelledby="steps" data-panel="step-scores">
      <h2 id="steps">Step scores</h2>
      <Async state={state} what="step scores">
        {(s) =>
          s.segments.length === 0 ? (
            <Empty title="Not scored yet.">
              <p class="muted small">Steps are scored once the conversation has an agent step, seconds after its last event.</p>
            </Empty>
          ) : (
            <>
              {s.rollup && (
                <p data-blended={s.rollup.blended_score}>
                  Blended score <strong>{fmtScore(s.rollup.blended_score)}</strong>{' '}
                  <span class="muted small">
                    over {s.rollup.segment_count} segment{s.rollup.segment_count === 1 ? '' : 's'}
                  </span>
                </p>
              )}
              {s.segments.map((seg, si) => {
                const bad = firstBadStep(seg);
                return (
                  <div class="segment" key={seg.segment_id} data-segment={seg.segment_id}>
                    <div class="small">
                      Segment {si + 1} · {seg.segment_unit_count} steps · {seg.segment_status_at_scoring}
                      {seg.failure_type && (
                        <span class="badge bad" data-failure-type={seg.failure_type.failure_type}>
                          {seg.failure_type.failure_type.replace(/_/g, ' ')}
                        </span>
                      )}
                    </div>
                    <div class="steps">
                      {seg.steps.map((st) => (
                        <a
                          key={st.unit_id}
                          href={`?msg=${st.message_index}`}
                          onClick={(e) => (e.preventDefault(), setQuery({ msg: st.message_index }, { replace: true }))}
                          class={`step ${bad === st ? 'first-bad' : ''}`}
                          data-step={st.unit_index}
                          data-progress={st.progress_score}
                          title={`step ${st.unit_index} (${st.node_type}) at #${st.message_index}: progress ${fmtScore(st.progress_score)}, first-bad probability ${fmtScore(st.first_bad_step_probability)}${st.first_bad_step_reason ? ` — ${st.first_bad_step_reason}` : ''}`}
                        >
                          <span class="step-fill" style={{ height: `${Math.max(4, Math.round(st.progress_score * 100))}%` }} />
                        </a>
                      ))}
                    </div>
                    {bad && (
                      <p class="small" data-first-bad={bad.message_index}>
                        First bad step: <a href={`?msg=${bad.message_index}`} onClick={(e) => (e.preventDefault(), setQuery({ msg: bad.message_index }, { replace: true }))}>#{bad.message_index}</a> ({bad.node_type.replace(/_/g, ' ')}, p = {fmtScore(bad.first_bad_step_probability)})
                        {bad.first_bad_step_reason && <> — {bad.first_bad_step_reason}</>}
                      </p>
                    )}
                  </div>
                );
              })}
            </>
          )
        }
      </Async>
    </section>
  );
}

function slotValue(v: unknown): string {
  const raw = v && typeof v === 'object' && 'value' in (v as object) ? (v as Slot).value : v;
  return typeof raw === 'string' ? raw : JSON.stringify(raw);
}

function WorldStatePanel({ id, selectedMsg }: { id: string; selectedMsg: number | null }) {
  const ws = useApi<WorldState>(`/conversations/${enc(id)}/world-state`);
  const replay = useApi<{ hasData: boolean; messageCount: number; frames: Frame[] }>(`/conversations/${enc(id)}/world-state/replay`);
  const [pos, setPos] = useState<number | null>(null);
  const frames = replay.data?.frames ?? [];
  useEffect(() => {
    if (selectedMsg !== null && frames.length) setPos(Math.min(selectedMsg, frames.length - 1));
  }, [selectedMsg, frames.length]);
  const current = pos ?? frames.length - 1;
  const frame = frames[current];
  // the state at the chosen frame as GET /world-state/snapshot answers it (asked once the slider rests)
  const [snapAt, setSnapAt] = useState<string | null>(null);
  useEffect(() => {
    if (!frame) return;
    const t = setTimeout(() => setSnapAt(qs({ msg_index: frame.msgIndex, block_index: frame.blockIndex, segment_index: frame.segmentIndex })), 200);
    return () => clearTimeout(t);
  }, [frame?.msgIndex, frame?.blockIndex, frame?.segmentIndex]);
  const snapshot = useApi<{ found: boolean; segmentIndex: number | null; msgIndex: number; blockIndex: number; slots: Record<string, unknown> }>(snapAt ? `/conversations/${enc(id)}/world-state/snapshot${snapAt}` : null);
  const events = useMemo(() => (ws.data?.events ?? []).filter((e) => frame && e.msgIndex === frame.msgIndex), [ws.data, frame]);
  const threads = useMemo(() => {
    const all = new Map<string, { id: string; status: string; summary?: string; goal?: string }>();
    for (const s of ws.data?.segments ?? []) for (const t of s.openThreads) all.set(t.id, t);
    return all;
  }, [ws.data]);
  if (ws.error) return <ErrorBox error={ws.error} retry={ws.reload} />;
  if (replay.error) return <ErrorBox error={replay.error} retry={replay.reload} />;
  return (
    <section class="card" aria-labelledby="world" data-panel="world-state">
      <h2 id="world">World state</h2>
      {!ws.data || !replay.data ? (
        <Loading what="world state" />
      ) : !ws.data.hasData || frames.length === 0 ? (
        <Empty title="No world state built yet.">
          <p class="muted small">It is built within minutes of ingest: facts the person and the tools stated, and the tasks in flight.</p>
        </Empty>
      ) : (
        <>
          <p class="small muted">
            {fmtInt(ws.data.summary.eventCount)} state events in {ws.data.summary.segmentCount} segments{ws.data.userId ? ` · user ${ws.data.userId}` : ''}
          </p>
          <label class="field wide">
            <span>
              Replay: after message <strong data-frame-msg>#{frame!.msgIndex}</strong> of {frames.length}
            </span>
            <input
              type="range"
              name="replay"
              min={0}
              max={frames.length - 1}
              value={current}
              aria-valuetext={`message ${frame!.msgIndex}`}
              onInput={(e) => setPos(Number((e.currentTarget as HTMLInputElement).value))}
            />
          </label>
          <div class="snapshots" aria-label="Snapshots (messages that changed the state)">
            {frames
              .filter((f) => f.hasSnapshot)
              .map((f) => (
                <button type="button" key={f.msgIndex} class={`snap ${f.msgIndex === frame!.msgIndex ? 'active' : ''}`} data-snapshot={f.msgIndex} onClick={() => setPos(frames.indexOf(f))}>
                  #{f.msgIndex}
                </button>
              ))}
          </div>
          <table class="table small" data-table="slots">
            <thead>
              <tr>
                <th>Fact</th>
                <th>Value</th>
                <th>Source</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(frame!.slots).map(([k, v]) => (
                <tr key={k} data-slot={k} class={events.some((e) => e.slotKey === k) ? 'changed' : ''}>
                  <td>
                    <code>{k}</code>
                  </td>
                  <td>{truncate(slotValue(v), 80)}</td>
                  <td class="muted">{(v as Slot)?.source?.source?.replace(/_/g, ' ') ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {Object.keys(frame!.slots).length === 0 && <p class="muted small">No facts yet at this message.</p>}
          {snapshot.data && (
            <p class="muted small" data-snapshot-at={`${snapshot.data.msgIndex}:${snapshot.data.blockIndex}`}>
              Snapshot at #{snapshot.data.msgIndex}, block {snapshot.data.blockIndex}
              {snapshot.data.segmentIndex !== null ? `, segment ${snapshot.data.segmentIndex + 1}` : ''}: <span data-snapshot-facts>{Object.keys(snapshot.data.slots).length}</span> facts
              {snapshot.data.found ? '' : ' (no state recorded there)'}
            </p>
          )}
          {events.length > 0 && (
            <ul class="events small" data-list="events">
              {events.map((e) => (
                <li key={e.eventId}>
                  {e.eventType.replace(/_/g, ' ')} {e.slotKey && <code>{e.slotKey}</code>} {e.newValue !== null && e.newValue !== undefined ? `→ ${truncate(slotValue(e.newValue), 60)}` : ''}
                  {e.provenance?.source ? <span class="muted"> ({e.provenance.source.replace(/_/g, ' ')})</span> : null}
                </li>
              ))}
            </ul>
          )}
          {frame!.openThreads.length > 0 && (
            <div class="small">
              Open tasks:{' '}
              {frame!.openThreads.map((t) => (
                <span class="chip" key={t} title={threads.get(t)?.goal ?? ''}>
                  {truncate(threads.get(t)?.summary || threads.get(t)?.goal || t, 60)}
                </span>
              ))}
            </div>
          )}
        </>
      )}
    </section>
  );
}

export function ConversationPage({ id }: { id: string }) {
  const { query } = useLocation();
  const msgParam = query.get('msg');
  const selectedMsg = msgParam !== null && /^\d+$/.test(msgParam) ? Number(msgParam) : null;
  const [want, setWant] = useState(FIRST_LOAD);
  const target = Math.max(want, selectedMsg !== null ? selectedMsg + WINDOW + 1 : 0);
  const { head, messages, error, loading } = useMessages(id, target);
  const emotions = useApi<{ detections: Detection[] }>(`/emotions${qs({ conversation_id: id, limit: 100 })}`);
  const hallucinations = useApi<{ findings: Finding[] }>(`/hallucinations${qs({ conversation_id: id, limit: 100 })}`);
  const byMsg = <T extends { message_index: number }>(rows: T[] | undefined) => {
    const out = new Map<number, T[]>();
    for (const r of rows ?? []) out.set(r.message_index, [...(out.get(r.message_index) ?? []), r]);
    return out;
  };
  const det = byMsg(emotions.data?.detections);
  const fin = byMsg(hallucinations.data?.findings);
  useEffect(() => {
    if (selectedMsg === null || loading) return;
    const el = document.getElementById(`m-${selectedMsg}`);
    if (el) {
      el.scrollIntoView({ block: 'center' });
      el.focus({ preventScroll: true });
    }
  }, [selectedMsg, loading, messages.length]);

  return (
    <main class="page conversation">
      <div class="page-head">
        <div>
          <p class="small">
            <Link href="/conversations">← Conversations</Link>
          </p>
          <h1 class="break">{id}</h1>
        </div>
      </div>
      {error && <ErrorBox error={error} />}
      {!head && !error && <Loading what="the conversation" />}
      {head && head.total_messages === 0 && (
        <Empty title="No messages stored for this conversation.">
          <p class="muted small">Check the id, or send its events to the ingest endpoint.</p>
        </Empty>
      )}
      {head && head.total_messages > 0 && (
        <>
          <p data-summary-text>{head.summary || <span class="muted">No summary yet (written once it has two messages).</span>}</p>
          <p class="muted small">
            <span data-total-messages>{fmtInt(head.total_messages)}</span> messages · <span data-emotion-count>{fmtInt(emotions.data?.detections.length)}</span> emotion detections ·{' '}
            <span data-contradictions>{fmtInt(hallucinations.data?.findings.filter((f) => f.verdict === 'contradicted').length)}</span> contradicted claims
          </p>
          <div class="conv-layout">
            <section aria-label="Messages">
              <ol class="timeline" data-list="messages">
                {messages.map((m) => (
                  <MessageCard key={m.index} m={m} detections={det.get(m.index) ?? []} findings={fin.get(m.index) ?? []} selected={m.index === selectedMsg} />
                ))}
              </ol>
              {loading && <Loading what="messages" />}
              {!loading && messages.length < head.total_messages && (
                <button type="button" onClick={() => setWant(target + FIRST_LOAD)}>
                  Show more messages ({fmtInt(head.total_messages - messages.length)} left)
                </button>
              )}
            </section>
            <aside>
              <StepScoresPanel id={id} />
              <WorldStatePanel id={id} selectedMsg={selectedMsg} />
            </aside>
          </div>
        </>
      )}
    </main>
  );
}
