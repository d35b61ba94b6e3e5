/**
 * Dead letters: a message that can never be processed (poison) or that failed `maxDeliver` times
 * is copied to the DLQ stream (`dlq.<stream>.<consumer>`) with the reason in headers, then
 * acknowledged on its own stream. `tracehouse dlq list|replay` reads and replays them.
 */
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import type { JsMsg, JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { STREAMS, dlqSubject } from '../schemas/subjects.js';
import { replayBytes } from './analyze/publisher.js';

export const DLQ_HEADERS = {
  reason: 'Th-Dlq-Reason',
  error: 'Th-Dlq-Error',
  stream: 'Th-Dlq-Stream',
  consumer: 'Th-Dlq-Consumer',
  subject: 'Th-Dlq-Subject',
  sequence: 'Th-Dlq-Sequence',
  deliveries: 'Th-Dlq-Deliveries',
  msgId: 'Th-Dlq-Msg-Id',
  time: 'Th-Dlq-Time',
  /** Set when the dead letter holds one event of the original message (the one the store refused). */
  eventId: 'Th-Dlq-Event-Id',
  eventIndex: 'Th-Dlq-Event-Index',
} as const;

/**
 * Why a message was dead-lettered: `poison` (never processable), `max_deliver` (kept failing),
 * `rejected` (the store refused it: one event alone, or a message that no longer splits into events).
 */
export type DlqReason = 'poison' | 'max_deliver' | 'rejected';

/** Stable id of a consumed message: its Nats-Msg-Id, else stream:sequence. */
export function messageId(m: JsMsg): string {
  return m.headers?.get('Nats-Msg-Id') || `${m.info.stream}:${m.info.streamSequence}`;
}

function dlqHeaders(m: JsMsg, consumer: string, reason: DlqReason, error: string): MsgHdrs {
  const h = natsHeaders();
  h.set(DLQ_HEADERS.reason, reason);
  h.set(DLQ_HEADERS.error, oneLine(error).slice(0, 2048));
  h.set(DLQ_HEADERS.stream, m.info.stream);
  h.set(DLQ_HEADERS.consumer, consumer);
  h.set(DLQ_HEADERS.subject, m.subject);
  h.set(DLQ_HEADERS.sequence, String(m.info.streamSequence));
  h.set(DLQ_HEADERS.deliveries, String(m.info.deliveryCount));
  h.set(DLQ_HEADERS.msgId, messageId(m));
  h.set(DLQ_HEADERS.time, new Date().toISOString());
  return h;
}

/**
 * Publishes the message to the DLQ (deduplicated by its id, so a crash between publish and ack
 * cannot make two dead letters), then acknowledges the original.
 */
export async function deadLetter(js: JetStreamClient, m: JsMsg, consumer: string, reason: DlqReason, error: string): Promise<void> {
  await js.publish(dlqSubject(m.info.stream, consumer), m.data, { headers: dlqHeaders(m, consumer, reason, error), msgID: `dlq:${messageId(m)}` });
  m.ack();
}

/** The envelope of a one-event dead letter: the original batch's tenant, source and request. */
export interface EventEnvelope {
  tenant: string;
  source: string;
  requestId: string;
}

/**
 * Publishes one event of `m` to the DLQ alone, as a one-event IngestBatch (so `dlq replay` stores
 * just that event), with the reason. Deduplicated by `<message id>#<event index>`. Does not ack:
 * the caller acks the message once each of its refused events is dead-lettered.
 */
export async function deadLetterEvent(
  js: JetStreamClient,
  m: JsMsg,
  consumer: string,
  env: EventEnvelope,
  event: { index: number; eventId: string; json: string; reason: string },
): Promise<void> {
  const h = dlqHeaders(m, consumer, 'rejected', event.reason);
  h.set(DLQ_HEADERS.eventId, event.eventId);
  h.set(DLQ_HEADERS.eventIndex, String(event.index));
  const body = `{"v":1,"tenant_id":${JSON.stringify(env.tenant)},"source":${JSON.stringify(env.source)},"request_id":${JSON.stringify(env.requestId)},"events":[${event.json}]}`;
  await js.publish(dlqSubject(m.info.stream, consumer), body, { headers: h, msgID: `dlq:${messageId(m)}#${event.index}` });
}

const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ').replace(/[^\x20-\x7e]/g, '?');

export interface DeadLetter {
  seq: number;
  time: string;
  subject: string;
  reason: string;
  error: string;
  originalSubject: string;
  originalSequence: number;
  deliveries: number;
  msgId: string;
  /** The one event this dead letter holds (empty when it holds the whole message). */
  eventId: string;
  bytes: number;
  data: Uint8Array;
}

function header(h: MsgHdrs | undefined, name: string): string {
  return h?.get(name) ?? '';
}

/** Dead letters in stream order, optionally from one consumer's subject. */
export async function listDeadLetters(jsm: JetStreamManager, opts: { limit?: number; subject?: string } = {}): Promise<DeadLetter[]> {
  const info = await jsm.streams.info(STREAMS.DLQ.name);
  const out: DeadLetter[] = [];
  const limit = opts.limit ?? 1000;
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && out.length < limit && info.state.messages > 0; seq++) {
    let sm;
    try {
      sm = await jsm.streams.getMessage(STREAMS.DLQ.name, { seq });
    } catch {
      continue; // deleted (replayed) sequence
    }
    if (!sm) continue;
    if (opts.subject && sm.subject !== opts.subject) continue;
    out.push({
      seq: sm.seq,
      time: sm.time.toISOString(),
      subject: sm.subject,
      reason: header(sm.header, DLQ_HEADERS.reason),
      error: header(sm.header, DLQ_HEADERS.error),
      originalSubject: header(sm.header, DLQ_HEADERS.subject),
      originalSequence: Number(header(sm.header, DLQ_HEADERS.sequence) || 0),
      deliveries: Number(header(sm.header, DLQ_HEADERS.deliveries) || 0),
      msgId: header(sm.header, DLQ_HEADERS.msgId),
      eventId: header(sm.header, DLQ_HEADERS.eventId),
      bytes: sm.data.length,
      data: sm.data,
    });
  }
  return out;
}

/**
 * Publishes a dead letter back to its original subject and deletes it from the DLQ. The new
 * Nats-Msg-Id names the replay (the original id is still inside the duplicate window and would be
 * dropped); rows stay exactly-once because every table is keyed by event or message id.
 */
export async function replayDeadLetter(js: JetStreamClient, jsm: JetStreamManager, d: DeadLetter): Promise<void> {
  if (!d.originalSubject) throw new Error(`dead letter ${d.seq} has no original subject`);
  const h = natsHeaders();
  h.set('Th-Replay-Of', d.msgId);
  await js.publish(d.originalSubject, replayBytes(d.originalSubject, d.data), { msgID: `${d.msgId}:replay:${d.seq}`, headers: h });
  await jsm.streams.deleteMessage(STREAMS.DLQ.name, d.seq);
}
