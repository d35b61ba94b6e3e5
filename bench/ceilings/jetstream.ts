import { jetstreamManager, jetstream, AckPolicy, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

/**
 * The bus ceiling: publish the same messages the ingest role would (batches of events as JSON,
 * one message per batch, a Nats-Msg-Id each) to a stream shaped like INGEST, then consume and ack
 * them with a pull consumer. Uses its own stream so the system's INGEST is untouched.
 */
export interface BusCeiling {
  messages: number;
  events: number;
  bytes: number;
  publish_events_per_s: number;
  publish_msgs_per_s: number;
  consume_events_per_s: number;
  consume_msgs_per_s: number;
}

export async function measureJetStream(nc: NatsConnection, batches: Array<{ subject: string; data: Uint8Array; events: number }>, opts: { inFlight?: number } = {}): Promise<BusCeiling> {
  const jsm = await jetstreamManager(nc);
  const name = `BENCH_CEILING_${Date.now()}`;
  const prefix = name.toLowerCase();
  await jsm.streams.add({ name, subjects: [`${prefix}.>`], retention: RetentionPolicy.Workqueue, storage: StorageType.File, duplicate_window: 10 * 60_000_000_000 });
  const js = jetstream(nc);
  const inFlight = opts.inFlight ?? 64;
  let events = 0;
  let bytes = 0;
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = next++; i < batches.length; i = next++) {
        const b = batches[i]!;
        await js.publish(`${prefix}.${b.subject}`, b.data, { msgID: `${name}-${i}` });
        events += b.events;
        bytes += b.data.length;
      }
    }),
  );
  const publishS = (performance.now() - t0) / 1000;
  await jsm.consumers.add(name, { durable_name: 'ceiling', ack_policy: AckPolicy.Explicit, max_ack_pending: 10_000 });
  const consumer = await js.consumers.get(name, 'ceiling');
  const t1 = performance.now();
  let seen = 0;
  const messages = await consumer.consume({ max_messages: 1000 });
  for await (const m of messages) {
    // parse like the consumer would, then ack
    JSON.parse(new TextDecoder().decode(m.data));
    m.ack();
    if (++seen >= batches.length) break;
  }
  const consumeS = (performance.now() - t1) / 1000;
  await jsm.streams.delete(name);
  return {
    messages: batches.length,
    events,
    bytes,
    publish_events_per_s: Math.round(events / publishS),
    publish_msgs_per_s: Math.round(batches.length / publishS),
    consume_events_per_s: Math.round(events / consumeS),
    consume_msgs_per_s: Math.round(batches.length / consumeS),
  };
}
