/**
 * The read paths that avoid a hash GROUP BY or FINAL over wide columns must answer exactly like the
 * fold they replace: tool calls whose decision and result rows sit in separate parts (and a
 * redelivered row), folded into the tool-failure rollup by its rebuild, and messages with a newer
 * stored version, written straight into the tables.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { rebuildToolFailureRollup } from '../../../stream/analyze/tool-failures.js';

const H = 3_600_000;
const DAY = 24 * H;
const T = 'default';
let ts: TestSystem;
let now: number;
const iso = (ms: number) => new Date(ms).toISOString();
const ch = (ms: number) => iso(ms).replace('T', ' ').replace('Z', '');

const call = (conv: string, id: string, atMs: number, extra: Record<string, unknown>) => ({
  tenant_id: T, conversation_id: conv, call_id: id, ts: ch(atMs), last_ts: ch(atMs), tool_name: '', input: '', command: '',
  effect_class: '', success: -1, error: '', error_type: '', duration_ms: 0, decision: '', decision_source: '', agent: 'a',
  environment: 'production', user_id: 'u', message_id: '', mcp_server: '', ...extra,
});
const message = (conv: string, i: number, atMs: number, content: string, insertedMs: number) => ({
  tenant_id: T, conversation_id: conv, message_id: `${conv}-m${i}`, ts: ch(atMs), seq: i, role: i % 2 ? 'assistant' : 'user',
  content, content_blocks: '[]', tool_calls: '[]', tool_results: '[]', has_tool_error: 0, model: '', provider: '', input_tokens: 0,
  output_tokens: 0, reasoning_tokens: 0, user_id: 'u', environment: 'production', agent: 'a', source: 'ingest', thread_id: '',
  parent_message_id: '', format: '', metadata: '{}', event_id: `e${i}`, inserted_at: ch(insertedMs),
});
const get = async (path: string) => {
  const r = await http(`${ts.queryUrl}/api/v1/data${path}`, { headers: { 'x-api-key': ts.adminKey } });
  assert.is(r.status, 200, `${path}: ${r.text}`);
  return r.body;
};

test.before(async () => {
  ts = await startTestSystem({ roles: ['query'] });
  now = Date.now();
  const store = ts.system.rt.store;
  // one insert per row: every row its own part, so only a real fold joins them
  const rows = [
    // A: decided 8 days ago, failed within the window -> started outside the 7-day window, not counted
    call('c1', 'A', now - 8 * DAY, { tool_name: 'Bash', effect_class: 'spawn' }),
    call('c1', 'A', now - H, { success: 0, error: 'late boom' }),
    // B: decision and failed result (result row has no tool name), result delivered twice
    call('c2', 'B', now - 2 * H, { tool_name: 'Bash', effect_class: 'spawn' }),
    call('c2', 'B', now - H, { success: 0, error: 'bad', error_type: 'tool_error' }),
    call('c2', 'B', now - H, { success: 0, error: 'bad', error_type: 'tool_error' }),
    // C: decision only (no result yet): a call, not a failure
    call('c2', 'C', now - H, { tool_name: 'Read', effect_class: 'read' }),
    // D: staging, succeeded
    call('c3', 'D', now - 3 * H, { tool_name: 'Edit', effect_class: 'write', environment: 'staging' }),
    call('c3', 'D', now - 3 * H + 1000, { success: 1, environment: 'staging' }),
  ];
  for (const r of rows) await store.insert('tool_calls', [r]);
  // rows written straight into tool_calls: build the rollup the stream role would have written
  await rebuildToolFailureRollup(store);
  // conversation m: 7 messages; m3 stored again later with new text; m5 stored again with a later ts (moves last)
  for (let i = 0; i < 7; i++) await store.insert('messages', [message('m', i, now - 10 * H + i * 60_000, `text ${i}`, now - 5 * H)]);
  await store.insert('messages', [message('m', 3, now - 10 * H + 3 * 60_000, 'text 3 edited', now - 4 * H)]);
  await store.insert('messages', [message('m', 5, now - 9 * H, 'text 5 moved', now - 4 * H)]);
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

test('tool failures: calls fold across parts; start decides the window; redelivery counts once', async () => {
  const r = await get('/tool-failures?days_back=7');
  assert.equal(r.totals, { calls: 3, failures: 1, failure_rate_pct: 33.3, conversations: 1, tools: 1 });
  const bash = r.tools.find((t: any) => t.tool_name === 'Bash');
  assert.is(bash.calls, 1);
  assert.is(bash.failures, 1);
  assert.equal(bash.example_errors, ['bad']);
  assert.is(bash.last_failure_at, iso(now - 2 * H));
  assert.equal(r.tools.map((t: any) => t.tool_name).sort(), ['Bash', 'Edit', 'Read']);
  assert.equal(r.by_effect_class.map((e: any) => [e.effect_class, e.calls, e.failures]).sort(), [['read', 1, 0], ['spawn', 1, 1], ['write', 1, 0]]);
  const staging = await get('/tool-failures?days_back=7&environment=staging');
  assert.equal(staging.totals, { calls: 1, failures: 0, failure_rate_pct: 0, conversations: 0, tools: 0 });
  const wide = await get('/tool-failures?days_back=9');
  assert.equal([wide.totals.calls, wide.totals.failures], [4, 2]);
});

test('tool failure detail and overview use the same fold', async () => {
  const d = await get('/tool-failures/Bash?days_back=7');
  assert.equal(d.errors, [{ error: 'bad', error_type: 'tool_error', count: 1, last_seen: iso(now - 2 * H), examples: [{ conversation_id: 'c2', call_id: 'B', timestamp: iso(now - 2 * H) }] }]);
  const o = await get('/overview?days_back=7');
  assert.equal(o.tool_failures, { total: 1, conversations: 1, tools: 1 });
});

test('context: newest version of each message, index over the newest timestamps', async () => {
  const r = await get('/conversations/m/context?msg_index=3&window=5');
  assert.is(r.total_messages, 7);
  assert.equal(r.context.messages.map((m: any) => m.content), ['text 0', 'text 1', 'text 2', 'text 3 edited', 'text 4', 'text 6', 'text 5 moved']);
  assert.equal(r.context.messages.map((m: any) => m.index), [0, 1, 2, 3, 4, 5, 6]);
  assert.is(r.context.messages[6].timestamp, iso(now - 9 * H));
  const mid = await get('/conversations/m/context?window=1');
  assert.equal([mid.context.center_index, mid.context.from_index, mid.context.to_index], [3, 2, 4]);
  assert.equal(mid.context.messages.map((m: any) => m.content), ['text 2', 'text 3 edited', 'text 4']);
});

test.run();
