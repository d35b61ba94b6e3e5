/** An analysis batch's reads, sent unparsed, become the same work items on the analysis thread (stream/analyze/work-items.ts). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { workItemsOf, type LoadedChunk } from '../../../stream/analyze/work-items.js';

const lines = (rows: object[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join('');
const msg = (c: string, id: string, content: string) => ({ tenant_id: 't1', conversation_id: c, message_id: id, role: 'user', content, tool_calls: '[]', tool_results: '[]', ts_ms: '1748772000000', thread_id: '' });
const agg = (c: string, user: string) => ({ tenant_id: 't1', conversation_id: c, events: '2', environment: 'production', user_id: user, agent: 'direct', message_count: '2', first_ts: '', last_ts: '', input_tokens: '0', output_tokens: '0', cost_usd: 0, api_request_count: '0', api_error_count: '0', thread_count: '0', summary: '' });

function chunk(over: Partial<LoadedChunk> = {}): LoadedChunk {
  return {
    keys: [{ tenantId: 't1', conversationId: 'a' }, { tenantId: 't1', conversationId: 'b' }, { tenantId: 't1', conversationId: 'empty' }],
    messages: lines([msg('a', 'a0', 'first\nline "two"'), msg('a', 'a1', 'second'), msg('b', 'b0', 'héllo ✓')]),
    calls: lines([{ tenant_id: 't1', conversation_id: 'b', call_id: 'x', tool_name: 'Bash', input: '{}', command: 'ls', ts_ms: '1', success: '1', error: '', error_type: '', decision: '' }]),
    states: lines([{ tenant_id: 't1', conversation_id: 'a', analyzer: 'summary', analyzer_version: '1', outcome: 'ok', attempts: '0', item_keys: ['k1', 'k2'] }]),
    toolState: '',
    aggregates: [agg('a', 'kim'), agg('b', '')],
    memories: [['t1\u0000kim', '{"slots":[]}']],
    ...over,
  };
}

test('one item per key, in key order, each with its own rows in read order; a conversation without rows gets empty lists', () => {
  const items = workItemsOf([chunk()]);
  assert.equal(items.map((i) => i.conversationId), ['a', 'b', 'empty']);
  assert.equal(items[0]!.messages.map((m) => [m.message_id, m.content]), [['a0', 'first\nline "two"'], ['a1', 'second']]);
  assert.equal(items[1]!.messages.map((m) => m.content), ['héllo ✓']);
  assert.equal(items[1]!.calls.map((c) => c.call_id), ['x']);
  assert.equal(items[0]!.state.map((s) => s.item_keys), [['k1', 'k2']]);
  assert.equal(items[2], { tenantId: 't1', conversationId: 'empty', messages: [], calls: [], aggregate: undefined, state: [], toolState: [], userMemory: undefined });
});

test('aggregates and the users’ memory attach by conversation and by user', () => {
  const items = workItemsOf([chunk()]);
  assert.is(items[0]!.aggregate!.user_id, 'kim');
  assert.is(items[0]!.userMemory, '{"slots":[]}');
  assert.is(items[1]!.userMemory, undefined);
});

test('chunks follow one another; a read with no rows (empty text) is empty', () => {
  const second = chunk({ keys: [{ tenantId: 't1', conversationId: 'c' }], messages: lines([msg('c', 'c0', 'x')]), calls: '', states: '', aggregates: [], memories: [] });
  const items = workItemsOf([chunk(), second]);
  assert.equal(items.map((i) => [i.conversationId, i.messages.length]), [['a', 2], ['b', 1], ['empty', 0], ['c', 1]]);
});

test.run();
