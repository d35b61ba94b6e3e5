import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compactRows } from '../../../core/clickhouse.js';
import { namedLines } from '../../../core/row-text.js';

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

test('half of a surrogate pair becomes U+FFFD in both formats; whole pairs and an escaped backslash before "ud" stay as they are', () => {
  const smile = '\u{1F600}';
  const rows = [{ a: `x${smile.slice(0, 1)}`, b: [smile.slice(1), smile] }, { a: 'a literal \\ud83d', b: [] }];
  const parse = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown);
  assert.equal(parse(compactRows(rows)!.body.toString()), [['x\uFFFD', ['\uFFFD', smile]], ['a literal \\ud83d', []]]);
  assert.equal(parse(namedLines([{ a: smile.slice(1) }, { b: [`${smile.slice(0, 1)}y`] }]).text), [{ a: '\uFFFD' }, { b: ['\uFFFDy'] }]);
  // the lines hold no escape of half a pair any more (what the engine refuses)
  assert.not.match(compactRows(rows)!.body.toString(), /(?<!\\)(?:\\\\)*\\ud[89a-f]/);
});

test.run();
