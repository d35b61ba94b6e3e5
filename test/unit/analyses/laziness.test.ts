import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { convertFile } from '../../../stream/import/index.js';
import { snapshotsFromDirectEvents } from '../../../stream/analyses/direct-input.js';
import { countedDetections, detectLaziness, isLazyConversation } from '../../../stream/analyses/laziness.js';
import type { ConversationSnapshot, LazinessDetection } from '../../../stream/analyses/types.js';
import { dataPath } from '../../helpers/shared.js';
import { Conversation } from './conversation.js';

const patterns = (d: readonly LazinessDetection[]) => d.map((x) => x.pattern);

/** Every quote is a verbatim substring of its message's text or of one of its blocks. */
function assertVerbatim(s: ConversationSnapshot, d: readonly LazinessDetection[]): void {
  for (const x of d) {
    const m = s.messages[x.message_index]!;
    const haystack = m.text + '\n' + m.blocks.map((b) => JSON.stringify(b)).join('\n') + '\n' + m.blocks.map((b) => String((b as { content?: unknown }).content ?? '') + Object.values(((b as { input?: Record<string, unknown> }).input ?? {}) as Record<string, unknown>).join('\n')).join('\n');
    assert.ok(haystack.includes(x.quote), `quote not verbatim: ${x.quote}`);
  }
}

test('a placeholder in code the agent writes is detected with its line as the quote', () => {
  const c = new Conversation();
  c.user('Implement parseDate in src/dates.ts for ISO strings and epoch seconds.');
  const [write] = c.tool('Write', { file_path: 'src/dates.ts', content: 'export function parseDate(s) {\n  // ... rest of the implementation\n}\n' }, 'File written');
  c.agent('I implemented parseDate.');
  const s = c.snapshot();
  const d = detectLaziness(s);
  assert.equal(patterns(d), ['placeholder_code']);
  assert.is(d[0]!.message_index, write);
  assert.is(d[0]!.quote, '// ... rest of the implementation');
  assert.ok(d[0]!.confidence >= 0.5);
  assert.ok(isLazyConversation(d));
  assertVerbatim(s, d);
});

test('placeholders the person asked for, and code the person pasted, are not laziness', () => {
  const asked = new Conversation();
  asked.user('Create a skeleton for the payment module with TODO comments for each handler.');
  asked.tool('Write', { file_path: 'pay.ts', content: 'export function charge() {\n  // TODO: implement charge\n}\n' }, 'ok');
  asked.agent('Created the skeleton with TODO comments as you asked.');
  assert.equal(detectLaziness(asked.snapshot()), []);

  const pasted = new Conversation();
  pasted.user('Why does this fail?\n\nfunction load() {\n  const cfg = read();\n  // ... rest of code\n  return cfg.value;\n}');
  pasted.agent('In your snippet:\n\n```js\nconst cfg = read();\n// ... rest of code\nreturn cfg.value;\n```\n\n`read()` returns undefined when the file is missing.');
  assert.equal(detectLaziness(pasted.snapshot()), []);
});

test('"left as an exercise" counts, quoted or in a code block it does not', () => {
  const plain = new Conversation();
  plain.user('Write the CSV exporter for the reports page.');
  plain.tool('Write', { file_path: 'export.py', content: 'def export_csv(rows):\n    return "\\n".join(rows)\n' }, 'ok');
  plain.agent('I wrote export_csv. I left the quoting of commas as an exercise.');
  const d = detectLaziness(plain.snapshot());
  assert.equal(patterns(d), ['left_as_exercise']);
  assert.ok(d[0]!.confidence >= 0.5);
  assert.is(d[0]!.quote, 'I left the quoting of commas as an exercise.');

  const quoted = new Conversation();
  quoted.user('Fix the README.');
  quoted.tool('Edit', { file_path: 'README.md', old_string: 'rest is left as an exercise', new_string: 'Run npm install.' }, 'ok');
  quoted.agent('The old README said "the rest is left as an exercise for the reader"; I replaced that line. In code: `// left as an exercise`.');
  assert.equal(detectLaziness(quoted.snapshot()), []);
});

test('claiming a fix with nothing run since the request is unverified completion; after a test run it is not', () => {
  const lazy = new Conversation();
  lazy.user('What does src/checkout.ts export?');
  lazy.tool('Read', { file_path: 'src/checkout.ts' }, 'export function handleCheckout() {}');
  lazy.agent('It exports handleCheckout.');
  lazy.user('Fix the crash in handleCheckout when the cart is empty.');
  lazy.agent("I've fixed the crash, it works now.");
  assert.equal(patterns(detectLaziness(lazy.snapshot())), ['unverified_completion']);

  const done = new Conversation();
  done.user('Fix the crash in handleCheckout when the cart is empty.');
  done.tool('Edit', { file_path: 'src/checkout.ts', old_string: 'cart.items[0]', new_string: 'cart.items[0] ?? null' }, 'ok');
  done.tool('Bash', { command: 'npm test' }, '24 passing');
  done.agent("I've fixed the crash; all tests pass.");
  assert.equal(detectLaziness(done.snapshot()), []);
});

test('requested tests not run before reporting done are skipped tests', () => {
  const c = new Conversation();
  c.user('Add retry with backoff to fetchUser. Add tests and run them.');
  c.tool('Edit', { file_path: 'api/client.py', old_string: 'def fetch_user', new_string: 'def fetch_user_with_retry' }, 'ok');
  c.agent("I've implemented the retry; the feature is complete.");
  const d = detectLaziness(c.snapshot());
  assert.equal(patterns(d), ['skipped_tests']);
  assert.ok(isLazyConversation(d));
});

test('truncated data is flagged apart and never makes a conversation lazy', () => {
  const c = new Conversation();
  c.user('Run the test suite and tell me what fails.');
  c.tool('Bash', { command: 'npm test' }, 'FAIL src/a.test.ts\n[output truncated: 48211 characters]');
  c.agent('The test output was truncated, so I only see the first failure in src/a.test.ts.');
  const d = detectLaziness(c.snapshot());
  assert.ok(d.length >= 1);
  assert.ok(d.every((x) => x.truncated_data));
  assert.not.ok(isLazyConversation(d));
  assert.equal(countedDetections(d), []);
});

test('a weak pattern alone does not count; two weak families together do', () => {
  const one = new Conversation();
  one.user('Implement the payment handlers.');
  one.tool('Write', { file_path: 'pay.ts', content: 'export const charge = () => api.charge();\n' }, 'ok');
  one.agent("I implemented charge. Let's do the rest in a follow-up step.");
  const d1 = detectLaziness(one.snapshot());
  assert.equal(patterns(d1), ['refusal_deferral']);
  assert.not.ok(isLazyConversation(d1));

  const two = new Conversation();
  two.user('Implement the payment handlers.');
  two.tool('Write', { file_path: 'pay.ts', content: 'export const charge = () => api.charge();\n' }, 'ok');
  two.agent("I implemented charge. Let's do the rest in a follow-up step. I didn't run the tests.");
  const d2 = detectLaziness(two.snapshot());
  assert.equal(patterns(d2).sort(), ['refusal_deferral', 'skipped_tests']);
  assert.ok(isLazyConversation(d2));
  assert.is(countedDetections(d2).length, 2);
});

test('instructions for things only the person can do are not handing work back', () => {
  const c = new Conversation();
  c.user('Add bin/ to the PATH for this project.');
  c.tool('Write', { file_path: '.envrc', content: 'export PATH=$PWD/bin:$PATH\n' }, 'ok');
  c.agent("Added bin/ to PATH in .envrc. You'll need to restart your terminal for it to take effect. If you need to add more tools later, put them in bin/.");
  assert.equal(detectLaziness(c.snapshot()), []);
});

test('real Claude Code sessions read by hand as diligent raise no headline detection (a TODO app included)', () => {
  for (const f of ['1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl', '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl', 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl']) {
    const [s] = snapshotsFromDirectEvents(convertFile(dataPath('claude-code-viewer', f)).events).snapshots;
    const d = detectLaziness(s!);
    assert.equal(countedDetections(d), [], f);
    assertVerbatim(s!, d);
  }
});

test.run();
