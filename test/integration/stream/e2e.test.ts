import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, eventually, type TestSystem } from '../../helpers/system.js';
import { batchOf, conversationEvents, messageEvent, publishBatch, baseEvent, at } from '../../helpers/events.js';
import { counts, conversation } from './helpers.js';

let ts: TestSystem;
test.before(async () => {
  ts = await startTestSystem({ env: { JOB_INTERVAL_MS: '500' } });
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

test('published batches become events, messages, tool calls and an exact conversation row', async () => {
  const { js } = ts.system.rt.bus;
  const store = ts.system.rt.store;
  const evs = conversationEvents('sess-a', 3);
  await publishBatch(js, batchOf(evs.slice(0, 5)));
  await publishBatch(js, batchOf(evs.slice(5)));
  const direct = [
    messageEvent('chat-1', 'user', 'What is the weather in Paris?', 0, { message_id: 'm1', sequence: 0 }),
    messageEvent('chat-1', 'assistant', [{ type: 'text', text: 'Let me check.' }, { type: 'tool_use', tool_name: 'get_weather', tool_use_id: 'tu1', input: { city: 'Paris' } }], 1000, { message_id: 'm2', sequence: 1, model: 'gpt-4o', input_tokens: 50, output_tokens: 20 }),
    messageEvent('chat-1', 'user', [{ type: 'tool_result', tool_use_id: 'tu1', content: 'Error: service down', is_error: true }], 2000, { message_id: 'm3', sequence: 2 }),
  ];
  const span = baseEvent({
    type: 'span', name: 'execute_tool', agent: 'otlp', source: 'traces', conversation_id: 'chat-1', trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16), event_time: at(1500),
    span: { name: 'execute_tool get_weather', kind: 1, parent_span_id: '', start_time: at(1500), end_time: at(1600), duration_ms: 100, status_code: 2, status_message: 'timeout',
      gen_ai: { operation: 'execute_tool', tool_name: 'get_weather', tool_call_id: 'tu2' } },
  });
  await publishBatch(js, batchOf([...direct, span], 'ingest'));

  const done = await eventually(async () => {
    const c = await counts(store);
    return c.events === 16 && c.conversations === 2 && c.messages === 6 && c.analyzedCalls === 5 ? c : undefined;
  }, { timeoutMs: 20_000 });
  assert.ok(done, `rows did not arrive: ${JSON.stringify(await counts(store))}`);
  // telemetry calls (three of sess-a, the span's tu2) are rows of tool_calls; tu1 lives in messages
  assert.is(done!.toolCalls, 4);

  const a = await eventually(async () => {
    const r = await conversation(store, 'sess-a');
    return r && Number(r.tool_call_count) === 3 ? r : undefined;
  });
  assert.ok(a);
  assert.is(Number(a!.message_count), 3);
  assert.is(Number(a!.input_tokens), 100 + 101 + 102);
  assert.is(Number(a!.output_tokens), 33);
  assert.ok(Math.abs(Number(a!.cost_usd) - 0.03) < 1e-9);
  assert.is(Number(a!.tool_failure_count), 1);
  assert.is(a!.agent, 'agent-a');
  assert.is(a!.user_id, 'user-1');
  assert.is(a!.first_ts.slice(0, 19), at(0).slice(0, 19));
  assert.is(a!.last_ts.slice(0, 19), at(23000).slice(0, 19));

  const chat = await conversation(store, 'chat-1');
  assert.is(Number(chat.message_count), 3);
  assert.is(Number(chat.tool_call_count), 2);
  assert.is(Number(chat.tool_failure_count), 2);
  assert.is(Number(chat.input_tokens), 50);

  const calls = await store.query<any>(
    `SELECT call_id, max(tool_name) AS name, max(success) AS success, max(decision) AS decision, max(effect_class) AS effect, max(error) AS error, max(input) AS input
     FROM {{db}}.tool_calls WHERE tenant_id = 'default' GROUP BY call_id ORDER BY call_id`,
  );
  const byId = Object.fromEntries(calls.map((c) => [c.call_id, c]));
  assert.equal(byId['toolu_sess-a_1'], { call_id: 'toolu_sess-a_1', name: 'Bash', success: 0, decision: 'accept', effect: 'compute', error: 'exit code 1', input: '{"command":"npm test"}' });
  assert.is(byId['tu2'].error, 'timeout');
  // every call as the analysis pairs them: the tool_use block answered by its result, and the span
  const paired = await store.query<any>(
    `SELECT item_key, tool_name, success, effect_class, error, message_index, result_index FROM {{db}}.conversation_tool_calls FINAL
     WHERE tenant_id = 'default' AND conversation_id = 'chat-1' ORDER BY item_key`,
  );
  assert.equal(
    paired.map((c) => [c.item_key, c.tool_name, c.success, c.effect_class, c.error, c.message_index, c.result_index]),
    [['tu1', 'get_weather', 0, 'read', 'Error: service down', 1, 2], ['tu2', 'get_weather', 0, 'read', 'timeout', -1, -1]],
  );

  const msgs = await store.query<any>(
    `SELECT message_id, role, content, tool_calls, tool_results, model, row_number() OVER (ORDER BY ts, seq, message_id) - 1 AS idx
     FROM {{db}}.messages FINAL WHERE tenant_id = 'default' AND conversation_id = 'chat-1' ORDER BY idx`,
  );
  assert.equal(msgs.map((m) => [m.message_id, m.role, Number(m.idx)]), [['m1', 'user', 0], ['m2', 'assistant', 1], ['m3', 'user', 2]]);
  assert.equal(JSON.parse(msgs[1].tool_calls), [{ id: 'tu1', name: 'get_weather', input: '{"city":"Paris"}' }]);
  assert.equal(JSON.parse(msgs[2].tool_results), [{ tool_use_id: 'tu1', content: 'Error: service down', is_error: true }]);
  assert.is(msgs[1].model, 'gpt-4o');

  const spans = await store.query<any>(`SELECT gen_ai_tool_name, status_code FROM {{db}}.spans FINAL`);
  assert.equal(spans, [{ gen_ai_tool_name: 'get_weather', status_code: 2 }]);

  // the WorkQueue stream shrinks as messages are acked: ingest's backlog check sees it
  const info = await ts.system.rt.bus.jsm.streams.info('INGEST');
  assert.is(info.state.messages, 0);
  const m = await ts.system.rt.metrics.render();
  assert.match(m, /tracehouse_stream_inserted_rows_total\{table="events"\} 16/);
  assert.match(m, /tracehouse_stream_freshness_seconds_count/);
  assert.match(m, /tracehouse_stream_consumer_pending_messages\{consumer="store"\} 0/);
  // the analysis batches that wrote the paired calls above, phase by phase
  for (const phase of ['load', 'work', 'write']) assert.match(m, new RegExp(`tracehouse_stream_analyze_phase_seconds_count\\{phase="${phase}"\\} [1-9]`), phase);
});

test.run();
