import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { convertFile } from '../../../stream/import/index.js';
import { snapshotsFromDirectEvents } from '../../../stream/analyses/direct-input.js';
import { segmentConversation } from '../../../stream/analyses/segments.js';
import { MAX_SUMMARY_CHARS, summarize, SUMMARY_TEMPLATE_WORDS } from '../../../stream/analyses/summary.js';
import type { ConversationSnapshot } from '../../../stream/analyses/types.js';
import { words } from '../../../stream/analyses/text/tokens.js';
import { dataPath } from '../../helpers/shared.js';
import { Conversation } from './conversation.js';

const summary = (s: ConversationSnapshot) => summarize(s, segmentConversation(s));

/** Words of the summary that are neither template nor present in the conversation. */
function invented(s: ConversationSnapshot, text: string): string[] {
  const known = new Set<string>();
  for (const m of s.messages) for (const w of words(m.text)) known.add(w);
  for (const c of s.toolCalls) for (const w of words(c.toolName)) known.add(w);
  return words(text).filter((w) => !SUMMARY_TEMPLATE_WORDS.has(w) && !/^\d+$/.test(w) && !known.has(w));
}

test('no summary below two messages', () => {
  const c = new Conversation();
  c.user('Hello there, I need help with my order.');
  assert.is(summary(c.snapshot()), '');
});

test('goal from the first substantive turn (greeting dropped), tools with failures, and the last reaction', () => {
  const c = new Conversation();
  c.user('Hi!');
  c.agent('Hello! How can I help?');
  c.user('Hi, I want to cancel order W7712 because it arrived damaged.');
  c.tool('get_order_details', { order_id: 'W7712' }, '{"status":"delivered"}');
  c.tool('cancel_order', { order_id: 'W7712' }, 'Error: delivered orders cannot be cancelled', true);
  c.tool('return_items', { order_id: 'W7712' }, '{"status":"return requested"}');
  c.agent('I could not cancel it, but I started a return; the refund follows on receipt.');
  c.user('Great, thanks a lot!');
  const text = summary(c.snapshot());
  assert.match(text, /^Goal: I want to cancel order W7712 because it arrived damaged\./);
  assert.match(text, /Done: 3 calls \(cancel_order, return_items, get_order_details\), 1 failed\./);
  assert.match(text, /Ended: Great, thanks a lot!$/);
  assert.equal(invented(c.snapshot(), text), []);
});

test('a slash command with arguments states the goal; its expansion does not', () => {
  const c = new Conversation();
  c.user('<command-message>orchestrator is running…</command-message>\n<command-name>/orchestrator</command-name>\n<command-args>create TODO app by Next.js</command-args>');
  c.user('Split complex tasks into independent subtasks and execute them in parallel with minimal memory usage.');
  c.agent('I created the app and it builds.');
  assert.match(summary(c.snapshot()), /^Goal: create TODO app by Next\.js\./);
});

test('long text is cut at a word boundary with an ellipsis and the whole stays within 300 characters', () => {
  const c = new Conversation();
  const long = 'Please migrate the reporting service from the legacy cron scheduler to the new workflow engine, keeping every existing job definition, retry policy, alerting hook and the historical run metadata intact while the dashboards stay online. ';
  c.user(long.repeat(3));
  c.agent('I migrated the scheduler. ' + 'Every job now runs in the workflow engine with its retry policy and alerting hook preserved exactly. '.repeat(4));
  const text = summary(c.snapshot());
  assert.ok(text.length <= MAX_SUMMARY_CHARS, `${text.length} characters`);
  assert.ok(text.includes('…'));
  for (const piece of text.split('…').slice(0, -1)) assert.match(piece, /\w$/, 'cut after a whole word');
  assert.equal(invented(c.snapshot(), text), []);
  assert.not.match(text, /\s{2,}/);
});

test('two goals are both named', () => {
  const c = new Conversation();
  c.user('I need to cancel my order 4471, it has not shipped yet.');
  c.tool('cancel_order', { order_id: '4471' }, '{"status":"cancelled"}');
  c.agent('Your order 4471 has been cancelled. Anything else I can help with?');
  c.user('Thanks! Another question: how do I change the email address on my account?');
  c.agent('Go to Settings → Account → Email.');
  const text = summary(c.snapshot());
  assert.match(text, /^Goals: I need to cancel my order 4471.*; .*change the email address/);
});

test('every tau-bench summary is non-empty, within 300 characters and made of the conversation\'s words', () => {
  const { snapshots } = snapshotsFromDirectEvents(convertFile(dataPath('tau-bench', 'gpt-4o-airline.json')).events);
  for (const s of snapshots) {
    const text = summary(s);
    assert.ok(text.length > 0 && text.length <= MAX_SUMMARY_CHARS, `${s.conversationId}: ${text.length}`);
    assert.equal(invented(s, text), [], s.conversationId);
  }
});

test.run();
