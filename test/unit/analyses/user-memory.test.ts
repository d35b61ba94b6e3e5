/**
 * User memory (stream/analyses/user-memory.ts) and its pass over an analysis batch
 * (stream/analyze/state-rows.ts via work.ts): warm start only from other, earlier conversations;
 * a conversation's contribution replaces its previous one; bounds; order independence; a batch
 * with two conversations of one user writes one memory row and warm-starts the later one.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SlotMap } from '../../../schemas/world-state.js';
import { contributionOf, emptyMemory, mergeMemory, parseMemory, warmstart, MAX_MEMORY_SLOTS, MAX_VALUES_PER_SLOT } from '../../../stream/analyses/user-memory.js';
import { runAnalysisWork } from '../../../stream/analyze/work.js';
import type { MessageRowIn, WorkItem } from '../../../stream/analyze/work-items.js';

const iso = (ms: number) => new Date(ms).toISOString();
const slots = (at: number, values: Record<string, string>): SlotMap =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, { value: v, durable: true, updatedAt: iso(at), source: { source: 'user_text' as const, msgIndex: 2, blockIndex: 0 } }]));

test('warm start: values stated in other conversations at or before the start; none of the conversation itself', () => {
  let m = emptyMemory('u1');
  m = mergeMemory(m, 'c1', contributionOf('c1', slots(1000, { user_id: 'ana_1', email: 'a@x.io' })));
  m = mergeMemory(m, 'c3', contributionOf('c3', slots(5000, { email: 'new@x.io' })));
  const w = warmstart(m, 'c2', 3000)!;
  assert.equal(Object.fromEntries(Object.entries(w.slots).map(([k, v]) => [k, [v.value, v.source.source, v.source.conversationId]])), { email: ['a@x.io', 'carry_in', 'c1'], user_id: ['ana_1', 'carry_in', 'c1'] });
  assert.equal([w.slotCount, w.updatedAt], [2, iso(1000)]);
  assert.is(warmstart(m, 'c1', 10_000)!.slots.user_id, undefined, 'never its own values');
  assert.is(warmstart(m, 'c1', 10_000)!.slots.email!.value, 'new@x.io');
  assert.is(warmstart(m, 'c0', 500), null, 'nothing known yet');
  assert.is(warmstart(undefined, 'c0', 500), null);
});

test('merge: a conversation\'s contribution replaces its earlier one; carried-in slots are not contributions', () => {
  let m = mergeMemory(emptyMemory('u1'), 'c1', contributionOf('c1', slots(1000, { user_id: 'ana_1', email: 'a@x.io' })));
  m = mergeMemory(m, 'c1', contributionOf('c1', slots(2000, { user_id: 'ana_2' })));
  assert.equal(Object.keys(m.slots), ['user_id']);
  assert.equal(m.slots.user_id!.map((e) => e.value), ['ana_2']);
  const carried: SlotMap = { zip: { value: '9', durable: true, updatedAt: iso(1), source: { source: 'carry_in', conversationId: 'c0', msgIndex: 0, blockIndex: 0 } } };
  assert.equal(contributionOf('c9', carried), {});
});

test('bounds: at most MAX_VALUES_PER_SLOT values per slot (newest first) and MAX_MEMORY_SLOTS keys (most recent kept)', () => {
  let m = emptyMemory('u1');
  for (let i = 0; i < MAX_VALUES_PER_SLOT + 2; i++) m = mergeMemory(m, `c${i}`, contributionOf(`c${i}`, slots(1000 + i, { email: `e${i}@x.io` })));
  assert.equal(m.slots.email!.map((e) => e.conversationId), Array.from({ length: MAX_VALUES_PER_SLOT }, (_, k) => `c${MAX_VALUES_PER_SLOT + 1 - k}`));
  for (let i = 0; i < MAX_MEMORY_SLOTS + 5; i++) m = mergeMemory(m, `k${i}`, contributionOf(`k${i}`, slots(10_000 + i, { [`key_${i}`]: 'v' })));
  assert.is(Object.keys(m.slots).length, MAX_MEMORY_SLOTS);
  assert.ok(m.slots[`key_${MAX_MEMORY_SLOTS + 4}`] && !m.slots.key_0 && !m.slots.email);
});

test('merging contributions in any order gives the same document; unreadable documents start empty', () => {
  const parts = [
    ['c1', slots(1000, { user_id: 'a', email: 'a@x' })],
    ['c2', slots(2000, { user_id: 'b' })],
    ['c3', slots(1500, { email: 'c@x', zip: '1' })],
  ] as const;
  const fold = (order: number[]) => order.reduce((m, i) => mergeMemory(m, parts[i]![0], contributionOf(parts[i]![0], parts[i]![1])), emptyMemory('u'));
  assert.equal(fold([0, 1, 2]), fold([2, 0, 1]));
  assert.equal(fold([1, 2, 0]), fold([0, 1, 2]));
  assert.equal(parseMemory('u', 'not json'), emptyMemory('u'));
  assert.equal(parseMemory('u', JSON.stringify(fold([0, 1, 2]))), fold([0, 1, 2]));
});

const T0 = Date.parse('2025-06-01T10:00:00.000Z');
const msg = (id: string, at: number, role: string, content: string): MessageRowIn => ({ message_id: id, role, content, tool_calls: '[]', tool_results: '[]', ts_ms: String(at), thread_id: '' });
const item = (conversationId: string, start: number, text: string, userMemory?: string): WorkItem => ({
  tenantId: 't1',
  conversationId,
  messages: [msg(`${conversationId}-0`, start, 'user', text), msg(`${conversationId}-1`, start + 1000, 'assistant', 'Noted.')],
  calls: [],
  aggregate: { events: 2, environment: 'production', user_id: 'u1', agent: 'direct', message_count: 2, first_ts: iso(start), last_ts: iso(start + 1000), input_tokens: 0, output_tokens: 0, cost_usd: 0, api_request_count: 0, api_error_count: 0, thread_count: 0, summary: '' },
  state: [],
  toolState: [],
  userMemory,
});

test('a batch with two conversations of one user: the later one (listed first) warm-starts from the earlier; one memory row', () => {
  const out = runAnalysisWork({ version: 9, items: [item('later', T0 + 60_000, 'I need a refund please'), item('earlier', T0, 'my user id is kim_42')] });
  const rows = out.tables.user_memory!;
  assert.is(rows.length, 1);
  assert.equal([rows[0]!.user_id, rows[0]!.slot_count, rows[0]!.version, rows[0]!.last_conversation_id], ['u1', 1, 9, 'later']);
  const later = out.tables.world_state!.find((r) => r.conversation_id === 'later' && r.item_key === 'conversation')!;
  const warm = JSON.parse(later.doc as string).conversationWarmstart;
  assert.equal([warm.slots.user_id.value, warm.slots.user_id.source.conversationId], ['kim_42', 'earlier']);
  assert.equal(out.items.map((i) => i.conversationId), ['later', 'earlier'], 'outcomes keep the batch order');
  assert.ok(out.items.every((i) => i.outcomes.find((o) => o.name === 'user-memory')!.ok));
  // the stored memory loaded again: nothing changes, nothing is written
  const again = runAnalysisWork({ version: 10, items: [item('earlier', T0, 'my user id is kim_42', rows[0]!.doc as string)] });
  assert.is(again.tables.user_memory, undefined);
});

test.run();
