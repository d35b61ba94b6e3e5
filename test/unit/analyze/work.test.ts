/** The CPU part of an analysis batch (stream/analyze/work.ts): pure, run here without workers. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { analyzeSnapshot } from '../../../stream/analyses/pipeline.js';
import { buildSnapshot } from '../../../stream/analyses/snapshot.js';
import { conversationRow, runAnalysisWork } from '../../../stream/analyze/work.js';
import { snapshotOf, type MessageRowIn, type WorkItem } from '../../../stream/analyze/work-items.js';
import { emptyAnalysis } from '../../../stream/analyses/pipeline.js';

const T0 = Date.parse('2025-06-01T10:00:00.000Z');
const msg = (id: string, i: number, role: string, content: string, calls: unknown[] = [], results: unknown[] = []): MessageRowIn => ({
  message_id: id, role, content, tool_calls: JSON.stringify(calls), tool_results: JSON.stringify(results), ts_ms: String(T0 + i * 1000), thread_id: '',
});
const aggregate = { events: 4, environment: 'production', user_id: 'u1', agent: 'direct', message_count: 4, first_ts: '2025-06-01T10:00:00.000Z', last_ts: '2025-06-01T10:00:03.000Z', input_tokens: 0, output_tokens: 0, cost_usd: 0, api_request_count: 0, api_error_count: 0, thread_count: 0, summary: 'kept' };

function item(over: Partial<WorkItem> = {}): WorkItem {
  return {
    tenantId: 't1',
    conversationId: 'c1',
    messages: [
      msg('m0', 0, 'user', 'cancel my booking'),
      msg('m1', 1, 'assistant', '', [{ id: 'x', name: 'cancel_reservation', input: '{"id":"R1"}' }]),
      msg('m2', 2, 'user', '', [], [{ tool_use_id: 'x', content: 'Error: not found', is_error: true }]),
      msg('m3', 3, 'assistant', '', [{ id: 'x', name: 'get_reservation', input: '{"id":"R1"}' }]),
    ],
    calls: [],
    aggregate,
    state: [],
    toolState: [],
    ...over,
  };
}

test('a reused call id is two calls; counts, facts and rows follow the pairing', () => {
  const out = runAnalysisWork({ version: 7, items: [item()] });
  const calls = out.tables.conversation_tool_calls!;
  assert.equal(calls.map((c) => [c.item_key, c.tool_name, c.success, c.message_index, c.result_index]), [['x', 'cancel_reservation', 0, 1, 2], ['x#2', 'get_reservation', -1, 3, -1]]);
  const conv = out.tables.conversations![0]!;
  assert.equal([conv.tool_call_count, conv.tool_failure_count, conv.version], [2, 1, 7]);
  // the summary analysis wrote a fresh summary, drawn from the conversation itself
  assert.match(String(conv.summary), /cancel my booking/);
  assert.equal(out.tables.tool_call_facts!.map((f) => [f.call_id, f.failed, f.is_deleted]), [['x', 1, 0], ['x#2', 0, 0]]);
  assert.equal(out.toolGroups.map((g) => g[1]).sort(), ['cancel_reservation', 'get_reservation']);
  assert.ok(out.items[0]!.outcomes.every((o) => o.ok));
  assert.equal(out.items[0]!.keys['tool-calls'], ['x', 'x#2']);
});

test('items the last run wrote and this run does not produce get tombstones; unchanged calls are not rewritten', () => {
  const first = runAnalysisWork({ version: 1, items: [item()] });
  const toolState = first.toolState.map((r) => r as any);
  const state = [{ analyzer: 'tool-calls', analyzer_version: 1, outcome: 'ok', attempts: 0, item_keys: ['x', 'x#2', 'gone'] }];
  const second = runAnalysisWork({ version: 2, items: [item({ state, toolState })] });
  const calls = second.tables.conversation_tool_calls!;
  assert.equal(calls.filter((c) => c.is_deleted === 1).map((c) => c.item_key), ['gone']);
  assert.is(second.tables.tool_call_facts, undefined, 'the rollup has nothing to rewrite');
  assert.equal(second.toolGroups, []);
});

test('an analyzer that throws is reported with its error, leaves its part empty, and the others still run', () => {
  const s = buildSnapshot({ tenantId: 't', conversationId: 'c', messages: [
    { messageId: 'a', role: 'assistant', content: '', blocks: [{ type: 'tool_use', tool_use_id: 'k', tool_name: 'Bash', input: {} }], tsMs: T0, threadId: '' },
    { messageId: 'b', role: 'user', content: '', blocks: [{ type: 'tool_result', tool_use_id: 'k', content: 'Error: boom', is_error: true }], tsMs: T0 + 1, threadId: '' },
  ] });
  const exploding = { assign: () => { throw new RangeError('registry exploded'); }, created: () => [], all: () => [] };
  const { analysis, outcomes } = analyzeSnapshot(s, { categories: exploding });
  const tc = outcomes.find((o) => o.name === 'tool-calls')!;
  assert.equal([tc.ok, tc.error], [false, 'RangeError: registry exploded']);
  assert.equal(analysis.tool_calls, []);
});

test('a failed summary keeps the summary written before; orphan results and telemetry calls join the count', () => {
  const out = runAnalysisWork({
    version: 3,
    items: [item({
      messages: [msg('m0', 0, 'user', '', [], [{ tool_use_id: 'lost', content: 'denied', is_error: true }])],
      calls: [{ call_id: 'h1', tool_name: 'Bash', input: '{"command":"ls"}', command: 'ls', ts_ms: String(T0 + 500), success: 1, error: '', error_type: '', decision: 'accept' }],
    })],
  });
  const calls = out.tables.conversation_tool_calls!;
  assert.equal(calls.map((c) => [c.item_key, c.tool_name, c.success, c.effect_class]), [['lost', '', 0, 'compute'], ['h1', 'Bash', 1, 'read']]);
});

test('a failed summary run keeps the summary written before', () => {
  const it = item();
  const row = conversationRow(it, snapshotOf(it), { ...emptyAnalysis('c1'), summary: 'new' }, false, 9);
  assert.is(row.summary, 'kept');
  assert.is(conversationRow(it, snapshotOf(it), { ...emptyAnalysis('c1'), summary: 'new' }, true, 9).summary, 'new');
});

test.run();
