/**
 * `tracehouse analyze` prints the world state and the step scores in the shapes of their endpoints,
 * and carries a user's memory from one conversation to the next (in time order, whatever the
 * input order).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Ajv } from 'ajv';
import { conversationStepScores, conversationWorldState } from '../../../schemas/api/index.js';
import { runCli } from '../../helpers/cli.js';

const ajv = new Ajv({ strict: false, allErrors: true });
const worldStateShape = ajv.compile(conversationWorldState.response);
// the step-scores body without `conversation_id`, which the analysis output carries at its top
const { conversation_id: _id, ...stepProps } = conversationStepScores.response.properties;
const stepScoresShape = ajv.compile({ ...conversationStepScores.response, required: conversationStepScores.response.required.filter((k) => k !== 'conversation_id'), properties: stepProps });

test('world_state and step_scores blocks of the endpoint shapes; the later conversation of a user is warm-started', async () => {
  const t = (s: number) => new Date(Date.parse('2025-02-01T10:00:00Z') + s * 1000).toISOString();
  const events = [
    // listed first, but it starts later: it must be analyzed after the earlier one
    { conversation_id: 'second', user_id: 'u9', role: 'user', message: 'Hi again, I want to change a booking.', timestamp: t(900) },
    { conversation_id: 'second', user_id: 'u9', role: 'assistant', message: 'Sure, which one?', timestamp: t(901) },
    { conversation_id: 'first', user_id: 'u9', role: 'user', message: 'My user id is lin_wei_88 and my email is lin@example.net', timestamp: t(0) },
    { conversation_id: 'first', user_id: 'u9', role: 'assistant', content: [{ type: 'tool_use', tool_use_id: 'k1', tool_name: 'get_user_details', input: { user_id: 'lin_wei_88' } }], timestamp: t(1) },
    { conversation_id: 'first', user_id: 'u9', role: 'user', content: [{ type: 'tool_result', tool_use_id: 'k1', content: '{"membership":"silver"}' }], timestamp: t(2) },
    { conversation_id: 'first', user_id: 'u9', role: 'assistant', message: 'You are a silver member.', timestamp: t(3) },
  ];
  const r = await runCli(['analyze', '-', '--quiet'], {}, { input: events.map((e) => JSON.stringify(e)).join('\n') + '\n' });
  assert.is(r.code, 0, r.stderr);
  const out = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  assert.equal(out.map((o) => o.conversation_id), ['second', 'first'], 'first-seen order kept');
  for (const o of out) {
    assert.ok(worldStateShape(o.world_state), JSON.stringify(worldStateShape.errors));
    assert.ok(stepScoresShape(o.step_scores), JSON.stringify(stepScoresShape.errors));
  }
  const [second, first] = out;
  assert.is(first.world_state.conversationWarmstart, null);
  assert.equal(Object.keys(first.world_state.userDurableProfile.slots), ['email', 'membership', 'user_id']);
  const warm = second.world_state.conversationWarmstart;
  assert.equal(Object.fromEntries(Object.entries<any>(warm.slots).map(([k, v]) => [k, [v.value, v.source.conversationId]])), {
    email: ['lin@example.net', 'first'],
    membership: ['silver', 'first'],
    user_id: ['lin_wei_88', 'first'],
  });
  assert.is(first.step_scores.rollup.segment_count, 1);
  assert.is(first.step_scores.segments[0].steps.length, 2, 'the lookup and the reply');
});

test.run();
