import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { blockRows, dedupToken, type InsertFn } from '../../../stream/sink.js';
import { BACKLOG_AGE_INTERVALS, fillsFromBacklog, QUIET_GAPS, quietAfterMs } from '../../../stream/sink-cuts.js';
import { entry, fakeSchedule, fakeStore, gatedInsert, settle, sinkOf, transientErr } from './sink-fakes.js';
import { decodeTable, encodeTables } from '../../../stream/row-bytes.js';
import { MAX_PARTITIONS_PER_INSERT } from '../../../stream/sink-units.js';
import { effectClass } from '../../../stream/effect-class.js';
import { decodeMessage, splitMessage } from '../../../stream/batch.js';
import { MAX_INPUT_CHARS, MAX_RESULT_CHARS } from '../../../stream/analyses/snapshot.js';
import { contentBlocksJson, parseContentBlocks } from '../../../schemas/content-blocks.js';

test('flushes by rows with one insert per table and a token from the sorted message ids; acks after insert', async () => {
  const store = fakeStore();
  const events: string[] = [];
  const sink = sinkOf(store.insert, { maxBatchRows: 10 });
  sink.add(entry('b', ['b1', 'b2', 'b3'], events));
  assert.is(store.calls.length, 0);
  sink.add(entry('a', ['a1', 'a2'], events));
  await sink.flush();
  // what the data API reads first is stored first (stream/rows.ts TABLES)
  assert.equal(store.calls, [
    { table: 'messages', n: 5, token: dedupToken('messages', ['a', 'b']) },
    { table: 'events', n: 5, token: dedupToken('events', ['a', 'b']) },
  ]);
  assert.equal(events, ['ack b', 'ack a']);
  assert.is(dedupToken('events', ['a', 'b']), dedupToken('events', ['b', 'a']));
  assert.is.not(dedupToken('events', ['a', 'b']), dedupToken('messages', ['a', 'b']));
});

test('a refused batch is bisected down to the event at fault: only it is refused, its neighbours and the other messages stored once', async () => {
  const store = fakeStore();
  const events: string[] = [];
  const sink = sinkOf(store.insert);
  sink.add(entry('m1', ['a', 'b'], events));
  sink.add(entry('m2', ['c', 'bad-d', 'e', 'f'], events));
  sink.add(entry('m3', ['g'], events));
  await sink.flush();
  assert.equal(events, ['ack m1', 'ack m2 refused bad-d', 'ack m3']);
  for (const table of ['events', 'messages']) {
    const ids = store.stored.filter((s) => s.table === table).map((s) => s.id).sort();
    assert.equal(ids, ['a', 'b', 'c', 'e', 'f', 'g'], `${table}: every good row exactly once`);
  }
});

test('a one-event message refused is dead-lettered as that event; a message that no longer splits is rejected whole', async () => {
  const store = fakeStore();
  const events: string[] = [];
  const sink = sinkOf(store.insert);
  sink.add(entry('one', ['bad-1'], events));
  sink.add(entry('ok', ['x'], events));
  sink.add(entry('opaque', ['bad-2', 'y'], events, { splittable: false }));
  await sink.flush();
  assert.equal(events.sort(), ['ack ok', 'ack one refused bad-1', 'dlq opaque']);
});

test('a table refused after an earlier table was stored: the refused event stays out of the later tables', async () => {
  const store = fakeStore(() => false, 'events');
  const events: string[] = [];
  const sink = sinkOf(store.insert);
  sink.add(entry('m', ['a', 'bad-b', 'c'], events));
  await sink.flush();
  assert.equal(events, ['ack m refused bad-b']);
  assert.equal(store.stored.filter((s) => s.table === 'events').map((s) => s.id).sort(), ['a', 'c']);
  // the messages table took the whole message before the refusal: stored once, not again per event
  assert.equal(store.stored.filter((s) => s.table === 'messages').map((s) => s.id).sort(), ['a', 'bad-b', 'c']);
});

test('a transient failure past the deadline naks all; the redelivery inserts only the tables not yet in (no physical duplicate)', async () => {
  let down = false;
  // the later of the two tables: the first is stored before the failure
  const failTable = { events: true };
  const stored: Array<{ table: string; id: string }> = [];
  const insert: InsertFn = async (table, block) => {
    const rows = blockRows(block);
    if (down && table in failTable) throw transientErr();
    for (const r of rows) stored.push({ table, id: String((r as { event_id: string }).event_id) });
  };
  const events: string[] = [];
  const sink = sinkOf(insert);
  down = true;
  sink.add(entry('x', ['x1'], events));
  sink.add(entry('y', ['y1'], events));
  await sink.flush();
  assert.equal(events, ['nak x', 'nak y']);
  down = false;
  // redelivered, in another batch composition
  sink.add(entry('z', ['z1'], events));
  sink.add(entry('y', ['y1'], events));
  sink.add(entry('x', ['x1'], events));
  await sink.close();
  assert.equal(events.slice(2), ['ack z', 'ack y', 'ack x']);
  const count = (table: string) => stored.filter((s) => s.table === table).map((s) => s.id).sort();
  assert.equal(count('events'), ['x1', 'y1', 'z1']);
  assert.equal(count('messages'), ['x1', 'y1', 'z1']);
});

test('the same message twice in one batch (a redelivery racing the first delivery) is inserted once and both deliveries complete', async () => {
  const store = fakeStore();
  const events: string[] = [];
  const sink = sinkOf(store.insert);
  sink.add(entry('m', ['a', 'b'], events));
  sink.add(entry('m', ['a', 'b'], events));
  await sink.flush();
  assert.equal(events, ['ack m', 'ack m']);
  assert.equal(store.stored.filter((s) => s.table === 'events').map((s) => s.id), ['a', 'b']);
});

test('rows spanning more months than one insert may touch are inserted in chunks with their own tokens', async () => {
  const calls: Array<{ n: number; token: unknown; months: number }> = [];
  const insert: InsertFn = async (_t, block, s) => {
    const rows = blockRows(block);
    calls.push({ n: rows.length, token: s?.insert_deduplication_token, months: new Set(rows.map((r) => String((r as { event_time: string }).event_time).slice(0, 7))).size });
  };
  const rows = Array.from({ length: 150 }, (_, i) => ({ event_id: `e${i}`, event_time: new Date(Date.UTC(2000, i, 1)).toISOString() }));
  const sink = sinkOf(insert);
  sink.add({ ...entry('long', [], []), rows: encodeTables({ events: rows }).tables, rowCount: 150 });
  await sink.flush();
  const token = dedupToken('events', ['long']);
  assert.equal(calls, [
    { n: 100, token: `${token}.0`, months: MAX_PARTITIONS_PER_INSERT },
    { n: 50, token: `${token}.1`, months: 50 },
  ]);
});

test('group commit: while an insert runs the buffer keeps filling, and is inserted as one batch when it ends', async () => {
  const { insert, calls, release } = gatedInsert();
  const events: string[] = [];
  const sink = sinkOf(insert, { flushIntervalMs: 5 });
  sink.add(entry('a', ['a1'], events));
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(calls, [['a1']], 'the first batch is being inserted');
  sink.add(entry('b', ['b1'], events));
  await new Promise((r) => setTimeout(r, 30));
  sink.add(entry('c', ['c1'], events));
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(calls.length, 1, 'no batch per timer tick queued behind the running insert');
  release();
  await new Promise((r) => setTimeout(r, 30));
  await sink.close();
  assert.equal(calls, [['a1'], ['b1', 'c1']]);
  assert.equal(events, ['ack a', 'ack b', 'ack c']);
});

test('cut by time: a lone entry while no insert runs is cut at the flush interval', async () => {
  const clock = fakeSchedule();
  const store = fakeStore();
  const events: string[] = [];
  const sink = sinkOf(store.insert, { flushIntervalMs: 250, schedule: clock.schedule });
  sink.add(entry('a', ['a1'], events));
  assert.equal(clock.live(), [250]);
  sink.add(entry('b', ['b1'], events));
  assert.equal(clock.live(), [250], 'one timer per buffer, from its first entry');
  assert.is(clock.fire(), 250);
  await sink.flush();
  assert.equal(events, ['ack a', 'ack b']);
});

test('cut by time: a buffer begun during an insert fills for up to twice the interval instead of being cut when that insert ends', async () => {
  const clock = fakeSchedule();
  const g = gatedInsert();
  const events: string[] = [];
  const sink = sinkOf(g.insert, { flushIntervalMs: 250, maxBatchRows: 6, schedule: clock.schedule });
  sink.add(entry('a', ['a1', 'a2', 'a3'], events)); // at the row limit (2 rows per event): cut now, its insert blocks
  await settle();
  assert.equal(g.calls, [['a1', 'a2', 'a3']]);
  sink.add(entry('b', ['b1'], events));
  assert.equal(clock.live(), [500]);
  g.release();
  await settle();
  await settle();
  assert.equal(events, ['ack a']);
  assert.equal(g.calls.length, 1, 'not cut when the running insert ended');
  sink.add(entry('c', ['c1'], events));
  assert.is(clock.fire(), 500);
  await sink.flush();
  assert.equal(g.calls, [['a1', 'a2', 'a3'], ['b1', 'c1']]);
  assert.equal(events, ['ack a', 'ack b', 'ack c']);
  // the next buffer begins with no insert running: the normal interval again
  sink.add(entry('d', ['d1'], events));
  assert.equal(clock.live(), [250]);
  await sink.close();
});

test('cut by time: a buffer whose time is up while an insert runs is cut when it ends; the row limit cuts at once', async () => {
  const clock = fakeSchedule();
  const g = gatedInsert();
  const events: string[] = [];
  const sink = sinkOf(g.insert, { flushIntervalMs: 250, maxBatchRows: 6, schedule: clock.schedule });
  sink.add(entry('a', ['a1', 'a2', 'a3'], events));
  await settle();
  sink.add(entry('b', ['b1'], events));
  clock.fire(); // b's time is up while a's insert still runs
  await settle();
  assert.equal(g.calls.length, 1);
  g.release();
  await settle();
  await settle();
  await settle();
  assert.equal(g.calls, [['a1', 'a2', 'a3'], ['b1']], 'cut as soon as the running insert ended');
  sink.add(entry('c', ['c1'], events));
  sink.add(entry('d', ['d1', 'd2'], events)); // reaches the row limit: no waiting for the timer
  await sink.flush();
  assert.equal(g.calls, [['a1', 'a2', 'a3'], ['b1'], ['c1', 'd1', 'd2']]);
  assert.equal(events, ['ack a', 'ack b', 'ack c', 'ack d']);
  await sink.close();
});

/** A sink with the quiet rule (50 ms, flush interval 250 ms) on a hand-driven clock and schedule. */
function quietSink(insert: InsertFn, over: Parameters<typeof sinkOf>[1] = {}) {
  const clock = fakeSchedule();
  let now = 0;
  const sink = sinkOf(insert, { flushIntervalMs: 250, quietMs: 50, now: () => now, schedule: clock.schedule, ...over });
  return { clock, sink, advance: (ms: number) => void (now += ms) };
}

test('cut when the input stops: once no entry came for QUIET_GAPS usual gaps (≥ quietMs), well before the buffer\'s age', async () => {
  const store = fakeStore();
  const events: string[] = [];
  const { clock, sink, advance } = quietSink(store.insert);
  sink.add(entry('a', ['a1'], events));
  assert.equal(clock.live(), [250], 'the pace is unknown after one entry: only the age cuts');
  for (const id of ['b', 'c', 'd']) {
    advance(10);
    sink.add(entry(id, [`${id}1`], events));
  }
  assert.equal(clock.live(), [250, 50], 'entries 10 ms apart: quiet after max(50, 4 × 10) ms');
  clock.fireAfter(50);
  await sink.flush();
  assert.equal(events, ['ack a', 'ack b', 'ack c', 'ack d']);
  assert.equal(store.calls.filter((c) => c.table === 'events').map((c) => c.n), [4], 'one insert of the whole burst');
  assert.equal(clock.live(), [], 'the cut cancelled both timers');
  await sink.close();
});

test('a light load\'s gaps are not the end of it: entries 200 ms apart are cut by age, as without the quiet rule', async () => {
  const store = fakeStore();
  const events: string[] = [];
  const { clock, sink, advance } = quietSink(store.insert);
  sink.add(entry('a', ['a1'], events));
  advance(200);
  sink.add(entry('b', ['b1'], events));
  assert.equal(clock.live(), [250], 'quiet would be 4 × 200 ms, longer than any age cut: not scheduled');
  clock.fireAfter(250);
  await sink.flush();
  assert.equal(events, ['ack a', 'ack b']);
});

test('quiet while an insert runs: the buffer is cut as soon as that insert ends, not at twice the interval', async () => {
  const g = gatedInsert();
  const events: string[] = [];
  const { clock, sink, advance } = quietSink(g.insert, { maxBatchRows: 6 });
  sink.add(entry('a', ['a1', 'a2', 'a3'], events)); // the row limit: cut now, its insert blocks
  await settle();
  advance(5);
  sink.add(entry('b', ['b1'], events));
  assert.equal(clock.live(), [500, 50]);
  clock.fireAfter(50);
  g.release();
  await settle();
  await settle();
  await settle();
  assert.equal(g.calls, [['a1', 'a2', 'a3'], ['b1']], 'cut when the running insert ended');
  assert.equal(events, ['ack a', 'ack b']);
  await sink.close();
});

/** An entry delivered with `backlog` messages still waiting behind it on the stream. */
const behind = (backlog: number, ...args: Parameters<typeof entry>) => ({ ...entry(...args), backlog });

test('a backlog that fills the buffer by itself: cut by size, not by the interval or by quiet; the backlog age bounds it', async () => {
  const store = fakeStore();
  const events: string[] = [];
  // 2 rows per event id: 10 messages of one event fill the 20-row buffer
  const { clock, sink, advance } = quietSink(store.insert, { maxBatchRows: 20 });
  sink.add(behind(500, 'a', ['a1'], events));
  assert.equal(clock.live(), [BACKLOG_AGE_INTERVALS * 250], '500 messages behind fill it: only the backlog age (2 s) is left as a time limit');
  for (const id of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']) {
    advance(1);
    sink.add(behind(499, id, [`${id}1`], events));
  }
  assert.equal(clock.live(), [BACKLOG_AGE_INTERVALS * 250], 'no quiet timer, however regular the entries');
  assert.equal(store.calls, [], 'not cut at the interval');
  advance(1);
  sink.add(behind(490, 'j', ['j1'], events));
  await sink.flush();
  assert.equal(store.calls.filter((c) => c.table === 'events').map((c) => c.n), [10], 'one insert of the full buffer, cut by its size');
  assert.equal(clock.live(), [], 'the cut cancelled the age timer');
  // a backlog that would not fill it leaves the usual rules in place
  sink.add(behind(3, 'k', ['k1'], events));
  assert.equal(clock.live(), [250, 50], '3 messages of 2 rows do not fill 18 missing rows: the interval and quiet rules cut');
  clock.fireAfter(250);
  await sink.flush();
  assert.equal(events.length, 11);
  await sink.close();
});

test('a backlog that another replica drains: the buffer is cut at the backlog age; when the backlog runs out, the usual age from its first entry', async () => {
  const store = fakeStore();
  const events: string[] = [];
  const { clock, sink, advance } = quietSink(store.insert, { maxBatchRows: 100 });
  sink.add(behind(1_000, 'a', ['a1'], events));
  advance(5);
  sink.add(behind(1_000, 'b', ['b1'], events));
  clock.fireAfter(BACKLOG_AGE_INTERVALS * 250);
  await sink.flush();
  assert.equal(store.calls.filter((c) => c.table === 'events').map((c) => c.n), [2], 'cut at the backlog age, short of its size');
  // a new buffer: a backlog first, then an entry with nothing behind it (the backlog ran out)
  sink.add(behind(1_000, 'c', ['c1'], events));
  advance(300);
  sink.add(behind(0, 'd', ['d1'], events));
  assert.ok(clock.live().includes(200), `twice the interval from its first entry (300 ms ago): ${clock.live()}`);
  assert.not.ok(clock.live().includes(BACKLOG_AGE_INTERVALS * 250), 'no longer the backlog age');
  clock.fireAfter(200);
  await sink.flush();
  assert.equal(store.calls.filter((c) => c.table === 'events').map((c) => c.n), [2, 2]);
  assert.equal(events, ['ack a', 'ack b', 'ack c', 'ack d']);
  await sink.close();
});

test('fillsFromBacklog: the waiting messages at the buffer\'s rows per message cover the rows it lacks; unknown or no backlog never', () => {
  assert.ok(fillsFromBacklog(100, 50, 5_000));
  assert.not.ok(fillsFromBacklog(99, 50, 5_000));
  assert.not.ok(fillsFromBacklog(0, 50, 1));
  assert.not.ok(fillsFromBacklog(-1, 50, 1), 'JetStream reports -1 when it does not know');
  assert.not.ok(fillsFromBacklog(undefined, 50, 1));
});

test('quietAfterMs: unknown pace never; otherwise the longer of quietMs and QUIET_GAPS gaps', () => {
  assert.is(quietAfterMs(50, undefined), Infinity);
  assert.is(quietAfterMs(50, 2), 50);
  assert.is(quietAfterMs(50, 30), 30 * QUIET_GAPS);
});

test('effect classes by tool name and shell command', () => {
  const cases: Array<[string, string, string]> = [
    ['Read', '', 'read'], ['Edit', '', 'write'], ['Task', '', 'spawn'], ['Bash', 'ls -la', 'read'], ['Bash', 'rm -rf build', 'write'],
    ['Bash', 'npm test', 'compute'], ['Bash', 'curl -X POST https://x', 'send'], ['send_email', '', 'send'], ['book_reservation', '', 'write'],
    ['get_user_details', '', 'read'], ['calculate', '', 'compute'], ['mcp__github__create_issue', '', 'write'], ['transfer_to_human_agents', '', 'send'],
  ];
  for (const [name, cmd, want] of cases) assert.is(effectClass(name, cmd), want, `${name} ${cmd}`);
  assert.is(effectClass('Bash', '', '{"command":"git push origin main"}'), 'write');
});

test('decodeMessage: poison reasons, defaults for optional fields', () => {
  assert.is(decodeMessage('{').kind, 'poison');
  assert.equal(decodeMessage('{"v":4,"tenant_id":"t","events":[]}'), { kind: 'poison', reason: 'unsupported batch version 4' });
  assert.match((decodeMessage('{"v":1,"tenant_id":"t","events":[{"event_id":"e"}]}') as { reason: string }).reason, /events\[0\]/);
  const ok = decodeMessage(JSON.stringify({ v: 1, tenant_id: 't', events: [{ event_id: 'e', tenant_id: 't', type: 'hook', event_time: '2025-01-01T00:00:00.000Z', receive_time: '2025-01-01T00:00:01.000Z', attributes: { n: 1, o: { a: 1 } } }] }));
  assert.is(ok.kind, 'ok');
  const row = decodeTable('events', (ok as any).output.tables.events)[0] as any;
  assert.equal(row.attributes, { n: '1', o: '{"a":1}' });
  assert.is(row.conversation_id, '');
  assert.is(row.success, -1);
});

test('messages rows: a prompt and a message event give every column', () => {
  const base = { tenant_id: 't', event_time: '2025-01-01T00:00:00.000Z', receive_time: '2025-01-01T00:00:01.000Z', conversation_id: 'c', user_id: 'u', environment: 'staging', agent: 'claude_code', source: 'hooks', sequence: 3 };
  const events = [
    { ...base, event_id: 'p', type: 'prompt', prompt: { text: 'fix the build', length: 13, truncated: false } },
    {
      ...base,
      event_id: 'm',
      type: 'message',
      message: {
        message_id: 'm1', role: 'assistant', content: 'running it', model: 'mx', provider: 'acme', input_tokens: 7, output_tokens: 9, reasoning_tokens: 2, thread_id: 'th', parent_message_id: 'm0', format: 'standard', metadata: { k: 'v' },
        content_blocks: [{ type: 'text', text: 'running it' }, { type: 'tool_use', tool_use_id: 'u1', tool_name: 'Bash', input: { command: 'ls' } }, { type: 'tool_result', tool_use_id: 'u0', content: 'boom', is_error: true }],
      },
    },
  ];
  const r = decodeMessage(JSON.stringify({ v: 1, tenant_id: 't', events }));
  assert.is(r.kind, 'ok');
  const rows = decodeTable('messages', (r as any).output.tables.messages);
  const common = { tenant_id: 't', conversation_id: 'c', ts: '2025-01-01T00:00:00.000Z', seq: 3, user_id: 'u', environment: 'staging', agent: 'claude_code', source: 'hooks' };
  assert.equal(rows[0], {
    ...common, event_id: 'p', message_id: 'p', role: 'user', content: 'fix the build', content_blocks: '', tool_calls: '[]', tool_results: '[]',
    has_tool_error: 0, model: '', provider: '', input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, thread_id: '', parent_message_id: '', format: 'prompt', metadata: '{"length":13,"truncated":false}',
  });
  assert.equal(rows[1], {
    ...common, event_id: 'm', message_id: 'm1', role: 'assistant', content: 'running it', content_blocks: JSON.stringify((events[1] as any).message.content_blocks),
    tool_calls: '[{"id":"u1","name":"Bash","input":"{\\"command\\":\\"ls\\"}"}]', tool_results: '[{"tool_use_id":"u0","content":"boom","is_error":true}]',
    has_tool_error: 1, model: 'mx', provider: 'acme', input_tokens: 7, output_tokens: 9, reasoning_tokens: 2, thread_id: 'th', parent_message_id: 'm0', format: 'standard', metadata: '{"k":"v"}',
  });
});

test('messages rows: blocks stored by reference to the row\'s content and tool columns, read back as received', () => {
  const base = { tenant_id: 't', event_time: '2025-01-01T00:00:00.000Z', receive_time: '2025-01-01T00:00:01.000Z', conversation_id: 'c', type: 'message' };
  const msg = (id: string, content: string, content_blocks: unknown[]) => ({ ...base, event_id: id, message: { message_id: id, role: 'assistant', content, content_blocks, format: 'standard' } });
  const long = 'x'.repeat(MAX_RESULT_CHARS + 10);
  const use = (id: string, input: unknown) => ({ type: 'tool_use', tool_name: 'Bash', tool_use_id: id, input });
  const result = (id: string, content: unknown, is_error = false) => ({ type: 'tool_result', tool_use_id: id, content, is_error });
  // [id, content, blocks, stored form: '' elided, '~' by reference, '[' as received]
  const cases: Array<[string, string, unknown[], '' | '~' | '[']> = [
    ['plain', 'done', [{ type: 'text', text: 'done' }], ''],
    ['empty-text', '', [{ type: 'text', text: '' }], ''],
    ['none', 'hi', [], '['],
    ['other-text', 'summary', [{ type: 'text', text: 'the full answer' }], '['],
    ['two-texts', 'first part\nsecond part', [{ type: 'text', text: 'first part' }, { type: 'text', text: 'second part' }], '~'],
    ['thinking', 'x', [{ type: 'thinking', text: 'x' }], '['],
    ['extra-key', 'x', [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }], '['],
    ['key-order', 'x', [{ text: 'x', type: 'text' }], '['],
    ['tools', 'running the tests now', [{ type: 'thinking', text: 'check' }, { type: 'text', text: 'running the tests now' }, use('u1', { command: 'npm test', timeout: 60 }), result('u0', 'all 12 passed')], '~'],
    ['error-result', '', [result('u2', 'boom: exit 1', true), result('u3', 'fine')], '~'],
    // what the columns cap or change cannot be rebuilt from them: written out, the rest referenced
    ['long-result', '', [result('u4', long), result('u5', 'short')], '~'],
    ['array-result', '', [result('u6', [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }])], '['],
    ['string-input', '', [use('u7', 'ls -la')], '['],
    ['long-input', '', [use('u8', { data: 'y'.repeat(MAX_INPUT_CHARS) })], '['],
    ['other-key-order', '', [{ type: 'tool_result', content: 'ok', tool_use_id: 'u9', is_error: false }], '['],
    // blocks that look like references are never taken for them
    ['ref-lookalike', 'abc', [{ type: 'text', n: 3 }], '['],
    ['ref-lookalike-2', '', [{ type: 'tool_result', r: 0 }, result('u10', 'ok')], '['],
  ];
  const r = decodeMessage(JSON.stringify({ v: 1, tenant_id: 't', events: cases.map(([id, content, blocks]) => msg(id, content, blocks)) }));
  assert.is(r.kind, 'ok');
  const rows = new Map(decodeTable('messages', (r as any).output.tables.messages).map((row: any) => [row.message_id, row]));
  for (const [id, content, blocks, form] of cases) {
    const row = rows.get(id) as { content: string; content_blocks: string; tool_calls: string; tool_results: string };
    assert.is(row.content, content, id);
    assert.is(row.content_blocks === '' ? '' : row.content_blocks[0], form, `${id}: stored ${JSON.stringify(row.content_blocks)}`);
    if (form !== '[') assert.ok(row.content_blocks.length < JSON.stringify(blocks).length, `${id}: the stored form is shorter`);
    // what a reader gets back is the value received, whichever way it was stored
    assert.equal(parseContentBlocks(row), blocks, id);
    assert.is(contentBlocksJson(row), JSON.stringify(blocks), id);
  }
  // the capped result is written out in the reference form; the short one is referenced
  assert.ok(rows.get('long-result').content_blocks.includes(long));
  assert.not.ok(rows.get('long-result').content_blocks.includes('short'));
  // a prompt's text is one text block: stored once; an empty prompt has no blocks
  const p = decodeMessage(JSON.stringify({ v: 1, tenant_id: 't', events: [
    { ...base, type: 'prompt', event_id: 'p1', prompt: { text: 'fix it', length: 6, truncated: false } },
    { ...base, type: 'prompt', event_id: 'p2', prompt: { text: '', length: 40, truncated: false } },
  ] }));
  const prompts = decodeTable('messages', (p as any).output.tables.messages).map((row: any) => [row.message_id, row.content_blocks]);
  assert.equal(prompts, [['p1', ''], ['p2', '[]']]);
  // rows written before (the JSON in every case) read the same; anything else reads as no blocks
  const old = { content: 'done', tool_calls: '[]', tool_results: '[]' };
  assert.equal(parseContentBlocks({ ...old, content_blocks: '[{"type":"text","text":"done"}]' }), [{ type: 'text', text: 'done' }]);
  assert.equal(parseContentBlocks({ ...old, content_blocks: 'not json' }), []);
  assert.equal(parseContentBlocks({ ...old, content_blocks: '~not json' }), []);
});

test('slim events rows: content held by messages, tool_calls or spans is not repeated in facets', () => {
  const base = { tenant_id: 't', event_time: '2025-01-01T00:00:00.000Z', receive_time: '2025-01-01T00:00:01.000Z', conversation_id: 'c' };
  const events = [
    { ...base, event_id: 'p', type: 'prompt', prompt: { text: 'please fix the build', length: 20, truncated: false } },
    { ...base, event_id: 'm', type: 'message', message: { message_id: 'm1', role: 'assistant', content: 'done', content_blocks: [{ type: 'text', text: 'done' }], format: 'standard', prompt_id: 'p7' } },
    { ...base, event_id: 'd', type: 'tool_decision', tool: { name: 'Bash', call_id: 'u1', input: '{"command":"ls"}', command: 'ls', decision: 'accept' } },
    { ...base, event_id: 'x', type: 'tool_result', tool: { name: 'Bash', input: '{"command":"ls"}' } },
    { ...base, event_id: 'a', type: 'api_request', api: { model: 'm', input_tokens: 5, status_code: 529, error: 'overloaded' } },
  ];
  const ok = decodeMessage(JSON.stringify({ v: 1, tenant_id: 't', events }));
  assert.is(ok.kind, 'ok');
  const out = (ok as any).output.tables;
  const facets = Object.fromEntries(decodeTable('events', out.events).map((r: any) => [r.event_id, JSON.parse(r.facets)]));
  assert.equal(facets.p, { prompt: { length: 20, truncated: false } });
  assert.equal(facets.m, { message: { prompt_id: 'p7' } });
  assert.equal(facets.d, {}, 'the call row holds name, input, command and decision');
  assert.equal(facets.x.tool.input, '{"command":"ls"}', 'no call row (no call id): the tool facet stays whole');
  assert.equal(facets.a, { api: { status_code: 529, error: 'overloaded' } });
  // the facts are where the facets point
  const msgs = decodeTable('messages', out.messages) as any[];
  assert.equal(msgs.map((r) => [r.message_id, r.content]), [['p', 'please fix the build'], ['m1', 'done']]);
  const calls = decodeTable('tool_calls', out.tool_calls) as any[];
  assert.equal(calls.map((r) => [r.call_id, r.input, r.command]), [['u1', '{"command":"ls"}', 'ls']]);
  const ev = Object.fromEntries(decodeTable('events', out.events).map((r: any) => [r.event_id, r]));
  assert.equal([ev.a.model, ev.a.input_tokens], ['m', 5]);
});

test('decodeMessage: a row cap never cuts a surrogate pair in half (the store would refuse the row)', () => {
  const input = `${'a'.repeat(MAX_INPUT_CHARS - 1)}\u{1F600}tail`;
  const event = {
    event_id: 'e', tenant_id: 't', type: 'message', event_time: '2025-01-01T00:00:00.000Z', receive_time: '2025-01-01T00:00:01.000Z', conversation_id: 'c',
    message: { message_id: 'm', role: 'assistant', content: 'x', content_blocks: [{ type: 'tool_use', tool_name: 'Write', tool_use_id: 'u1', input }], format: 'standard' },
  };
  const ok = decodeMessage(JSON.stringify({ v: 1, tenant_id: 't', events: [event] }));
  assert.is(ok.kind, 'ok');
  const call = JSON.parse((decodeTable('messages', (ok as any).output.tables.messages)[0] as any).tool_calls)[0];
  assert.is(call.input.length, MAX_INPUT_CHARS - 1, 'cut before the pair');
  assert.ok(call.input.isWellFormed(), 'well-formed');
  assert.is(call.input.at(-1), 'a');
  const split = splitMessage(JSON.stringify({ v: 1, tenant_id: 't', source: 'ingest', request_id: 'r', events: [event, { ...event, event_id: 'e2' }] }));
  assert.ok(!('kind' in split));
  assert.equal((split as any).events.map((e: any) => [e.index, e.eventId, JSON.parse((decodeTable('messages', e.rows.messages)[0] as any).tool_calls)[0].input.at(-1)]), [[0, 'e', 'a'], [1, 'e2', 'a']]);
  assert.is(JSON.parse((split as any).events[1].json).event_id, 'e2');
});

test.run();
