// The world state panel (GET /conversations/:id/world-state and its replay): facts and open tasks after
// each message, with a replay slider and the snapshot at the chosen frame.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { enc, qs, useApi } from '../api';
import { Empty, ErrorBox, fmtInt, Loading, truncate } from '../ui';
import type { Frame, Slot, WorldState } from './conversation-types';

function slotValue(v: unknown): string {
  const raw = v && typeof v === 'object' && 'value' in (v as object) ? (v as Slot).value : v;
  return typeof raw === 'string' ? raw : JSON.stringify(raw);
}

export function WorldStatePanel({ id, selectedMsg }: { id: string; selectedMsg: number | null }) {
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
