/**
 * The world-state endpoints through the real path (POST /v1/ingest -> stream -> analysis -> query):
 * nothing before it is built; slots with provenance on a real tau-bench conversation (expected
 * values read from the raw trajectory, not from the analysis); every parameter, default, clamp
 * and 400 rule; replay frames equal to the snapshot and to folding `fold_inputs`; the 5,000-frame
 * cap on a long generated conversation; the `world_state` list filter; tenant isolation; a second
 * conversation of the same user warm-started with the first one's durable slots.
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Ajv } from 'ajv';
import { ENDPOINTS } from '../../../schemas/api/index.js';
import { applyEvent, cloneFoldState, sortedSlots } from '../../../schemas/world-state.js';
import { convertTrajectory, trajectoriesOf } from '../../../stream/import/openai-chat.js';
import { eventually, startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { dataPath } from '../../helpers/shared.js';

let ts: TestSystem;
let otherKey: string;
const ajv = new Ajv({ strict: false, allErrors: true });
const validators = ENDPOINTS.map((e) => ({ re: new RegExp(`^${e.path.replace(/\{\w+\}/g, '[^/]+')}$`), method: e.method, validate: ajv.compile(e.response) }));
const get = async (path: string, key = ts.adminKey) => {
  const r = await http(`${ts.queryUrl}/api/v1/data${path}`, { headers: { 'x-api-key': key } });
  if (r.status === 200) {
    const v = validators.find((x) => x.method === 'get' && x.re.test(path.split('?')[0]!))!;
    assert.ok(v.validate(r.body), `${path} does not match its response schema: ${JSON.stringify(v.validate.errors)}`);
  }
  return r;
};
const ingest = async (events: unknown[], key = ts.adminKey) => {
  for (let i = 0; i < events.length; i += 1000) {
    const r = await http(`${ts.ingestUrl}/v1/ingest`, { headers: { authorization: `Bearer ${key}` }, body: { events: events.slice(i, i + 1000) } });
    assert.is(r.status, 200, r.text);
  }
};
const built = (id: string, key = ts.adminKey) => eventually(async () => ((await get(`/conversations/${encodeURIComponent(id)}/world-state`, key)).body.hasData ? true : undefined), { timeoutMs: 60_000 });

// one real tau-bench trajectory: task 0 trial 0 (a booking; the user states their id in words)
const raw = JSON.parse(readFileSync(dataPath('tau-bench', 'gpt-4o-airline.json'), 'utf8')) as Array<{ task_id: number; trial: number; traj: Array<{ role: string; content: string | null; tool_calls?: Array<{ function: { name: string; arguments: string } }> }> }>;
const TAU = raw.find((t) => t.task_id === 0 && t.trial === 0)!;
const tauTrajectory = trajectoriesOf([TAU], 'tau.json')[0]!;
const TAU_ID = tauTrajectory.id;

test.before(async () => {
  ts = await startTestSystem({ env: { ANALYZE_DEBOUNCE_MS: '100' } });
  otherKey = (await ts.system.rt.keys.create({ tenant: 'acme', role: 'admin', scopes: ['ingest', 'read'] })).key;
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

test('before anything is built: hasData false, empty blocks; replay and snapshot say so too', async () => {
  const r = await get('/conversations/nothing-yet/world-state');
  assert.is(r.status, 200);
  assert.equal(r.body, { hasData: false, userId: null, userDurableProfile: null, conversationWarmstart: null, segments: [], events: [], summary: { eventCount: 0, segmentCount: 0, lastUpdatedAt: null } });
  assert.equal((await get('/conversations/nothing-yet/world-state/replay')).body, { hasData: false, messageCount: 0, frames: [] });
  assert.equal((await get('/conversations/nothing-yet/world-state/replay?format=fold_inputs')).body, { hasData: false, messageCount: 0, keyframes: [], events: [] });
  const snap = await get('/conversations/nothing-yet/world-state/snapshot?msg_index=3&block_index=0');
  assert.equal(snap.body, { found: false, segmentIndex: null, msgIndex: 3, blockIndex: 0, slots: {} });
});

test('a real tau-bench conversation: user id, chosen options and the created reservation with provenance at the right messages', async () => {
  await ingest(convertTrajectory(tauTrajectory));
  assert.ok(await built(TAU_ID));
  const ws = (await get(`/conversations/${encodeURIComponent(TAU_ID)}/world-state`)).body;
  // expected, read from the raw trajectory: the user id the agent looked up, the first message naming it
  const calls = TAU.traj.flatMap((m, i) => (m.tool_calls ?? []).map((c) => ({ i, name: c.function.name, args: JSON.parse(c.function.arguments) })));
  const userId = calls.find((c) => c.args.user_id)!.args.user_id as string;
  const firstUserMention = TAU.traj.findIndex((m) => m.role === 'user' && (m.content ?? '').includes(userId));
  const userSet = ws.events.find((e: any) => e.slotKey === 'user_id' && e.eventType === 'slot_set');
  assert.equal([userSet.newValue, userSet.msgIndex, userSet.provenance.source], [userId, firstUserMention, 'user_text']);
  // the booking: its options at the (last) successful booking call, the reservation it created at its result
  const results = TAU.traj.map((m, i) => ({ i, m })).filter(({ m }) => m.role === 'tool' && /"reservation_id"/.test(m.content ?? ''));
  const created = JSON.parse(results[results.length - 1]!.m.content!).reservation_id as string;
  const reservation = ws.events.find((e: any) => e.slotKey === 'reservation_id' && e.newValue === created);
  assert.equal([reservation.msgIndex, reservation.provenance.source, reservation.provenance.tool], [results[results.length - 1]!.i, 'tool_result', 'book_reservation']);
  const booking = calls.filter((c) => c.name === 'book_reservation')[0]!;
  const cabin = ws.events.find((e: any) => e.slotKey === 'cabin');
  assert.equal([cabin.newValue, cabin.msgIndex, cabin.provenance.source], [booking.args.cabin, booking.i, 'tool_input']);
  // the final state holds them; the thread the person opened is resolved (they thanked and stopped)
  const last = ws.segments[ws.segments.length - 1];
  assert.is(last.slots.user_id.value, userId);
  assert.is(last.slots.reservation_id.value, created);
  assert.ok(ws.segments.flatMap((g: any) => g.openThreads).every((t: any) => t.status === 'resolved'), JSON.stringify(ws.segments.map((g: any) => g.openThreads)));
  assert.is(ws.summary.eventCount, ws.events.length);
  assert.is(ws.summary.segmentCount, ws.segments.length);
});

test('world-state parameters: event_limit default, clamps and 400s; summary_only', async () => {
  const path = `/conversations/${encodeURIComponent(TAU_ID)}/world-state`;
  const all = (await get(path)).body;
  assert.ok(all.events.length > 2 && all.events.length <= 2000);
  assert.is((await get(`${path}?event_limit=1`)).body.events.length, 1);
  assert.is((await get(`${path}?event_limit=0`)).body.events.length, 1, '0 clamps to 1');
  assert.equal((await get(`${path}?event_limit=99999`)).body.events, all.events, 'past 5,000 clamps to 5,000');
  assert.equal((await get(`${path}?event_limit=2`)).body.events, all.events.slice(0, 2), 'the first events in fold order');
  const summary = (await get(`${path}?summary_only=1`)).body;
  assert.equal([summary.segments, summary.events, summary.summary], [[], [], all.summary]);
  assert.equal(summary.segmentSummaries.map((s: any) => [s.segmentIndex, s.durableCount]), all.segments.map((g: any) => [g.segmentIndex, g.slotCounts.durable]));
  assert.ok(summary.segmentSummaries.every((s: any) => s.topSlots.length <= 5));
  for (const [q, message] of [['event_limit=-1', /event_limit must be a non-negative integer/], ['event_limit=2.5', /event_limit must be an integer/], ['summary_only=yes', /summary_only must be one of/]] as const) {
    const r = await get(`${path}?${q}`);
    assert.is(r.status, 400, q);
    assert.ok(r.body.message.some((m: string) => message.test(m)), JSON.stringify(r.body.message));
  }
});

test('replay: one frame per message equal to the snapshot there and to folding fold_inputs; message_count; 400s', async () => {
  const base = `/conversations/${encodeURIComponent(TAU_ID)}/world-state`;
  const replay = (await get(`${base}/replay`)).body;
  assert.is(replay.messageCount, TAU.traj.length);
  assert.is(replay.frames.length, TAU.traj.length);
  const fold = (await get(`${base}/replay?format=fold_inputs`)).body;
  assert.is(fold.events.length, (await get(base)).body.summary.eventCount, 'fold_inputs carries every event');
  for (const frame of replay.frames) {
    const snap = (await get(`${base}/snapshot?msg_index=${frame.msgIndex}&block_index=999`)).body;
    assert.equal([snap.found, snap.segmentIndex, snap.slots], [true, frame.segmentIndex, frame.slots], `message ${frame.msgIndex}`);
    assert.is(frame.slotsJson, JSON.stringify(frame.slots));
    // a client folding from the last keyframe at or before the message
    const k = [...fold.keyframes].reverse().find((x: any) => x.msgIndex <= frame.msgIndex);
    const state = cloneFoldState({ slots: k.slots, openThreads: k.openThreads });
    for (const e of fold.events.slice(k.eventIndex)) if (e.msgIndex <= frame.msgIndex) applyEvent(state, e);
    assert.equal([sortedSlots(state.slots), state.openThreads], [frame.slots, frame.openThreads]);
  }
  const five = (await get(`${base}/replay?message_count=5`)).body;
  assert.equal([five.messageCount, five.frames], [5, replay.frames.slice(0, 5)]);
  assert.is((await get(`${base}/replay?message_count=100000`)).body.messageCount, TAU.traj.length, 'past the end: all history');
  for (const [q, message] of [['format=json', /format must be one of: frames, fold_inputs/], ['message_count=-2', /message_count must be a non-negative integer/], ['message_count=x', /message_count must be an integer/]] as const) {
    const r = await get(`${base}/replay?${q}`);
    assert.is(r.status, 400, q);
    assert.ok(r.body.message.some((m: string) => message.test(m)), JSON.stringify(r.body.message));
  }
});

test('snapshot: block granularity, clamped message index, segment_index, 400s', async () => {
  const base = `/conversations/${encodeURIComponent(TAU_ID)}/world-state`;
  const ws = (await get(base)).body;
  const e = ws.events.find((x: any) => x.blockIndex > 0 && x.eventType === 'slot_set');
  const before = (await get(`${base}/snapshot?msg_index=${e.msgIndex}&block_index=${e.blockIndex - 1}`)).body;
  const at = (await get(`${base}/snapshot?msg_index=${e.msgIndex}&block_index=${e.blockIndex}`)).body;
  assert.is(before.slots[e.slotKey], undefined);
  assert.is(at.slots[e.slotKey].value, e.newValue);
  const past = (await get(`${base}/snapshot?msg_index=100000&block_index=0`)).body;
  assert.equal([past.found, past.msgIndex], [true, TAU.traj.length - 1]);
  const wrong = (await get(`${base}/snapshot?msg_index=0&block_index=0&segment_index=${ws.segments.length + 3}`)).body;
  assert.equal([wrong.found, wrong.slots], [false, {}]);
  const right = (await get(`${base}/snapshot?msg_index=0&block_index=0&segment_index=0`)).body;
  assert.is(right.found, true);
  for (const [q, message] of [['block_index=0', /msg_index is required/], ['msg_index=1', /block_index is required/], ['msg_index=-1&block_index=0', /msg_index must be a non-negative integer/], ['msg_index=1&block_index=0&segment_index=a', /segment_index must be an integer/]] as const) {
    const r = await get(`${base}/snapshot?${q}`);
    assert.is(r.status, 400, q);
    assert.ok(r.body.message.some((m: string) => message.test(m)), JSON.stringify(r.body.message));
  }
});

test('the world_state filter finds a conversation by a reservation id it mentions; terms are ANDed, case-insensitive', async () => {
  const ws = (await get(`/conversations/${encodeURIComponent(TAU_ID)}/world-state`)).body;
  const reservation = ws.segments[ws.segments.length - 1].slots.reservation_id.value as string;
  const list = async (q: string, key = ts.adminKey) => (await get(`/conversations?world_state=${encodeURIComponent(q)}`, key)).body.conversations.map((c: any) => c.conversation_id);
  assert.equal(await list(reservation.toLowerCase()), [TAU_ID]);
  assert.equal(await list(`${reservation}, economy`), [TAU_ID]);
  assert.equal(await list(`${reservation}, no-such-thing`), []);
  assert.equal(await list(' , '), (await get('/conversations')).body.conversations.map((c: any) => c.conversation_id), 'blank terms: no filter');
  assert.equal(await list(reservation, otherKey), [], 'another tenant does not see it');
});

test('tenant isolation: another tenant sees no world state of this conversation, nor its own under the same id', async () => {
  const path = `/conversations/${encodeURIComponent(TAU_ID)}/world-state`;
  assert.is((await get(path, otherKey)).body.hasData, false);
  assert.is((await get(`${path}/snapshot?msg_index=1&block_index=0`, otherKey)).body.found, false);
  // the same conversation id in the other tenant, with other facts
  await ingest([{ conversation_id: TAU_ID, role: 'user', message: 'my user id is acme_user_42', user_id: 'acme-u' }], otherKey);
  assert.ok(await built(TAU_ID, otherKey));
  const other = (await get(path, otherKey)).body;
  assert.equal(Object.keys(other.segments[0].slots), ['user_id']);
  assert.is(other.segments[0].slots.user_id.value, 'acme_user_42');
  const mine = (await get(path)).body;
  assert.not.equal(mine.segments[0].slots.user_id.value, 'acme_user_42');
});

test('user memory: a second conversation of the same user starts with the first one\'s durable slots', async () => {
  const t0 = Date.now() - 3_600_000;
  const at = (s: number) => new Date(t0 + s * 1000).toISOString();
  await ingest([
    { conversation_id: 'mem-1', user_id: 'u-7', role: 'user', message: 'Hi, my user id is dana_k_7731 and my email is dana@example.org. I need to cancel reservation QX81Z2.', timestamp: at(0) },
    { conversation_id: 'mem-1', user_id: 'u-7', role: 'assistant', message: 'Done, reservation QX81Z2 is cancelled.', timestamp: at(5) },
    { conversation_id: 'mem-1', user_id: 'u-7', role: 'user', message: 'Thanks, that is all.', timestamp: at(9) },
  ]);
  assert.ok(await built('mem-1'));
  await ingest([
    { conversation_id: 'mem-2', user_id: 'u-7', role: 'user', message: 'Hello again, I want to book a flight.', timestamp: at(600) },
    { conversation_id: 'mem-2', user_id: 'u-7', role: 'assistant', message: 'Sure, where to?', timestamp: at(605) },
  ]);
  assert.ok(await built('mem-2'));
  const second = (await get('/conversations/mem-2/world-state')).body;
  assert.is(second.userId, 'u-7');
  const warm = second.conversationWarmstart;
  assert.equal(Object.keys(warm.slots).sort(), ['email', 'user_id']);
  assert.equal([warm.slots.user_id.value, warm.slots.user_id.source.source, warm.slots.user_id.source.conversationId, warm.slots.user_id.source.msgIndex], ['dana_k_7731', 'carry_in', 'mem-1', 0]);
  assert.is(warm.slots.email.value, 'dana@example.org');
  assert.equal(second.segments[0].carryIn, warm.slots, 'carried into the first segment');
  assert.is(second.userDurableProfile.slots.user_id.value, 'dana_k_7731');
  // the reservation was segment-local: not carried
  assert.is(second.segments[0].slots.reservation_id, undefined);
  // the first conversation started before anything was known: no warm start, even after the second ran
  assert.is((await get('/conversations/mem-1/world-state')).body.conversationWarmstart, null);
});

test('a long generated conversation: frames capped at 5,000, fold_inputs uncapped', async () => {
  const n = 5100;
  const t0 = Date.now() - 7_200_000;
  const events = Array.from({ length: n }, (_, i) => ({
    conversation_id: 'long-1',
    role: i % 2 ? 'assistant' : 'user',
    message: i % 2 ? `Noted item ${i}.` : `Please also track order #A${100000 + i}.`,
    timestamp: new Date(t0 + i * 100).toISOString(),
  }));
  await ingest(events);
  const done = await eventually(async () => {
    // analyzed as a whole once the replay covers every message (earlier runs saw a prefix)
    const whole = (await get(`/conversations/long-1/world-state/replay?format=fold_inputs&message_count=${n}`)).body.messageCount === n;
    return whole ? (await get('/conversations/long-1/world-state?summary_only=1')).body : undefined;
  }, { timeoutMs: 120_000 });
  assert.ok(done, 'long conversation analyzed');
  const frames = (await get('/conversations/long-1/world-state/replay')).body;
  assert.equal([frames.messageCount, frames.frames.length], [n, 5000]);
  const fold = (await get('/conversations/long-1/world-state/replay?format=fold_inputs')).body;
  assert.is(fold.messageCount, n);
  assert.is(fold.events.length, done.summary.eventCount);
  assert.ok(fold.events.some((e: any) => e.msgIndex >= 5000), 'events past the frame cap are there');
  const lastOrder = fold.events.filter((e: any) => e.slotKey === 'order_id').pop();
  assert.is(lastOrder.newValue, `#A${100000 + n - 2}`);
  assert.is((await get('/conversations/long-1/world-state?event_limit=99999')).body.events.length, Math.min(5000, done.summary.eventCount));
});

test.run();
