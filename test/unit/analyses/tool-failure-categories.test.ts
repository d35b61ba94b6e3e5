import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildSnapshot, type StoredMessage } from '../../../stream/analyses/snapshot.js';
import {
  categorizeCalls,
  categoryId,
  createCategoryRegistry,
  prime,
  type RegisteredCategory,
} from '../../../stream/analyses/tool-failure-categories.js';
import type { SnapshotToolCall } from '../../../stream/analyses/types.js';
import { convertTrajectory, trajectoriesOf } from '../../../stream/import/index.js';
import { snapshotsFromDirectEvents } from '../../../stream/analyses/direct-input.js';
import { dataPath } from '../../helpers/shared.js';

let n = 0;
function call(toolName: string, resultText: string, extra: Partial<SnapshotToolCall> = {}): SnapshotToolCall {
  const key = `call-${++n}`;
  return {
    key,
    toolUseId: key,
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

const FAILURES = [
  call('book_reservation', 'Error: not enough seats on flight HAT139'),
  call('update_reservation_flights', 'Error: not enough seats on flight HAT290'),
  call('Edit', '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>'),
  call('Write', 'Error: File has not been read yet. Read it first before writing to it.'),
  call('Bash', 'Error: ls: specs/fixtures/users/: No such file or directory'),
  call('bash', '<returncode>1</returncode>\n<output>\ncat: /repo/tests/a.py: No such file or directory\n</output>'),
  call('Bash', 'No (tell Claude what to do differently)'),
  call('Update', 'User rejected update to docs/a.md\n 1 - old'),
  call('Bash', 'Interrupted by user'),
  call('WebFetch', 'Request failed with status code 404'),
  call('WebFetch', 'Request failed with status code 403'),
  call('Bash', 'Error: Command timed out after 2m 0.0s'),
];

const idOf = (r: ReturnType<typeof createCategoryRegistry>, c: SnapshotToolCall) => r.assign(c)?.id;

test('calls that did not fail get no category', () => {
  const r = createCategoryRegistry([]);
  assert.is(r.assign(call('Read', 'file contents', { success: true })), null);
  assert.is(r.assign(call('Read', '', { success: null })), null);
  assert.is(r.created().length, 0);
  const declined = r.assign(call('Write', '', { success: null, decision: 'reject' }));
  assert.is(declined?.family, 'user_rejected');
});

test('the same cause gets the same category across tools and conversations; other causes do not', () => {
  const r = createCategoryRegistry([], { tenantSeed: 't1' });
  const [seats1, seats2, read1, read2, ls, cat, no, rejected, interrupted, e404, e403, timeout] = FAILURES.map((c) => idOf(r, c));
  assert.is(seats1, seats2);
  assert.is(read1, read2);
  assert.is(ls, cat);
  assert.is(no, rejected);
  assert.is.not(no, interrupted);
  assert.is.not(e404, e403);
  assert.is(new Set([seats1, read1, ls, no, interrupted, e404, e403, timeout]).size, 8);
  const labels = r.all().map((c) => c.label);
  assert.ok(labels.includes('Not enough seats on flight ‹id›'), labels.join(' | '));
  assert.ok(labels.includes('File has not been read yet'), labels.join(' | '));
});

test('codes, short statements and leading words keep causes apart; a varying value does not split one', () => {
  const r = createCategoryRegistry([]);
  const [e404, eresolve, s500, s502] = [
    call('Bash', 'Exit code 1\nnpm ERR! code E404'),
    call('Bash', 'Exit code 1\nnpm ERR! code ERESOLVE'),
    call('fetch_page', 'Error: upstream answered with status code 500'),
    call('fetch_page', 'Error: upstream answered with status code 502'),
  ].map((c) => idOf(r, c));
  assert.is.not(e404, eresolve);
  assert.is.not(s500, s502);
  assert.is.not(idOf(r, call('parse_input', 'Error: invalid date')), idOf(r, call('parse_input', 'Error: invalid token')));
  // the leading word is part of the template (Drain's tree): entities of a domain stay apart
  assert.is.not(idOf(r, call('get_user', 'Error: user not found')), idOf(r, call('get_order', 'Error: order not found')));
  assert.is(idOf(r, call('get_order', 'Error: order #W2611340 not found')), idOf(r, call('get_order', 'Error: order #W9911340 not found')));
});

test('a category carries family, label, likely cause and action hint from its own words', () => {
  const r = createCategoryRegistry([]);
  const c = r.assign(call('book_reservation', 'Error: not enough seats on flight HAT139'))!;
  assert.is(c.family, 'business_rule');
  assert.match(c.likely_cause, /Not enough seats on flight/);
  assert.ok(c.action_hint.length > 20);
  const [registered] = r.created();
  assert.is(registered!.template, 'not enough seats on flight <ID>');
  assert.is(registered!.tool_hint, 'book_reservation');
});

test('ids are deterministic hashes of tenant, family and template', () => {
  const id = categoryId('tenant-a', 'not_found', 'File does not exist');
  assert.match(id, /^tfc_[0-9a-f]{12}$/);
  assert.is(categoryId('tenant-a', 'not_found', 'File does not exist'), id);
  assert.is.not(categoryId('tenant-b', 'not_found', 'File does not exist'), id);
  assert.is.not(categoryId('tenant-a', 'invalid_input', 'File does not exist'), id);
  const r = createCategoryRegistry([], { tenantSeed: 'tenant-a' });
  const c = r.assign(call('Read', 'File does not exist.'))!;
  assert.is(c.id, id);
  // two replicas issuing the same category concurrently agree on its id
  assert.is(createCategoryRegistry([], { tenantSeed: 'tenant-a' }).assign(call('Read', 'File does not exist.'))!.id, id);
});

test('ids never change when the registry is re-created from all(), in any order', () => {
  const first = createCategoryRegistry([], { tenantSeed: 't' });
  prime(first, FAILURES);
  const before = FAILURES.map((c) => idOf(first, c));
  const again = createCategoryRegistry(first.all(), { tenantSeed: 't' });
  assert.equal(FAILURES.map((c) => idOf(again, c)), before);
  assert.is(again.created().length, 0);
  const reversed = createCategoryRegistry([...first.all()].reverse(), { tenantSeed: 't' });
  assert.equal([...FAILURES].reverse().map((c) => idOf(reversed, c)), [...before].reverse());
});

test('an existing id survives a later, more general template', () => {
  const r1 = createCategoryRegistry([], { tenantSeed: 't' });
  const original = idOf(r1, call('update_reservation_flights', 'Error: flight HAT030 not available on date 2024-05-13'))!;
  const stored: RegisteredCategory[] = r1.all();
  const r2 = createCategoryRegistry(stored, { tenantSeed: 't' });
  const wider = [
    call('book_reservation', 'Error: flight HAT101 not available on date 2024-06-01 in economy'),
    call('book_reservation', 'Error: flight HAT102 not available on date 2024-06-02 in business'),
  ];
  prime(r2, wider);
  assert.is(r2.created().length, 0, 'no new category for a generalization of a known one');
  for (const c of wider) assert.is(idOf(r2, c), original);
  assert.equal(r2.all(), stored);
});

test('categories are deterministic and priming does not depend on input order', () => {
  const run = (calls: readonly SnapshotToolCall[]) => {
    const r = createCategoryRegistry([], { tenantSeed: 't' });
    prime(r, calls);
    return { all: r.all().map((c) => c.id).sort(), ids: FAILURES.map((c) => idOf(r, c)) };
  };
  const a = run(FAILURES);
  assert.equal(run(FAILURES), a);
  assert.equal(run([...FAILURES].reverse()), a);
  assert.equal(run([...FAILURES.slice(5), ...FAILURES.slice(0, 5)]), a);
});

test('categorizeCalls returns one result per call of the snapshot', () => {
  const m = (i: number, role: 'assistant' | 'user', blocks: StoredMessage['blocks']): StoredMessage => ({ messageId: `m${i}`, role, content: '', blocks, tsMs: i, threadId: '' });
  const snapshot = buildSnapshot({
    tenantId: 't',
    conversationId: 'c',
    messages: [
      m(0, 'assistant', [{ type: 'tool_use', tool_use_id: 'a', tool_name: 'Read', input: { file_path: 'x.md' } }]),
      m(1, 'user', [{ type: 'tool_result', tool_use_id: 'a', content: 'hello', is_error: false }]),
      m(2, 'assistant', [{ type: 'tool_use', tool_use_id: 'a', tool_name: 'Read', input: { file_path: 'y.md' } }]),
      m(3, 'user', [{ type: 'tool_result', tool_use_id: 'a', content: 'File does not exist.', is_error: true }]),
    ],
  });
  const out = categorizeCalls(snapshot, createCategoryRegistry([]));
  assert.is(out.length, 2);
  assert.equal(out.map((r) => [r.message_index, r.tool_use_id, r.tool_name, r.success, r.effect_class]), [
    [0, 'a', 'Read', true, 'read'],
    [2, 'a#2', 'Read', false, 'read'],
  ]);
  assert.is(out[0]!.category, null);
  assert.is(out[1]!.category?.family, 'not_found');
});

test('tau-bench failures: every failed call gets a category, and equal messages up to ids share one', () => {
  const json = JSON.parse(readFileSync(dataPath('tau-bench/gpt-4o-airline.json'), 'utf8')) as unknown;
  const events = trajectoriesOf(json, 'gpt-4o-airline.json').flatMap(convertTrajectory);
  const { snapshots } = snapshotsFromDirectEvents(events, { tenantId: 't', nowMs: 0 });
  const r = createCategoryRegistry([], { tenantSeed: 't' });
  const failed = snapshots.flatMap((s) => categorizeCalls(s, r).map((res, i) => ({ res, text: s.toolCalls[i]!.resultText }))).filter((x) => x.res.success === false);
  assert.is(failed.length, 73);
  assert.ok(failed.every((x) => x.res.category !== null));
  // independent of the miner: the message with flight numbers and digits blanked out
  const shape = (t: string) => t.replace(/\b[A-Z]+\d+\b|\b\w*_\d+\b|\d+/g, '#');
  const idsByShape = new Map<string, Set<string>>();
  for (const x of failed) idsByShape.set(shape(x.text), (idsByShape.get(shape(x.text)) ?? new Set()).add(x.res.category!.id));
  for (const [s, ids] of idsByShape) assert.is(ids.size, 1, s);
});

test.run();
