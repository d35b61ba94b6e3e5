/**
 * The store consumer against a real nats-server: a backlog is pulled in fetches that fill the
 * decoder's free room, not one message per fetch (a round trip to the server per message), and
 * every message is decoded once and acknowledged.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Consumer, JetStreamClient } from '@nats-io/jetstream';
import { createLogger } from '../../../core/log.js';
import { createMetrics } from '../../../core/metrics.js';
import { ingestSubject } from '../../../schemas/subjects.js';
import { CONSUMERS } from '../../../schemas/subjects.js';
import { streamMetrics } from '../../../stream/metrics.js';
import { startStoreConsumer, type Decoder } from '../../../stream/store-consumer.js';
import type { Sink } from '../../../stream/sink.js';
import { useBusWithTopology } from '../../helpers/nats.js';
import { eventually } from '../../helpers/system.js';

const suite = useBusWithTopology(test);

/** The JetStream client with the store consumer's fetch sizes recorded. */
function recordingFetches(js: JetStreamClient, sizes: number[]): JetStreamClient {
  const consumers = new Proxy(js.consumers, {
    get(target, prop, receiver) {
      if (prop !== 'get') return Reflect.get(target, prop, receiver);
      return async (...args: Parameters<typeof target.get>) => {
        const c: Consumer = await target.get(...args);
        return new Proxy(c, {
          get(t, p, r) {
            if (p !== 'fetch') return Reflect.get(t, p, r);
            return (o: Parameters<Consumer['fetch']>[0]) => {
              sizes.push(o?.max_messages ?? 0);
              return t.fetch(o);
            };
          },
        });
      };
    },
  });
  return new Proxy(js, { get: (t, p, r) => (p === 'consumers' ? consumers : Reflect.get(t, p, r)) });
}

test('a backlog is fetched in chunks of the free decoder room, each message decoded once and acked', async () => {
  const bus = suite.bus();
  const total = 120;
  for (let i = 0; i < total; i++) await bus.js.publish(ingestSubject('default', 'sdk'), new TextEncoder().encode(`m${i}`), { msgID: `room-${i}` });
  // a decoder of 16 slots, each decode a few milliseconds; the sink completes at once
  const capacity = 16;
  let running = 0;
  const decoded: string[] = [];
  const decoder: Decoder = {
    room: () => capacity - running,
    decode: async (data) => {
      running++;
      await new Promise((r) => setTimeout(r, 3));
      running--;
      decoded.push(Buffer.from(data).toString());
      return { kind: 'ok', events: 1, output: { tables: {}, rowCount: 0, bytes: 0, receivedAtMs: Date.now(), conversations: [] } };
    },
  };
  let pending = 0;
  const sink: Sink = {
    add(entry) {
      pending++;
      void entry.done([]).finally(() => pending--);
    },
    get pending() {
      return pending;
    },
    flush: async () => undefined,
    close: async () => undefined,
  };
  const sizes: number[] = [];
  const consumer = startStoreConsumer({
    js: recordingFetches(bus.js, sizes),
    stream: CONSUMERS.store.stream,
    durable: CONSUMERS.store.durable,
    decoder,
    sink,
    maxDeliver: 5,
    maxInFlight: 1000,
    refetchRoom: capacity / 2,
    heartbeatMs: 10_000,
    metrics: streamMetrics(createMetrics()),
    log: createLogger('silent'),
  });
  try {
    await eventually(async () => {
      const info = await bus.jsm.consumers.info(CONSUMERS.store.stream, CONSUMERS.store.durable);
      return info.num_pending === 0 && info.num_ack_pending === 0 && decoded.length >= total ? true : undefined;
    }, { timeoutMs: 20_000 });
  } finally {
    await consumer.stop();
    await consumer.drained();
  }
  assert.equal([...decoded].sort(), Array.from({ length: total }, (_, i) => `m${i}`).sort(), 'every message decoded exactly once');
  // fetching one message per decode would take about one fetch per message
  assert.ok(sizes.length <= total / 4, `the backlog of ${total} took ${sizes.length} fetches (${sizes.join(' ')})`);
  assert.equal(sizes.filter((s) => s < capacity / 2), [], `every fetch asks for at least half the decoder's room (${sizes.join(' ')})`);
});

test.run();
