/**
 * The problem endpoints' contract on one engine run written to the store as a scheduled pass writes
 * it (the engine fed planted signals, no ingest): problem feedback from a plain read key, emerging
 * problems whose evidence is partly fast-lane (no report), feedback text limits counted in
 * characters, and a merged-away id answered the same way by every endpoint that takes a problem id;
 * the default and clamped page sizes, the feedback actor's default and a fix_ref outside the feedback_id.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { assertMatchesSchema } from './fixtures/schema-check.js';
import { runEngine, type EngineOutput } from '../../../stream/problems/engine.js';
import { createProblemsStore } from '../../../stream/problems/store.js';
import { PROBLEMS_ENGINE_VERSION, type Signal } from '../../../stream/problems/types.js';

let ts: TestSystem;
let readKey: string;
let out: EngineOutput;
const NOW = Date.now();
const DAY = 86_400_000;
const at = new Date(NOW - DAY).toISOString();

const url = (p: string) => `${ts.queryUrl}/api/v1/data${p}`;
const get = async (path: string, key = ts.adminKey) => {
  const r = await http(url(path), { headers: { 'x-api-key': key } });
  assert.is(r.status, 200, `${path}: ${r.text}`);
  assertMatchesSchema(path, r.body);
  return r.body;
};
const post = (path: string, body: unknown, key = readKey) => http(url(path), { headers: { 'x-api-key': key }, body });

function failure(conv: string, tool: string, family: string, msg = 2): Signal {
  return { signal_id: `tool_failure:${conv}:c${msg}`, conversation_id: conv, user_id: `u-${conv}`, kind: 'tool_failure', family, type: `${family} label`, msg_index: msg, ts: at, segment_id: `seg-${conv}`, confidence: 1, text: `Error: ${family} in ${tool}`, tool_name: tool, call_key: `c${msg}`, call_msg_index: msg - 1 };
}
function upset(conv: string, cause: Signal): Signal {
  return { signal_id: `emotion:${conv}:3:annoyance`, conversation_id: conv, user_id: `u-${conv}`, kind: 'emotion', family: 'frustration', type: 'annoyance', msg_index: 3, ts: at, segment_id: `seg-${conv}`, confidence: 0.7, text: 'this is useless', elicitor: 'agent', cause_ref: { kind: 'tool_failure', message_index: cause.msg_index, tool_use_id: cause.call_key } };
}
function claim(conv: string): Signal {
  return { signal_id: `hallucination:${conv}:4`, conversation_id: conv, user_id: `u-${conv}`, kind: 'hallucination', family: 'hallucination', type: 'sent', msg_index: 4, ts: at, segment_id: `seg-${conv}`, confidence: 0.9, text: 'Your invite has been sent.' };
}

const byTool = (tool: string) => out.problems.find((p) => p.status === 'active' && p.cause_key.includes(`|${tool}|`))!;

test.before(async () => {
  ts = await startTestSystem({ roles: ['query'] });
  readKey = (await ts.system.rt.keys.create({ tenant: 'default', role: 'member', scopes: ['read'] })).key;
  const signals: Signal[] = [];
  for (let i = 0; i < 30; i++) {
    const f = failure(`a${i}`, 'update_address', 'invalid_input');
    signals.push(f, upset(`a${i}`, f));
  }
  // more trusted problems than one page of /problems holds
  for (let k = 0; k < 26; k++) for (let i = 0; i < 5; i++) signals.push(failure(`x${k}-${i}`, `lookup_${k}`, 'timeout'));
  // too little support: an emerging (provisional) problem over three conversations
  for (let i = 0; i < 3; i++) signals.push(failure(`r${i}`, 'rare_tool', 'not_found'));
  // two causes seen in the same conversations: merged, the absorbed id an alias of the survivor
  for (let i = 0; i < 8; i++) signals.push(failure(`m${i}`, 'sync', 'network'), claim(`m${i}`));
  const runId = `prun_test_${NOW.toString(36)}`;
  out = runEngine({ tenant: 'default', runId, now: NOW, signals, previous: [], previousAttributions: new Map(), feedback: [], blended: new Map(), conversationCount: 100 });
  // one conversation of the emerging problem came through the fast lane: evidence without a report
  const rare = byTool('rare_tool');
  assert.ok(rare && rare.rubric.provisional, 'rare_tool is emerging');
  const fast = out.attributions.find((a) => a.problem_id === rare.problem_id && a.conversation_id === 'r2')!;
  out.reports = out.reports.filter((r) => r.report_id !== fast.report_id);
  fast.report_id = '';
  const ps = createProblemsStore(ts.system.rt.store);
  const startedAt = new Date(NOW).toISOString();
  await ps.writeRunState('default', runId, 'building', { started_at: startedAt, engine_version: PROBLEMS_ENGINE_VERSION });
  await ps.writeOutput('default', runId, out, startedAt);
  await ps.writeRunState('default', runId, 'complete', { started_at: startedAt, completed_at: new Date(NOW + 1).toISOString(), input_mark: '{}', stats: out.stats, engine_version: PROBLEMS_ENGINE_VERSION });
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

test('a plain read key sends problem feedback: accepted, pending, listed; its 400s and 404s as specified; an ingest-only key gets 403', async () => {
  const p = byTool('update_address');
  const r = await post(`/problems/${p.problem_id}/feedback`, { action: 'mark_fixed', actor: 'ci-bot' });
  assert.is(r.status, 200, r.text);
  assert.equal([r.body.success, r.body.problem_id, r.body.status, r.body.duplicate], [true, p.problem_id, 'pending', false]);
  const listed = await get(`/problems/${p.problem_id}/feedback`, readKey);
  assert.ok(listed.feedback.some((f: any) => f.feedback_id === r.body.feedback_id && f.actor === 'ci-bot' && f.status === 'pending'));
  const bad = await post('/problems/not-a-uuid/feedback', { action: 'mark_fixed' });
  assert.is(bad.status, 400, bad.text);
  assert.match(String(bad.body.message), /problem id must be a UUID/);
  assert.is((await post(`/problems/${p.problem_id}/feedback`, { action: 'dismiss' })).status, 400);
  assert.is((await post('/problems/00000000-0000-4000-8000-000000000000/feedback', { action: 'mark_fixed' })).status, 404);
  const ingestOnly = (await ts.system.rt.keys.create({ tenant: 'default', role: 'member', scopes: ['ingest'] })).key;
  assert.is((await post(`/problems/${p.problem_id}/feedback`, { action: 'mark_fixed' }, ingestOnly)).status, 403);
});

test('emerging: report_backed_members counts the conversations with a report, not the fast-lane ones', async () => {
  const rare = byTool('rare_tool');
  assert.is(rare.metrics.affected_conversations, 3);
  const list = await get('/problems');
  const e = list.emerging.find((x: any) => x.problem_id === rare.problem_id);
  assert.ok(e, JSON.stringify(list.emerging));
  assert.equal(e.evidence_support, { report_backed_members: 2, attribution_count: 3 });
  const evidence = await get(`/problems/${rare.problem_id}/evidence`);
  assert.equal(evidence.evidence.map((x: any) => [x.conversation_id, x.report_id === null]).sort(), [['r0', false], ['r1', false], ['r2', true]]);
  const reports = await get(`/problems/${rare.problem_id}/reports`);
  assert.equal(reports.reports.map((x: any) => x.conversation_id), ['r0', 'r1']);
});

test('feedback text limits count characters: 2,000 emoji in reason, 255 in new_display_name and actor accepted; one more rejected', async () => {
  const p = byTool('update_address');
  const id = `/problems/${p.problem_id}/feedback`;
  const e = (n: number) => '🚀'.repeat(n);
  const reason = `a${e(1999)}`;
  const dismiss = await post(id, { action: 'dismiss', reason, actor: e(255) });
  assert.is(dismiss.status, 200, dismiss.text.slice(0, 300));
  const rename = await post(id, { action: 'rename', new_display_name: e(255) });
  assert.is(rename.status, 200, rename.text.slice(0, 300));
  const stored = await get(id);
  assert.ok(stored.feedback.some((f: any) => f.feedback_kind === 'dismiss' && f.reason === reason && f.actor === e(255)));
  assert.ok(stored.feedback.some((f: any) => f.feedback_kind === 'rename' && f.new_display_name === e(255)));
  for (const body of [{ action: 'dismiss', reason: e(2001) }, { action: 'rename', new_display_name: e(256) }, { action: 'mark_fixed', actor: e(256) }]) {
    const r = await post(id, body);
    assert.is(r.status, 400, JSON.stringify(Object.keys(body)));
    assert.match(JSON.stringify(r.body.message), /must NOT have more than|must be at most/);
  }
});

test('a merged-away id: every endpoint that takes a problem id answers the survivor, the requested id and alias_resolved: true', async () => {
  assert.is(out.aliases.length, 1);
  const { alias_id: alias, problem_id: survivor } = out.aliases[0]!;
  const expectResolved = (body: any, what: string) => assert.equal([body.problem_id, body.requested_problem_id, body.alias_resolved], [survivor, alias, true], what);
  expectResolved(await get(`/problems/${alias}`), 'detail');
  for (const sub of ['reports', 'conversations', 'evidence', 'feedback']) {
    const r = await get(`/problems/${alias}/${sub}`);
    expectResolved(r, sub);
    const own = await get(`/problems/${survivor}/${sub}`);
    assert.equal([own.problem_id, own.requested_problem_id, own.alias_resolved], [survivor, survivor, false], `${sub} by the survivor's id`);
  }
  assert.ok((await get(`/problems/${alias}/evidence`)).evidence.length > 0);
  const fb = await post(`/problems/${alias}/feedback`, { action: 'rename', new_display_name: 'Calendar sync and invites fail together' });
  assert.is(fb.status, 200, fb.text);
  assertMatchesSchema(`/problems/${alias}/feedback`, fb.body, 'post');
  expectResolved(fb.body, 'POST feedback');
  const own = await post(`/problems/${survivor}/feedback`, { action: 'rename', new_display_name: 'Calendar sync fails' });
  assert.equal([own.body.problem_id, own.body.requested_problem_id, own.body.alias_resolved], [survivor, survivor, false]);
  const unknown = await get('/problems/00000000-0000-4000-8000-000000000000/evidence');
  assert.equal([unknown.problem_id, unknown.alias_resolved], [null, false]);
});

test('GET /problems: 25 problems by default, limit clamped to 25; sub-resources default to 20 reports, 25 conversations, 25 evidence rows, clamped to 50', async () => {
  const trusted = out.problems.filter((p) => p.status === 'active' && p.rubric.tier === 'leaf' && !p.rubric.provisional && p.verification_status === 'current');
  assert.ok(trusted.length > 25, `${trusted.length} trusted problems`);
  const all = await get('/problems');
  assert.is(all.problems.length, 25);
  const clamped = await get('/problems?limit=500');
  assert.equal(clamped.problems.map((p: any) => p.problem_id), all.problems.map((p: any) => p.problem_id));
  assert.equal((await get('/problems?limit=3')).problems.map((p: any) => p.problem_id), all.problems.slice(0, 3).map((p: any) => p.problem_id));
  const p = byTool('update_address');
  const reports = await get(`/problems/${p.problem_id}/reports`);
  assert.equal([reports.reports.length, reports.pagination.limit, reports.pagination.has_more], [20, 20, true]);
  const convs = await get(`/problems/${p.problem_id}/conversations`);
  assert.equal([convs.conversations.length, convs.pagination.limit, convs.pagination.has_more], [25, 25, true]);
  const evidence = await get(`/problems/${p.problem_id}/evidence`);
  assert.equal([evidence.evidence.length, evidence.pagination.limit, evidence.pagination.has_more], [25, 25, true]);
  const bigReports = await get(`/problems/${p.problem_id}/reports?limit=500`);
  assert.equal([bigReports.reports.length, bigReports.pagination.limit, bigReports.pagination.has_more], [30, 50, false]);
  const bigConvs = await get(`/problems/${p.problem_id}/conversations?limit=500`);
  assert.equal([bigConvs.conversations.length, bigConvs.pagination.limit, bigConvs.pagination.has_more], [30, 50, false]);
  const bigEvidence = await get(`/problems/${p.problem_id}/evidence?limit=500`);
  assert.equal([bigEvidence.evidence.length, bigEvidence.pagination.limit, bigEvidence.pagination.has_more], [50, 50, true]);
});

test('problem feedback: actor defaults to data-api; fix_ref is not part of the feedback_id', async () => {
  const p = byTool('lookup_3');
  const id = `/problems/${p.problem_id}/feedback`;
  const plain = await post(id, { action: 'rename', new_display_name: 'Lookups time out' });
  assert.is(plain.status, 200, plain.text);
  const fix = { fix_id: 'fx-1', short_ref: 'PR #7', pr_url: 'https://example.invalid/pr/7' };
  const withRef = await post(id, { action: 'mark_fixed', actor: 'release-bot', fix_ref: fix });
  assert.is(withRef.status, 200, withRef.text);
  assert.is(withRef.body.duplicate, false);
  const withoutRef = await post(id, { action: 'mark_fixed', actor: 'release-bot' });
  assert.equal([withoutRef.body.feedback_id, withoutRef.body.duplicate], [withRef.body.feedback_id, true]);
  const otherRef = await post(id, { action: 'mark_fixed', actor: 'release-bot', fix_ref: { ...fix, fix_id: 'fx-2', short_ref: 'PR #8' } });
  assert.equal([otherRef.body.feedback_id, otherRef.body.duplicate], [withRef.body.feedback_id, true]);
  const listed = await get(id);
  const byId = (fid: string) => listed.feedback.filter((f: any) => f.feedback_id === fid);
  assert.is(byId(plain.body.feedback_id)[0]?.actor, 'data-api');
  const fixed = byId(withRef.body.feedback_id);
  assert.is(fixed.length, 1, 'one feedback recorded');
  assert.equal([fixed[0].actor, fixed[0].fix_ref?.short_ref], ['release-bot', 'PR #7'], 'the first submission is the one kept');
  assert.is(listed.pending_count, 2);
});

test.run();
