import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { joined, partsAfter, partsLength } from '../../../core/bytes.js';

const parts = [Buffer.from('abc'), new Uint8Array(0), Buffer.from('de'), Buffer.from('fghi')];

test('parts measure and join to their bytes in order; one view joins without a copy', () => {
  assert.is(partsLength(parts), 9);
  assert.is(joined(parts).toString(), 'abcdefghi');
  const one = Buffer.from('xyz');
  assert.is(joined(one).buffer, one.buffer, 'a single view is not copied');
  assert.is(joined([one]).buffer, one.buffer, 'a single part is not copied');
  assert.is(partsLength(one), 3);
  assert.is(joined([]).length, 0);
});

test('what is left after a short write: every cut gives the rest of the bytes, as views', () => {
  const whole = joined(parts).toString();
  for (let skip = 0; skip <= 9; skip++) {
    const rest = partsAfter(parts, skip);
    assert.is(joined(rest).toString(), whole.slice(skip), `after ${skip} bytes`);
    for (const r of rest) assert.ok(parts.some((p) => p.buffer === r.buffer), 'a view of a part, not a copy');
  }
  assert.equal(partsAfter(parts, 9), []);
});

test.run();
