/** `tracehouse analyze` as a user runs it: a child process, files or stdin in, JSON lines out. */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../../helpers/cli.js';
import { dataPath } from '../../helpers/shared.js';

const TAU = dataPath('tau-bench', 'gpt-4o-airline.json');
const lines = (stdout: string) => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));

test('direct events on stdin: one line per conversation in first-seen order, calls paired in order with reused ids', async () => {
  const events = [
    { conversation_id: 'b', role: 'user', message: 'cancel my reservation' },
    { conversation_id: 'a', role: 'user', message: 'hello' },
    { conversation_id: 'b', role: 'assistant', content: [{ type: 'tool_use', tool_name: 'cancel_reservation', tool_use_id: 'c1', input: { id: 'R1' } }] },
    { conversation_id: 'b', role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'Error: not found', is_error: true }] },
    { conversation_id: 'b', role: 'assistant', content: [{ type: 'tool_use', tool_name: 'get_reservation', tool_use_id: 'c1', input: { id: 'R1' } }] },
    { conversation_id: 'b', role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: '{"status":"active"}', is_error: false }] },
  ];
  const r = await runCli(['analyze', '-'], {}, { input: events.map((e) => JSON.stringify(e)).join('\n') + '\n' });
  assert.is(r.code, 0, r.stderr);
  const out = lines(r.stdout);
  assert.equal(out.map((o) => o.conversation_id), ['b', 'a']);
  for (const key of ['conversation_id', 'summary', 'segments', 'emotions', 'tool_calls', 'laziness', 'hallucinations']) assert.ok(key in out[0], key);
  assert.equal(
    out[0].tool_calls.map((c: any) => [c.message_index, c.tool_use_id, c.tool_name, c.success, c.effect_class]),
    [[1, 'c1', 'cancel_reservation', false, 'write'], [3, 'c1#2', 'get_reservation', true, 'read']],
  );
  assert.match(r.stderr, /2 conversations, 6 messages, 2 tool calls \(1 failed/);
});

test('tau-bench through --format openai-chat: 200 conversations, 1,164 calls, 73 failures', async () => {
  const raw = JSON.parse(readFileSync(TAU, 'utf8')) as Array<{ traj: Array<{ role: string; content: string | null; tool_calls?: unknown[] }> }>;
  const calls = raw.reduce((a, t) => a + t.traj.reduce((b, m) => b + (m.tool_calls?.length ?? 0), 0), 0);
  const errors = raw.reduce((a, t) => a + t.traj.filter((m) => m.role === 'tool' && /^\s*error/i.test(String(m.content))).length, 0);
  const r = await runCli(['analyze', TAU, '--format', 'openai-chat', '--quiet']);
  assert.is(r.code, 0, r.stderr);
  const out = lines(r.stdout);
  assert.is(out.length, raw.length);
  const all = out.flatMap((o) => o.tool_calls);
  assert.equal([all.length, all.filter((c: any) => c.success === false).length], [calls, errors]);
  assert.is(r.stderr, '');
});

test('refused input lines are reported with their number and make the exit code 1; usage errors exit 2', async () => {
  const r = await runCli(['analyze'], {}, { input: '{"conversation_id":"x","role":"user","message":"hi"}\nnot json\n{"role":"user","message":"no conversation"}\n' });
  assert.is(r.code, 1);
  assert.is(lines(r.stdout).length, 1);
  assert.match(r.stderr, /event 2: event is not an object/);
  assert.match(r.stderr, /event 3: conversation_id is missing/);
  const bad = await runCli(['analyze', '--format', 'xml']);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /--format must be one of/);
  const missing = await runCli(['analyze', '/nonexistent/file.jsonl']);
  assert.is(missing.code, 2);
  assert.match(missing.stderr, /cannot read/);
});

test.run();
