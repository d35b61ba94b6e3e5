import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createMetrics, keyOf } from '../../../core/metrics.js';

test('a series key names its labels in sorted order, whatever order they come in', () => {
  assert.is(keyOf({}), '');
  assert.is(keyOf({ type: 'message' }), 'type=message');
  assert.is(keyOf({ type: 'message', agent: 'agent-a', source: 'hooks' }), 'agent=agent-a,source=hooks,type=message');
  assert.is(keyOf({ source: 'hooks', type: 'message', agent: 'agent-a' }), 'agent=agent-a,source=hooks,type=message');
  assert.is(keyOf({ b: 2, a: 1, d: 4, c: 3, e: 5 }), 'a=1,b=2,c=3,d=4,e=5');
  // a shorter set after a longer one keeps nothing of it
  assert.is(keyOf({ z: 1 }), 'z=1');
});

test('counters add up per label set, one series per set', async () => {
  const m = createMetrics('t_');
  const c = m.counter('events_total', 'events');
  c.inc({ agent: 'a', type: 'x' }, 3);
  c.inc({ type: 'x', agent: 'a' });
  c.inc({ agent: 'a', type: 'y' }, 2);
  assert.is(m.value('events_total', { agent: 'a', type: 'x' }), 4);
  assert.is(m.value('events_total', { type: 'y', agent: 'a' }), 2);
  const text = await m.render();
  assert.is(text.split('\n').filter((l) => l.startsWith('t_events_total{')).length, 2);
});

test.run();
