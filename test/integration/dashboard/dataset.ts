/**
 * The dashboard suites' dataset, sent through POST /v1/ingest: sixty short support and coding
 * requests in four use cases (enough segments for the first taxonomy), in two environments and two
 * users; one coding conversation with failed tool calls, a frustrated turn and a contradicted claim;
 * and two real tau-bench airline conversations (world state, step scores).
 */
import { readFileSync } from 'node:fs';
import { convertTrajectory, trajectoriesOf } from '../../../stream/import/openai-chat.js';
import { dataPath } from '../../helpers/shared.js';

const OPENERS = ['Hi,', 'Hello there.', 'Good morning!', 'Hey,'];
const TOPICS: Record<string, { core: string[]; detail: string[] }> = {
  refund: {
    core: ['I want a refund for order {n}', 'please refund my order {n}', 'can you refund order {n} and give my money back'],
    detail: ['the package arrived damaged.', 'the item was broken on arrival.', 'it came damaged in the box.', 'the parcel was crushed.', 'the screen was cracked when it arrived.'],
  },
  password: {
    core: ['I need to reset my password for account {n}', 'please reset the password of account {n}', 'help me reset my account password ({n})'],
    detail: ['I am locked out.', 'the login keeps failing.', 'I forgot it and cannot log in.', 'the reset email never arrives.', 'it says my credentials are wrong.'],
  },
  flight: {
    core: ['I want to book a flight from Boston to Denver on May {n}', 'please book a flight to Denver from Boston for May {n}', 'can you book me a one-way flight Boston to Denver, May {n}'],
    detail: ['economy is fine.', 'a window seat if possible.', 'morning departure preferred.', 'I have one checked bag.', 'the cheapest fare please.'],
  },
  tests: {
    core: ['fix the failing unit tests in the parser module, build {n}', 'please fix the failing tests of the parser, CI run {n}', 'the parser unit tests are failing since commit {n}, can you fix them'],
    detail: ['the tokenizer assertions break.', 'it started after the refactor.', 'two snapshot tests differ.', 'the CI log shows a null pointer.', 'locally they pass but not in CI.'],
  },
};

export const CODING_ID = 'dash-coding-1';

function coding(startMs: number) {
  const at = (i: number) => new Date(startMs + i * 2000).toISOString();
  const m = (i: number, role: string, body: string | unknown[]) => ({ conversation_id: CODING_ID, role, user_id: 'dev-7', environment: 'development', timestamp: at(i), ...(typeof body === 'string' ? { message: body } : { content: body }) });
  return [
    m(0, 'user', 'Please fix the failing test in src/parser.ts and run the tests.'),
    m(1, 'assistant', [{ type: 'text', text: "I'll run the tests first." }, { type: 'tool_use', tool_name: 'Bash', tool_use_id: 't1', input: { command: 'npm test' } }]),
    m(2, 'user', [{ type: 'tool_result', tool_use_id: 't1', content: 'Error: 3 tests failed\n  FAIL parser.test.ts > parses numbers', is_error: true }]),
    m(3, 'assistant', [{ type: 'tool_use', tool_name: 'Edit', tool_use_id: 't2', input: { file_path: 'src/parser.ts', old_string: 'a', new_string: 'b' } }]),
    m(4, 'user', [{ type: 'tool_result', tool_use_id: 't2', content: 'User rejected update to src/parser.ts', is_error: true }]),
    m(5, 'user', 'NO! I told you not to touch the parser, the bug is in the tokenizer. Why do you keep doing this?!'),
    m(6, 'assistant', [{ type: 'tool_use', tool_name: 'Bash', tool_use_id: 't3', input: { command: 'npm test' } }]),
    m(7, 'user', [{ type: 'tool_result', tool_use_id: 't3', content: 'Error: 3 tests failed\n  FAIL parser.test.ts > parses numbers', is_error: true }]),
    m(8, 'assistant', 'All tests pass now. The fix is complete.'),
    m(9, 'user', "They don't pass. This is useless."),
  ];
}

const raw = JSON.parse(readFileSync(dataPath('tau-bench', 'gpt-4o-airline.json'), 'utf8')) as Array<{ task_id: number; trial: number; traj: unknown[] }>;
const tau = trajectoriesOf(
  raw.filter((t) => (t.task_id === 0 && t.trial === 0) || (t.task_id === 11 && t.trial === 0)),
  'tau.json',
);
export const TAU_IDS = tau.map((t) => t.id);

/** Every event of the dataset, batched for POST /v1/ingest. */
export function dashboardEvents(nowMs: number): unknown[][] {
  const t0 = nowMs - 3 * 3_600_000;
  const requests: unknown[] = [];
  let k = 0;
  for (const [topic, t] of Object.entries(TOPICS)) {
    for (let i = 0; i < 15; i++) {
      const id = `${topic}-${i}`;
      const at = t0 + k++ * 60_000;
      const text = `${OPENERS[i % 4]} ${t.core[i % 3]!.replace('{n}', String(1000 + i * 7))}, ${t.detail[i % 5]}`;
      const common = { conversation_id: id, user_id: i % 2 ? 'alice' : 'bob', environment: i % 3 === 0 ? 'staging' : 'production' };
      requests.push(
        { ...common, role: 'user', message: text, timestamp: new Date(at).toISOString() },
        { ...common, role: 'assistant', message: 'Sure, I will take care of that right away.', timestamp: new Date(at + 1000).toISOString() },
      );
    }
  }
  const recentTau = tau.map((t, i) => ({ ...t, startTime: new Date(nowMs - (2 - i * 0.5) * 3_600_000).toISOString() }));
  return [requests, coding(nowMs - 600_000), recentTau.flatMap(convertTrajectory)];
}
