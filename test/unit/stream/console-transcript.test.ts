import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { convertConsoleTranscript, convertFile, isConsoleTranscript } from '../../../stream/import/index.js';
import { dataPath } from '../../helpers/shared.js';

const SAMPLE = [
  '╭──────────────────────╮',
  '│ ✻ Welcome!           │',
  '╰──────────────────────╯',
  '',
  '> Fix the failing test in',
  '  specs/cli_spec.py please',
  '',
  '⏺ I will look at it.',
  '',
  '⏺ Bash(pytest -q)…',
  '  ⎿  Waiting…',
  '  ⎿  Error: 1 failed, 3 passed',
  '     FAILED specs/cli_spec.py::test_x',
  '',
  '⏺ Update(specs/cli_spec.py)…',
  '  ⎿  No (tell Claude what to do differently)',
  '',
  '> no, I told you not to touch the spec!',
  '',
  '✻ Thinking…',
  '',
  '  The user wants the code fixed, not the spec.',
  '',
  '⏺ Read(bookminder/cli.py)…',
  '  ⎿  Read 40 lines (ctrl+r to expand)',
  '',
  '⏺ Sorry — fixing the code instead.',
].join('\n');

test('a console transcript becomes user turns, assistant replies and paired tool calls', () => {
  const ev = convertConsoleTranscript(SAMPLE, 'day-001.md');
  assert.ok(isConsoleTranscript(SAMPLE));
  const users = ev.filter((e) => e.role === 'user' && e.message !== undefined).map((e) => e.message);
  assert.equal(users, ['Fix the failing test in\nspecs/cli_spec.py please', 'no, I told you not to touch the spec!']);
  const uses = ev.flatMap((e) => (e.content ?? []).filter((b) => b.type === 'tool_use')) as Array<{ tool_name: string; tool_use_id: string }>;
  assert.equal(uses.map((u) => u.tool_name), ['Bash', 'Update', 'Read']);
  const results = ev.flatMap((e) => (e.content ?? []).filter((b) => b.type === 'tool_result')) as Array<{ tool_use_id: string; content: string; is_error: boolean }>;
  // "Waiting…" is replaced by the real result; a declined call is a failed call
  assert.equal(results.map((r) => [r.tool_use_id, r.is_error]), [[uses[0]!.tool_use_id, true], [uses[1]!.tool_use_id, true], [uses[2]!.tool_use_id, false]]);
  assert.match(results[0]!.content, /^Error: 1 failed, 3 passed\nFAILED specs/);
  const thinking = ev.flatMap((e) => (e.content ?? []).filter((b) => b.type === 'thinking'));
  assert.is(thinking.length, 1);
  assert.ok(new Set(ev.map((e) => e.conversation_id)).size === 1 && ev[0]!.conversation_id === 'day-001');
  // stable ids and times: a second conversion is identical
  assert.equal(convertConsoleTranscript(SAMPLE, 'day-001.md'), ev);
});

test('real transcripts: every tool line of the text becomes one call, every prompt line one user turn', () => {
  const dir = dataPath('bookminder-cc-console');
  const files = readdirSync(dir).filter((f) => /^day-\d+\.md$/.test(f));
  assert.ok(files.length >= 10);
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    const toolLines = text.split('\n').filter((l) => /^⏺ [A-Za-z_][\w.:-]*\(.*\)(…)?\s*$/.test(l.trimEnd()) || /^⏺ (Update|Read) Todos\s*$/.test(l)).length;
    const lines = text.split('\n');
    // a prompt line follows a blank line and has text
    const promptLines = lines.filter((l, i) => /^> *\S/.test(l) && (i === 0 || lines[i - 1]!.trim() === '')).length;
    const converted = convertFile(join(dir, f));
    assert.is(converted.format, 'console-transcript');
    const calls = converted.events.flatMap((e) => (e.content ?? []).filter((b) => b.type === 'tool_use')).length;
    const prompts = converted.events.filter((e) => e.role === 'user' && e.message !== undefined).length;
    assert.is(calls, toolLines, f);
    assert.is(prompts, promptLines, f);
  }
});

test('a markdown file that is not a transcript is skipped, not imported as empty', () => {
  const r = convertFile(dataPath('bookminder-cc-console', 'UPSTREAM_README.md'));
  assert.is(r.format, 'unknown');
  assert.is(r.events.length, 0);
  assert.is(r.skipped, 1);
});

test.run();
