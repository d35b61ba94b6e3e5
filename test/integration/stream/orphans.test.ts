/**
 * Issue item 3: no INGEST message left below the consumer's ack floor after a crash, and the
 * backlog that ingest refuses traffic on counts only what is really waiting.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connectBus, isAlive, startManagedNats, type Bus } from '../../../core/nats.js';
import { CONSUMERS, STREAMS } from '../../../schemas/subjects.js';
import { startTestSystem, eventually } from '../../helpers/system.js';
import { tempDir } from '../../helpers/tmp.js';
import { http } from '../../helpers/http.js';

const CHILD = fileURLToPath(new URL('./nats-child.js', import.meta.url));

/** A process owning a managed nats-server on a store of its own, once it has published and acked. */
async function startOwner(publish: number, ack: number): Promise<{ storeDir: string; child: ChildProcess }> {
  const storeDir = tempDir('th-orphans-');
  const child = spawn(process.execPath, [CHILD], { env: { ...process.env, NATS_CHILD_STORE: storeDir, NATS_CHILD_PUBLISH: String(publish), NATS_CHILD_ACK: String(ack) }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => String(d).includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`child exited with ${code}`)));
  });
  return { storeDir, child };
}

test('a process owning the managed nats-server killed with SIGKILL: every ack survives the server restart (no message stranded below the ack floor)', async () => {
  const { storeDir, child } = await startOwner(300, 200);
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  // the next start finds the owner dead: it stops the old server (if its supervisor has not yet) and waits for it
  const nats = await startManagedNats({ storeDir, bin: 'nats-server' });
  const bus = await connectBus(nats.url);
  try {
    await assertAcksSurvived(bus, 300, 200);
  } finally {
    await bus.close();
    await nats.stop();
  }
});

test('a server whose owner died is not shared while its supervisor has yet to notice: the next start stops it and reopens the store', async () => {
  const { storeDir, child } = await startOwner(50, 20);
  // freeze the supervisor so that it cannot see its owner's pipe close: its server keeps answering
  const oldSupervisor = Number(readFileSync(join(storeDir, 'server.pid'), 'utf8'));
  process.kill(oldSupervisor, 'SIGSTOP');
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  const nats = await startManagedNats({ storeDir, bin: 'nats-server' });
  const bus = await connectBus(nats.url);
  try {
    assert.is.not(nats.pid, oldSupervisor, 'a new server was started');
    assert.not.ok(isAlive(oldSupervisor), 'the old supervisor and its server are gone');
    await assertAcksSurvived(bus, 50, 20);
  } finally {
    await bus.close();
    await nats.stop();
    // never leave the frozen supervisor behind, whatever the assertions found
    if (isAlive(oldSupervisor)) {
      try {
        process.kill(-oldSupervisor, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
});

/**
 * After the restart: the acked messages stay deleted, nothing is left below the consumer's ack
 * floor, and the store consumer delivers exactly the unacked ones. The ack floor itself may read 0:
 * nats-server 2.9 writes a consumer's state from a background flusher, and a server stopped within
 * moments of the acks (seen on a loaded machine, server up for under half a second) came back with
 * delivered and ack floor 0 while its stream deletes persisted. Then the consumer starts past the
 * deleted messages, which is what a user relies on.
 */
async function assertAcksSurvived(bus: Bus, published: number, acked: number): Promise<void> {
  const stream = await bus.jsm.streams.info(STREAMS.INGEST.name);
  const consumer = await bus.jsm.consumers.info(CONSUMERS.store.stream, CONSUMERS.store.durable);
  assert.is(stream.state.messages, published - acked, 'the acked messages stay deleted');
  assert.is(stream.state.first_seq, acked + 1);
  assert.ok(consumer.ack_floor.stream_seq === acked || consumer.ack_floor.stream_seq === 0, `ack floor ${consumer.ack_floor.stream_seq}`);
  assert.is(consumer.num_pending + consumer.num_ack_pending, published - acked, 'every stored message will be delivered');
  const seqs: number[] = [];
  const c = await bus.js.consumers.get(CONSUMERS.store.stream, CONSUMERS.store.durable);
  while (seqs.length < published - acked) {
    const before = seqs.length;
    for await (const m of await c.fetch({ max_messages: published, expires: 2000 })) seqs.push(m.seq);
    if (seqs.length === before) break;
  }
  assert.equal(seqs, Array.from({ length: published - acked }, (_, i) => acked + 1 + i), 'exactly the unacked messages are delivered, in order');
}


test('the 503 backlog counts messages waiting for the store consumer, not messages the consumer will never deliver', async () => {
  const ts = await startTestSystem({ roles: ['ingest'], env: { INGEST_MAX_BACKLOG_MESSAGES: '3' } });
  try {
    const { jsm, js } = ts.system.rt.bus;
    const post = (i: number) =>
      http(`${ts.ingestUrl}/v1/ingest`, { method: 'POST', headers: { authorization: `Bearer ${ts.adminKey}` }, body: { events: [{ conversation_id: `b-${i}`, role: 'user', message: `m ${i}` }] } });
    // strand 5 messages the way a server-side delivery limit did: delivered once, never acked, never delivered again
    await jsm.consumers.update(CONSUMERS.store.stream, CONSUMERS.store.durable, { max_deliver: 1, ack_wait: 500_000_000 });
    // (published straight to the bus: through ingest, the fourth would already meet the limit)
    for (let i = 0; i < 5; i++) await js.publish('ingest.default.ingest', JSON.stringify({ v: 1, tenant_id: 'default', source: 'ingest', request_id: `s-${i}`, events: [] }), { msgID: `stranded-${i}` });
    const consumer = await js.consumers.get(CONSUMERS.store.stream, CONSUMERS.store.durable);
    let fetched = 0;
    for await (const _m of await consumer.fetch({ max_messages: 5, expires: 2000 })) fetched++;
    assert.is(fetched, 5);
    const stranded = await eventually(async () => {
      // the server looks at expired deliveries when a pull asks for more: none comes back
      for await (const m of await consumer.fetch({ max_messages: 5, expires: 1000 })) throw new Error(`redelivered ${m.seq}`);
      const c = await jsm.consumers.info(CONSUMERS.store.stream, CONSUMERS.store.durable);
      return c.num_ack_pending === 0 && c.num_pending === 0 ? c : undefined;
    });
    assert.ok(stranded, 'the deliveries expired and were not redelivered');
    assert.is((await jsm.streams.info(STREAMS.INGEST.name)).state.messages, 5, 'stranded messages stay in the stream');
    await jsm.consumers.update(CONSUMERS.store.stream, CONSUMERS.store.durable, { max_deliver: -1 });
    await new Promise((r) => setTimeout(r, 300)); // the publisher caches the backlog for 250 ms
    const r = await post(10);
    assert.is(r.status, 200, 'five stranded messages do not count against a limit of three');
    for (let i = 11; i < 14; i++) await post(i);
    const refused = await eventually(async () => {
      await new Promise((r2) => setTimeout(r2, 300));
      const x = await post(99);
      return x.status === 503 ? x : undefined;
    });
    assert.ok(refused, 'real pending messages past the limit are refused');
    assert.is(refused!.body.code, 'unavailable_backlog');
  } finally {
    await ts.stop({ withNats: true });
  }
});

test.run();
