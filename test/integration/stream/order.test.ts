import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, eventually, type TestSystem } from '../../helpers/system.js';
import { batchOf, messageEvent, publishBatch, promptEvent, toolDecisionEvent, toolResultEvent, apiRequestEvent } from '../../helpers/events.js';
import { conversation, counts } from './helpers.js';

let ts: TestSystem;
test.before(async () => {
  ts = await startTestSystem({ env: { ANALYZE_DEBOUNCE_MS: '50' } });
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

const settle = (pred: () => Promise<boolean>) => eventually(async () => ((await pred()) ? true : undefined), { timeoutMs: 20_000 });

test('out-of-order and duplicate delivery: conversations, messages and tool calls converge exactly', async () => {
  const { js } = ts.system.rt.bus;
  const store = ts.system.rt.store;
  const conv = 'ooo-1';
  const m = [
    messageEvent(conv, 'user', 'book a flight', 0, { message_id: 'u1', sequence: 0 }),
    messageEvent(conv, 'assistant', [{ type: 'tool_use', tool_name: 'search_flights', tool_use_id: 'c1', input: { to: 'SEA' } }], 1000, { message_id: 'a1', sequence: 1, input_tokens: 10, output_tokens: 5 }),
    messageEvent(conv, 'user', [{ type: 'tool_result', tool_use_id: 'c1', content: [{ type: 'text', text: 'no flights' }], is_error: false }], 2000, { message_id: 't1', sequence: 2 }),
    messageEvent(conv, 'assistant', 'No flights found.', 3000, { message_id: 'a2', sequence: 3, input_tokens: 20, output_tokens: 7 }),
  ];
  // the tail arrives first, then the head, then everything again (a redelivery with new ids)
  await publishBatch(js, batchOf([m[3]!, m[2]!], 'ingest'));
  await settle(async () => Number((await conversation(store, conv))?.message_count) === 2);
  const first = await conversation(store, conv);
  assert.is(first.first_ts.slice(0, 19), '2025-06-01T10:00:02');
  await publishBatch(js, batchOf([m[1]!, m[0]!], 'ingest'));
  await publishBatch(js, batchOf([m[0]!, m[1]!, m[2]!, m[3]!], 'ingest'), { msgId: 'redelivered-all' });
  await settle(async () => Number((await conversation(store, conv))?.message_count) === 4 && (await conversation(store, conv)).first_ts.startsWith('2025-06-01T10:00:00'));
  await new Promise((r) => setTimeout(r, 300));
  const c = await conversation(store, conv);
  assert.is(Number(c.message_count), 4);
  assert.is(Number(c.input_tokens), 30);
  assert.is(Number(c.output_tokens), 12);
  assert.is(Number(c.tool_call_count), 1);
  assert.is(Number(c.tool_failure_count), 0);
  assert.is(c.last_ts.slice(0, 19), '2025-06-01T10:00:03');
  const idx = await store.query<any>(
    `SELECT message_id, row_number() OVER (ORDER BY ts, seq, message_id) - 1 AS i FROM {{db}}.messages FINAL WHERE tenant_id='default' AND conversation_id={c:String} ORDER BY i`,
    { c: conv },
  );
  assert.equal(idx.map((r) => r.message_id), ['u1', 'a1', 't1', 'a2']);
  const n = await store.query<any>(`SELECT count() AS n FROM {{db}}.messages FINAL WHERE conversation_id={c:String}`, { c: conv });
  assert.is(Number(n[0].n), 4);
});

test('a tool result before its decision, and both twice, fold into one tool call', async () => {
  const { js } = ts.system.rt.bus;
  const store = ts.system.rt.store;
  const conv = 'ooo-2';
  const decision = toolDecisionEvent(conv, 'call-9', 'Write', 1000, { file_path: '/tmp/a' }, 'accept');
  const result = toolResultEvent(conv, 'call-9', 'Write', 2000, false, 'permission denied');
  await publishBatch(js, batchOf([result, promptEvent(conv, 'write it', 0)]));
  await publishBatch(js, batchOf([decision, apiRequestEvent(conv, 500, { input: 7, output: 3, cost: 0.5 })]));
  await publishBatch(js, batchOf([decision, result]), { msgId: 'twice' });
  await settle(async () => Number((await conversation(store, conv))?.tool_call_count) === 1 && Number((await conversation(store, conv)).input_tokens) === 7);
  await new Promise((r) => setTimeout(r, 300));
  const rows = await store.query<any>(
    `SELECT call_id, min(ts) AS ts, max(tool_name) AS name, max(success) AS success, max(decision) AS decision, max(decision_source) AS src, max(error) AS error, max(effect_class) AS effect, max(duration_ms) AS d
     FROM {{db}}.tool_calls WHERE conversation_id = {c:String} GROUP BY call_id`,
    { c: conv },
  );
  assert.equal(rows, [{ call_id: 'call-9', ts: '2025-06-01T10:00:01.000Z', name: 'Write', success: 0, decision: 'accept', src: 'config', error: 'permission denied', effect: 'write', d: 42 }]);
  const c = await conversation(store, conv);
  assert.is(Number(c.tool_failure_count), 1);
  assert.is(Number(c.message_count), 1);
  assert.ok(Math.abs(Number(c.cost_usd) - 0.5) < 1e-9);
  assert.is((await counts(store)).conversations, 2);
});

test.run();
