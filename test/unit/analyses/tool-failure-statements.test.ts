import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { failureFamily } from '../../../stream/analyses/tool-failure-categories.js';
import { mask, tokenize } from '../../../stream/analyses/tool-failures/masking.js';
import { extractStatement } from '../../../stream/analyses/tool-failures/statement.js';
import type { FailureFamily, SnapshotToolCall } from '../../../stream/analyses/types.js';

function call(toolName: string, resultText: string, extra: Partial<SnapshotToolCall> = {}): SnapshotToolCall {
  return {
    key: 'k',
    toolUseId: 'k',
    toolName,
    input: '{}',
    command: '',
    messageIndex: 0,
    resultIndex: 1,
    position: 0,
    ts: 0,
    success: false,
    resultText,
    errorType: '',
    decision: '',
    effectClass: 'compute',
    ...extra,
  };
}

const MASKING: Array<[string, string]> = [
  ['not enough seats on flight HAT290', 'not enough seats on flight <ID>'],
  ['payment amount does not add up, total price is 305, but paid 255', 'payment amount does not add up, total price is <NUM>, but paid <NUM>'],
  ['flight HAT030 not available on date 2024-05-13', 'flight <ID> not available on date <TS>'],
  ['started 2024-05-13T10:04:55.120Z, gave up at 10:05:01', 'started <TS>, gave up at <TS>'],
  ["ls: cannot access 'types/': No such file or directory", 'ls: cannot access <Q>: No such file or directory'],
  ['cat: /home/u/proj/tests/./missing_colon.py: No such file or directory', 'cat: <PATH>: No such file or directory'],
  ['could not open settings.json for writing', 'could not open <PATH> for writing'],
  ['GET https://api.example.com/v1/items?id=3 returned 500', 'GET <URL> returned <NUM>'],
  ['Request failed with status code 404', 'Request failed with status code ⟦404⟧'],
  ['npm ERR! code ERESOLVE', 'npm ERR! code ⟦ERESOLVE⟧'],
  ['no account for jane.doe@example.org', 'no account for <EMAIL>'],
  ['session 0b9f6c1e-2a57-4c1b-9d7e-8f1a2b3c4d5e expired', 'session <UUID> expired'],
  ['bad object 3f2a9c1d0e', 'bad object <HEX>'],
  ['segfault at 0x7ffd5e8c', 'segfault at <HEX>'],
  ['Command timed out after 2m 0.0s', 'Command timed out after <DUR>'],
  ['Expecting value: line 1 column 1 (char 0)', 'Expecting value: <LOC> (char <NUM>)'],
  ["src/a.ts(6,33): error TS2307: Cannot find module '@x/y'", '<PATH><LOC>: error ⟦TS2307⟧: Cannot find module <Q>'],
  ["The user doesn't want to proceed", "The user doesn't want to proceed"],
  ['API error {"type":"error","message":"Overloaded"}', 'API error <Q>'],
];

test('masking replaces ids, numbers, dates, paths, quoted values, urls, emails, uuids, hashes, durations and line refs', () => {
  for (const [input, expected] of MASKING) assert.is(mask(input), expected, input);
});

test('tokens drop punctuation and collapse repeated placeholders, so spelling variants give one template', () => {
  assert.equal(tokenize(mask("cd to '/a/b' was blocked."), 24), tokenize(mask('cd to "/c" was blocked'), 24));
  assert.equal(tokenize('<PATH> <PATH>: No such file', 24), ['<PATH>', 'No', 'such', 'file']);
  assert.is(tokenize('a b c d e f', 3).length, 3);
});

test('the statement skips wrappers, warnings and progress lines', () => {
  const npm = 'npm warn Unknown env config "store-dir".\n\nsrc/hooks/useTodos.test.ts(6,33): error TS2307: Cannot find module \'x\'.';
  assert.match(extractStatement(npm).text, /error TS2307: Cannot find module/);
  const uv = 'Error: Using Python 3.13.0 environment at: .uvenv\nResolved 28 packages in 332ms\nDownloading ruff (10.0MiB)\n× Failed to build `pkg @ file:///x`';
  assert.match(extractStatement(uv).text, /^Failed to build/);
  const rc = extractStatement('<returncode>2</returncode>\n<output>\ngrep: foo.txt: No such file or directory\n</output>');
  assert.is(rc.exitCode, 2);
  assert.is(rc.text, 'No such file or directory');
  assert.match(extractStatement('<tool_use_error>File does not exist.</tool_use_error>', false).text, /^File does not exist\.?$/);
  assert.is(extractStatement('Exit code 1\nfatal: not a git repository').exitCode, 1);
  // an API's JSON error body is read for its code and message
  assert.is(extractStatement('{"error": {"code": 404, "message": "User u_123 not found"}}', false).text, 'error 404: User u_123 not found');
});

test('a traceback is stated by its exception line; a wrapped terminal line is read whole', () => {
  const tb = 'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n    return a/b\nZeroDivisionError: division by zero';
  assert.is(extractStatement(tb).text, 'ZeroDivisionError: division by zero');
  const wrapped = 'find: /Users/someone/projects/library/fixtures/users/reader/Library/Containers: No such\nfile or directory';
  assert.is(extractStatement(wrapped).text, 'No such file or directory');
});

test('test sessions, failed checks and outputs without a message have fixed statements', () => {
  const pytest = '============================= test session starts ==============================\ncollected 3 items\n\nspecs/a_spec.py ..F [100%]\n=========================== 1 failed, 2 passed in 0.05s ===';
  assert.is(extractStatement(pytest).kind, 'tests_failed');
  assert.is(extractStatement('============================= test session starts ====\ncollected 0 items\n\n=== no tests ran in 0.01s ===').kind, 'tests_none');
  const precommit = 'check yaml...............................Passed\nruff (legacy alias)......................Failed\n- hook id: ruff\n- exit code: 1';
  const st = extractStatement(precommit);
  assert.is(st.kind, 'check_failed');
  assert.is(st.text, 'ruff');
  assert.is(extractStatement('Error: Error').kind, 'none');
  // plain output (a path a search printed before exiting non-zero) states nothing
  assert.is(extractStatement('Error: src/notes/day-018.md').kind, 'none');
});

/** Realistic error texts per family: every family at least once. */
const FAMILIES: Array<[FailureFamily, string, string, Partial<SnapshotToolCall>?]> = [
  ['user_rejected', 'Bash', 'No (tell Claude what to do differently)'],
  ['user_rejected', 'Update', 'User rejected update to src/app.py\n 12  def main():\n 13 -    run()'],
  ['user_rejected', 'Edit', "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file)."],
  ['user_rejected', 'Bash', 'Interrupted by user'],
  ['user_rejected', 'Bash', '[Request interrupted by user for tool use]'],
  ['user_rejected', 'Write', '', { success: null, decision: 'reject' }],
  ['permission_denied', 'Bash', "Exit code 1\nmkdir: cannot create directory '/usr/lib/x': Permission denied"],
  ['permission_denied', 'Bash', "Error: Bash operation blocked by hook:\n- [python3 hooks/check.py]: Blocked: 'git add -A' detected."],
  ['permission_denied', 'Write', "Claude requested permissions to write to /tmp/x.md, but you haven't granted it yet."],
  ['not_found', 'Read', 'File does not exist.'],
  ['not_found', 'Bash', 'Error: (eval):1: command not found: pytest'],
  ['not_found', 'get_order_details', 'Error: order #W123 not found'],
  ['not_found', 'Edit', '<tool_use_error>String to replace not found in file.\nString: foo()</tool_use_error>'],
  ['not_found', 'get_user', '{"error": {"code": 404, "message": "User u_123 not found"}}'],
  ['invalid_input', 'Bash', "Error: error: unexpected argument '--show-source' found\n\ntip: a similar argument exists: '--show-files'"],
  ['invalid_input', 'Task', '<tool_use_error>InputValidationError: Task failed due to the following issue:\nThe required parameter `prompt` is missing</tool_use_error>'],
  ['invalid_input', 'Read', 'EISDIR: illegal operation on a directory, read'],
  ['precondition_failed', 'Write', '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>'],
  ['precondition_failed', 'Bash', 'Exit code 128\nfatal: not a git repository (or any of the parent directories): .git'],
  ['build_or_type_error', 'Bash', "Exit code 2\nsrc/index.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'."],
  ['build_or_type_error', 'Bash', 'Error: check yaml.......Passed\nmypy.....................Failed\n- hook id: mypy\n- exit code: 1'],
  ['test_failure', 'Bash', 'Exit code 1\n FAIL  src/app.test.ts\n  ● renders title\n    expect(received).toBe(expected)\nTests:       1 failed, 3 passed, 4 total'],
  ['command_failed', 'bash', '<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File "a.py", line 5, in division\nZeroDivisionError: division by zero\n</output>'],
  ['command_failed', 'Bash', 'Error'],
  ['business_rule', 'book_reservation', 'Error: not enough seats on flight HAT139'],
  ['business_rule', 'cancel_pending_order', 'Error: non-delivered order cannot be returned'],
  ['timeout', 'Bash', 'Error: Command timed out after 2m 0.0s'],
  ['resource_exhausted', 'Read', 'Error: File content (56293 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit parameters.'],
  ['resource_exhausted', 'Bash', 'Exit code 137\nKilled'],
  ['rate_limited', 'WebFetch', 'Error: 429 Too Many Requests: rate limit exceeded, retry after 20s'],
  ['auth_error', 'Bash', 'Error: Host key verification failed.\nfatal: Could not read from remote repository.'],
  ['auth_error', 'mcp__github__create_issue', 'MCP error -32603: Bad credentials'],
  ['network', 'Bash', 'Exit code 7\ncurl: (7) Failed to connect to localhost port 8080 after 0 ms: Connection refused'],
  ['other', 'Read', 'Something unexpected happened while reading'],
];

test('families come from the error text, the tool and the exit code (each family from realistic texts)', () => {
  for (const [family, tool, text, extra] of FAMILIES) assert.is(failureFamily(call(tool, text, extra)), family, `${tool}: ${text.slice(0, 60)}`);
});

test('a declined or interrupted call is user_rejected whatever else its text says', () => {
  assert.is(failureFamily(call('Bash', 'No (tell Claude what to do differently)\n\nPreToolUse:Bash [hook] completed successfully')), 'user_rejected');
  assert.is(failureFamily(call('Bash', 'Error: User rejected write to requirements.txt\n1  # Error: not found')), 'user_rejected');
  // the words of a rejection inside ordinary output are not a rejection
  assert.is(failureFamily(call('Bash', 'Exit code 1\ngrep: pattern "User rejected" not found: No such file or directory')), 'not_found');
});

test.run();
