import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { batchIds } from '../../../ingest/publish.js';

const events = Array.from({ length: 600 }, (_, i) => ({ json: JSON.stringify({ n: i, text: `event ${i % 7}` }) }));

test('the message id is the SHA-256 of tenant, source and each serialized event on its own line', () => {
  const h = createHash('sha256').update('t1\nlogs\n');
  for (const e of events) h.update(e.json).update('\n');
  assert.is(batchIds('t1', 'logs', events).msgId, h.digest('hex'));
});

test('event ids: 32 lower-case hex digits, distinct within a batch, stable across retries', () => {
  const a = batchIds('t1', 'logs', events);
  const b = batchIds('t1', 'logs', events.map((e) => ({ json: e.json })));
  assert.equal(a, b);
  for (const id of a.eventIds) assert.match(id, /^[0-9a-f]{32}$/);
  assert.is(new Set(a.eventIds).size, events.length);
  assert.ok(a.eventIds.every((id) => id.startsWith(a.msgId.slice(0, 24))));
});

test('a different tenant, source or content gives other ids', () => {
  const base = batchIds('t1', 'logs', events);
  const others = [batchIds('t2', 'logs', events), batchIds('t1', 'hooks', events), batchIds('t1', 'logs', events.slice(1))];
  for (const o of others) {
    assert.is.not(o.msgId, base.msgId);
    assert.is.not(o.eventIds[0], base.eventIds[0]);
  }
});

test.run();
