import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { joined, partsAfter, partsLength } from '../../../core/bytes.js';
import { writeWhole } from '../../../core/spool.js';
import { tempDir } from '../../helpers/tmp.js';

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

test('a spool file written from parts holds their bytes in order, more parts than one system call takes (1,024)', async () => {
  const dir = tempDir();
  // 5,000 parts of 0 to 9 bytes, views into one buffer and into buffers of their own
  const backing = Buffer.alloc(50_000, 0x61);
  const many: Uint8Array[] = [];
  for (let i = 0; i < 5_000; i++) {
    const n = i % 10;
    many.push(i % 3 ? Buffer.from(String(i).padEnd(n, '.').slice(0, n)) : backing.subarray(i * 10, i * 10 + n));
  }
  await writeWhole(join(dir, 'parts'), many);
  assert.ok(readFileSync(join(dir, 'parts')).equals(joined(many)));
  await writeWhole(join(dir, 'one'), Buffer.from('one buffer'));
  assert.is(readFileSync(join(dir, 'one'), 'utf8'), 'one buffer');
});

test.run();
