import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createCursorCodec, limitPage, offsetPage } from '../../../query/pagination.js';
import { BadRequestError } from '../../../core/errors.js';

const codec = createCursorCodec('unit-secret');
const throws400 = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    assert.instance(err, BadRequestError);
    assert.is((err as BadRequestError).status, 400);
    return;
  }
  assert.unreachable('expected a 400');
};

test('cursor round-trips its position within its scope', () => {
  const pos = { ts: '2024-05-01T10:00:00.000Z', id: 'a-1', n: 3 };
  const c = codec.encode('problems/evidence:p1:t1', pos);
  assert.match(c, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  assert.equal(codec.decode('problems/evidence:p1:t1', c), pos);
});

test('cursor is opaque: the payload is not readable JSON text', () => {
  const c = codec.encode('s', { id: 'visible' });
  assert.not.ok(c.includes('visible'));
});

test('tampering with payload or signature gives 400', () => {
  const c = codec.encode('s', { id: 'x', n: 1 });
  const [payload, sig] = c.split('.') as [string, string];
  const forged = Buffer.from(JSON.stringify({ v: 1, s: 's', p: { id: 'x', n: 999 } })).toString('base64url');
  throws400(() => codec.decode('s', `${forged}.${sig}`));
  const flip = (t: string, i: number) => t.slice(0, i) + (t[i] === 'A' ? 'B' : 'A') + t.slice(i + 1);
  throws400(() => codec.decode('s', `${payload}.${flip(sig, 0)}`));
  throws400(() => codec.decode('s', `${payload}.${flip(sig, sig.length - 1)}`));
  throws400(() => codec.decode('s', `${flip(payload, 3)}.${sig}`));
});

test('malformed cursors give 400', () => {
  for (const bad of ['', '.', 'abc', 'a.b.c', 'x'.repeat(5000), '!!!.???', `${Buffer.from('not json').toString('base64url')}.x`]) {
    throws400(() => codec.decode('s', bad));
  }
});

test('a cursor from another scope or signed with another secret gives 400', () => {
  const c = codec.encode('problems/reports:p1:t1', { n: 1 });
  throws400(() => codec.decode('problems/reports:p2:t1', c));
  throws400(() => codec.decode('problems/reports:p1:t2', c));
  throws400(() => createCursorCodec('other-secret').decode('problems/reports:p1:t1', c));
});

test('an empty secret is refused', () => {
  assert.throws(() => createCursorCodec(''));
});

test('offset pagination: has_more while offset + limit < total', () => {
  assert.equal(offsetPage(20, 0, 45), { limit: 20, offset: 0, total: 45, has_more: true });
  assert.equal(offsetPage(20, 40, 45), { limit: 20, offset: 40, total: 45, has_more: false });
  assert.equal(offsetPage(20, 25, 45), { limit: 20, offset: 25, total: 45, has_more: false });
  assert.equal(offsetPage(20, 10000, 3), { limit: 20, offset: 10000, total: 3, has_more: false });
});

test('limit-only pagination: the extra row tells has_more and is not returned', () => {
  assert.equal(limitPage([1, 2, 3], 2), { rows: [1, 2], pagination: { limit: 2, returned: 2, has_more: true } });
  assert.equal(limitPage([1, 2], 2), { rows: [1, 2], pagination: { limit: 2, returned: 2, has_more: false } });
  assert.equal(limitPage([], 5), { rows: [], pagination: { limit: 5, returned: 0, has_more: false } });
});

test.run();
