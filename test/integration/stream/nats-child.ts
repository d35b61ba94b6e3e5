/**
 * A process that owns a managed nats-server (as `tracehouse start` does), for the crash test of
 * the work queue: declares the topology, publishes `NATS_CHILD_PUBLISH` messages to INGEST, acks
 * the first `NATS_CHILD_ACK` through the `store` consumer, prints `ready` and waits to be killed.
 */
import { connectBus, declareTopology, startManagedNats } from '../../../core/nats.js';

const storeDir = process.env.NATS_CHILD_STORE!;
const publish = Number(process.env.NATS_CHILD_PUBLISH ?? 300);
const ack = Number(process.env.NATS_CHILD_ACK ?? 200);
const nats = await startManagedNats({ storeDir, bin: 'nats-server' });
const bus = await connectBus(nats.url);
await declareTopology(bus, { replicas: 1, maxDeliver: 5, ackWaitMs: 60_000 });
const body = 'x'.repeat(4000);
for (let i = 0; i < publish; i++) await bus.js.publish('ingest.default.ingest', body, { msgID: `child-${i}` });
const consumer = await bus.js.consumers.get('INGEST', 'store');
let acked = 0;
while (acked < ack) {
  const batch = await consumer.fetch({ max_messages: Math.min(100, ack - acked), expires: 1000 });
  for await (const m of batch) {
    m.ack();
    acked++;
  }
}
await bus.nc.flush();
process.stdout.write('ready\n');
setInterval(() => {}, 60_000);
