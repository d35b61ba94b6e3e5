/**
 * GET /conversations/:id/step-scores and the `outcome` filter of GET /conversations through the
 * real path (POST /v1/ingest -> stream -> analysis -> query), on real tau-bench conversations:
 * nothing before scoring, segments with units and the rollup, legacy fields null, the outcome
 * lists agreeing with the rollups the endpoint shows (and with a frustration detection), tenant
 * isolation.
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Ajv } from 'ajv';
import { ENDPOINTS } from '../../../schemas/api/index.js';
import { FRUSTRATION_MIN, OUTCOME_NEGATIVE_BELOW, OUTCOME_POSITIVE_FROM } from '../../../schemas/outcome.js';
import { convertTrajectory, trajectoriesOf } from '../../../stream/import/openai-chat.js';
import { eventually, startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { dataPath } from '../../helpers/shared.js';

let ts: TestSystem;
let otherKey: string;
const ajv = new Ajv({ strict: false, allErrors: true });
const validators = ENDPOINTS.map((e) => ({ re: new RegExp(`^${e.path.replace(/\{\w+\}/g, '[^/]+')}$`), method: e.method, validate: ajv.compile(e.response) }));
const get = async (path: string, key = ts.adminKey): Promise<any> => {
  const r = await http(`${ts.queryUrl}/api/v1/data${path}`, { headers: { 'x-api-key': key } });
  assert.is(r.status, 200, `${path}: ${r.text}`);
  const v = validators.find((x) => x.method === 'get' && x.re.test(path.split('?')[0]!))!;
  assert.ok(v.validate(r.body), `${path} does not match its response schema: ${JSON.stringify(v.validate.errors)}`);
  return r.body;
};
const scores = (id: string, key = ts.adminKey) => get(`/conversations/${encodeURIComponent(id)}/step-scores`, key);

// ten real conversations: tasks 10–14, trials 0 and 1 (successes and failures)
const raw = JSON.parse(readFileSync(dataPath('tau-bench', 'gpt-4o-airline.json'), 'utf8')) as Array<{ task_id: number; trial: number; traj: unknown[] }>;
const picked = raw.filter((t) => t.task_id >= 10 && t.task_id < 15 && t.trial < 2);
const trajectories = trajectoriesOf(picked, 'tau.json');
const ids = trajectories.map((t) => t.id);

test.before(async () => {
  ts = await startTestSystem({ env: { ANALYZE_DEBOUNCE_MS: '100' } });
  otherKey = (await ts.system.rt.keys.create({ tenant: 'acme', role: 'admin', scopes: ['ingest', 'read'] })).key;
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

test('before scoring: no segments, null rollup, legacy fields null', async () => {
  assert.equal(await scores('never-seen'), { conversation_id: 'never-seen', segments: [], rollup: null, model: null, failure_type: null, first_bad_step: null, steps: [] });
});

test('real conversations: a scoring pass per segment with every unit, the rollup, legacy fields null', async () => {
  const r = await http(`${ts.ingestUrl}/v1/ingest`, { headers: { authorization: `Bearer ${ts.adminKey}` }, body: { events: trajectories.flatMap(convertTrajectory) } });
  assert.is(r.status, 200, r.text);
  const all = await eventually(async () => {
    const out = await Promise.all(ids.map((id) => scores(id)));
    return out.every((b) => b.rollup) ? out : undefined;
  }, { timeoutMs: 60_000 });
  assert.ok(all, 'every conversation scored');
  for (const [k, body] of all!.entries()) {
    const traj = picked[k]!.traj as Array<{ role: string; content: string | null; tool_calls?: unknown[] }>;
    const calls = traj.reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0);
    const agentTexts = traj.filter((m) => m.role === 'assistant' && (m.content ?? '').trim() !== '').length;
    const steps = body.segments.flatMap((g: any) => g.steps);
    // a unit per call and per agent message with text, numbered across the conversation graph
    assert.is(steps.length, calls + agentTexts, ids[k]);
    assert.equal(steps.map((s: any) => s.node_index), steps.map((_: unknown, i: number) => i));
    assert.ok(steps.every((s: any) => s.progress_score >= 0 && s.progress_score <= 1 && s.first_bad_step_probability >= 0 && s.first_bad_step_probability <= 1));
    assert.is(body.rollup.segment_count, body.segments.length);
    assert.ok(body.rollup.blended_score >= 0 && body.rollup.blended_score <= 1);
    assert.equal([body.model, body.failure_type, body.first_bad_step, body.steps], [null, null, null, []]);
    assert.is(body.segments[body.segments.length - 1].segment_status_at_scoring, 'open');
    // a segment that failed names its failure type; one that did not has none
    for (const g of body.segments) {
      const last = g.steps[g.steps.length - 1];
      assert.is(g.failure_type === null, !last || last.progress_score >= 0.5, `${ids[k]} ${g.segment_id}`);
    }
  }
  // a failed tool call is a unit with its reason
  const failedCall = all!.flatMap((b) => b.segments.flatMap((g: any) => g.steps)).find((s: any) => /failed/.test(s.first_bad_step_reason ?? ''));
  assert.ok(failedCall, 'some failed call carries its reason');
  assert.match(failedCall.node_type, /^tool_/);
});

test('outcome=negative / positive agree with the rollups the endpoint shows; a frustration detection makes a conversation negative', async () => {
  const list = async (outcome: string, key = ts.adminKey) => new Set((await get(`/conversations?outcome=${outcome}&limit=100`, key)).conversations.map((c: any) => c.conversation_id as string));
  const blended = new Map<string, number>();
  for (const id of ids) blended.set(id, (await scores(id)).rollup.blended_score);
  const negative = await list('negative');
  const positive = await list('positive');
  for (const id of ids) {
    const b = blended.get(id)!;
    assert.is(negative.has(id), b < OUTCOME_NEGATIVE_BELOW, `${id} blended ${b}`);
    assert.is(positive.has(id), b >= OUTCOME_POSITIVE_FROM, `${id} blended ${b}`);
  }
  assert.is((await list('any')).size, ids.length);
  // an explicit frustration detection (as the emotion analysis writes it) flips a positive conversation
  const happy = ids.find((id) => blended.get(id)! >= OUTCOME_POSITIVE_FROM);
  assert.ok(happy, 'some conversation is positive');
  await ts.system.rt.store.insert('emotion_detections', [
    { tenant_id: 'default', conversation_id: happy, item_key: '3:anger', version: 1, is_deleted: 0, analyzer_version: 1, message_index: 3, message_ts: new Date().toISOString(), family: 'frustration', signal: 'anger', score: FRUSTRATION_MIN + 0.2, risk_score: 0.5, trajectory: 'peak', elicitor: 'agent', cause: '', quotes: ['this is useless'], environment: 'production', user_id: '' },
  ]);
  assert.ok((await list('negative')).has(happy!));
  assert.not.ok((await list('positive')).has(happy!));
  // another tenant sees none of them
  assert.equal([(await list('negative', otherKey)).size, (await list('positive', otherKey)).size], [0, 0]);
  assert.equal(await scores(ids[0]!, otherKey), { conversation_id: ids[0], segments: [], rollup: null, model: null, failure_type: null, first_bad_step: null, steps: [] });
});

test('400 for an outcome outside its set', async () => {
  const r = await http(`${ts.queryUrl}/api/v1/data/conversations?outcome=good`, { headers: { 'x-api-key': ts.adminKey } });
  assert.is(r.status, 400);
  assert.ok(r.body.message.some((m: string) => /outcome must be one of: any, positive, negative/.test(m)));
});

test.run();
