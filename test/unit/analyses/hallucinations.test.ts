import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { convertFile } from '../../../stream/import/index.js';
import { snapshotsFromDirectEvents } from '../../../stream/analyses/direct-input.js';
import { detectHallucinations } from '../../../stream/analyses/hallucinations.js';
import type { ConversationSnapshot } from '../../../stream/analyses/types.js';
import { dataPath } from '../../helpers/shared.js';
import { Conversation } from './conversation.js';

const verdicts = (s: ConversationSnapshot) => detectHallucinations(s).findings.map((f) => [f.message_index, f.verdict]);

/** Claims are verbatim substrings of their message; evidence quotes of the result they cite. */
function assertVerbatim(s: ConversationSnapshot): void {
  for (const f of detectHallucinations(s).findings) {
    assert.ok(s.messages[f.message_index]!.text.includes(f.claim), f.claim);
    if (f.evidence.tool_use_id) {
      const call = s.toolCalls.find((c) => c.key === f.evidence.tool_use_id)!;
      assert.ok(call, 'evidence names a recorded call');
      assert.ok(call.resultText.includes(f.evidence.quote), `evidence quote: ${f.evidence.quote}`);
    }
  }
}

function cancelConversation(result: string, isError: boolean, claim: string): { s: ConversationSnapshot; claimAt: number; callId: string; resultAt: number } {
  const c = new Conversation();
  c.user('Please cancel reservation ABC123, I no longer need it.');
  c.tool('get_reservation_details', { reservation_id: 'ABC123' }, '{"reservation_id":"ABC123","status":"confirmed","cabin":"economy"}');
  const [, resultAt, callId] = c.tool('cancel_reservation', { reservation_id: 'ABC123' }, result, isError);
  const claimAt = c.agent(claim);
  return { s: c.snapshot(), claimAt, callId, resultAt };
}

test('an action reported after its call failed is contradicted, with the failed call as evidence', () => {
  const { s, claimAt, callId, resultAt } = cancelConversation('Error: reservation cannot be cancelled within 24 hours of departure', true, 'Your reservation ABC123 has been cancelled.');
  const { findings, stats } = detectHallucinations(s);
  assert.is(findings.length, 1);
  const f = findings[0]!;
  assert.equal([f.message_index, f.verdict, f.claim_type], [claimAt, 'contradicted', 'action_done']);
  assert.is(f.claim, 'Your reservation ABC123 has been cancelled.');
  assert.equal([f.evidence.tool_use_id, f.evidence.message_index], [callId, resultAt]);
  assert.match(f.evidence.quote, /cannot be cancelled/);
  assert.equal(stats, { claims: 1, verified: 0, contradicted: 1, unverified: 0 });
});

test('the same report after a successful call is verified; an honest failure report too', () => {
  const ok = cancelConversation('{"reservation_id":"ABC123","status":"cancelled"}', false, 'Your reservation ABC123 has been cancelled.');
  assert.equal(verdicts(ok.s), [[ok.claimAt, 'verified']]);
  const honest = cancelConversation('Error: reservation cannot be cancelled within 24 hours of departure', true, 'I could not cancel it: the reservation cannot be cancelled within 24 hours of departure.');
  assert.equal(verdicts(honest.s), [[honest.claimAt, 'verified']]);
});

test('a claim with no recorded call is only counted as unverified', () => {
  const c = new Conversation();
  c.user('Cancel my order 4471.');
  c.tool('get_order_details', { order_id: '4471' }, '{"order_id":"4471","status":"pending"}');
  c.agent('I have cancelled order 4471.');
  const { findings, stats } = detectHallucinations(c.snapshot());
  assert.equal(findings, []);
  assert.equal(stats, { claims: 1, verified: 0, contradicted: 0, unverified: 1 });
});

test('a later, unrelated failure does not contradict an action that succeeded', () => {
  const c = new Conversation();
  c.user('Cancel my order 4471 and tell me about the lamp.');
  c.tool('cancel_order', { order_id: '4471' }, '{"order_id":"4471","status":"cancelled"}');
  c.tool('get_product_details', { product_id: 'lamp' }, 'Error: product not found', true);
  const at = c.agent('Your order 4471 has been cancelled.');
  assert.equal(verdicts(c.snapshot()), [[at, 'verified']]);
});

test('a field of the action result that disagrees with the claim contradicts it; a wrong charged amount too', () => {
  const c = new Conversation();
  c.user('Upgrade my reservation XEW9 to business class, charge my card.');
  c.tool('get_reservation_details', { reservation_id: 'XEW9' }, '{"reservation_id":"XEW9","cabin":"economy","payment_history":[{"payment_id":"card_1","amount":400}]}');
  c.tool('search_flights', {}, '[{"flight":"HA1","prices":{"economy":120,"business":320}}]');
  c.tool('calculate', { expression: '320 - 120' }, '200.0');
  c.tool('update_reservation_flights', { reservation_id: 'XEW9', cabin: 'business', payment_id: 'card_1' }, '{"reservation_id":"XEW9","cabin":"economy","payment_history":[{"payment_id":"card_1","amount":400},{"payment_id":"card_1","amount":450}]}');
  const at = c.agent('Your reservation has been updated. It has been upgraded to business class. The payment of $200 has been charged to your card.');
  const f = detectHallucinations(c.snapshot()).findings.filter((x) => x.message_index === at);
  assert.equal(f.map((x) => [x.claim, x.verdict]), [
    ['Your reservation has been updated.', 'verified'],
    ['It has been upgraded to business class.', 'contradicted'],
    ['The payment of $200 has been charged to your card.', 'contradicted'],
  ]);
});

test('test and build claims follow the latest run; no run leaves them unverified', () => {
  const failing = new Conversation();
  failing.user('Fix the parser and make sure the tests pass.');
  failing.tool('Bash', { command: 'npm test' }, 'Tests: 2 failed, 10 passed, 12 total', true);
  const a = failing.agent('All tests pass.');
  assert.equal(verdicts(failing.snapshot()), [[a, 'contradicted']]);

  const passing = new Conversation();
  passing.user('Fix the parser and make sure the tests pass.');
  passing.tool('Bash', { command: 'npm test' }, 'Tests: 12 passed, 12 total');
  const b = passing.agent('All tests pass.');
  assert.equal(verdicts(passing.snapshot()), [[b, 'verified']]);

  const none = new Conversation();
  none.user('Fix the parser.');
  none.tool('Edit', { file_path: 'parser.ts', old_string: 'a', new_string: 'b' }, 'ok');
  none.agent('All tests pass.');
  assert.equal(detectHallucinations(none.snapshot()).stats.unverified, 1);
});

test('offers, questions and conditionals are not claims', () => {
  const c = new Conversation();
  c.user('Cancel my order 4471.');
  c.tool('cancel_order', { order_id: '4471' }, 'Error: already shipped', true);
  c.agent('Would you like me to try again? If the order is cancelled, the refund will go to your card. Once it has been cancelled you get an email.');
  assert.equal(detectHallucinations(c.snapshot()).stats.claims, 0);
});

test('an id stated as the confirmation number must come from a result', () => {
  const c = new Conversation();
  c.user('Book the 9am flight.');
  c.tool('book_reservation', { flight: 'HA101' }, '{"reservation_id":"QX7K2P","status":"confirmed"}');
  const good = c.agent('Your reservation ID is QX7K2P.');
  const bad = c.agent('Your confirmation number is ZZ9Q81.');
  const s = c.snapshot();
  assert.equal(verdicts(s), [[good, 'verified'], [bad, 'contradicted']]);
  // nothing recorded to cite for an invented id
  assert.equal(detectHallucinations(s).findings[1]!.evidence, { message_index: null, tool_use_id: null, quote: '' });
  assertVerbatim(s);
});

test('real data: a Claude Code session claiming a file it failed to write', () => {
  const [s] = snapshotsFromDirectEvents(convertFile(dataPath('claude-code-viewer', '1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl')).events).snapshots;
  const f = detectHallucinations(s!).findings.filter((x) => x.verdict === 'contradicted');
  assert.is(f.length, 1);
  assert.match(f[0]!.claim, /created a basic CLAUDE\.md/);
  assert.match(f[0]!.evidence.quote, /haven't granted/);
  assertVerbatim(s!);
});

test('real data: every tau-bench finding quotes its message verbatim and cites a recorded call', () => {
  const { snapshots } = snapshotsFromDirectEvents(convertFile(dataPath('tau-bench', 'gpt-4o-airline.json')).events);
  let claims = 0;
  for (const s of snapshots) {
    assertVerbatim(s);
    const { findings, stats } = detectHallucinations(s);
    assert.is(stats.claims, stats.verified + stats.contradicted + stats.unverified);
    assert.is(findings.length, stats.verified + stats.contradicted);
    claims += stats.claims;
  }
  assert.ok(claims > 500);
});

test.run();
