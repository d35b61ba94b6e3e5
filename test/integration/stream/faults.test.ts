import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, eventually, type TestSystem } from '../../helpers/system.js';
import { batchOf, conversationEvents, messageEvent, publishBatch, promptEvent } from '../../helpers/events.js';
import { startStream } from '../../../stream/main.js';
import { listDeadLetters } from '../../../stream/dlq.js';
import type { InsertFn } from '../../../stream/sink.js';
import type { RoleHandle } from '../../../core/runtime.js';
import { counts } from './helpers.js';

let ts: TestSystem;
let stream: RoleHandle | undefined;
let failUntil = 0;
let failCalls = 0;

// fault seam: transient errors while `failUntil` is in the future; a permanent error for rows marked bad
const wrapInsert = (insert: InsertFn): InsertFn => async (table, rows, settings) => {
  if (Date.now() < failUntil) {
    failCalls++;
    throw Object.assign(new Error('injected: connection reset'), { code: 'ECONNRESET' });
  }
  if (rows.some((r) => String((r as { conversation_id?: string }).conversation_id).startsWith('bad-'))) {
    throw Object.assign(new Error('injected: cannot parse input'), { code: '27' });
  }
  return insert(table, rows, settings);
};

test.before(async () => {
  ts = await startTestSystem({ roles: ['query'], env: { STREAM_MAX_DELIVER: '3', SINK_FLUSH_INTERVAL_MS: '100' } });
  stream = await startStream(ts.system.rt, {
    wrapInsert,
    wrapDecoder: (d) => ({
      room: d.room,
      decode: (data) => (Buffer.from(data).includes('always-crash') ? Promise.reject(new Error('injected: worker crashed')) : d.decode(data)),
    }),
  });
});
test.after(async () => {
  await stream?.close();
  await ts?.stop({ withNats: true });
});

const dlq = () => listDeadLetters(ts.system.rt.bus.jsm);

test('a poison message is dead-lettered while every other message of its batch is stored', async () => {
  const { js } = ts.system.rt.bus;
  const a = batchOf(conversationEvents('p-1', 2));
  const b = batchOf(conversationEvents('p-2', 2));
  const invalid = batchOf([promptEvent('p-3', 'x', 0)]);
  (invalid.events[0] as any).event_time = 'not a time';
  await Promise.all([
    publishBatch(js, a),
    publishBatch(js, batchOf([]), { raw: '{"v":1,"tenant_id":"default","events":[{', msgId: 'garbage-1' }),
    publishBatch(js, invalid),
    publishBatch(js, b),
  ]);
  const c = await eventually(async () => {
    const c = await counts(ts.system.rt.store);
    return c.events === 16 && c.conversations === 2 ? c : undefined;
  });
  assert.ok(c, 'valid messages stored');
  const dead = await eventually(async () => ((await dlq()).length === 2 ? await dlq() : undefined));
  assert.ok(dead);
  assert.equal(dead!.map((d) => d.reason), ['poison', 'poison']);
  assert.equal(dead!.map((d) => d.subject), ['dlq.ingest.store', 'dlq.ingest.store']);
  assert.ok(dead!.some((d) => /unparseable JSON/.test(d.error)));
  assert.ok(dead!.some((d) => /event_time/.test(d.error)));
  assert.is(ts.system.rt.metrics.value('stream_dead_letters_total', { consumer: 'store', reason: 'poison' }), 2);
});

test('a permanent insert error dead-letters only the message at fault', async () => {
  const { js } = ts.system.rt.bus;
  const before = (await counts(ts.system.rt.store)).events;
  const before_dlq = (await dlq()).length;
  await Promise.all([
    publishBatch(js, batchOf(conversationEvents('r-1', 1))),
    publishBatch(js, batchOf(conversationEvents('bad-1', 1))),
    publishBatch(js, batchOf(conversationEvents('r-2', 1))),
  ]);
  const ok = await eventually(async () => (await counts(ts.system.rt.store)).events === before + 8);
  assert.ok(ok);
  const dead = await eventually(async () => ((await dlq()).length === before_dlq + 1 ? await dlq() : undefined));
  assert.is(dead!.at(-1)!.reason, 'rejected');
  assert.match(dead!.at(-1)!.error, /cannot parse input/);
});

test('a message failing on every delivery goes to the DLQ after maxDeliver deliveries', async () => {
  const { js } = ts.system.rt.bus;
  const before_dlq = (await dlq()).length;
  const e = promptEvent('crash-1', 'always-crash', 0);
  await publishBatch(js, batchOf([e]));
  const dead = await eventually(async () => ((await dlq()).length === before_dlq + 1 ? await dlq() : undefined), { timeoutMs: 20_000 });
  assert.ok(dead, 'dead-lettered');
  const d = dead!.at(-1)!;
  assert.is(d.reason, 'max_deliver');
  assert.is(d.deliveries, 4);
  assert.match(d.error, /worker crashed/);
  assert.ok(ts.system.rt.metrics.value('stream_redeliveries_total', { consumer: 'store' }) >= 3);
});

test('ClickHouse inserts failing for a while, then recovering: every row exactly once', async () => {
  const { js } = ts.system.rt.bus;
  const before = await counts(ts.system.rt.store);
  failUntil = Date.now() + 2500;
  const batches = Array.from({ length: 20 }, (_, i) => batchOf(conversationEvents(`f-${i}`, 2)));
  await Promise.all(batches.map((b) => publishBatch(js, b)));
  const settled = await eventually(async () => {
    const c = await counts(ts.system.rt.store);
    return c.events === before.events + 160 && c.conversations === before.conversations + 20 ? c : undefined;
  }, { timeoutMs: 30_000 });
  assert.ok(settled, `settled: ${JSON.stringify(await counts(ts.system.rt.store))}`);
  assert.ok(failCalls > 0, 'faults were injected');
  assert.ok(ts.system.rt.metrics.value('stream_insert_retries_total', { table: 'events' }) > 0);
  assert.is(settled!.toolCalls, before.toolCalls + 40);
  assert.is(settled!.messages, before.messages + 40);
  assert.is(settled!.eventsRaw, before.eventsRaw + 160, 'no duplicate rows even before merges');
});

test('the same batch republished (after a publish timeout) is stored once', async () => {
  const { js } = ts.system.rt.bus;
  const before = await counts(ts.system.rt.store);
  const b = batchOf([messageEvent('dup-1', 'user', 'hello', 0, { message_id: 'dm1' }), messageEvent('dup-1', 'assistant', 'hi', 1000, { message_id: 'dm2' })], 'ingest');
  await publishBatch(js, b);
  // a client retry inside the duplicate window: same Nats-Msg-Id, dropped by JetStream
  const again = await publishBatch(js, b);
  assert.is(again.duplicate, true);
  // a retry after the window: a new message id, same events; ClickHouse keys collapse it
  await publishBatch(js, b, { msgId: 'late-retry-of-dup-1' });
  const ok = await eventually(async () => {
    const c = await counts(ts.system.rt.store);
    return c.messages === before.messages + 2 && c.events === before.events + 2 && c.conversations === before.conversations + 1;
  });
  assert.ok(ok);
  await new Promise((r) => setTimeout(r, 500));
  const c = await counts(ts.system.rt.store);
  assert.is(c.events, before.events + 2);
  assert.is(c.messages, before.messages + 2);
});

test.run();
