/**
 * Step scores (stream/analyses/step-scores*.ts): units, hazards and their reasons, the effect of
 * every evidence family (emotions and hallucinations built explicitly, as their analyzers would
 * write them), the rollup, failure types, the outcome decision, stability of closed segments.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { analyzeSnapshot, emptyAnalysis } from '../../../stream/analyses/pipeline.js';
import { outcomeOf, rollupOf, scoreSteps, FRUSTRATION_MIN, OUTCOME_NEGATIVE_BELOW, OUTCOME_POSITIVE_FROM } from '../../../stream/analyses/step-scores.js';
import type { ConversationAnalysis, ConversationSnapshot, EmotionDetection, HallucinationFinding, StepScores } from '../../../stream/analyses/types.js';
import { conversation, type Turn } from './build.js';

/** Scores one snapshot as a single segment, with optional emotion and hallucination inputs. */
function score(s: ConversationSnapshot, extra: Partial<Pick<ConversationAnalysis, 'emotions' | 'hallucinations'>> = {}): StepScores {
  const a = emptyAnalysis(s.conversationId);
  a.segments = [{ segment_id: 'g0', start_index: 0, end_index: s.messages.length - 1 }];
  Object.assign(a, extra);
  return scoreSteps(s, a);
}
const final = (x: StepScores) => x.segments[0]!.steps.at(-1)!.progress_score;
const reasons = (x: StepScores) => x.segments[0]!.steps.map((st) => st.first_bad_step_reason).filter(Boolean);
const ask: Turn = { user: 'Please update my order #W123 to size M' };

test('units: each agent message and each call with its result, in order, with node types and stable ids', () => {
  const s = conversation([ask, { call: 'get_order', input: { order_id: '#W123' }, result: '{"status":"open"}', text: 'Let me check.' }, { agent: 'It is open.' }]);
  const steps = score(s).segments[0]!.steps;
  assert.equal(steps.map((x) => [x.unit_id, x.node_type, x.message_index, x.unit_index, x.node_index]), [
    ['msg:1', 'agent_message', 1, 0, 0],
    ['call:call-1', 'tool_read', 1, 1, 1],
    ['msg:3', 'agent_message', 3, 2, 2],
  ]);
  // progress never rises within a segment without closure, and first-bad probabilities sum to the lost share
  const p = steps.map((x) => x.progress_score);
  assert.equal(p, [...p].sort((a, b) => b - a));
});

test('a failed call counts less once a later call of the same tool succeeds; unchanged retries count more', () => {
  const failed = score(conversation([ask, { call: 'update_order', input: { id: 1 }, result: 'Error: invalid size', error: true }, { agent: 'That failed.' }]));
  const recovered = score(conversation([ask, { call: 'update_order', input: { id: 1 }, result: 'Error: invalid size', error: true }, { call: 'update_order', input: { id: 2 }, result: '{"ok":true}' }, { agent: 'Done.' }]));
  const retried = score(conversation([ask, { call: 'update_order', input: { id: 1 }, result: 'Error: invalid size', error: true }, { call: 'update_order', input: { id: 1 }, result: 'Error: invalid size', error: true }, { agent: 'It keeps failing.' }]));
  assert.match(reasons(failed)[0]!, /update_order failed and was not recovered/);
  assert.match(reasons(recovered)[0]!, /a later call of it succeeded/);
  assert.ok(reasons(retried).some((r) => /repeated unchanged and failed again/.test(r!)));
  assert.ok(final(retried) < final(failed));
  const recoveredFail = recovered.segments[0]!.steps.find((x) => x.unit_id === 'call:call-1')!;
  const failedFail = failed.segments[0]!.steps.find((x) => x.unit_id === 'call:call-1')!;
  assert.ok(recoveredFail.first_bad_step_probability < failedFail.first_bad_step_probability);
});

test('ordinary work is friction, capped per segment: a long session of edits, reads, retries that worked and checks', () => {
  const turns: Turn[] = [{ user: 'Fix the failing parser tests' }];
  for (let i = 0; i < 60; i++) {
    turns.push({ call: 'Read', input: { file_path: 'src/parser.ts' }, result: 'code' });
    // every third edit misses and is redone with the right text
    if (i % 3 === 0) turns.push({ call: 'Edit', input: { file_path: 'src/parser.ts', old_string: `x${i}`, new_string: `b${i}` }, result: 'Error: old_string not found', error: true });
    turns.push({ call: 'Edit', input: { file_path: 'src/parser.ts', old_string: `a${i}`, new_string: `b${i}` }, result: 'ok' });
    turns.push({ call: 'Bash', input: { command: 'npm test' }, result: i === 59 ? 'all passed' : 'Error: 1 failing', error: i !== 59 });
  }
  turns.push({ agent: 'The parser tests pass now.' });
  const long = score(conversation(turns));
  // friction alone never takes more than FRICTION_MAX of the prior
  assert.ok(final(long) >= 0.9 * (1 - 0.35) - 1e-9, String(final(long)));
  assert.ok(reasons(long).every((r) => !/repeated/.test(r!)), 're-reading and re-running after an edit is not a loop');
  const todo = score(conversation([{ user: 'plan it' }, { call: 'TodoWrite', input: { todos: [{ content: 'x' }] }, result: 'ok' }]));
  assert.is(todo.segments[0]!.steps[0]!.first_bad_step_reason, null, 'the agent\'s own bookkeeping is not an action');
});

test('a state-changing action is a risk, more so without a go-ahead; a handoff is not an action', () => {
  const confirmed = score(conversation([ask, { agent: 'Change it to M?' }, { user: 'Yes, please proceed.' }, { call: 'update_order', input: { order_id: '#W123', size: 'M' }, result: '{"ok":1}' }]));
  const unconfirmed = score(conversation([ask, { agent: 'Which size?' }, { user: 'M would be nice.' }, { call: 'update_order', input: { order_id: '#W123', size: 'M' }, result: '{"ok":1}' }]));
  const handoff = score(conversation([ask, { agent: 'Which size?' }, { user: 'M would be nice.' }, { call: 'transfer_to_human_agents', input: { summary: 'x' }, result: 'ok' }]));
  assert.match(reasons(confirmed).at(-1)!, /^state-changing action update_order$/);
  assert.match(reasons(unconfirmed).at(-1)!, /without a go-ahead/);
  assert.ok(final(unconfirmed) < final(confirmed));
  assert.is(handoff.segments[0]!.steps.at(-1)!.node_type, 'handoff');
  assert.is(handoff.segments[0]!.steps.at(-1)!.first_bad_step_reason, null);
});

test('the person\'s reaction: a correction or a withdrawal lowers the agent message before it; "no" answering a question does not; closure lifts', () => {
  const base: Turn[] = [ask, { agent: 'I changed it to size L.' }];
  const corrected = score(conversation([...base, { user: "No, that's not what I asked, I said M." }]));
  const dropped = score(conversation([...base, { user: 'Never mind, forget it.' }]));
  const closed = score(conversation([...base, { user: 'Thanks, that is all I needed.' }]));
  const plain = score(conversation(base));
  const answered = score(conversation([ask, { agent: 'Would you like me to transfer you?' }, { user: 'No, I would rather you did it.' }]));
  assert.match(reasons(corrected)[0]!, /corrected/);
  assert.match(reasons(dropped)[0]!, /dropped or put off/);
  assert.equal(reasons(answered), []);
  assert.ok(final(corrected) < final(plain) && final(dropped) < final(plain));
  assert.ok(final(closed) > final(plain));
});

test('emotion and hallucination inputs: frustration after a message and a contradicted claim lower it, with reasons', () => {
  const s = conversation([ask, { agent: 'I have updated the order.' }, { user: 'This is ridiculous, nothing changed!' }]);
  const frustration: EmotionDetection = { message_index: 2, family: 'frustration', signal: 'exasperation', score: 0.8, risk_score: 0.6, trajectory: 'peak', elicitor: 'agent', cause: null, quotes: ['This is ridiculous'] };
  const contradiction: HallucinationFinding = { message_index: 1, claim_type: 'action_done', claim: 'I have updated the order', verdict: 'contradicted', evidence: { message_index: null, tool_use_id: null, quote: '' } };
  const plain = score(s);
  const frustrated = score(s, { emotions: [frustration] });
  const contradicted = score(s, { hallucinations: [contradiction] });
  assert.ok(final(frustrated) < final(plain));
  assert.ok(final(contradicted) < final(plain));
  assert.match(reasons(frustrated)[0]!, /frustration \(0\.80\)/);
  assert.match(reasons(contradicted)[0]!, /contradicted/);
  assert.is(frustrated.segments[0]!.feature_mode, 'structural+emotions');
  assert.is(contradicted.segments[0]!.feature_mode, 'structural+hallucinations');
  assert.is(plain.segments[0]!.feature_mode, 'structural');
});

test('a segment below 0.5 names its main failure family; the rollup blends segments and is null without units', () => {
  const turns: Turn[] = [ask];
  for (let i = 0; i < 4; i++) turns.push({ call: 'update_order', input: { id: i }, result: 'Error: denied', error: true });
  turns.push({ agent: 'I could not do it.' });
  const bad = score(conversation(turns));
  assert.ok(final(bad) < 0.5);
  assert.equal(bad.segments[0]!.failure_type, { failure_type: 'tool_failure', score: Math.round((1 - final(bad)) * 1e4) / 1e4 });
  assert.is(score(conversation([ask])).rollup, null, 'a lone request has no unit: no weight');
  assert.equal(rollupOf([{ score: 0.9, weight: 1 }, { score: 0.5, weight: 3 }, { score: 0.1, weight: 0 }], 0.4), { blended_score: 0.5, segment_count: 3, weighted_segment_count: 2, total_weight: 4 });
});

test('outcome: thresholds and explicit frustration', () => {
  const r = (b: number) => ({ blended_score: b, segment_count: 1, weighted_segment_count: 1, total_weight: 1 });
  const anger: EmotionDetection = { message_index: 0, family: 'frustration', signal: 'anger', score: FRUSTRATION_MIN, risk_score: 0, trajectory: 'none', elicitor: 'agent', cause: null, quotes: [] };
  assert.is(outcomeOf(r(OUTCOME_POSITIVE_FROM), []), 'positive');
  assert.is(outcomeOf(r(OUTCOME_NEGATIVE_BELOW - 0.01), []), 'negative');
  assert.is(outcomeOf(r((OUTCOME_NEGATIVE_BELOW + OUTCOME_POSITIVE_FROM) / 2), []), null);
  assert.is(outcomeOf(r(0.99), [anger]), 'negative');
  assert.is(outcomeOf(r(0.99), [{ ...anger, score: FRUSTRATION_MIN - 0.1 }]), 'positive');
  assert.is(outcomeOf(null, []), null);
});

test('closed segments keep their scores as the conversation grows; the pipeline names the thread of each segment', () => {
  const turns: Turn[] = [
    ask,
    { call: 'update_order', input: { order_id: '#W123', size: 'M' }, result: '{"ok":1}' },
    { agent: 'Updated to M.' },
    { user: 'Thanks! Another question: can you check the delivery of order #W555?' },
    { call: 'get_order', input: { order_id: '#W555' }, result: '{"eta":"mon"}' },
    { agent: 'It arrives Monday.' },
    { user: 'Great, thank you.' },
  ];
  const full = analyzeSnapshot(conversation(turns)).analysis;
  assert.ok(full.segments.length >= 2, 'two goals');
  const shorter = analyzeSnapshot(conversation(turns.slice(0, 5))).analysis;
  assert.equal(shorter.step_scores!.segments[0], full.step_scores!.segments[0]);
  assert.is(full.step_scores!.segments[0]!.segment_status_at_scoring, 'closed');
  assert.ok(full.step_scores!.segments.every((g) => g.thread_id && full.world_state!.segments.some((w) => w.openThreads.some((t) => t.id === g.thread_id))));
  assert.equal(analyzeSnapshot(conversation(turns)).analysis.step_scores, full.step_scores, 'deterministic');
});

test.run();
