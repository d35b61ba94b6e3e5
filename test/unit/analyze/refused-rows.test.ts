/** Rows the engine refuses, found by halves (stream/analyze/refused-rows.ts): a fake table that refuses chosen rows. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store } from '../../../core/clickhouse.js';
import { compactLines } from '../../../core/row-text.js';
import { insertFindingRefused, lineRows, objectRows, SPLIT_BUDGET, type SplittableRows } from '../../../stream/analyze/refused-rows.js';

/** `n` rows, row i of conversation `c<i % convs>`; an insert holding a refused row fails whole, like the engine's. */
function table(n: number, refusedRows: ReadonlySet<number>, opts: { convs?: number; anonymous?: ReadonlySet<number>; transientAt?: number } = {}) {
  const stored = new Map<number, number>();
  let statements = 0;
  const rows: SplittableRows = {
    insertAll: () => rows.insert(0, n),
    count: () => n,
    async insert(lo, hi) {
      statements++;
      if (statements === opts.transientAt) throw Object.assign(new Error('timeout'), { code: '159' });
      for (let i = lo; i < hi; i++) if (refusedRows.has(i)) throw new Error(`Cannot parse row ${i}`);
      for (let i = lo; i < hi; i++) stored.set(i, (stored.get(i) ?? 0) + 1);
    },
    conversationOf: (i) => (opts.anonymous?.has(i) ? undefined : `t\u0000c${i % (opts.convs ?? n)}`),
  };
  return { rows, stored, statements: () => statements };
}

test('one insert when nothing is refused', async () => {
  const t = table(500, new Set());
  assert.equal(await insertFindingRefused(t.rows), new Map());
  assert.is(t.statements(), 1);
  assert.is(t.stored.size, 500);
});

test('refused rows fail their conversations alone; every other row is stored, within about 2·log2(n) statements per refused row', async () => {
  for (const bad of [[0], [499], [137], [3, 411], [10, 11, 12]]) {
    const t = table(500, new Set(bad));
    const refused = await insertFindingRefused(t.rows);
    assert.equal([...refused.keys()].sort(), bad.map((i) => `t\u0000c${i}`).sort(), `refused ${bad}`);
    assert.match(refused.get(`t\u0000c${bad[0]}`)!, /Cannot parse row/);
    for (let i = 0; i < 500; i++) assert.is(t.stored.has(i), !bad.includes(i), `row ${i} of ${bad}`);
    assert.ok(t.statements() <= 1 + bad.length * 2 * Math.ceil(Math.log2(500)), `${t.statements()} statements for ${bad}`);
  }
});

test('a refused row that names no conversation, or more refusals than the budget finds, fail the table as a whole', async () => {
  await insertFindingRefused(table(64, new Set([5]), { anonymous: new Set([5]) }).rows).then(
    () => assert.unreachable('an anonymous refused row fails the table'),
    (err: Error) => assert.match(err.message, /Cannot parse row 5/),
  );
  const all = table(400, new Set(Array.from({ length: 400 }, (_, i) => i)));
  await insertFindingRefused(all.rows).then(() => assert.unreachable('every row refused'), (err: Error) => assert.match(err.message, /Cannot parse/));
  assert.ok(all.statements() <= SPLIT_BUDGET + 1, `${all.statements()} statements`);
});

test('a transient error is thrown at once (the caller retries the whole table)', async () => {
  const t = table(100, new Set([40]), { transientAt: 3 });
  await insertFindingRefused(t.rows).then(() => assert.unreachable(), (err: { code?: string }) => assert.is(err.code, '159'));
});

test('several refused rows of one conversation are one refusal', async () => {
  const t = table(300, new Set([7, 107, 207]), { convs: 100 });
  const refused = await insertFindingRefused(t.rows);
  assert.equal([...refused.keys()], ['t\u0000c7']);
});

/** A store that refuses any insert holding `bad` in its text, and records the rows of the others. */
function fakeStore(bad: string) {
  const stored: string[] = [];
  const check = (text: string) => {
    if (text.includes(bad)) throw new Error(`refused: ${bad}`);
  };
  const store = {
    async insertBytes(_t: string, _c: readonly string[], body: Buffer) {
      check(body.toString());
      stored.push(...body.toString().split('\n').filter(Boolean));
    },
    async insert(_t: string, rows: readonly object[]) {
      check(JSON.stringify(rows));
      stored.push(...rows.map((r) => JSON.stringify(r)));
    },
  } as unknown as Store;
  return { store, stored };
}

test('the analysis thread\'s lines and row objects split at row boundaries; the refused row names its conversation', async () => {
  const rows = Array.from({ length: 37 }, (_, i) => ({ tenant_id: 't', conversation_id: `conv-${i % 9}`, item_key: `k${i}`, text: i === 22 ? 'POISON "quoted"\nline' : `text ${i}` }));
  const lines = compactLines(rows)!;
  const asLines = fakeStore('POISON');
  const refused = await insertFindingRefused(lineRows(asLines.store, 'x', lines.columns, Buffer.from(lines.text)));
  assert.equal([...refused.keys()], ['t\u0000conv-4']);
  assert.equal(asLines.stored.map((l) => (JSON.parse(l) as string[])[2]).sort(), rows.filter((_, i) => i !== 22).map((r) => r.item_key).sort());
  const asObjects = fakeStore('POISON');
  assert.equal([...(await insertFindingRefused(objectRows(asObjects.store, 'x', rows))).keys()], ['t\u0000conv-4']);
  assert.is(asObjects.stored.length, 36);
  // lines without a conversation column: the table fails as a whole
  const noConv = compactLines(rows.map(({ conversation_id: _c, ...r }) => r))!;
  await insertFindingRefused(lineRows(fakeStore('POISON').store, 'x', noConv.columns, Buffer.from(noConv.text))).then(() => assert.unreachable(), (err: Error) => assert.match(err.message, /refused: POISON/));
});

test.run();
