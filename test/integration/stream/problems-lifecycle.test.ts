/**
 * The problems engine through the real path: conversations posted to /v1/ingest are analyzed by
 * the stream role, one engine pass (`runProblemsOnce`) turns a tool failing the same way in many
 * conversations into a trusted problem whose evidence includes the users' frustration after it;
 * then the lifecycle a fix goes through: mark_fixed (identical resubmission is a duplicate) →
 * `fixed_monitoring` at the next run → the failure recurs in new conversations → `reopened`, each
 * step in the change history. Feedback rules (400/404) and tenant isolation.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { getProblem, listProblems, listTrustedAttributions, problemsLeaseKey, runProblemsOnce, submitFeedback } from '../../../stream/problems/api.js';
import { KV_BUCKETS } from '../../../schemas/subjects.js';
import { AttributionNotFoundError, InvalidProblemFeedbackError, ProblemNotFoundError } from '../../../stream/problems/errors.js';

let ts: TestSystem;
let otherKey: string;
const OTHER = 'acme';
const deps = () => ({ store: ts.system.rt.store });

/** A conversation where update_address rejects its input and the user gets annoyed. */
function failing(id: string, at: number, user: string) {
  const t = (i: number) => new Date(at + i * 2000).toISOString();
  const m = (i: number, role: string, body: string | unknown[]) => ({ conversation_id: id, role, user_id: user, timestamp: t(i), ...(typeof body === 'string' ? { message: body } : { content: body }) });
  return [
    m(0, 'user', `Please change the shipping address of order #${id.length}${id.slice(-2)} to 12 Elm Street.`),
    m(1, 'assistant', [{ type: 'text', text: 'Updating the address now.' }, { type: 'tool_use', tool_name: 'update_address', tool_use_id: 'c1', input: { order: 12, street: '12 Elm Street' } }]),
    m(2, 'user', [{ type: 'tool_result', tool_use_id: 'c1', content: "Error: invalid input: field 'order_id' is required (got unknown field 'order')", is_error: true }]),
    m(3, 'assistant', [{ type: 'text', text: 'Let me try again.' }, { type: 'tool_use', tool_name: 'update_address', tool_use_id: 'c2', input: { order: 12, street: '12 Elm St' } }]),
    m(4, 'user', [{ type: 'tool_result', tool_use_id: 'c2', content: "Error: invalid input: field 'order_id' is required (got unknown field 'order')", is_error: true }]),
    m(5, 'user', 'Ugh, this is useless. Why does it keep failing?!'),
  ];
}

function clean(id: string, at: number, user: string) {
  const t = (i: number) => new Date(at + i * 2000).toISOString();
  return [
    { conversation_id: id, role: 'user', user_id: user, timestamp: t(0), message: 'What are your opening hours on Sunday?' },
    { conversation_id: id, role: 'assistant', user_id: user, timestamp: t(1), message: 'We are open from 10 to 16 on Sundays.' },
    { conversation_id: id, role: 'user', user_id: user, timestamp: t(2), message: 'Thanks, that helps.' },
  ];
}

async function post(events: unknown[], key = ts.adminKey) {
  const r = await http(`${ts.ingestUrl}/v1/ingest`, { headers: { authorization: `Bearer ${key}` }, body: { events } });
  assert.ok(r.status >= 200 && r.status < 300, r.text);
}

const failedCalls = async (tenant: string) =>
  Number((await ts.system.rt.store.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.conversation_tool_calls FINAL WHERE tenant_id = {t:String} AND success = 0`, { t: tenant }))[0]!.n);
const emotions = async (tenant: string) =>
  Number((await ts.system.rt.store.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.emotion_detections FINAL WHERE tenant_id = {t:String}`, { t: tenant }))[0]!.n);

let problemId = '';

async function rejects(fn: () => Promise<unknown>, is: (e: unknown) => boolean) {
  try {
    await fn();
  } catch (e) {
    assert.ok(is(e), `unexpected error ${String(e)}`);
    return;
  }
  assert.unreachable('expected an error');
}

test.before(async () => {
  ts = await startTestSystem({ stream: { tenantJobs: [] } });
  otherKey = (await ts.system.rt.keys.create({ tenant: OTHER, role: 'member', scopes: ['ingest', 'read'] })).key;
  const t0 = Date.now() - 3_600_000;
  const events: unknown[] = [];
  for (let i = 0; i < 8; i++) events.push(...failing(`fail-${i}`, t0 + i * 60_000, `user-${i % 5}`));
  for (let i = 0; i < 6; i++) events.push(...clean(`ok-${i}`, t0 + i * 60_000 + 30_000, `user-${i}`));
  await post(events);
  await post(failing('acme-fail-1', t0, 'acme-user'), otherKey);
  const ready = await eventually(async () => (await failedCalls('default')) >= 16 && (await emotions('default')) >= 8 && (await failedCalls(OTHER)) >= 2, { timeoutMs: 60_000, intervalMs: 200 });
  assert.ok(ready, `analyzed: ${await failedCalls('default')} failed calls, ${await emotions('default')} emotions`);
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

test('one pass turns the repeated failure into a trusted problem with the frustration it caused', async () => {
  const r = await runProblemsOnce(deps(), 'default');
  assert.ok(r.run_id && !r.skipped);
  assert.ok(r.stats!.signals >= 24, JSON.stringify(r.stats));
  const list = await listProblems(deps(), 'default');
  const p = list.find((x) => x.cause_key.startsWith('tool_failure|update_address|'));
  assert.ok(p, JSON.stringify(list));
  problemId = p!.problem_id;
  assert.is(p!.lifecycle, 'open');
  assert.is(p!.verification_status, 'current');
  assert.ok(p!.rank_score > 0);
  const got = await getProblem(deps(), 'default', problemId);
  assert.ok(got.found && !got.alias_resolved);
  assert.is(got.problem!.metrics.affected_conversations, 8);
  const attrs = await listTrustedAttributions(deps(), 'default', problemId);
  const convs = new Set(attrs.map((a) => a.conversation_id));
  assert.is(convs.size, 8);
  assert.ok([...convs].every((c) => c.startsWith('fail-')), 'no clean conversation is attributed');
  // the repeated failure is one deduplicated row; the frustration chains to it
  const failure = attrs.find((a) => a.conversation_id === 'fail-0' && a.signal_kind === 'tool_failure')!;
  assert.is(failure.dedup_count, 2);
  assert.is(failure.door, 'rubric_match');
  const upset = attrs.find((a) => a.conversation_id === 'fail-0' && a.signal_kind === 'emotion');
  assert.ok(upset, JSON.stringify(attrs.filter((a) => a.conversation_id === 'fail-0')));
  assert.is(upset!.door, 'local_causal_chain');
  assert.is(upset!.anchor_msg_index, 5);
  assert.ok(upset!.cause_msg_index < 5);
  // the anchor opens the user's message through the context endpoint
  const ctx = await http(`${ts.queryUrl}/api/v1/data/conversations/fail-0/context?msg_index=${upset!.anchor_msg_index}&window=1`, { headers: { 'x-api-key': ts.adminKey } });
  assert.is(ctx.status, 200);
  const centre = ctx.body.context.messages.find((m: any) => m.index === ctx.body.context.center_index);
  assert.match(centre.content, /useless/);
});

test('feedback rules: 400 for malformed input, 404 for unknown problem or foreign attribution', async () => {
  const d = deps();
  await rejects(() => submitFeedback(d, 'default', 'not-a-uuid', { action: 'dismiss', reason: 'x' }), (e: unknown) => e instanceof InvalidProblemFeedbackError);
  await rejects(() => submitFeedback(d, 'default', problemId, { action: 'dismiss' }), (e: unknown) => e instanceof InvalidProblemFeedbackError);
  await rejects(() => submitFeedback(d, 'default', problemId, { action: 'rename' }), (e: unknown) => e instanceof InvalidProblemFeedbackError);
  await rejects(() => submitFeedback(d, 'default', problemId, { action: 'flag_attribution', reason: 'wrong', attribution_id: 'abc' }), (e: unknown) => e instanceof InvalidProblemFeedbackError);
  await rejects(() => submitFeedback(d, 'default', problemId, { action: 'flag_attribution', reason: 'wrong', attribution_id: '00000000-0000-4000-8000-000000000000' }), (e: unknown) => e instanceof AttributionNotFoundError);
  await rejects(() => submitFeedback(d, 'default', '00000000-0000-4000-8000-000000000001', { action: 'mark_fixed' }), (e: unknown) => e instanceof ProblemNotFoundError);
  await rejects(() => submitFeedback(d, 'default', problemId, { action: 'rename', new_display_name: 'x'.repeat(256) }), (e: unknown) => e instanceof InvalidProblemFeedbackError);
  // the other tenant cannot see or touch it
  assert.is((await getProblem(d, OTHER, problemId)).found, false);
  await rejects(() => submitFeedback(d, OTHER, problemId, { action: 'mark_fixed' }), (e: unknown) => e instanceof ProblemNotFoundError);
});

test('mark_fixed → fixed_monitoring at the next run → reopened when the failure recurs', async () => {
  const fix = { fix_id: 'fix-1', short_ref: 'PR #12', pr_url: 'https://example.invalid/pr/12', merge_commit: 'abc123' };
  const a = await submitFeedback(deps(), 'default', problemId, { action: 'mark_fixed', fix_ref: fix, actor: 'fixer' });
  assert.is(a.duplicate, false);
  assert.is(a.status, 'pending');
  const again = await submitFeedback(deps(), 'default', problemId, { action: 'mark_fixed', fix_ref: { ...fix, short_ref: 'other' }, actor: 'fixer' });
  assert.is(again.feedback_id, a.feedback_id);
  assert.is(again.duplicate, true);
  // not applied until a run
  assert.is((await getProblem(deps(), 'default', problemId)).problem!.lifecycle, 'open');
  await runProblemsOnce(deps(), 'default');
  const fixed = (await getProblem(deps(), 'default', problemId)).problem!;
  assert.is(fixed.lifecycle, 'fixed_monitoring');
  assert.equal(fixed.fix_ref, fix);
  // marking it fixed confirms the problem: its audited evidence is passed ground truth, shown as a story
  const detail = await http(`${ts.queryUrl}/api/v1/data/problems/${problemId}`, { headers: { 'x-api-key': ts.adminKey } });
  assert.is(detail.status, 200, detail.text);
  const story = detail.body.stories.find((s: any) => s.story_kind === 'ground_truth_passed');
  assert.ok(story, JSON.stringify(detail.body.stories.map((s: any) => s.story_kind)));
  assert.ok(story.verification.passed);
  assert.match(story.verification.rationale, /marked fixed by fixer \(fix PR #12/);
  const fb = await ts.system.rt.store.query<{ status: string; consumed_by_run_id: string }>(`SELECT status, consumed_by_run_id FROM {{db}}.problem_feedback FINAL WHERE feedback_id = {id:String}`, { id: a.feedback_id });
  assert.is(fb[0]!.status, 'consumed');
  assert.ok(fb[0]!.consumed_by_run_id);
  // a run with nothing new keeps it fixed
  await runProblemsOnce(deps(), 'default');
  assert.is((await getProblem(deps(), 'default', problemId)).problem!.lifecycle, 'fixed_monitoring');
  // the cause recurs
  await post(failing('fail-new-1', Date.now() - 60_000, 'user-9'));
  assert.ok(await eventually(async () => (await failedCalls('default')) >= 18, { timeoutMs: 30_000, intervalMs: 200 }));
  await runProblemsOnce(deps(), 'default');
  const reopened = (await getProblem(deps(), 'default', problemId)).problem!;
  assert.is(reopened.lifecycle, 'reopened');
  const events = await ts.system.rt.store.query<{ event_kind: string; reason: string }>(`SELECT event_kind, reason FROM {{db}}.problem_events WHERE tenant_id = 'default' AND problem_id = {id:String} ORDER BY created_ts, event_id`, { id: problemId });
  const lifecycle = events.filter((e) => e.event_kind === 'lifecycle').map((e) => e.reason);
  assert.ok(lifecycle.some((r) => r.startsWith('open -> fixed_monitoring') && r.includes('PR #12')), JSON.stringify(lifecycle));
  assert.ok(lifecycle.some((r) => r.startsWith('fixed_monitoring -> reopened') && r.includes('fail-new-1')), JSON.stringify(lifecycle));
  // the same fix marked again after the reopen is new feedback, not a duplicate
  const later = await submitFeedback(deps(), 'default', problemId, { action: 'mark_fixed', fix_ref: fix, actor: 'fixer' });
  assert.is(later.duplicate, false);
  assert.is.not(later.feedback_id, a.feedback_id);
});

test('with the leases bucket, concurrent passes of a tenant run one after the other', async () => {
  const kv = ts.system.rt.bus.kv(KV_BUCKETS.leases.name);
  const before = Number((await ts.system.rt.store.query<{ n: string }>(`SELECT uniqExact(run_id) AS n FROM {{db}}.problem_runs WHERE tenant_id = 'default' AND status = 'complete'`))[0]!.n);
  const [a, b] = await Promise.all([runProblemsOnce({ ...deps(), kv }, 'default'), runProblemsOnce({ ...deps(), kv }, 'default')]);
  assert.ok(a.run_id && b.run_id && a.run_id !== b.run_id);
  const after = Number((await ts.system.rt.store.query<{ n: string }>(`SELECT uniqExact(run_id) AS n FROM {{db}}.problem_runs WHERE tenant_id = 'default' AND status = 'complete'`))[0]!.n);
  assert.is(after, before + 2);
  // the lease is given back
  const lease = JSON.parse((await (await kv).get(problemsLeaseKey('default')))!.string());
  assert.ok(lease.until <= Date.now(), 'released');
  const p = (await getProblem(deps(), 'default', problemId)).problem!;
  assert.is(p.lifecycle, 'fixed_monitoring', 'the mark_fixed given after the reopen was applied once, and kept by the second pass');
  const applied = await ts.system.rt.store.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.problem_events WHERE tenant_id = 'default' AND problem_id = {id:String} AND event_kind = 'lifecycle' AND reason LIKE 'reopened -> fixed_monitoring%'`, { id: problemId });
  assert.is(Number(applied[0]!.n), 1);
});

test.run();
