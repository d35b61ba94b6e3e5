import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeNativeBlock, encodeNativeChunk, nativeBlock, nativeBlockParts, nativeColumns } from '../../../stream/native.js';
import { joined } from '../../../core/bytes.js';
import { timeUnits } from '../../../core/utc-time.js';
import { mulberry32 } from '../../../core/random.js';
import { COLUMNS } from '../../../stream/rows.js';
import { encodeTables, jsonLines } from '../../../stream/row-bytes.js';

const events = nativeColumns('events', COLUMNS.events);
const row = (over: Record<string, unknown> = {}) => ({
  tenant_id: 't', event_time: '2025-06-01T10:00:00.123Z', event_id: 'e1', receive_time: '2025-06-01T10:00:01Z', agent: 'claude-code', source: 'logs',
  type: 'tool_call', name: 'x', conversation_id: 'c', sequence: 3, attributes: { a: '1', 'ключ': 'значение' }, resource: {}, facets: '{}',
  input_tokens: 2 ** 40, cost_usd: 0.25, success: -1, duration_ms: 12.5, message_id: 'm'.repeat(300), ...over,
});

test('times: canonical UTC text to units of the column scale; anything else is not taken', () => {
  assert.is(timeUnits('1970-01-01T00:00:00Z', 3), 0);
  assert.is(timeUnits('2025-06-01T10:00:00.123Z', 3), Date.UTC(2025, 5, 1, 10, 0, 0, 123));
  assert.is(timeUnits('2025-06-01T10:00:00.5Z', 3), Date.UTC(2025, 5, 1, 10, 0, 0, 500));
  assert.is(timeUnits('2025-06-01T10:00:00.123456Z', 6), Date.UTC(2025, 5, 1, 10) * 1000 + 123456);
  assert.is(timeUnits('2024-02-29T00:00:00Z', 3), Date.UTC(2024, 1, 29));
  for (const bad of [
    '2025-02-29T00:00:00Z', // not a leap year
    '2025-02-30T10:00:00.000Z', // JavaScript rolls it over to 2 March
    '2100-02-29T00:00:00Z',
    '2025-13-01T00:00:00Z',
    '2025-06-01T24:00:00Z',
    '2025-06-01T10:60:00Z',
    '2025-06-01T10:00:00.1234Z', // more digits than the scale
    '2025-06-01T10:00:00.Z',
    '2025-06-01 10:00:00Z',
    '2025-06-01T10:00:00+02:00',
    '2025-06-01T10:00:00',
    '1969-12-31T23:59:59Z',
    '2262-01-01T00:00:00Z',
    '2025-0a-01T00:00:00Z',
  ]) {
    assert.is(timeUnits(bad, 3), undefined, bad);
  }
});

/** The rule of `timeUnits` read off the text with a pattern and checked against the calendar (no remembered day). */
function timeUnitsByPattern(s: string, scale: number): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?Z$/.exec(s);
  if (!m || (m[7] !== undefined && m[7].length > scale)) return undefined;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (y < 1970 || y > 2261 || h > 23 || mi > 59 || sec > 59) return undefined;
  const ms = Date.UTC(y, mo - 1, d, h, mi, sec);
  // a day the calendar does not have rolls over: its date reads back different
  if (new Date(ms).getUTCDate() !== d || new Date(ms).getUTCMonth() !== mo - 1) return undefined;
  const frac = m[7] === undefined ? 0 : Number(m[7]) * 10 ** (scale - m[7].length);
  const units = (ms / 1000) * 10 ** scale + frac;
  // units past 2^53 are not exact in a double: such a time is left to the engine's own parser
  return units <= Number.MAX_SAFE_INTEGER ? units : undefined;
}

test('times: 20,000 seeded texts, valid and not, days repeating and changing, read as the pattern and the calendar say', () => {
  const random = mulberry32(1130);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const two = (n: number) => String(n).padStart(2, '0');
  let last = '2025-06-01T10:00:00.123Z';
  let valid = 0;
  for (let i = 0; i < 20_000; i++) {
    let s: string;
    if (random() < 0.5) {
      // the same day as the text before, another time (sometimes out of range)
      s = `${last.slice(0, 11)}${two(Math.floor(random() * 26))}:${two(Math.floor(random() * 62))}:${two(Math.floor(random() * 62))}${pick(['', '.5', '.123', '.1234', '.'])}${pick(['Z', 'Z', 'Z', '+01:00'])}`;
    } else {
      const y = pick([1969, 1970, 2000, 2024, 2025, 2100, 2261, 2262]);
      s = `${y}-${two(1 + Math.floor(random() * 13))}-${two(1 + Math.floor(random() * 31))}T${two(Math.floor(random() * 24))}:${two(Math.floor(random() * 60))}:${two(Math.floor(random() * 60))}${pick(['', '.007', '.123456'])}Z`;
    }
    const scale = pick([3, 6]);
    const expected = timeUnitsByPattern(s, scale);
    assert.is(timeUnits(s, scale), expected, s);
    if (expected !== undefined) valid++;
    last = s;
  }
  assert.ok(valid > 5_000 && valid < 15_000, `both kinds were drawn (${valid} valid)`);
});

test('a block of many chunks is written from the chunks themselves: parts are views, only map offsets are new bytes', () => {
  const chunks = Array.from({ length: 5 }, (_, i) => {
    const rows = [row({ event_id: `e${i}a`, attributes: { n: String(i) } }), row({ event_id: `e${i}b`, attributes: {} })];
    return { rows: rows.length, ...encodeNativeChunk(events, rows)! };
  });
  const parts = nativeBlockParts(events, chunks);
  const fromChunks = parts.filter((p) => chunks.some((c) => c.data.buffer === p.buffer));
  const copied = parts.length - fromChunks.length;
  // the header and every column's name and type share one buffer, each map's offsets another
  assert.ok(copied <= events.length + 2 + 1, `${copied} parts not from the chunks`);
  assert.ok(fromChunks.length >= events.length * chunks.length - 2 * chunks.length, `${fromChunks.length} views of the chunks`);
  const rows = decodeNativeBlock(joined(parts));
  assert.equal(rows.map((r) => r.event_id), chunks.flatMap((_, i) => [`e${i}a`, `e${i}b`]));
  assert.equal(rows.map((r) => r.attributes), chunks.flatMap((_, i) => [{ n: String(i) }, {}]), 'map sizes become offsets over the whole block');
});

test('a chunk reads back as the values it was made of, and chunks concatenate into one block', () => {
  const a = [row(), row({ event_id: 'e2', attributes: {}, success: 1, name: 'ünïcode 😀', conversation_id: '' })];
  const b = [row({ event_id: 'e3', sequence: 0, cost_usd: -0, attributes: { k: 'v'.repeat(200) } })];
  const ca = encodeNativeChunk(events, a)!;
  const cb = encodeNativeChunk(events, b)!;
  assert.ok(ca && cb);
  assert.is(ca.lens.length, events.length + 4, 'one stream per column, three per map');
  const rows = decodeNativeBlock(nativeBlock(events, [{ rows: 2, ...ca }, { rows: 1, ...cb }]));
  assert.is(rows.length, 3);
  assert.equal(rows.map((r) => r.event_id), ['e1', 'e2', 'e3']);
  assert.is(rows[0]!.event_time, '2025-06-01T10:00:00.123Z');
  assert.is(rows[0]!.receive_time, '2025-06-01T10:00:01.000Z');
  assert.equal(rows[0]!.attributes, { a: '1', 'ключ': 'значение' });
  assert.equal(rows[1]!.attributes, {});
  assert.equal(rows[2]!.attributes, { k: 'v'.repeat(200) });
  assert.is(rows[1]!.name, 'ünïcode 😀');
  assert.is(rows[0]!.message_id, 'm'.repeat(300));
  assert.is(rows[0]!.input_tokens, 2 ** 40);
  assert.is(rows[0]!.success, -1);
  assert.is(rows[1]!.success, 1);
  assert.is(Object.is(rows[2]!.cost_usd, -0), false, '-0 is stored as 0, as its JSON text is');
  assert.is(rows[2]!.trace_id, '', 'an absent value is the type zero');
});

test('a value with no exact Native form refuses the chunk (its rows go as JSON lines)', () => {
  for (const [what, over] of [
    ['a number in a string column', { event_id: 5 }],
    ['an object in a string column', { facets: { a: 1 } }],
    ['a fraction in an integer column', { sequence: 1.5 }],
    ['a negative UInt64', { input_tokens: -1 }],
    ['an unsafe integer', { input_tokens: 2 ** 60 }],
    ['an Int8 out of range', { success: 200 }],
    ['NaN', { cost_usd: NaN }],
    ['a time JavaScript would roll over', { event_time: '2025-02-30T10:00:00.000Z' }],
    ['a time as a number', { event_time: 1_700_000_000_000 }],
    ['an array as a map', { attributes: ['a'] }],
  ] as const) {
    assert.is(encodeNativeChunk(events, [row(), row(over as Record<string, unknown>)]), undefined, what);
  }
  const { tables } = encodeTables({ events: [row(), row({ event_time: '2025-07-01T00:00:00Z' }), row({ event_id: 'bad', sequence: 0.5, event_time: '2025-08-01T00:00:00Z' })] });
  assert.is(tables.events!.length, 3, 'one chunk per month');
  assert.ok(tables.events!.every((c) => !c.lens), 'one refused value: every month of the message as JSON lines');
  assert.ok(encodeTables({ events: [row()] }).tables.events!.every((c) => c.lens), 'otherwise Native');
});

test('map values that are not strings, and lone surrogates, store the same in a Native chunk and in JSON lines', () => {
  const attributes = { n: 1.5, b: true, o: { x: [1, 'y'] }, z: null, s: 'x' };
  const lone = `cut \ud83d here`;
  const r = row({ attributes, name: lone, message_id: lone.repeat(20) });
  const fromJson = JSON.parse(new TextDecoder().decode(jsonLines('events', [{ ...r }])).trim()) as unknown[];
  const json = Object.fromEntries(COLUMNS.events.map((c, i) => [c, fromJson[i]]));
  const native = decodeNativeBlock(nativeBlock(events, [{ rows: 1, ...encodeNativeChunk(events, [r])! }]))[0]!;
  const asText = { n: '1.5', b: 'true', o: '{"x":[1,"y"]}', z: '', s: 'x' };
  assert.equal(json.attributes, asText, 'JSON lines: the value\'s JSON text');
  assert.equal(native.attributes, asText, 'Native: the same text');
  assert.equal(r.attributes, attributes, 'the row\'s own object is left as it was');
  // JSON lines go through the repair (the engine would refuse the lone half); Native's UTF-8 writer replaces it
  const { tables } = encodeTables({ events: [row({ name: lone, sequence: 0.5 })] });
  const repaired = JSON.parse(new TextDecoder().decode(tables.events![0]!.data).trim())[COLUMNS.events.indexOf('name')];
  assert.is(repaired, 'cut \ufffd here');
  assert.is(native.name, repaired, 'short text');
  assert.is(native.message_id, repaired.repeat(20), 'long text');
});

test('an attribute named __proto__ is a key like any other, in a Native chunk and in JSON lines', () => {
  const attributes = JSON.parse('{"__proto__":"x","a":"1"}') as Record<string, unknown>;
  const r = row({ attributes });
  const fromJson = JSON.parse(new TextDecoder().decode(jsonLines('events', [r])).trim()) as unknown[];
  const json = fromJson[COLUMNS.events.indexOf('attributes')] as Record<string, unknown>;
  const native = decodeNativeBlock(nativeBlock(events, [{ rows: 1, ...encodeNativeChunk(events, [r])! }]))[0]!.attributes as Record<string, unknown>;
  for (const [how, m] of [['JSON lines', json], ['Native', native]] as const) {
    assert.equal(Object.keys(m).sort(), ['__proto__', 'a'], how);
    assert.is(Object.getOwnPropertyDescriptor(m, '__proto__')?.value, 'x', how);
  }
});

test.run();
