import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeBatch } from '../../../ingest/publish.js';
import { wholeEvents } from '../../../stream/batch.js';

const events = Array.from({ length: 600 }, (_, i) => ({ json: JSON.stringify({ n: i, text: `event ${i % 7}` }) }));
const batch = (tenant: string, source: 'logs' | 'hooks', list: Array<{ json: string }>) => encodeBatch(tenant, source, 'req-1', '2026-11-24T10:00:00.000Z', list);

test('the message id is the SHA-256 of tenant, source and each serialized event on its own line', () => {
  const h = createHash('sha256').update('t1\nlogs\n');
  for (const e of events) h.update(e.json).update('\n');
  assert.is(batch('t1', 'logs', events).msgId, h.digest('hex'));
});

test('event ids: 32 lower-case hex digits, distinct within a batch, stable across retries and receive times', () => {
  const a = batch('t1', 'logs', events);
  const b = encodeBatch('t1', 'logs', 'req-2', '2026-11-24T11:00:00.000Z', events.map((e) => ({ json: e.json })));
  assert.is(a.msgId, b.msgId);
  assert.equal(a.eventIds, b.eventIds);
  for (const id of a.eventIds) assert.match(id, /^[0-9a-f]{32}$/);
  assert.is(new Set(a.eventIds).size, events.length);
  assert.ok(a.eventIds.every((id) => id.startsWith(a.msgId.slice(0, 24))));
});

test('a different tenant, source or content gives other ids', () => {
  const base = batch('t1', 'logs', events);
  const others = [batch('t2', 'logs', events), batch('t1', 'hooks', events), batch('t1', 'logs', events.slice(1))];
  for (const o of others) {
    assert.is.not(o.msgId, base.msgId);
    assert.is.not(o.eventIds[0], base.eventIds[0]);
  }
});

test('the bytes are the IngestBatch JSON: the message\'s shared fields once, then each event\'s own fields', () => {
  // multi-byte text, an escaped control character and a replaced lone surrogate change byte lengths
  const list = [
    { json: JSON.stringify({ type: 'message', text: 'naïve — 日本語 🙂' }) },
    { json: JSON.stringify({ type: 'log', text: 'tab\there "quoted"', nested: { a: [1, 2] } }) },
    { json: `{"type":"log","text":"half \ud83d pair"}` },
  ];
  const out = encodeBatch('t1', 'logs', 'req-ü', '2026-11-24T10:00:00.000Z', list);
  const parsed = JSON.parse(out.data.toString('utf8'));
  const own = list.map((e) => JSON.parse(Buffer.from(e.json).toString('utf8')));
  assert.equal(parsed, {
    v: 3,
    tenant_id: 't1',
    source: 'logs',
    request_id: 'req-ü',
    receive_time: '2026-11-24T10:00:00.000Z',
    event_id_prefix: out.msgId.slice(0, 24),
    groups: [],
    events: own,
  });
  // read whole, each event has its id and receive time (and its tenant and source, which it lacked)
  assert.equal(
    wholeEvents(parsed),
    own.map((e, i) => ({ ...e, event_id: out.eventIds[i], receive_time: '2026-11-24T10:00:00.000Z', tenant_id: 't1', source: 'logs' })),
  );
  // the id hashes what is published: the lone surrogate as its UTF-8 replacement, as before
  const h = createHash('sha256').update('t1\nlogs\n');
  for (const e of list) h.update(e.json).update('\n');
  assert.is(out.msgId, h.digest('hex'));
});

test('one event, and sizes passed by the caller, give the same bytes', () => {
  const one = [events[0]!];
  const a = batch('t1', 'logs', one);
  const b = encodeBatch('t1', 'logs', 'req-1', '2026-11-24T10:00:00.000Z', one, [Buffer.byteLength(one[0]!.json)]);
  assert.ok(a.data.equals(b.data));
  assert.equal(wholeEvents(JSON.parse(a.data.toString())), [{ n: 0, text: 'event 0', event_id: a.eventIds[0], receive_time: '2026-11-24T10:00:00.000Z', tenant_id: 't1', source: 'logs' }]);
});

test.run();
