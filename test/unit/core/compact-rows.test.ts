import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compactRows } from '../../../core/clickhouse.js';

const lines = (r: ReturnType<typeof compactRows>) => r!.body.toString().split('\n');

test('rows with one key set become JSONCompactEachRow lines in the first row’s key order', () => {
  const r = compactRows([
    { a: 1, b: 'x', c: [1, 2] },
    { c: [], b: 'y\n"z"', a: 2 },
  ]);
  assert.equal(r!.columns, ['a', 'b', 'c']);
  assert.equal(lines(r), ['[1,"x",[1,2]]', '[2,"y\\n\\"z\\"",[]]', '']);
  assert.equal(lines(r).slice(0, 2).map((l) => JSON.parse(l)), [[1, 'x', [1, 2]], [2, 'y\n"z"', []]]);
});

test('a null value is sent as null (a value), a Date as the ISO text the client would send', () => {
  const r = compactRows([{ a: null, d: new Date('2026-11-24T01:02:03.456Z') }]);
  assert.equal(lines(r)[0], '[null,"2026-11-24T01:02:03.456Z"]');
});

test('rows that omit a key, add one, or hold undefined are left to the named format (the column default)', () => {
  assert.is(compactRows([{ a: 1, b: 2 }, { a: 1 }]), undefined);
  assert.is(compactRows([{ a: 1 }, { a: 1, b: 2 }]), undefined);
  assert.is(compactRows([{ a: 1 }, { b: 1 }]), undefined);
  assert.is(compactRows([{ a: 1, b: undefined }]), undefined);
  assert.is(compactRows([{}]), undefined);
});

test.run();
