/**
 * The `store` consumer: pulls INGEST messages from the shared durable pull consumer (every
 * replica pulls from the same one: work-queue semantics), decodes them in the Piscina pool and
 * hands their rows to the sink, which acks after insert. Pulls only as many messages as the pool
 * and the sink can take; with no room it waits until work completes. A message held longer than
 * `heartbeatMs` sends progress heartbeats (heartbeat.ts), so the consumer's ack wait can stay
 * short: after a crash, the deliveries the dead process held come back within one ack wait.
 */
import type { JsMsg, JetStreamClient } from '@nats-io/jetstream';
import type { Logger } from '../core/log.js';
import { backoffDelay, sleep } from '../core/retry.js';
import { splitMessage, type DecodeResult, type SplitMessage } from './batch.js';
import { deadLetter, deadLetterEvent, messageId, type DlqReason } from './dlq.js';
import type { RefusedEvent, Sink } from './sink.js';
import type { StreamMetrics } from './metrics.js';
import { createRoomSignal, getConsumer, pullLoop } from './pull.js';
import { startHeartbeats } from './heartbeat.js';

export interface Decoder {
  decode(data: Uint8Array): Promise<DecodeResult>;
  /** Tasks the pool can accept now without exceeding its bounded queue. */
  room(): number;
}

export interface ConsumerOptions {
  js: JetStreamClient;
  stream: string;
  durable: string;
  decoder: Decoder;
  sink: Sink;
  /** Deliveries before a message is dead-lettered (config.stream.maxDeliver). */
  maxDeliver: number;
  /** Messages held at once (fetched and not yet acked). */
  maxInFlight: number;
  /** Largest single fetch. */
  maxFetch?: number;
  /**
   * Room at which finished work (a decode, an ack) wakes a pull loop waiting for room, and below
   * which it does not fetch (default 1; at most half of `maxInFlight`): every fetch asks for at
   * least this many messages. A
   * fetch per decoded message is a round trip to the server per message; waking only on acks
   * (after an insert) or on the loop's poll left the decoder idle between fetches.
   */
  refetchRoom?: number;
  /** Period of the progress heartbeats of held messages: a third of the consumer's ack wait. */
  heartbeatMs: number;
  metrics: StreamMetrics;
  log: Logger;
}

export interface Backlog {
  /** Messages held: received and not yet acked, nakked or dead-lettered. */
  messages: number;
  /**
   * Age (ms) of the oldest held message since JetStream stored it (0 when none is held): how far
   * behind the consumer is. While it drains a backlog this is the backlog's age; caught up, it is
   * the time one message takes through decoding, the sink's buffer and the insert.
   */
  lagMs: number;
}

export interface RunningConsumer {
  readonly inFlight: number;
  /** How far behind the consumer is now (cheap: the analyze consumer asks before each batch). */
  backlog(): Backlog;
  /** Stops pulling; resolves once every held message reached the sink or the DLQ. */
  stop(): Promise<void>;
  /** Resolves once every held message is acked, nakked or dead-lettered (after the sink's flush); stops the heartbeats. */
  drained(): Promise<void>;
}

export function startStoreConsumer(opts: ConsumerOptions): RunningConsumer {
  const { js, metrics, log } = opts;
  const labels = { consumer: opts.durable };
  let inFlight = 0;
  let stopping = false;
  const signal = createRoomSignal();
  const lastError = new Map<string, string>();
  /** Held messages, in delivery order. */
  const held = new Set<JsMsg>();
  const heartbeat = startHeartbeats(() => held, opts.heartbeatMs, log, 'held messages');

  const room = () => Math.min(opts.maxInFlight - inFlight, opts.decoder.room(), opts.maxFetch ?? 1000);
  const refetchRoom = Math.max(1, Math.min(opts.refetchRoom ?? 1, Math.ceil(opts.maxInFlight / 2), opts.maxFetch ?? 1000));
  const wakeOnRoom = () => {
    if (room() >= refetchRoom) signal.wake();
  };

  const finishOf = (m: JsMsg) => () => {
    held.delete(m);
    inFlight--;
    metrics.inFlight.set(labels, inFlight);
    wakeOnRoom();
  };

  const toDlq = async (m: JsMsg, reason: DlqReason, error: string) => {
    try {
      await deadLetter(js, m, opts.durable, reason, error);
      metrics.deadLetters.inc({ consumer: opts.durable, reason });
      log.error({ reason, error, subject: m.subject, seq: m.info.streamSequence, deliveries: m.info.deliveryCount }, 'message dead-lettered');
      lastError.delete(messageId(m));
    } catch (err) {
      // the DLQ publish itself failed: leave the message to be redelivered
      log.warn({ err }, 'dead-lettering failed: message will be redelivered');
      m.nak(1000);
    }
  };

  /** Dead-letters each refused event alone, then acks; false (and a nak) when the DLQ cannot take them. */
  const completeWith = async (m: JsMsg, split: SplitMessage | undefined, refused: RefusedEvent[]): Promise<boolean> => {
    try {
      for (const e of refused) {
        await deadLetterEvent(js, m, opts.durable, split!, e);
        metrics.deadLetters.inc({ consumer: opts.durable, reason: 'rejected' });
        log.error({ reason: 'rejected', error: e.reason, eventId: e.eventId, index: e.index, subject: m.subject, seq: m.info.streamSequence }, 'event dead-lettered');
      }
    } catch (err) {
      log.warn({ err }, 'dead-lettering an event failed: message will be redelivered');
      m.nak(1000);
      return false;
    }
    m.ack();
    return true;
  };

  const toSink = (m: JsMsg, id: string, res: Extract<DecodeResult, { kind: 'ok' }>, finish: () => void) => {
    const out = res.output;
    opts.sink.add({
      id,
      rows: out.tables,
      rowCount: out.rowCount,
      bytes: out.bytes,
      receivedAtMs: out.receivedAtMs,
      conversations: out.conversations,
      backlog: m.info.pending,
      split: () => {
        const s = splitMessage(m.data);
        return 'kind' in s ? undefined : s;
      },
      done: async (refused, split) => {
        const ok = await completeWith(m, split, refused);
        if (ok) lastError.delete(id);
        finish();
        return ok;
      },
      retry: (err) => {
        lastError.set(id, String((err as Error)?.message ?? err));
        m.nak(backoffDelay(m.info.deliveryCount, 500, 10_000));
        finish();
      },
      reject: async (err) => {
        await toDlq(m, 'rejected', String((err as Error)?.message ?? err));
        finish();
      },
      working: () => m.working(),
    });
  };

  const handle = (m: JsMsg) => {
    inFlight++;
    held.add(m);
    const finish = finishOf(m);
    metrics.inFlight.set(labels, inFlight);
    metrics.consumed.inc(labels);
    if (m.info.redelivered) metrics.redelivered.inc(labels);
    const id = messageId(m);
    if (m.info.deliveryCount > opts.maxDeliver) {
      void toDlq(m, 'max_deliver', lastError.get(id) ?? `not processed after ${opts.maxDeliver} deliveries`).finally(finish);
      return;
    }
    opts.decoder.decode(m.data).then(
      async (res) => {
        wakeOnRoom();
        if (res.kind === 'poison') {
          await toDlq(m, 'poison', res.reason);
          finish();
          return;
        }
        toSink(m, id, res, finish);
      },
      (err) => {
        wakeOnRoom();
        // the worker itself failed (crash, pool closed): transient, try again later
        log.warn({ err }, 'decode task failed: message will be redelivered');
        lastError.set(id, String((err as Error)?.message ?? err));
        m.nak(backoffDelay(m.info.deliveryCount, 500, 10_000));
        finish();
      },
    );
  };

  const loop = async () => {
    const consumer = await getConsumer(js, opts.stream, opts.durable, log, () => stopping);
    if (!consumer) return;
    await pullLoop({
      consumer,
      room,
      minRoom: refetchRoom,
      signal,
      onMessage: handle,
      stopped: () => stopping,
      log,
    });
  };
  const running = loop().catch((err) => log.error({ err }, 'store consumer stopped'));

  return {
    get inFlight() {
      return inFlight;
    },
    backlog() {
      // held in delivery order: the first is the oldest (a redelivery of an older one may come later)
      for (const m of held) return { messages: held.size, lagMs: Math.max(0, Date.now() - m.info.timestampNanos / 1e6) };
      return { messages: 0, lagMs: 0 };
    },
    async stop() {
      stopping = true;
      signal.wake();
      await running;
      // every held message reaches the sink or the DLQ; the caller flushes the sink after this
      while (inFlight > opts.sink.pending) await sleep(10);
    },
    async drained() {
      while (inFlight > 0) await sleep(10);
      heartbeat.stop();
    },
  };
}
