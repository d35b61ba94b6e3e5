/**
 * events.attributes stored by reference (schemas/attribute-refs.ts): whatever an event's attributes
 * are, the row the stream makes reads back as the map received, key order included. Random events
 * from a seeded generator go through the stream's own rows (decodeMessage: Native chunks, and JSON
 * lines where a value has no Native form), and each stored row is read back as a reader reads it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mulberry32 } from '../../../core/random.js';
import { decodeMessage } from '../../../stream/batch.js';
import { decodeTable } from '../../../stream/row-bytes.js';
import { stringMap } from '../../../stream/rows.js';
import { ATTRIBUTE_REFS, receivedAttributes, refsOf, storedValue } from '../../../schemas/attribute-refs.js';

function generator(seed: number) {
  const rand = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const id = (p: string) => `${p}-${Math.floor(rand() * 1e9).toString(36)}`;
  return (i: number) => {
    const times = ['2025-03-01T10:00:00.123Z', '2025-03-01T10:00:00Z', '2025-03-01T10:00:00.5Z', '2025-03-01T10:00:00.123456Z'];
    // some events have a time with no Native form: their rows go as JSON lines
    const event_time = rand() < 0.15 ? '2025-03-01T10:00:00.250+00:00' : pick(times);
    const e = {
      event_id: `e${i}`, tenant_id: 't', type: pick(['prompt', 'tool_result', 'api_request', 'hook']), receive_time: '2025-03-01T10:00:01.000Z', event_time,
      conversation_id: pick([id('sess'), '', 'ab']), user_id: pick([id('user'), '']), name: pick(['claude_code.tool_result', 'PostToolUse', 'x']),
      sequence: pick([0, 7, 4242, 123456]),
      tool: rand() < 0.5 ? { name: pick(['Bash', 'Read', 'mcp__git__diff']), call_id: id('toolu') } : undefined,
    } as Record<string, unknown>;
    const cols = [e.conversation_id, e.user_id, e.name, String(e.sequence), (e.tool as { call_id?: string } | undefined)?.call_id ?? '', '2025-03-01T10:00:00.123Z', '2025-03-01T10:00:00.000Z'] as string[];
    const value = (): unknown =>
      pick([
        () => pick(cols),
        () => `${pick(cols)} `,
        () => pick(cols).slice(1),
        () => `\u0000${pick(['c', 'e', '', '\u0000', 'x'])}`,
        () => `\u0000${pick(cols)}`,
        () => Number(pick(['4242', '7', '1.5'])),
        () => ({ id: pick(cols) }),
        () => [pick(cols)],
        () => null,
        () => true,
        () => '',
        () => 'é😀',
      ])();
    const attributes: Record<string, unknown> = {};
    const n = Math.floor(rand() * 12);
    for (let k = 0; k < n; k++) attributes[pick(['session.id', 'session_id', 'event.timestamp', 'tool_use_id', 'event.sequence', 'user.id', 'k'])+ (rand() < 0.5 ? '' : String(k))] = value();
    if (rand() < 0.05) Object.assign(attributes, JSON.parse('{"__proto__":"sess"}'));
    e.attributes = attributes;
    return e;
  };
}

test('random events: every stored row reads back as the attribute map received', () => {
  const seen = { native: 0, json: 0, refs: 0, escaped: 0 };
  for (const seed of [1, 2, 3, 4, 5]) {
    const next = generator(seed);
    // one event per message: an event without a Native form does not take its neighbours to JSON lines
    for (let i = 0; i < 400; i++) {
      const event = next(i);
      const r = decodeMessage(JSON.stringify({ v: 1, tenant_id: 't', events: [event] }));
      assert.is(r.kind, 'ok');
      const chunks = (r as Extract<typeof r, { kind: 'ok' }>).output.tables.events!;
      seen[chunks[0]!.lens ? 'native' : 'json']++;
      const [row] = decodeTable('events', chunks);
      const want = stringMap(event.attributes as Record<string, unknown>);
      assert.equal(Object.entries(receivedAttributes(row!)), Object.entries(want), `seed ${seed} e${i}: stored ${JSON.stringify(row!.attributes)}`);
      for (const v of Object.values(row!.attributes as Record<string, string>)) {
        if (v.length === 2 && v[0] === '\u0000' && v[1] !== '\u0000') seen.refs++;
        if (v.startsWith('\u0000\u0000')) seen.escaped++;
      }
    }
  }
  // the generator reaches both encodings, references and escapes
  assert.ok(seen.native > 0 && seen.json > 0 && seen.refs > 0 && seen.escaped > 0, JSON.stringify(seen));
});

test('what is referred to: texts of three characters or more, the first column holding them; nothing else', () => {
  const row = { conversation_id: 'abc', user_id: 'abc', name: 'ab', sequence: 12345, event_time: '2025-03-01T10:00:00.1Z', tool_call_id: '', attribute_refs: 1 };
  const refs = refsOf(row);
  assert.is(storedValue('abc', refs), '\u0000c', 'conversation_id before user_id');
  assert.is(storedValue('ab', refs), 'ab', 'a two-character text is shorter kept');
  assert.is(storedValue('12345', refs), '\u0000s');
  assert.is(storedValue('2025-03-01T10:00:00.100Z', refs), '\u0000e', 'the time as stored, to the millisecond');
  assert.is(storedValue('2025-03-01T10:00:00.1Z', refs), '2025-03-01T10:00:00.1Z', 'another text of the same time is kept as it is');
  assert.is(storedValue('', refs), '');
  assert.is(storedValue('\u0000c', refs), '\u0000\u0000c', 'a received value that looks like a reference is escaped');
  assert.equal(receivedAttributes({ ...row, attribute_refs: 0, attributes: { a: '\u0000c' } }), { a: '\u0000c' }, 'a row written before keeps its values');
});

test('every column of ATTRIBUTE_REFS is referred to, read back as its own text', () => {
  for (const [code, column] of Object.entries(ATTRIBUTE_REFS)) {
    const text = column === 'event_time' ? '2025-03-01T10:00:00.250Z' : column === 'sequence' ? '4242' : `value-of-${column}`;
    const row: Record<string, unknown> = { event_time: '2025-03-01T10:00:00.000Z', attribute_refs: 1 };
    row[column] = column === 'sequence' ? 4242 : text;
    assert.is(storedValue(text, refsOf(row)), `\u0000${code}`, column);
    assert.equal(receivedAttributes({ ...row, attributes: { k: `\u0000${code}` } }), { k: text }, column);
  }
  assert.is(storedValue('99', refsOf({ sequence: 99 })), '99', 'a sequence of two digits is kept as it is');
});

test.run();
