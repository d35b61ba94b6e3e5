import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, eventually, type TestSystem } from '../../helpers/system.js';
import { batchOf, conversationEvents, messageEvent, publishBatch, promptEvent } from '../../helpers/events.js';
import { startStream } from '../../../stream/main.js';
import { listDeadLetters } from '../../../stream/dlq.js';
import { blockRows, type InsertFn } from '../../../stream/sink.js';
import type { RoleHandle } from '../../../core/runtime.js';
import { counts } from './helpers.js';

let ts: TestSystem;
let stream: RoleHandle | undefined;
let failUntil = 0;
let failCalls = 0;
let insertDelayMs = 0;
const refusedIds = new Set<string>();
const insertedEventRows: string[] = [];

// fault seam: transient errors while `failUntil` is in the future; a permanent error for a batch holding a refused event
const wrapInsert = (insert: InsertFn): InsertFn => async (table, block, settings) => {
  const rows = blockRows(block);
  if (insertDelayMs) await new Promise((r) => setTimeout(r, insertDelayMs));
  if (Date.now() < failUntil) {
    failCalls++;
    throw Object.assign(new Error('injected: connection reset'), { code: 'ECONNRESET' });
  }
  if (rows.some((r) => refusedIds.has(String((r as { event_id?: string }).event_id)))) {
    throw Object.assign(new Error('injected: Cannot parse escape sequence'), { code: '25' });
  }
  await insert(table, block, settings);
  if (table === 'events') for (const r of rows) insertedEventRows.push(String((r as { event_id: string }).event_id));
};

test.before(async () => {
  ts = await startTestSystem({ roles: ['query'], env: { STREAM_MAX_DELIVER: '3', SINK_FLUSH_INTERVAL_MS: '100', STREAM_ACK_WAIT_MS: '1000' } });
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

test('a store refusal dead-letters only the event at fault, alone, with the reason; its neighbours are stored once', async () => {
  const { js } = ts.system.rt.bus;
  const before = await counts(ts.system.rt.store);
  const before_dlq = (await dlq()).length;
  const mixed = conversationEvents('mix-1', 2);
  const poisoned = mixed[1]!;
  refusedIds.add(poisoned.event_id);
  insertedEventRows.length = 0;
  await Promise.all([
    publishBatch(js, batchOf(conversationEvents('r-1', 1))),
    publishBatch(js, batchOf(mixed)),
    publishBatch(js, batchOf(conversationEvents('r-2', 1))),
  ]);
  const dead = await eventually(async () => ((await dlq()).length === before_dlq + 1 ? await dlq() : undefined));
  assert.ok(dead, 'one dead letter');
  const d = dead!.at(-1)!;
  assert.is(d.reason, 'rejected');
  assert.is(d.eventId, poisoned.event_id);
  assert.match(d.error, /Cannot parse escape sequence/);
  const letter = JSON.parse(Buffer.from(d.data).toString('utf8'));
  assert.equal(letter.events.map((e: { event_id: string }) => e.event_id), [poisoned.event_id], 'the dead letter holds that event alone');
  const c = await eventually(async () => {
    const c = await counts(ts.system.rt.store);
    return c.events === before.events + 4 + 7 + 4 ? c : undefined;
  });
  assert.ok(c, 'every other event stored');
  assert.is(c!.eventsRaw, before.eventsRaw + 15, 'no event row twice');
  assert.is(new Set(insertedEventRows).size, insertedEventRows.length, 'bisection inserted no row twice');
  assert.ok(!insertedEventRows.includes(poisoned.event_id));
  const [row] = await ts.system.rt.store.query<{ n: string }>('SELECT count() AS n FROM {{db}}.events FINAL WHERE event_id = {e:String}', { e: poisoned.event_id });
  assert.is(row!.n, '0', 'nothing of the refused event stored');
  assert.is(ts.system.rt.metrics.value('stream_dead_letters_total', { consumer: 'store', reason: 'rejected' }), 1);
  refusedIds.clear();
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
  // the batches' first table meets the faults (stream/rows.ts TABLES)
  assert.ok(ts.system.rt.metrics.value('stream_insert_retries_total', { table: 'messages' }) > 0);
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

test('an insert lasting several ack waits: held messages send heartbeats, nothing is redelivered or stored twice', async () => {
  const { js } = ts.system.rt.bus;
  const before = await counts(ts.system.rt.store);
  const redelivered = ts.system.rt.metrics.value('stream_redeliveries_total', { consumer: 'store' });
  insertDelayMs = 2500; // each of the 3 table inserts: 7.5 s in all, with an ack wait of 1 s
  try {
    await publishBatch(js, batchOf(conversationEvents('slow-1', 2)));
    const c = await eventually(async () => {
      const c = await counts(ts.system.rt.store);
      return c.events === before.events + 8 && c.toolCalls === before.toolCalls + 2 ? c : undefined;
    }, { timeoutMs: 30_000 });
    assert.ok(c, 'stored');
    assert.is(c!.eventsRaw, before.eventsRaw + 8);
  } finally {
    insertDelayMs = 0;
  }
  assert.is(ts.system.rt.metrics.value('stream_redeliveries_total', { consumer: 'store' }), redelivered, 'no redelivery while the insert ran');
  const info = await ts.system.rt.bus.jsm.consumers.info('INGEST', 'store');
  assert.is(info.num_redelivered, 0);
});

test.run();
