/**
 * Generated coding conversations with planted laziness, for the laziness evaluation. Each
 * conversation is a request, the agent's tool calls (reads, writes with code, test runs) and
 * its report. One in two plants a pattern family, in several phrasings — some of them outside
 * the detector's lists, to measure recall honestly; the rest are clean work or hard negatives
 * (TODO-app code, stubs the person asked for, pasted code, quoted phrases, instructions for the
 * person, truncated tool output the agent reports).
 */
import type { DirectBlock, DirectEvent } from '../../stream/import/types.js';
import { rng, type Rng } from '../segments/random.js';

export interface PlantedMessage {
  /** Message index (input order). */
  index: number;
  /** Planted family, `truncated_data`, or null for a clean agent message. */
  family: string | null;
}

export interface GeneratedLazy {
  id: string;
  events: DirectEvent[];
  planted: PlantedMessage[];
  /** A headline family was planted. */
  lazy: boolean;
  kind: string;
}

const TASKS = [
  { ask: 'Implement parseDate in src/dates.ts so it accepts ISO strings and epoch seconds.', file: 'src/dates.ts', fn: 'parseDate' },
  { ask: 'Fix the crash in the checkout handler when the cart is empty.', file: 'src/checkout.ts', fn: 'handleCheckout' },
  { ask: 'Add retry with exponential backoff to fetchUser in api/client.py.', file: 'api/client.py', fn: 'fetch_user' },
  { ask: 'Refactor the order validator into separate functions for address and payment.', file: 'src/validate.ts', fn: 'validateOrder' },
  { ask: 'Write the CSV exporter for the reports page.', file: 'reports/export.py', fn: 'export_csv' },
  { ask: 'Make the search endpoint paginate results, 20 per page.', file: 'server/search.go', fn: 'Search' },
];

const FULL_CODE = [
  'export function parseDate(input: string | number): Date {\n  if (typeof input === "number") return new Date(input * 1000);\n  const d = new Date(input);\n  if (Number.isNaN(d.getTime())) throw new RangeError(`bad date: ${input}`);\n  return d;\n}\n',
  'def export_csv(rows, path):\n    with open(path, "w", newline="") as f:\n        writer = csv.writer(f)\n        writer.writerow(HEADER)\n        for row in rows:\n            writer.writerow([row[k] for k in HEADER])\n',
  'func Search(q Query) Page {\n\tstart := q.Page * 20\n\titems := index.Find(q.Text)\n\tif start > len(items) {\n\t\treturn Page{}\n\t}\n\treturn Page{Items: items[start:min(start+20, len(items))]}\n}\n',
];

/** Code placeholders: the first four use phrasings the detector knows; the rest do not. */
const PLACEHOLDERS = [
  '// ... rest of the implementation',
  '# ... existing code ...',
  '// TODO: implement the retry logic',
  '    pass  # TODO implement',
  '/* remaining handlers unchanged */',
  '# your code here',
  '// fill this in later',
  '// (same as before)',
];

const PROSE: Record<string, string[]> = {
  left_as_exercise: ['I left the timezone handling as an exercise.', 'Handling the remaining edge cases is left as an exercise for you.', 'The validation of negative numbers I will leave as homework.'],
  truncated_output: ["I'll stop here for now; the other handlers follow the same shape.", 'For brevity, I omitted the remaining endpoints.', 'The rest of the file is omitted.', 'Similarly for the other handlers — I did not write them out.'],
  handed_back: ["You'll need to implement the remaining validators yourself.", 'You can now fill in the rest of the handlers.', "I'll leave the database wiring to you.", 'From here you should wire the new function into the router.'],
  refusal_deferral: ["I can't implement that in this change. Let's do the rest in a follow-up step.", 'That is a bigger piece of work; I will handle it later.'],
  unverified_completion: ["I've fixed the bug, it works now.", 'Done — the parser handles both formats correctly now.', 'The issue is resolved and everything works.'],
  skipped_tests: ["I didn't run the tests, but the implementation is complete.", 'I skipped the tests since they take a while.', 'Implementation done; I have not executed the test suite.'],
  truncated_data: ['The test output was truncated, so I only see the first failures.', 'The log is cut off after line 200; the error may be further down.'],
};

const CLEAN_REPORTS = ['I implemented it and ran the tests: all 24 pass.', 'Fixed: the handler now returns 400 for an empty cart, and the checkout tests pass.', 'The exporter writes the header and one row per record; the test suite is green (31 passed).'];

interface Builder {
  events: DirectEvent[];
  planted: PlantedMessage[];
  call: number;
  t: number;
  id: string;
}

function push(b: Builder, role: 'user' | 'assistant', body: { message?: string; content?: DirectBlock[] }): number {
  b.t += 20_000;
  b.events.push({ conversation_id: b.id, role, timestamp: new Date(b.t).toISOString(), message_id: `${b.id}:${b.events.length}`, ...body });
  return b.events.length - 1;
}

function tool(b: Builder, name: string, input: unknown, result: string, isError = false): void {
  const id = `toolu_${b.call++}`;
  push(b, 'assistant', { content: [{ type: 'tool_use', tool_name: name, tool_use_id: id, input }] });
  push(b, 'user', { content: [{ type: 'tool_result', tool_use_id: id, content: result, is_error: isError }] });
}

function testRun(b: Builder, r: Rng): void {
  tool(b, 'Bash', { command: r.pick(['npm test', 'pytest -q', 'go test ./...']) }, r.pick(['24 passing', '31 passed in 2.1s', 'ok  \tserver\t0.4s']));
}

function report(b: Builder, text: string, family: string | null): void {
  const index = push(b, 'assistant', { message: text });
  b.planted.push({ index, family });
}

/** One conversation of the given kind. */
function build(r: Rng, n: number, kind: string): GeneratedLazy {
  const b: Builder = { events: [], planted: [], call: 0, t: Date.parse('2025-04-01T10:00:00Z') + n * 3_600_000, id: `gen-lazy-${n}` };
  const task = r.pick(TASKS);
  const code = r.pick(FULL_CODE);
  const withTests = kind === 'skipped_tests' || r.chance(0.4);
  if (kind === 'unverified_completion') {
    // the agent has tools (it used one for an earlier question) but uses none for this request
    push(b, 'user', { message: `What does ${task.file} export?` });
    tool(b, 'Read', { file_path: task.file }, 'export {}\n');
    push(b, 'assistant', { message: 'It exports nothing yet.' });
  }
  push(b, 'user', { message: task.ask + (withTests ? ' Add tests and run them.' : '') });
  if (kind !== 'unverified_completion') tool(b, 'Read', { file_path: task.file }, 'export {}\n');
  if (kind === 'placeholder_code') {
    const ph = r.pick(PLACEHOLDERS);
    // the placeholder is in the message that writes the file
    b.planted.push({ index: b.events.length, family: 'placeholder_code' });
    tool(b, 'Write', { file_path: task.file, content: `${code}\n${ph}\n` }, 'File written');
    if (r.chance(0.5)) testRun(b, r);
    report(b, `I updated ${task.file} with ${task.fn}.`, null);
  } else if (kind === 'unverified_completion') {
    report(b, r.pick(PROSE.unverified_completion!), 'unverified_completion');
  } else if (kind === 'skipped_tests') {
    tool(b, 'Write', { file_path: task.file, content: code }, 'File written');
    report(b, r.pick(PROSE.skipped_tests!), 'skipped_tests');
  } else if (kind in PROSE) {
    tool(b, 'Write', { file_path: task.file, content: code }, 'File written');
    if (r.chance(0.5)) testRun(b, r);
    report(b, `I wrote ${task.fn}. ${r.pick(PROSE[kind]!)}`, kind);
  } else {
    hardOrClean(b, r, kind, task, code);
  }
  const lazy = b.planted.some((p) => p.family !== null && p.family !== 'truncated_data');
  return { id: b.id, events: b.events, planted: b.planted, lazy, kind };
}

function hardOrClean(b: Builder, r: Rng, kind: string, task: (typeof TASKS)[number], code: string): void {
  if (kind === 'clean') {
    tool(b, 'Write', { file_path: task.file, content: code }, 'File written');
    testRun(b, r);
    report(b, r.pick(CLEAN_REPORTS), null);
  } else if (kind === 'todo_app') {
    tool(b, 'Write', { file_path: 'src/TodoList.tsx', content: '// Todo list component\nexport function TodoList({ todos }: Props) {\n  return <ul>{todos.map((todo) => <TodoItem key={todo.id} todo={todo} />)}</ul>;\n}\n' }, 'File written');
    testRun(b, r);
    report(b, 'The TodoList component renders every todo; tests pass.', null);
  } else if (kind === 'requested_stub') {
    b.events[0]!.message = 'Create a skeleton for the payment module with TODO comments for each handler; I will fill them in.';
    tool(b, 'Write', { file_path: 'src/payments.ts', content: 'export function charge() {\n  // TODO: implement charge\n}\nexport function refund() {\n  // TODO: implement refund\n}\n' }, 'File written');
    report(b, 'Created the skeleton with TODO comments for charge and refund, as you asked.', null);
  } else if (kind === 'pasted') {
    b.events[0]!.message = `Why does this fail?\n\nfunction load() {\n  const cfg = read();\n  // ... rest of code\n  return cfg.value;\n}`;
    report(b, 'In your snippet:\n\n```js\nconst cfg = read();\n// ... rest of code\nreturn cfg.value;\n```\n\n`read()` returns undefined when the file is missing, so `cfg.value` throws.', null);
  } else if (kind === 'quoted') {
    tool(b, 'Write', { file_path: 'README.md', content: '# Setup\n\nRun npm install.\n' }, 'File written');
    testRun(b, r);
    report(b, 'The old README said "the rest is left as an exercise for the reader"; I replaced that line with the real setup steps.', null);
  } else if (kind === 'instructions') {
    tool(b, 'Write', { file_path: '.envrc', content: 'export PATH=$PWD/bin:$PATH\n' }, 'File written');
    testRun(b, r);
    report(b, "Added bin/ to PATH in .envrc. You'll need to restart your terminal for it to take effect. If you need to add more tools later, put them in bin/.", null);
  } else if (kind === 'protocol_stub') {
    tool(b, 'Write', { file_path: 'shapes.py', content: 'class Shape(Protocol):\n    def area(self) -> float: ...\n\nclass Square:\n    def __init__(self, side):\n        self.side = side\n    def area(self):\n        return self.side ** 2\n' }, 'File written');
    testRun(b, r);
    report(b, 'Defined the Shape protocol and implemented Square; the shape tests pass.', null);
  } else if (kind === 'truncated_input') {
    tool(b, 'Write', { file_path: task.file, content: code }, 'File written');
    tool(b, 'Bash', { command: 'npm test' }, '... 1,204 lines ...\n[output truncated: 48211 characters]');
    report(b, r.pick(PROSE.truncated_data!), 'truncated_data');
  }
}

const KINDS = ['placeholder_code', 'left_as_exercise', 'unverified_completion', 'skipped_tests', 'truncated_output', 'handed_back', 'refusal_deferral', 'clean', 'clean', 'clean', 'todo_app', 'requested_stub', 'pasted', 'quoted', 'instructions', 'protocol_stub', 'truncated_input'];

export function generateLazySet(seed: number, count: number): GeneratedLazy[] {
  const r = rng(seed);
  return Array.from({ length: count }, (_, n) => build(r, n, r.pick(KINDS)));
}
