import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { conversationFrustration, detectEmotions, isFrustratedMessage } from '../../../stream/analyses/emotions.js';
import { buildSnapshot, type StoredMessage } from '../../../stream/analyses/snapshot.js';
import type { ContentBlock } from '../../../schemas/events.js';
import type { ConversationSnapshot, EmotionDetection, HallucinationFinding } from '../../../stream/analyses/types.js';

type Turn = string | { role: 'user' | 'assistant'; text?: string; blocks?: ContentBlock[]; thread?: string };

/** A conversation from turns: strings are user turns; objects give role, text and blocks. */
function conv(...turns: Turn[]): ConversationSnapshot {
  const messages: StoredMessage[] = turns.map((t, i) => {
    const m = typeof t === 'string' ? { role: 'user' as const, text: t } : t;
    return { messageId: `m${i}`, role: m.role, content: m.text ?? '', blocks: m.blocks ?? [], tsMs: 1000 * i, threadId: m.thread ?? '' };
  });
  return buildSnapshot({ tenantId: 't', conversationId: 'c', messages });
}

const call = (id: string, command = 'npm test'): Turn => ({ role: 'assistant', text: 'Running the tests.', blocks: [{ type: 'tool_use', tool_use_id: id, tool_name: 'Bash', input: { command } } as ContentBlock] });
const result = (id: string, content: string, isError: boolean): Turn => ({ role: 'user', blocks: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError } as ContentBlock] });

const frustrationOf = (d: readonly EmotionDetection[], i: number) => d.find((x) => x.message_index === i && x.family === 'frustration');
const score = (text: string) => frustrationOf(detectEmotions(conv(text)), 0)?.score ?? 0;

test('negation, quotes, code, logs, stack traces and slash commands are not frustration', () => {
  const negatives = [
    'not frustrating at all, take your time',
    "no problem, I'll wait",
    "I'm not angry, just asking which version you used",
    '> this is useless, why does it keep failing?!\nA customer wrote that. Draft a polite reply.',
    'The ticket says "WTF, the app is broken again!!". Please triage it.',
    '```bash\nkill -9 $(pgrep node) # abort everything!!\n```\nadd this to the stop script',
    'rename `wtfCounter` and `abortAll()` in utils',
    'npm ERR! code ELIFECYCLE\nnpm ERR! Failed at the build script. WTF?!\nplease fix the build',
    'I got this:\nTraceback (most recent call last):\n  File "app.py", line 3, in <module>\nValueError: fatal failure!!\nplease fix it',
    'I ran it: dev@laptop app % npm test\nFAILED!!! 3 errors WTF\n\nwhat should I do next?',
    'Add a `failed` state and a `fatal` log level to the enum.',
    '/clear',
    '/model opus',
    '/compact\n⎿  Error: Error during compaction!! WTF',
    'This session is being continued from a previous conversation that ran out of context.\nThe user said: WTF are you doing?!',
    'Update the README and the API docs for the CLI',
    'YES, go ahead',
  ];
  for (const text of negatives) assert.ok(score(text) < 0.5, `frustrated: ${text}`);
  // the same words as the user's own are frustration: the masking, not the vocabulary, decides
  assert.ok(score('WTF, the app is broken again!!') >= 0.5);
  assert.ok(score('this is useless, why does it keep failing?!') >= 0.5);
});

test('machine control markers (a simulated user ending a dialogue, chat-template tokens) are not shouting', () => {
  for (const text of ['Thanks, that is all. ###STOP###', '###STOP###', 'ok <|endoftext|>', '__END__', '<<EOF>> fine']) {
    const d = detectEmotions(conv(text));
    assert.not.ok(d.some((x) => x.family === 'frustration'), `${text}: ${JSON.stringify(d)}`);
  }
  // a real shout stays one
  assert.ok(isFrustratedMessage(detectEmotions(conv('STOP! you broke the build again!!')), 0));
});

test('tool results and sub-agent prompts are not user speech', () => {
  const d = detectEmotions(
    conv('run the tests', call('c1'), result('c1', 'Error: fatal!! WTF is this', true), { role: 'user', text: 'WTF?! you broke it again!!', thread: 'side-1' }),
  );
  assert.equal(d.filter((x) => x.family === 'frustration'), []);
});

test('clear frustration scores at least 0.5; plain corrections stay below, however many', () => {
  const frustrated = [
    'WTF are you doing?',
    'again?! the build is broken',
    "NO! Don't touch the schema.",
    'I told you to keep the old function name.',
    'you keep adding comments everywhere',
    'You keep running ahead. Are you Leeroy Jenkins?!',
    'This is useless, you broke the build.',
    'Ugh. It is broken again.',
    'what the hell is this',
    'This is a total waste of my time',
    "That's NOT what I asked for!",
    'How many times do I have to tell you to run the tests first?',
    "I'm getting really tired of these repeated failures",
  ];
  for (const text of frustrated) assert.ok(score(text) >= 0.5, `not frustrated: ${text} (${score(text)})`);
  const corrections = [
    'No, use pytest instead.',
    'no, I meant the other file',
    "that's not quite right, I meant the spec folder",
    "No. That's wrong. Don't change it. I meant the old one. You should have asked. Stop adding files.",
  ];
  for (const text of corrections) {
    const s = score(text);
    assert.ok(s >= 0.3 && s < 0.5, `correction out of range: ${text} (${s})`);
  }
});

test('intensity: ?!, !! and a capitalised NO lift a message over 0.5', () => {
  assert.ok(score('Did you run the tests?') < 0.3);
  assert.ok(score('Did you run the tests?!') >= 0.5);
  assert.ok(score('No, use pytest.') < 0.5);
  assert.ok(score('No!! use pytest.') >= 0.5);
  assert.ok(score('NO. Use pytest.') >= 0.5);
  assert.ok(score('so NO on the first option, yes on the second') < 0.5);
  assert.ok(score('Ugh, broken again!') > score('Ugh, broken again.'));
});

test('a correction after a declined or failed call names that call as its cause, aimed at the agent', () => {
  const declined = conv('fix the test', call('c1'), result('c1', 'No (tell Claude what to do differently)', true), 'no, I told you not to touch the spec!');
  const d = frustrationOf(detectEmotions(declined), 3)!;
  assert.ok(d.score >= 0.5);
  assert.equal(d.cause, { kind: 'tool_failure', message_index: 2, tool_use_id: 'c1' });
  assert.is(d.elicitor, 'agent');
  // a reused id: the second call has its own key, and the complaint points at it
  const reused = conv('fix it', call('x'), result('x', 'ok', false), call('x'), result('x', 'Error: 2 tests failed', true), 'WTF, it fails again!!');
  assert.equal(frustrationOf(detectEmotions(reused), 5)!.cause, { kind: 'tool_failure', message_index: 4, tool_use_id: 'x#2' });
  // without a failure the cause is the agent message answered; the first message has none
  const plain = conv('Ugh, this is useless!', { role: 'assistant', text: 'Sorry about that.' }, 'I told you to keep the old name!');
  const pd = detectEmotions(plain);
  assert.is(frustrationOf(pd, 0)!.cause, null);
  assert.equal(frustrationOf(pd, 2)!.cause, { kind: 'agent_message', message_index: 1 });
});

test('a complaint after a contradicted claim points at the claim', () => {
  const s = conv('run the tests', { role: 'assistant', text: 'All tests pass.' }, 'are you sure?! they fail on my machine');
  const claim: HallucinationFinding = { message_index: 1, claim_type: 'tests_pass', claim: 'All tests pass.', verdict: 'contradicted', evidence: { message_index: null, tool_use_id: null, quote: '' } };
  const d = detectEmotions(s, { hallucinations: [claim] }).filter((x) => x.message_index === 2);
  assert.ok(d.length > 0);
  for (const x of d) assert.equal(x.cause, { kind: 'claim', message_index: 1 });
});

test('sarcastic praise right after a failure is frustration, not satisfaction', () => {
  const d = detectEmotions(conv('clean up', call('c1', 'rm -rf fixtures'), result('c1', 'Error: permission denied', true), 'Great, you deleted the fixtures. Brilliant.'));
  assert.ok(isFrustratedMessage(d, 3));
  assert.not.ok(d.some((x) => x.family === 'satisfaction'));
  assert.ok(detectEmotions(conv('Great, you fixed it. Brilliant.')).some((x) => x.family === 'satisfaction'));
});

test('confusion is the speaker being lost, not a reservation, a question to the agent or a risk for readers', () => {
  const confused = (text: string) => detectEmotions(conv(text)).some((x) => x.family === 'confusion');
  const not = [
    "I'm not sure about the naming of that flag, what would you call it?",
    "I'm not sure if you updated the lockfile as well.",
    'I dunno if you remember why the cache was added.',
    "I'm wondering if the retry belongs in the client instead.",
    'Keep the changelog short to avoid confusion between the two releases.',
    'The old option name might be confusing for new users; rename it.',
    'You took too much freedom with the config, please revert it.',
  ];
  for (const text of not) assert.not.ok(confused(text), `confusion: ${text}`);
  const yes = [
    "I'm confused, why is the cache needed?",
    "I'm not sure whether the schema should change at all",
    "I'm not sure. Let me think about it.",
    'Maybe I am missing something, but where does the token come from?',
    'this is getting too much for me',
  ];
  for (const text of yes) assert.ok(confused(text), `not confusion: ${text}`);
});

test('quotes are verbatim substrings of the message', () => {
  const texts = [
    'Sorry.   WTF are you doing?!\n\nI told you    to keep `foo` as it was!!',
    'thanks, that works!',
    "I'm confused, what does that mean? are you sure it passed?",
  ];
  for (const text of texts) {
    const d = detectEmotions(conv(text));
    assert.ok(d.length > 0, text);
    for (const x of d) {
      assert.ok(x.quotes.length >= 1 && x.quotes.length <= 3);
      for (const q of x.quotes) assert.ok(text.includes(q), `not verbatim: ${q}`);
    }
  }
});

test('trajectory follows the negative intensity across user turns and a later satisfaction', () => {
  const s = conv(
    'add a login page',
    { role: 'assistant', text: 'Done.' },
    "hmm, that's wrong, I meant the signup page",
    { role: 'assistant', text: 'Fixed.' },
    'Ugh, still broken!',
    { role: 'assistant', text: 'Fixed again.' },
    'WTF, it is broken AGAIN!! you keep breaking it',
    { role: 'assistant', text: 'Now it works.' },
    'thanks, that works now!',
  );
  const d = detectEmotions(s);
  const at = (i: number, family = 'frustration') => d.find((x) => x.message_index === i && x.family === family)!;
  assert.is(at(2).trajectory, 'building');
  assert.is(at(4).trajectory, 'sustained');
  assert.is(at(6).trajectory, 'resolved');
  assert.is(at(8, 'satisfaction').trajectory, 'resolved');
  assert.ok(at(6).score > at(4).score && at(4).score > at(2).score);
  const peak = detectEmotions(conv('start', 'WTF is this?!', "that's not quite right, I meant the other one", 'ok'));
  assert.is(peak.find((x) => x.message_index === 1 && x.family === 'frustration')!.trajectory, 'peak');
  const lone = detectEmotions(conv('start', 'WTF is this?!', 'ok, next task'));
  assert.is(lone.find((x) => x.message_index === 1)!.trajectory, 'none');
});

test('frustrated and at-risk conversations', () => {
  const angry = detectEmotions(conv('WTF are you doing?!'));
  assert.equal(conversationFrustration(angry).frustrated, true);
  assert.equal(conversationFrustration(angry).at_risk, false);
  const giving = detectEmotions(conv('this does not work', { role: 'assistant', text: 'Let me retry.' }, "never mind, I'll do it myself"));
  const g = conversationFrustration(giving);
  assert.equal([g.frustrated, g.at_risk], [false, true]);
  assert.ok(g.max_risk >= 0.5);
  const happy = conversationFrustration(detectEmotions(conv('thanks, perfect!')));
  assert.equal(happy, { frustrated: false, at_risk: false, max_risk: 0 });
});

test('deterministic: the same conversation gives the same detections', () => {
  const s = conv('no, I meant the other file', call('c1'), result('c1', 'User rejected write to a.py', true), 'Ugh, again?! Stop rewriting files!!', 'thanks');
  assert.equal(detectEmotions(s), detectEmotions(s));
  assert.equal(JSON.stringify(detectEmotions(s)), JSON.stringify(detectEmotions(structuredClone(s))));
});

test.run();
