import { test } from 'uvu';
import * as assert from 'uvu/assert';
import protobuf from 'protobufjs';
import { jsonDeeperThan, MAX_PROTO_DEPTH, protoDeeperThan } from '../../../ingest/limits.js';
import { repairSerialized } from '../../../core/row-text.js';
import { canonicalTimestamp, parseTimestamp, fromNanos, toCount, toNumber } from '../../../ingest/normalize/coerce.js';
import { mulberry32 } from '../../../core/random.js';
import { errorCodes } from '../../../core/errors.js';
import { EventTooLargeError, NestingTooDeepError } from '../../../ingest/errors.js';
import { encodeProtoRequest } from '../../../ingest/otlp/decode-proto.js';

/** Reference depth by recursion over the parsed value (fine for the small inputs of this test). */
function depthOf(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  const children = Array.isArray(v) ? v : Object.values(v);
  return 1 + children.reduce((m: number, c) => Math.max(m, depthOf(c)), 0);
}

test('jsonDeeperThan agrees with a recursive count; brackets and escapes inside strings do not count', () => {
  const samples = [
    '{"a":[1,{"b":[[]]}]}',
    '{"s":"[[[[{{{{","t":"\\"[[[[","u":"\\\\","v":[[["x\\\\\\"]]]"]]]}',
    '[[[[[[[[[[]]]]]]]]]]',
    '{"a":"}}}}]]]]"' + ',"b":[{"c":[{"d":"x"}]}]}',
    '"just a string with [[[[ in it"',
    '[' + '"\\\\",'.repeat(50) + '[[["deep"]]]]',
  ];
  for (const text of samples) {
    const d = depthOf(JSON.parse(text));
    for (let limit = 0; limit <= 12; limit++) assert.is(jsonDeeperThan(text, limit), d > limit, `${text} limit ${limit} (depth ${d})`);
  }
  const deep = '['.repeat(200_000) + ']'.repeat(200_000);
  assert.ok(jsonDeeperThan(deep, 128), 'no recursion on a 200k-deep body');
});

test('protoDeeperThan measures message nesting the way protobufjs refuses it', () => {
  const root = protobuf.Root.fromJSON({
    nested: { N: { fields: { child: { type: 'N', id: 1 }, s: { type: 'string', id: 2 }, n: { type: 'int64', id: 3 } } } },
  });
  const N = root.lookupType('N');
  const build = (depth: number): Record<string, unknown> => (depth <= 1 ? { s: '{{[[', n: 5 } : { child: build(depth - 1), s: 'x' });
  for (const depth of [1, 2, 50, MAX_PROTO_DEPTH - 1, MAX_PROTO_DEPTH]) {
    const buf = N.encode(N.fromObject(build(depth))).finish();
    assert.is(protoDeeperThan(N, buf, MAX_PROTO_DEPTH), false, `depth ${depth}`);
    N.decode(buf);
  }
  // deeper than protobufjs decodes: built by hand, since its encoder refuses it too
  let inner = Buffer.from([0x12, 0x01, 0x78]);
  for (let i = 1; i < MAX_PROTO_DEPTH + 5; i++) inner = Buffer.concat([Buffer.from([0x0a]), varint(inner.length), inner]);
  assert.throws(() => N.decode(inner));
  assert.ok(protoDeeperThan(N, inner, MAX_PROTO_DEPTH));
  assert.is(protoDeeperThan(N, Buffer.from([0x0a, 0xff, 0xff]), MAX_PROTO_DEPTH), false, 'garbage is not called deep');
  // a real OTLP request of ordinary depth
  const logs = encodeProtoRequest('logs', { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { kvlistValue: { values: [{ key: 'a', value: { arrayValue: { values: [{ stringValue: 'x' }] } } }] } } }] }] }] });
  assert.is(protoDeeperThan(root.lookupType('N'), logs, 3), false);
});

function varint(n: number): Buffer {
  const out: number[] = [];
  for (; n > 0x7f; n = Math.floor(n / 128)) out.push((n & 0x7f) | 0x80);
  out.push(n);
  return Buffer.from(out);
}

test('repairSerialized turns every lone surrogate into U+FFFD and leaves pairs, escaped backslashes and other escapes alone', () => {
  const cases: Array<[string, string]> = [
    ['lone \ud800 high', 'lone \ufffd high'],
    ['low \udc00', 'low \ufffd'],
    ['pair \ud83d\ude00 ok', 'pair \ud83d\ude00 ok'],
    ['reversed \ude00\ud83d', 'reversed \ufffd\ufffd'],
    ['text \\ud800 not an escape', 'text \\ud800 not an escape'],
    ['\\\ud800 after a backslash', '\\\ufffd after a backslash'],
    ['e\u00e9\u0000', 'e\u00e9\u0000'],
  ];
  for (const [input, want] of cases) {
    const json = JSON.stringify({ k: input, [input]: 1 });
    const repaired = repairSerialized(json);
    assert.equal(JSON.parse(repaired), { k: want, [want]: 1 }, input);
    assert.ok(!/\\ud[89a-f]/i.test(repaired.replace(/\\\\/g, '')), 'no surrogate escape left');
  }
});

test('timestamps outside what the store holds (1900-01-01 .. 2299-12-31) do not parse; counts are non-negative safe integers', () => {
  assert.is(parseTimestamp('1900-01-01T00:00:00Z')?.toISOString(), '1900-01-01T00:00:00.000Z');
  assert.is(parseTimestamp('2299-12-31T23:59:59.999Z')?.toISOString(), '2299-12-31T23:59:59.999Z');
  for (const v of ['1899-12-31T23:59:59Z', '2300-01-01T00:00:00Z', '9999-12-31', '0001-01-01', 1e15, '99999999999999999']) assert.is(parseTimestamp(v), undefined, String(v));
  assert.is(parseTimestamp(1767225600)?.toISOString(), '2026-01-01T00:00:00.000Z');
  assert.is(fromNanos('18446744073709551615'), undefined);
  assert.is(fromNanos('1767225600000000000')?.toISOString(), '2026-01-01T00:00:00.000Z');
  assert.equal([toCount(12), toCount('12'), toCount(12.0), toCount(-1), toCount(1.5), toCount(2 ** 53), toCount('1e999'), toCount('abc')], [12, 12, 12, undefined, undefined, undefined, undefined, undefined]);
  assert.is(toNumber('1e999'), undefined, 'an overflowing text is no number');
});

test('a time kept as sent is exactly the text the parsed time is stored as; anything else takes the parser', () => {
  const random = mulberry32(20261130);
  const pick = (n: number) => Math.floor(random() * n);
  const pad = (v: number, n: number) => String(v).padStart(n, '0');
  let kept = 0;
  for (let i = 0; i < 20_000; i++) {
    // canonical-looking texts with every field sometimes out of range, and other shapes of a time
    const y = [1899, 1900, 1969, 1970, 2000, 2024, 2026, 2100, 2261, 2262, 2299, 2300][pick(12)]!;
    const text = `${pad(y, 4)}-${pad(pick(14), 2)}-${pad(pick(33), 2)}T${pad(pick(25), 2)}:${pad(pick(61), 2)}:${pad(pick(62), 2)}.${pad(pick(1000), 3)}Z`;
    const variants = [text, text.replace('T', ' '), text.toLowerCase(), text.slice(0, 19) + 'Z', text.slice(0, 22) + 'Z', `${text.slice(0, 23)}000Z`, ` ${text}`, text.replace('Z', '+00:00')];
    for (const v of variants) {
      const stored = parseTimestamp(v)?.toISOString();
      const c = canonicalTimestamp(v);
      if (c !== undefined) {
        kept++;
        assert.is(c, stored, v);
      }
    }
  }
  assert.ok(kept > 5_000, `the walk met valid canonical times (${kept})`);
  assert.is(canonicalTimestamp('2026-02-29T10:00:00.000Z'), undefined, 'not a day of 2026');
  assert.is(canonicalTimestamp('2024-02-29T10:00:00.000Z'), '2024-02-29T10:00:00.000Z');
  assert.is(canonicalTimestamp('2026-01-05T23:59:60.000Z'), undefined);
  assert.is(canonicalTimestamp(1767225600000), undefined, 'numbers take the parser');
});

test('error codes: each declared once, with its status; classes carry them', () => {
  const codes = errorCodes();
  assert.is(new Set(codes.map((c) => c.code)).size, codes.length);
  const deep = new NestingTooDeepError(128, 'JSON objects and arrays');
  assert.equal([deep.code, deep.status, deep.expose, deep.name], ['nesting_too_deep', 400, true, 'NestingTooDeepError']);
  assert.ok(deep instanceof Error);
  const big = new EventTooLargeError(2, 5_000_000, 942_694);
  assert.equal([big.code, big.status], ['event_too_large', 413]);
  assert.ok(codes.some((c) => c.code === 'event_too_large' && c.status === 413 && c.description.length > 0));
});

test.run();
