// One conversation: the message timeline (context windows), emotion detections and hallucination
// contradictions on their messages, step scores per step, and the world state with a replay slider.
import { useEffect, useState } from 'preact/hooks';
import { qs, useApi } from '../api';
import { Link, useLocation } from '../router';
import { Empty, ErrorBox, fmtInt, Loading } from '../ui';
import { MessageCard } from './conversation-message-card';
import { FIRST_LOAD, useMessages, WINDOW } from './conversation-messages';
import { StepScoresPanel } from './conversation-step-scores';
import type { Detection, Finding } from './conversation-types';
import { WorldStatePanel } from './conversation-world-state';

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
