import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DecodeResult } from '../../../stream/batch.js';
import { createGroupedDecoder, type DecodeFailure } from '../../../stream/decode-groups.js';
import decodeTask from '../../../stream/tasks/decode.js';

/** A decoder over a fake task runner: tasks are recorded and answered by hand; turns end by hand. */
function harness(opts: { maxMessages?: number; maxBytes?: number } = {}) {
  const tasks: Array<{ messages: string[]; answer(results: Array<DecodeResult | DecodeFailure>): void; fail(err: Error): void }> = [];
  const deferred: Array<() => void> = [];
  const decoder = createGroupedDecoder({
    capacity: 10,
    ...opts,
    defer: (fn) => deferred.push(fn),
    run: (messages) =>
      new Promise((resolve, reject) => {
        tasks.push({ messages: messages.map((m) => Buffer.from(m).toString()), answer: resolve, fail: reject });
      }),
  });
  const endTurn = () => deferred.splice(0).forEach((fn) => fn());
  return { decoder, tasks, endTurn };
}

const msg = (s: string) => new Uint8Array(Buffer.from(s));
const ok = (n: number): DecodeResult => ({ kind: 'ok', events: n, output: { tables: {}, conversations: [], receivedAtMs: 0, rowCount: 0, bytes: 0 } });
const tick = () => new Promise((r) => setImmediate(r));

test('the messages of one turn go to the pool as one task; each gets its own result, in order', async () => {
  const { decoder, tasks, endTurn } = harness();
  const answers = ['a', 'b', 'c'].map((s) => decoder.decode(msg(s)));
  assert.is(tasks.length, 0, 'nothing is sent before the turn ends');
  assert.is(decoder.room(), 7);
  endTurn();
  assert.equal(tasks.map((t) => t.messages), [['a', 'b', 'c']]);
  tasks[0]!.answer([ok(1), { kind: 'poison', reason: 'bad' }, ok(3)]);
  const results = await Promise.all(answers);
  assert.equal(results.map((r) => (r.kind === 'ok' ? r.events : r.reason)), [1, 'bad', 3]);
  assert.is(decoder.room(), 10, 'answered messages free their room');
  const later = decoder.decode(msg('d'));
  endTurn();
  assert.equal(tasks.map((t) => t.messages), [['a', 'b', 'c'], ['d']], 'a later turn, a task of its own');
  tasks[1]!.answer([ok(4)]);
  assert.is(((await later) as { events: number }).events, 4);
});

test('a group is cut at its message and byte limits', () => {
  const byCount = harness({ maxMessages: 2 });
  for (const s of ['a', 'b', 'c', 'd', 'e']) void byCount.decoder.decode(msg(s));
  byCount.endTurn();
  assert.equal(byCount.tasks.map((t) => t.messages), [['a', 'b'], ['c', 'd'], ['e']]);
  const byBytes = harness({ maxBytes: 5 });
  for (const s of ['xx', 'yyy', 'z', 'wwwwwww', 'v']) void byBytes.decoder.decode(msg(s));
  byBytes.endTurn();
  assert.equal(byBytes.tasks.map((t) => t.messages), [['xx', 'yyy'], ['z', 'wwwwwww'], ['v']]);
});

test('a message whose decoding threw fails alone; a failed task fails only its messages; a short answer fails the unanswered', async () => {
  const { decoder, tasks, endTurn } = harness({ maxMessages: 2 });
  const answers = ['a', 'b', 'c', 'd', 'e'].map((s) => decoder.decode(msg(s)).then((r) => r.kind, (e: Error) => `error: ${e.message}`));
  endTurn();
  tasks[0]!.answer([ok(1), { kind: 'failed', error: 'RangeError: too deep' }]);
  tasks[1]!.fail(new Error('worker exited'));
  tasks[2]!.answer([]);
  assert.equal(await Promise.all(answers), ['ok', 'error: RangeError: too deep', 'error: worker exited', 'error: worker exited', 'error: decode task answered 0 of 1 messages']);
  await tick();
  assert.is(decoder.room(), 10);
});

test('with a gather time, messages of later turns join the waiting group; a full group leaves at once', async () => {
  const tasks: string[][] = [];
  const decoder = createGroupedDecoder({
    capacity: 10,
    gatherMs: 200,
    maxMessages: 3,
    run: (messages) => {
      tasks.push(messages.map((m) => Buffer.from(m).toString()));
      return Promise.resolve(messages.map(() => ok(1)));
    },
  });
  void decoder.decode(msg('a'));
  await tick();
  void decoder.decode(msg('b'));
  await tick();
  assert.equal(tasks, [], 'two turns later the group still waits for company');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(tasks, [['a', 'b']], 'the gather time ends the group');
  for (const s of ['c', 'd', 'e']) void decoder.decode(msg(s));
  assert.equal(tasks, [['a', 'b'], ['c', 'd', 'e']], 'a full group does not wait');
  void decoder.decode(msg('f'));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(tasks, [['a', 'b'], ['c', 'd', 'e'], ['f']], 'nothing is left behind');
});

test('a runner that throws at once fails every message of the group, none is left waiting', async () => {
  const decoder = createGroupedDecoder({ capacity: 4, defer: (fn) => fn(), maxMessages: 2, run: () => { throw new Error('pool closed'); } });
  const answers = ['a', 'b'].map((s) => decoder.decode(msg(s)).then(() => 'ok', (e: Error) => e.message));
  assert.equal(await Promise.all(answers), ['pool closed', 'pool closed']);
  assert.is(decoder.room(), 4);
});

test('the decode task answers every message of a task: one that throws fails alone, its neighbours decode', () => {
  const event = (extra: object) => ({ event_id: 'e', tenant_id: 't', type: 'tool_call', event_time: '2025-01-01T00:00:00.000Z', receive_time: '2025-01-01T00:00:01.000Z', conversation_id: 'c', ...extra });
  const message = (extra: object) => msg(JSON.stringify({ v: 1, tenant_id: 't', events: [event(extra)] }));
  // a tool name that is not a string: not what the edge writes, but a bus message may say anything
  const moved = decodeTask({ messages: [message({ tool: { call_id: 'a', name: 'Bash' } }), message({ tool: { call_id: 'b', name: 5 } }), msg('not json')] }) as unknown;
  const results = (moved as Record<symbol, Array<DecodeResult | DecodeFailure>>)[Symbol.for('Piscina.valueOf')]!;
  assert.equal(results.map((r) => r.kind), ['ok', 'failed', 'poison']);
  assert.match((results[1] as DecodeFailure).error, /TypeError/);
});

test.run();
