import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createSink, dedupToken, type SinkEntry } from '../../../stream/sink.js';
import { streamMetrics } from '../../../stream/metrics.js';
import { createMetrics } from '../../../core/metrics.js';
import { createLogger } from '../../../core/log.js';
import { effectClass } from '../../../stream/effect-class.js';
import { decodeMessage } from '../../../stream/batch.js';

const log = createLogger('silent');
function entry(id: string, rows: number, log2: string[]): SinkEntry {
  return {
    id,
    rows: { events: Array.from({ length: rows }, (_, i) => ({ event_id: `${id}-${i}` })) },
    rowCount: rows,
    bytes: rows * 10,
    receivedAtMs: Date.now(),
    conversations: [],
    done: async () => void log2.push(`ack ${id}`),
    retry: () => void log2.push(`nak ${id}`),
    reject: async () => void log2.push(`dlq ${id}`),
    working: () => {},
  };
}

test('flushes by rows with one insert per table and a token from the sorted message ids; acks after insert', async () => {
  const calls: Array<{ table: string; n: number; token: unknown }> = [];
  const events: string[] = [];
  const sink = createSink({
    insert: async (table, rows, s) => void calls.push({ table, n: rows.length, token: s?.insert_deduplication_token }),
    maxBatchRows: 5, maxBatchBytes: 1e9, flushIntervalMs: 10_000, retryDeadlineMs: 1000, metrics: streamMetrics(createMetrics()), log,
  });
  sink.add(entry('b', 3, events));
  assert.is(calls.length, 0);
  sink.add(entry('a', 3, events));
  await sink.flush();
  assert.equal(calls, [{ table: 'events', n: 6, token: dedupToken('events', ['a', 'b']) }]);
  assert.equal(events, ['ack b', 'ack a']);
  assert.is(dedupToken('events', ['a', 'b']), dedupToken('events', ['b', 'a']));
  assert.is.not(dedupToken('events', ['a', 'b']), dedupToken('messages', ['a', 'b']));
});

test('a permanent error isolates the message at fault; a transient one past the deadline naks all', async () => {
  const events: string[] = [];
  let transient = false;
  const sink = createSink({
    insert: async (_t, rows) => {
      if (transient) throw Object.assign(new Error('down'), { code: 'ECONNREFUSED' });
      if (rows.some((r) => String((r as { event_id: string }).event_id).startsWith('bad'))) throw Object.assign(new Error('bad row'), { code: '27' });
    },
    maxBatchRows: 1000, maxBatchBytes: 1e9, flushIntervalMs: 5, retryDeadlineMs: 300, metrics: streamMetrics(createMetrics()), log,
  });
  sink.add(entry('ok1', 1, events));
  sink.add(entry('bad', 1, events));
  sink.add(entry('ok2', 1, events));
  await sink.flush();
  assert.equal(events.sort(), ['ack ok1', 'ack ok2', 'dlq bad']);
  events.length = 0;
  transient = true;
  sink.add(entry('x', 1, events));
  sink.add(entry('y', 1, events));
  await sink.close();
  assert.equal(events, ['nak x', 'nak y']);
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
  assert.equal(decodeMessage('{"v":2,"tenant_id":"t","events":[]}'), { kind: 'poison', reason: 'unsupported batch version 2' });
  assert.match((decodeMessage('{"v":1,"tenant_id":"t","events":[{"event_id":"e"}]}') as { reason: string }).reason, /events\[0\]/);
  const ok = decodeMessage(JSON.stringify({ v: 1, tenant_id: 't', events: [{ event_id: 'e', tenant_id: 't', type: 'hook', event_time: '2025-01-01T00:00:00.000Z', receive_time: '2025-01-01T00:00:01.000Z', attributes: { n: 1, o: { a: 1 } } }] }));
  assert.is(ok.kind, 'ok');
  const row = (ok as any).output.rows.events[0];
  assert.equal(row.attributes, { n: '1', o: '{"a":1}' });
  assert.is(row.conversation_id, '');
  assert.is(row.success, -1);
});

test.run();
