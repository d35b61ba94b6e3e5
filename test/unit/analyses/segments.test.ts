import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { convertFile } from '../../../stream/import/index.js';
import { snapshotsFromDirectEvents } from '../../../stream/analyses/direct-input.js';
import { LONG_PAUSE_MS, segmentConversation, segmentId } from '../../../stream/analyses/segments.js';
import type { ConversationSnapshot, Segment } from '../../../stream/analyses/types.js';
import { dataPath } from '../../helpers/shared.js';
import { Conversation } from './conversation.js';

const starts = (s: ConversationSnapshot) => segmentConversation(s).map((g) => g.start_index);

function assertCovers(segments: readonly Segment[], n: number): void {
  assert.is(segments[0]!.start_index, 0);
  assert.is(segments[segments.length - 1]!.end_index, n - 1);
  for (let i = 1; i < segments.length; i++) assert.is(segments[i]!.start_index, segments[i - 1]!.end_index + 1, 'no gap, no overlap');
}

/** Every prefix of a conversation yields the full segmentation cut at that prefix. */
function assertPrefixStable(s: ConversationSnapshot): void {
  const full = segmentConversation(s);
  for (let k = 1; k <= s.messages.length; k++) {
    const prefix = segmentConversation({ ...s, messages: s.messages.slice(0, k) });
    const want = full.filter((g) => g.start_index < k).map((g) => ({ ...g, end_index: Math.min(g.end_index, k - 1) }));
    assert.equal(prefix, want, `${s.conversationId}: prefix of ${k} messages`);
  }
}

test('a short conversation is one segment covering every message', () => {
  const c = new Conversation();
  c.user('Can you rename the config loader to loadSettings?');
  c.agent('Renamed it in src/config.ts.');
  const segs = segmentConversation(c.snapshot());
  assert.is(segs.length, 1);
  assertCovers(segs, 2);
  assert.is(segs[0]!.segment_id, segmentId('conv-1', 'conv-1:m0'));
});

test('an explicit switch after the agent wrapped up starts a segment at that turn', () => {
  const c = new Conversation();
  c.user('I need to cancel my order 4471, it has not shipped yet.');
  c.tool('cancel_order', { order_id: '4471' }, '{"status":"cancelled"}');
  c.agent('Your order 4471 has been cancelled. Anything else I can help with?');
  const turn = c.user('Thanks! Another question: how do I change the email address on my account?');
  c.agent('Go to Settings → Account → Email.');
  const s = c.snapshot();
  assert.equal(starts(s), [0, turn]);
  assertCovers(segmentConversation(s), s.messages.length);
});

test('answers, confirmations and corrections continue the goal; tool results are never boundaries', () => {
  const c = new Conversation();
  c.user('Book me a flight from Denver to Boston on June 3.');
  c.agent('Which time do you prefer, 7am or 9am? Let me know if you need anything else.');
  c.user('The 9am one please.');
  c.tool('book_reservation', { flight: 'HA101' }, 'Error: payment declined', true);
  c.agent('The payment was declined. Do you want to use another card?');
  c.user('Yes, use my other card ending in 4421.');
  c.tool('book_reservation', { flight: 'HA101', card: '4421' }, '{"reservation_id":"QX7K2P"}');
  c.agent('Booked: QX7K2P.');
  c.user('No, I meant the flight on June 4, not June 3.');
  c.agent('Understood, let me change it.');
  assert.equal(starts(c.snapshot()), [0]);
});

test(`a long pause (≥ ${LONG_PAUSE_MS / 60_000} min) tips a sequencing turn into a new segment`, () => {
  const build = (gapMs: number) => {
    const c = new Conversation();
    c.user('Write a README section explaining how to configure the logger.');
    c.agent('Added a Logging section covering LOG_LEVEL and LOG_FORMAT to the README.');
    const turn = c.user('Next, the README needs a section on the logger config file too.', gapMs);
    c.agent('Added.');
    return { s: c.snapshot(), turn };
  };
  const soon = build(60_000);
  const later = build(LONG_PAUSE_MS + 60_000);
  assert.equal(starts(soon.s), [0]);
  assert.equal(starts(later.s), [0, later.turn]);
});

test('a request after a long stretch of agent work closed by a report starts a segment; after short or interrupted work it does not', () => {
  const build = (calls: number, reported: boolean) => {
    const c = new Conversation();
    c.user('Fix the failing login test in the auth module.');
    c.agent('Looking at the auth module.');
    for (let k = 0; k < calls; k++) c.tool(k % 2 ? 'Edit' : 'Bash', { step: k }, 'ok');
    if (reported) c.agent("I've fixed the password check; the login test passes now.");
    const turn = c.user('Bump the version.');
    c.agent('Bumped.');
    return { s: c.snapshot(), turn };
  };
  const long = build(12, true);
  assert.equal(starts(long.s), [0, long.turn]);
  assert.equal(starts(build(2, true).s), [0], 'a short lookup');
  assert.equal(starts(build(12, false).s), [0], 'the person interrupted the work');
});

test('the first request after a context reset (/clear, /compact) starts a segment unless it continues', () => {
  const build = (turnText: string, command: string) => {
    const c = new Conversation();
    c.user('Rename the config loader to loadSettings.');
    c.agent('Renamed it in src/config.ts.');
    c.user(command);
    const turn = c.user(turnText);
    c.agent('Done.');
    return { s: c.snapshot(), turn };
  };
  const reset = build('Add retries.', '/compact');
  assert.equal(starts(reset.s), [0, reset.turn]);
  const tagged = build('Add retries.', '<command-name>/clear</command-name>');
  assert.equal(starts(tagged.s), [0, tagged.turn]);
  assert.equal(starts(build('Add retries.', '/cost').s), [0], 'a command that keeps the context');
  assert.equal(starts(build('Yes, go on.', '/compact').s), [0], 'a continuation');
});

test('sub-agent prompts and slash commands are not boundaries', () => {
  const c = new Conversation();
  c.user('<command-name>/init</command-name>');
  c.user('Please analyze this codebase and create a CLAUDE.md file.');
  c.tool('Task', { prompt: 'Survey the repository layout.' }, 'done');
  c.sidechain('user', 'Survey the repository layout and list the build commands. New task: report back in 100 words.');
  c.sidechain('assistant', 'The repository has a src/ folder and npm scripts.');
  c.agent('Created CLAUDE.md with the build commands.');
  c.user('/cost');
  assert.equal(starts(c.snapshot()), [0]);
});

test('ids stay and no boundary moves as a generated conversation grows', () => {
  const c = new Conversation('grow');
  c.user('I need to cancel my order 4471.');
  c.agent('Cancelled. Anything else?');
  c.user('Oh, and unrelated: what is your return policy for opened headphones?');
  c.agent('Opened headphones can be returned within 14 days.');
  c.user('Yes, and do you ship to Canada?');
  c.agent('We do.');
  const full = segmentConversation(c.snapshot());
  for (let k = 1; k <= c.length; k++) {
    const got = segmentConversation(c.prefix(k));
    assert.equal(got, full.filter((g) => g.start_index < k).map((g) => ({ ...g, end_index: Math.min(g.end_index, k - 1) })));
  }
});

test('prefix stability on every prefix of every tau-bench and Claude Code conversation', () => {
  const files = [dataPath('tau-bench', 'gpt-4o-airline.json'), ...readdirSync(dataPath('claude-code-viewer')).filter((f) => f.endsWith('.jsonl')).map((f) => join(dataPath('claude-code-viewer'), f))];
  let conversations = 0;
  for (const f of files) {
    for (const s of snapshotsFromDirectEvents(convertFile(f).events).snapshots) {
      assertPrefixStable(s);
      assertCovers(segmentConversation(s), s.messages.length);
      conversations++;
    }
  }
  assert.ok(conversations >= 200);
});

test('segment ids differ across conversations and first messages', () => {
  assert.is.not(segmentId('a', 'm1'), segmentId('b', 'm1'));
  assert.is.not(segmentId('a', 'm1'), segmentId('a', 'm2'));
  assert.match(segmentId('a', 'm1'), /^seg_[0-9a-f]{16}$/);
});

test('an empty conversation has no segments', () => {
  assert.equal(segmentConversation({ tenantId: 't', conversationId: 'c', userId: '', environment: 'production', messages: [], toolCalls: [] }), []);
});

test.run();
