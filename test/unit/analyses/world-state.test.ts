/** World state (stream/analyses/world-state*.ts): slots with provenance, segments, threads, events. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { analyzeSnapshot } from '../../../stream/analyses/pipeline.js';
import { buildWorldState } from '../../../stream/analyses/world-state.js';
import { factsFromUserText } from '../../../stream/analyses/world-state-speech.js';
import type { Segment } from '../../../stream/analyses/types.js';
import { conversation } from './build.js';

const facts = (text: string, agent = '') => Object.fromEntries(factsFromUserText(text, 4, agent).map((f) => [f.key, f.value]));

test('ids a person states: explicit, "<noun> <id>", answers to the ids the agent asked for; not dates, counts or measures', () => {
  assert.equal(facts('Sure, my user ID is mia_li_3668.'), { user_id: 'mia_li_3668' });
  assert.equal(facts('The reservation number is ABC123 and the order #W2378156 too'), { reservation_id: 'ABC123', order_id: '#W2378156' });
  assert.equal(facts('please cancel reservation HATHAT'), { reservation_id: 'HATHAT' });
  assert.equal(facts('it is sophia_silva_7557 and 4WQ150', 'Could you provide your user ID and the reservation ID?'), { user_id: 'sophia_silva_7557', reservation_id: '4WQ150' });
  assert.equal(facts('I fly on May 20th at 10am with 3 bags, the total number of bags is 3'), {});
  assert.equal(facts('running node v20 on port 8080, see README'), {});
});

test('e-mail, name, phone, zip, a chosen option and a file path; code is not read', () => {
  assert.equal(facts('My name is Ana Lopez, email ana.l@example.com, phone number is +1 415 555 0100, zip code 94110.'), {
    email: 'ana.l@example.com',
    name: 'Ana Lopez',
    phone: '+1 415 555 0100',
    zip: '94110',
  });
  assert.equal(facts("I'll go with the second option, the 9am flight."), { choice: 'the second option, the 9am flight' });
  assert.equal(facts('the bug is in src/query/app.ts, look there'), { file_path: 'src/query/app.ts' });
  assert.equal(facts('```\nuser id is fake_123\n```'), {});
});

test('provenance: the first statement stays when restated, a change is an update; calls add ids and chosen options', () => {
  const s = conversation([
    { user: 'my user id is ana_1 and I want to cancel reservation R2D2X9' },
    { call: 'get_reservation_details', input: { reservation_id: 'R2D2X9', verbose: true }, result: { reservation_id: 'R2D2X9', cabin: 'economy' } },
    { agent: 'Found it. Cancel R2D2X9?' },
    { user: 'Actually, it is reservation K9PP42. Yes, please proceed.' },
    { call: 'cancel_reservation', input: { reservation_id: 'K9PP42', reason: 'change_of_plan' }, result: { reservation_id: 'K9PP42', status: 'cancelled', refund_id: 'RF77' } },
  ]);
  const ws = buildWorldState(s, [{ segment_id: 'g0', start_index: 0, end_index: s.messages.length - 1 }]);
  const slotEvents = ws.events.filter((e) => !e.eventType.startsWith('thread_')).map((e) => [e.msgIndex, e.blockIndex, e.eventType, e.slotKey, e.newValue, e.provenance.source]);
  assert.equal(slotEvents, [
    [0, 0, 'slot_set', 'user_id', 'ana_1', 'user_text'],
    [0, 0, 'slot_set', 'reservation_id', 'R2D2X9', 'user_text'],
    // the read call restates the id (no event) and its `verbose` option is not a fact; its result is not read
    [4, 0, 'slot_update', 'reservation_id', 'K9PP42', 'user_text'],
    [5, 1, 'slot_set', 'reason', 'change_of_plan', 'tool_input'],
    [6, 1, 'slot_set', 'refund_id', 'RF77', 'tool_result'],
  ]);
  const slots = ws.segments[0]!.slots;
  assert.equal([slots.user_id!.durable, slots.reservation_id!.durable, slots.reservation_id!.source.msgIndex], [true, false, 4]);
});

test('a lookup by the user\'s own id yields their profile (durable); passengers listed in an action are not the user', () => {
  const s = conversation([
    { user: 'my user id is lee_5' },
    { call: 'get_user_details', input: { user_id: 'lee_5' }, result: { name: { first_name: 'Lee', last_name: 'Park' }, email: 'lee@x.io', membership: 'gold', reservations: ['A1B2C3'] } },
    { user: 'yes, book it' },
    { call: 'book_reservation', input: { user_id: 'lee_5', cabin: 'business', passengers: [{ first_name: 'Kim', last_name: 'Ode' }] }, result: { reservation_id: 'NEW123' } },
  ]);
  const ws = buildWorldState(s, [{ segment_id: 'g0', start_index: 0, end_index: s.messages.length - 1 }]);
  const slots = ws.segments[0]!.slots;
  assert.equal([slots.first_name?.value, slots.last_name?.value, slots.email?.value, slots.membership?.value], ['Lee', 'Park', 'lee@x.io', 'gold']);
  assert.equal([slots.passenger_first_name?.value, slots.cabin?.value, slots.reservation_id?.value], ['Kim', 'business', 'NEW123']);
  assert.is(slots.first_name!.durable, true);
  assert.is(slots.passenger_first_name!.durable, false);
  assert.equal(ws.userDurableProfile!.slotCount, 5);
});

test('a new segment expires segment-local slots and carries durable ones in', () => {
  const s = conversation([
    { user: 'my user id is ana_1, cancel order #W100' },
    { agent: 'Done.' },
    { user: 'Thanks! Another question: what about order #W200?' },
    { agent: 'It ships tomorrow.' },
  ]);
  const segments: Segment[] = [
    { segment_id: 'g0', start_index: 0, end_index: 1 },
    { segment_id: 'g1', start_index: 2, end_index: 3 },
  ];
  const ws = buildWorldState(s, segments);
  assert.equal(Object.keys(ws.segments[1]!.carryIn), ['user_id']);
  const expire = ws.events.find((e) => e.eventType === 'slot_expire')!;
  assert.equal([expire.msgIndex, expire.slotKey, expire.oldValue, expire.segmentIndex], [2, 'order_id', '#W100', 1]);
  assert.equal(ws.segments[1]!.slots.order_id!.value, '#W200');
  assert.equal(ws.segments[1]!.slotCounts, { durable: 1, segmentLocal: 1, total: 2 });
  // "Thanks! Another question" resolves the first thread and opens the second
  const threads = ws.segments[1]!.openThreads;
  assert.equal(threads.map((t) => t.status), ['resolved', 'open']);
});

test('threads: consent is not closure; closure resolves; withdrawal and deferral cancel; a correction reopens', () => {
  const run = (turns: Parameters<typeof conversation>[0]) => {
    const s = conversation(turns);
    return buildWorldState(s, [{ segment_id: 'g0', start_index: 0, end_index: s.messages.length - 1 }]).segments[0]!.openThreads[0]!;
  };
  const consent = run([{ user: 'Book me the 9am flight' }, { agent: 'Shall I book it?' }, { user: 'Yes, please proceed. Thank you!' }]);
  assert.is(consent.status, 'open');
  const closed = run([{ user: 'Book me the 9am flight' }, { agent: 'Booked.' }, { user: 'Thank you, that is all I needed.' }]);
  assert.is(closed.status, 'resolved');
  assert.equal(closed.timeline.map((e) => e.kind), ['opened', 'resolved']);
  assert.is(run([{ user: 'Change my seat' }, { agent: 'I need the reservation id.' }, { user: 'Never mind, forget it.' }]).status, 'cancelled');
  const deferred = run([{ user: 'Change my seat' }, { agent: 'I need the reservation id.' }, { user: "I'll look for it and get back to you. Thanks!" }]);
  assert.equal([deferred.status, deferred.timeline.map((e) => e.kind).pop()], ['cancelled', 'deferred']);
  const reopened = run([{ user: 'Fix the login bug' }, { agent: 'Fixed.' }, { user: 'Great, thanks!' }, { agent: 'Anything else?' }, { user: "No, that's wrong, it still doesn't work" }]);
  assert.equal([reopened.status, reopened.timeline.map((e) => e.kind)], ['open', ['opened', 'resolved', 'reopened']]);
  assert.match(reopened.summary, /^Fix the login bug — open/);
});

test('events are in fold order with unique ids; the analysis is deterministic', () => {
  const s = conversation([
    { user: 'my user id is ana_1' },
    { call: 'update_profile', input: { user_id: 'ana_1', language: 'fr' }, result: { profile_id: 'P1' } },
    { user: 'thanks' },
  ]);
  const a = analyzeSnapshot(s).analysis.world_state!;
  const b = analyzeSnapshot(s).analysis.world_state!;
  assert.equal(a, b);
  const pos = a.events.map((e) => [e.msgIndex, e.blockIndex]);
  assert.equal(pos, [...pos].sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]!));
  assert.is(new Set(a.events.map((e) => e.eventId)).size, a.events.length);
});

test.run();
