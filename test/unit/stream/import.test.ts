import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { convertClaudeCode, convertFile, findImportFiles, statsOf, trajectoriesOf, convertTrajectory } from '../../../stream/import/index.js';
import { dataPath } from '../../helpers/shared.js';

const CC = dataPath('claude-code-viewer');
const TAU = dataPath('tau-bench/gpt-4o-airline.json');

/** Expected numbers straight from the raw lines, independent of the converter. */
function expectedClaudeCode() {
  const sessions = new Set<string>();
  const messages = new Set<string>();
  const calls = new Set<string>();
  let errors = 0;
  for (const f of readdirSync(CC).filter((f) => f.endsWith('.jsonl'))) {
    for (const line of readFileSync(join(CC, f), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const d = JSON.parse(line);
      if (d.type !== 'user' && d.type !== 'assistant') continue;
      sessions.add(d.sessionId);
      messages.add(`${d.sessionId}|${d.type === 'assistant' ? d.message.id : d.uuid}`);
      for (const b of Array.isArray(d.message.content) ? d.message.content : []) {
        if (b.type === 'tool_use') calls.add(`${d.sessionId}|${b.id}`);
        if (b.type === 'tool_result' && b.is_error === true) errors++;
      }
    }
  }
  return { conversations: sessions.size, messages: messages.size, toolCalls: calls.size, toolErrors: errors };
}

function expectedTau() {
  const data = JSON.parse(readFileSync(TAU, 'utf8')) as Array<{ traj: Array<{ role: string; content: string | null; tool_calls?: unknown[] }> }>;
  let messages = 0;
  let calls = 0;
  let errors = 0;
  for (const t of data) {
    messages += t.traj.length;
    for (const m of t.traj) {
      calls += m.tool_calls?.length ?? 0;
      if (m.role === 'tool' && /^error/i.test(String(m.content).trim())) errors++;
    }
  }
  return { conversations: data.length, messages, toolCalls: calls, toolErrors: errors };
}

test('Claude Code session logs: conversations, merged messages, tool calls and errors match the raw files', () => {
  const files = findImportFiles([CC]);
  assert.is(files.length, 5);
  const events = files.flatMap((f) => convertFile(f).events);
  const s = statsOf(events);
  const want = expectedClaudeCode();
  assert.equal({ conversations: s.conversations, messages: s.messages, toolCalls: s.toolCalls, toolErrors: s.toolErrors }, want);
  // README of the data set: 167 + 21 + 12 tool calls, 23 + 3 + 1 errors
  assert.is(s.toolCalls, 200);
  assert.is(s.toolErrors, 27);
});

test('streamed assistant lines sharing one message.id merge into one message with all blocks', () => {
  const text = readFileSync(join(CC, '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'), 'utf8');
  const { events } = convertClaudeCode(text);
  const merged = events.find((e) => e.message_id === 'msg_014fJ8dncc8t7mNss9o1poH3')!;
  assert.ok(merged);
  assert.equal(merged.content!.map((b) => b.type), ['tool_use', 'tool_use', 'tool_use']);
  assert.is(events.filter((e) => e.message_id === 'msg_014fJ8dncc8t7mNss9o1poH3').length, 1);
  const result = events.find((e) => e.content?.some((b) => b.type === 'tool_result'))!;
  assert.is(result.role, 'user');
  assert.ok(result.parent_message_id);
});

test('sidechains are their own threads, rooted at the first sidechain entry', () => {
  const text = readFileSync(join(CC, 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl'), 'utf8');
  const { events } = convertClaudeCode(text);
  const threads = new Set(events.filter((e) => e.thread_id).map((e) => e.thread_id));
  assert.is(threads.size, 5);
  assert.ok(events.some((e) => !e.thread_id), 'main thread has no thread id');
  const stub = convertClaudeCode(readFileSync(join(CC, 'agent-test-hash-123.jsonl'), 'utf8')).events;
  assert.equal(stub.map((e) => e.thread_id), ['a1111111-1111-4111-a111-111111111111', 'a1111111-1111-4111-a111-111111111111']);
  assert.is(stub[1]!.input_tokens, 100);
  assert.is(stub[1]!.model, 'claude-sonnet-4-20250514');
});

test('unparseable lines are skipped and counted', () => {
  const r = convertClaudeCode('{"type":"user"\nnot json\n');
  assert.is(r.events.length, 0);
  assert.is(r.skipped, 2);
});

test('tau-bench trajectories: conversations, messages, tool calls and tool errors match the raw file', () => {
  const c = convertFile(TAU);
  assert.is(c.format, 'openai-chat');
  const s = statsOf(c.events);
  const want = expectedTau();
  assert.equal({ conversations: s.conversations, messages: s.messages, toolCalls: s.toolCalls, toolErrors: s.toolErrors }, want);
  assert.is(want.toolErrors, 73);
});

test('OpenAI chat: tool calls become tool_use blocks, tool messages tool_result blocks, times stable', () => {
  const [t] = trajectoriesOf([{ task_id: 3, trial: 1, reward: 1, traj: [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_user', arguments: '{"id":"u"}' } }] },
    { role: 'tool', tool_call_id: 'c1', name: 'get_user', content: 'Error: user not found' },
  ] }], 'x.json');
  const ev = convertTrajectory(t!);
  assert.is(ev[0]!.conversation_id, 'x:task-3:trial-1');
  assert.equal(ev[0]!.metadata, { source: 'openai-chat', task_id: 3, trial: 1, reward: 1 });
  assert.equal(ev[1]!.content, [{ type: 'tool_use', tool_name: 'get_user', tool_use_id: 'c1', input: { id: 'u' } }]);
  assert.equal(ev[2]!.content, [{ type: 'tool_result', tool_use_id: 'c1', content: 'Error: user not found', is_error: true }]);
  assert.is(ev[2]!.role, 'user');
  assert.is(Date.parse(ev[2]!.timestamp) - Date.parse(ev[0]!.timestamp), 2000);
  assert.equal(convertTrajectory(t!), ev);
});

test.run();
