/**
 * Fix routes over HTTP (spec/fix-pipeline.md): the pipeline from a draft to VERIFIED with the
 * reference replay worker, every error row (400/401/403/404/409/503), local delivery, dismissal,
 * the queue, the packet, and ten concurrent advance calls.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createFixServices, type FixServices } from '../../../fixes/services.js';
import { scriptedOutcome, startReplayWorker, type ReplayWorker } from '../../../fixes/replay-worker.js';
import { createFixStore } from '../../../fixes/store.js';
import { KV_BUCKETS } from '../../../schemas/subjects.js';
import { http } from '../../helpers/http.js';
import { createMemoryProblems } from '../../helpers/problems.js';
import { advanceUntil as advanceFix, REFUND_BASELINE, REFUND_CONVERSATIONS, seedRefundScenario, startFixSystem, type FixSystem } from '../../helpers/fix-system.js';

const problems = createMemoryProblems();
let sys: FixSystem;
let svc: FixServices;
let worker: ReplayWorker | undefined;
const convIds = REFUND_CONVERSATIONS;
const P = problems.add({ attributions: convIds.map((id) => ({ conversationId: id, msgIndex: 0 })), rankScore: 0.9 });
const P2 = problems.add({ displayName: 'Second problem', causeStatement: 'The agent forgets shipping addresses between turns', attributions: convIds.map((id) => ({ conversationId: id, msgIndex: 0 })), rankScore: 0.4 });
const MERGED = randomUUID();
problems.alias(MERGED, P.problemId);

const api = (path: string) => `${sys.url}/api/tenants/default${path}`;
const post = (path: string, body?: unknown, key = sys.adminKey) => http(api(path), { method: 'POST', headers: { 'x-api-key': key }, body });
const get = (path: string, key = sys.adminKey) => http(api(path), { headers: { 'x-api-key': key } });
const advanceUntil = (fixId: string, stop: (s: string) => boolean, max = 60) => advanceFix(() => post(`/fixes/${fixId}/advance`), stop, max);


test.before(async () => {
  sys = await startFixSystem({ problems });
  svc = await createFixServices({ config: sys.config, bus: sys.rt.bus, store: sys.rt.store, problems, now: () => sys.clock.now });
  await seedRefundScenario(sys, svc);
  worker = await startReplayWorker(sys.rt.bus);
});

test.after(async () => {
  await worker?.stop();
  await sys.stop();
});

test('401 without a key or with an invalid one; 403 for another tenant (reads) and for a member (POST)', async () => {
  assert.is((await http(api('/fixes'))).status, 401);
  assert.is((await get('/fixes', 'th.bad.key.value')).status, 401);
  assert.is((await get('/fixes', sys.otherKey)).status, 403);
  assert.is((await get('/fixes', sys.memberKey)).status, 200);
  assert.is((await post(`/problems/${P.problemId}/fixes`, {}, sys.memberKey)).status, 403);
  assert.is((await post(`/problems/${P.problemId}/fixes`, {}, sys.otherKey)).status, 403);
});

test('draft: 400 for a non-UUID problem id or a bad body, 404 for an unknown problem', async () => {
  const r = await post('/problems/not-a-uuid/fixes', {});
  assert.is(r.status, 400, r.text);
  assert.is((await post(`/problems/${randomUUID()}/fixes`, {})).status, 404);
  assert.is((await post(`/problems/${P.problemId}/fixes`, { fixType: 'magic' })).status, 400);
  assert.is((await get('/problems/not-a-uuid/fixes')).status, 400);
  assert.is((await get(`/problems/${randomUUID()}/fixes`)).status, 404);
  assert.is((await get(`/fixes/${randomUUID()}`)).status, 404);
});

let fixId = '';
test('draft → DRAFT with a shortRef; drafting again (also through a merged-away id) returns the same fix, and the merged-away id lists it', async () => {
  const r = await post(`/problems/${P.problemId}/fixes`, { fixType: 'auto' });
  assert.is(r.status, 200, r.text);
  assert.is(r.body.status, 'DRAFT');
  assert.match(r.body.shortRef, /^[0-9A-Z]{8}$/);
  assert.is(r.body.problemId, P.problemId);
  assert.is(r.body.rubricVersion, 1);
  assert.is(r.body.attemptNo, 1);
  fixId = r.body.id;
  const again = await post(`/problems/${P.problemId}/fixes`, {});
  assert.is(again.body.id, fixId);
  const viaAlias = await post(`/problems/${MERGED}/fixes`, {});
  assert.is(viaAlias.body.id, fixId);
  assert.is(viaAlias.body.problemId, P.problemId);
  const list = await get(`/problems/${P.problemId}/fixes`);
  assert.equal(list.body.fixes.map((f: any) => f.id), [fixId]);
  assert.not.ok('pagination' in list.body);
  const listViaAlias = await get(`/problems/${MERGED}/fixes`);
  assert.is(listViaAlias.status, 200, listViaAlias.text);
  assert.equal(listViaAlias.body.fixes.map((f: any) => f.id), [fixId], 'a merged-away problem id lists the fixes of its survivor');
});

test('submit and verify from DRAFT are 409; dismiss needs a reason (400)', async () => {
  assert.is((await post(`/fixes/${fixId}/submit`, { channel: 'local_ref', localRef: 'x' })).status, 409);
  assert.is((await post(`/fixes/${fixId}/verify`, {})).status, 409);
  assert.is((await post(`/fixes/${fixId}/dismiss`, {})).status, 400);
  assert.is((await post(`/fixes/${fixId}/dismiss`, { reason: '' })).status, 400);
  assert.is((await post(`/fixes/${fixId}/dismiss`, { reason: 'x'.repeat(2001) })).status, 400);
});

test('advance: scoping routes to the prompt, freezes a replay set and splits repair/holdout → PROPOSING', async () => {
  const r = await post(`/fixes/${fixId}/advance`);
  assert.is(r.status, 200, r.text);
  const f = r.body;
  assert.is(f.status, 'PROPOSING', f.statusReason);
  assert.is(f.fixType, 'PROMPT');
  assert.is(f.targetArtifactKey, 'support/system-prompt');
  assert.is(f.targetSourcePath, 'prompts/support.md');
  assert.ok(f.routeConfidence > 0 && f.routeConfidence <= 1);
  assert.ok(f.replaySetId);
  assert.is(f.repairCaseIds.length + f.holdoutCaseIds.length, 8);
  assert.is(f.holdoutCaseIds.filter((c: string) => f.repairCaseIds.includes(c)).length, 0);
  const rec = await svc.prompts.get('default', 'support-system');
  assert.is(f.promptId, rec!.promptId);
  assert.is(f.baselineVersionId, rec!.labels.prod);
});

test('advance: proposing registers the candidate as a new prompt version with changelog and risks → PROPOSED', async () => {
  const f = (await post(`/fixes/${fixId}/advance`)).body;
  assert.is(f.status, 'PROPOSED', f.statusReason);
  assert.ok(f.candidateRef.promptVersionId);
  assert.ok(f.candidateRef.changelog.length > 10);
  assert.ok(f.candidateRef.risks.length > 10);
  const content = await svc.prompts.content('default', f.candidateRef.promptVersionId);
  assert.ok(content!.startsWith(REFUND_BASELINE));
  assert.ok(content!.includes('lookup_order'));
  const rec = await svc.prompts.get('default', 'support-system');
  assert.is(rec!.labels.prod, f.baselineVersionId, 'the candidate is registered unlabeled');
});

test('advance: PROPOSED → GATING with gate and control runs; GATING polls until the verdict → VERIFIED', async () => {
  const g = (await post(`/fixes/${fixId}/advance`)).body;
  assert.is(g.status, 'GATING');
  assert.ok(g.gateRunId && g.controlRunId && g.gateRunId !== g.controlRunId);
  assert.is((await post(`/fixes/${fixId}/verify`, {})).status, 409, 'verify on a GATING fix is 409');
  const f = await advanceUntil(fixId, (s) => s !== 'GATING');
  assert.is(f.status, 'VERIFIED', f.statusReason);
  const gr = f.gateResult;
  assert.is(gr.verdict, 'pass');
  assert.is(gr.holdout.n, 4);
  assert.is(gr.holdout.wins, 4);
  assert.is(gr.holdout.losses, 0);
  assert.is(gr.noiseFloor, 0);
  assert.is(gr.abstained, 0);
  assert.is(gr.repair.n, 4);
  assert.is(gr.repair.candidate, 1);
  assert.is(gr.repair.baseline, 0);
  assert.ok(typeof gr.reason === 'string' && gr.reason.length > 0);
  // no code-hosting integration configured: a pr submit of a routed, registered candidate is 503
  const pr = await post(`/fixes/${fixId}/submit`, { channel: 'pr' });
  assert.is(pr.status, 503, pr.text);
  // other statuses: advance is a no-op
  const again = (await post(`/fixes/${fixId}/advance`)).body;
  assert.is(again.status, 'VERIFIED');
  assert.is(again.updatedAt, f.updatedAt);
});

test('verify body bounds: candidateContent 40–200,000 characters (400 otherwise)', async () => {
  assert.is((await post(`/fixes/${fixId}/verify`, { candidateContent: 'too short' })).status, 400);
  assert.is((await post(`/fixes/${fixId}/verify`, { candidateContent: 'x'.repeat(200_001) })).status, 400);
  assert.is((await post(`/fixes/${fixId}/verify`, { unknown: 1 })).status, 400);
});

test('verify from VERIFIED → GATING with a fresh gateRunId; an uploaded candidate is recorded by hash only', async () => {
  const before = (await get(`/fixes/${fixId}`)).body;
  const content = `${REFUND_BASELINE}\nBefore answering about refunds, check eligibility by calling lookup_order.`;
  const r = await post(`/fixes/${fixId}/verify`, { candidateContent: content });
  assert.is(r.status, 200, r.text);
  assert.ok(r.body.gateRunId && r.body.gateRunId !== before.gateRunId);
  const f = (await get(`/fixes/${fixId}`)).body;
  assert.is(f.status, 'GATING');
  assert.is(f.candidateRef.promptVersionId, '');
  assert.match(f.candidateRef.contentSha256, /^[0-9a-f]{64}$/);
  const done = await advanceUntil(fixId, (s) => s !== 'GATING');
  assert.is(done.status, 'VERIFIED', done.statusReason);
});

test('submit: 400 without localRef, 400 for pr without a registered candidate version, 503 unconfigured code host', async () => {
  assert.is((await post(`/fixes/${fixId}/submit`, { channel: 'local_ref' })).status, 400);
  assert.is((await post(`/fixes/${fixId}/submit`, {})).status, 400);
  assert.is((await post(`/fixes/${fixId}/submit`, { channel: 'email' })).status, 400);
  // the locally verified candidate has no registered version
  assert.is((await post(`/fixes/${fixId}/submit`, { channel: 'pr' })).status, 400);
});

test('submit local_ref → APPLIED_LOCALLY with the branch recorded', async () => {
  const r = await post(`/fixes/${fixId}/submit`, { channel: 'local_ref', localRef: 'feature/refund-guidance' });
  assert.is(r.status, 200, r.text);
  assert.equal(r.body, { status: 'APPLIED_LOCALLY', prUrl: null, prBranch: 'feature/refund-guidance' });
  const f = (await get(`/fixes/${fixId}`)).body;
  assert.is(f.deliveryChannel, 'local');
  assert.is((await post(`/fixes/${fixId}/submit`, { channel: 'local_ref', localRef: 'again' })).status, 409, 'only a VERIFIED fix can be submitted');
});

test('packet: snake_case, kind .v1, target and candidate blocks, evidence links, verify semantics, handback', async () => {
  const r = await get(`/fixes/${fixId}/packet`);
  assert.is(r.status, 200, r.text);
  const p = r.body;
  assert.match(p.kind, /\.fix_packet\.v1$/);
  assert.is(p.fix_id, fixId);
  assert.match(p.short_ref, /^[0-9A-Z]{8}$/);
  assert.is(p.problem_id, P.problemId);
  assert.is(p.target.fix_type, 'PROMPT');
  assert.is(p.target.source_path, 'prompts/support.md');
  assert.is(p.target.artifact_key, 'support/system-prompt');
  assert.ok(p.target.prompt_id && p.target.baseline_version_id);
  assert.is(p.evidence.length, 8);
  assert.ok(p.evidence.every((e: any) => e.conversation_id && typeof e.msg_index === 'number' && e.url.startsWith('http://tracehouse.test/')));
  // the candidate was uploaded and verified by hash only: no version id to name, so the key is omitted
  assert.equal(p.candidate, { diff_available: false });
  assert.match(p.verify.semantics, /0/);
  assert.match(p.verify.semantics, /\b1\b/);
  assert.match(p.verify.semantics, /\b3\b/);
  assert.is(p.handback.magic_word, `SVC-FIX-${p.short_ref}`);
  assert.ok(Array.isArray(p.handback.constraints) && p.handback.constraints.length > 0);
  for (const k of Object.keys(p)) assert.ok(/^[a-z_]+$/.test(k), `snake_case key ${k}`);
});

test('dismiss: any active status → REJECTED with the reason as problem feedback; dismissing again is 409', async () => {
  const r = await post(`/fixes/${fixId}/dismiss`, { reason: 'the local branch was abandoned' });
  assert.is(r.status, 200, r.text);
  assert.is(r.body.status, 'REJECTED');
  const fb = problems.feedback.find((f) => f.action === 'dismiss' && f.problemId === P.problemId);
  assert.ok(fb && fb.reason!.includes('the local branch was abandoned'));
  assert.is((await post(`/fixes/${fixId}/dismiss`, { reason: 'again' })).status, 409);
  // the problem is free again: a new draft is attempt 2
  const d = await post(`/problems/${P.problemId}/fixes`, {});
  assert.is(d.body.status, 'DRAFT');
  assert.is(d.body.attemptNo, 2);
  assert.is.not(d.body.id, fixId);
});

test('queue: ranked by problem rank then recency, status filter, limit bounds, opaque cursor', async () => {
  await post(`/problems/${P2.problemId}/fixes`, {});
  const all = (await get('/fixes?limit=100')).body;
  assert.ok(all.fixes.length >= 3);
  const ranks = all.fixes.map((f: any) => f.problemRank);
  assert.equal(ranks, [...ranks].sort((a: number, b: number) => b - a));
  const page1 = (await get('/fixes?limit=1')).body;
  assert.is(page1.fixes.length, 1);
  assert.is(page1.pagination.limit, 1);
  assert.is(page1.pagination.has_more, true);
  const page2 = (await get(`/fixes?limit=1&cursor=${encodeURIComponent(page1.pagination.next_cursor)}`)).body;
  assert.is.not(page2.fixes[0].id, page1.fixes[0].id);
  const rejected = (await get('/fixes?status=REJECTED')).body;
  assert.ok(rejected.fixes.length >= 1 && rejected.fixes.every((f: any) => f.status === 'REJECTED'));
  assert.is((await get('/fixes?status=NOPE')).status, 400);
  assert.is((await get('/fixes?limit=0')).status, 400);
  assert.is((await get('/fixes?limit=101')).status, 400);
  assert.is((await get('/fixes?cursor=forged')).status, 400);
  assert.is((await get('/fixes')).body.pagination.limit, 25);
});

test('ten concurrent advance calls: one winner per step, the others return the row unchanged, a consistent fix', async () => {
  const d = (await post(`/problems/${P2.problemId}/fixes`, {})).body;
  assert.is(d.status, 'DRAFT');
  const results = await Promise.all(Array.from({ length: 10 }, () => post(`/fixes/${d.id}/advance`)));
  assert.ok(results.every((r) => r.status === 200));
  const statuses = results.map((r) => r.body.status);
  const hist = await svc.pipeline.history('default', d.id);
  const steps = hist.map((h) => h.to_status);
  // every step ran exactly once (a call arriving after the scoping finished may run the next step)
  assert.is(new Set(steps).size, steps.length, `no step ran twice: ${steps.join(' → ')}`);
  assert.equal(steps.slice(0, 3), ['DRAFT', 'SCOPING', 'PROPOSING']);
  assert.is(statuses.filter((s) => s === 'PROPOSING').length >= 1, true, 'the scoping winner answered with its outcome');
  assert.ok(statuses.every((s) => steps.includes(s)), `every answer is a row that existed: ${statuses.join(',')}`);
  const f = (await get(`/fixes/${d.id}`)).body;
  assert.is(f.status, steps.at(-1));
  if (f.status === 'PROPOSING') assert.is(f.candidateRef, null);
});

test('prompt sync route: complete set with content hashes, dry run by flag, admin only', async () => {
  const body = { prompts: [{ key: 'support-system', content: REFUND_BASELINE, sourcePath: 'prompts/support.md' }, { key: 'greeter', content: 'Say hello.', systemPrompt: 'x' }], dryRun: true };
  assert.is((await post('/prompts/sync', body, sys.memberKey)).status, 403);
  const dry = await post('/prompts/sync', body);
  assert.is(dry.status, 200, dry.text);
  assert.equal(dry.body.prompts.map((p: any) => p.action), ['unchanged', 'created']);
  assert.is(await svc.prompts.get('default', 'greeter'), undefined, 'dry run writes nothing');
  const real = await post('/prompts/sync', { ...body, dryRun: false, sourceCommit: 'abc' });
  assert.equal(real.body.prompts.map((p: any) => p.action), ['unchanged', 'created']);
  assert.ok((await svc.prompts.get('default', 'greeter'))!.versions[0]!.sourceCommit === 'abc');
  assert.is((await post('/prompts/sync', { prompts: [] })).status, 400);
  assert.is((await post('/prompts/sync', { prompts: [{ key: 'a', content: 'b', bogus: 1 }] })).status, 400);
});

test('ten concurrent drafts of one problem give one fix', async () => {
  const P3 = problems.add({ displayName: 'Third', causeStatement: 'The agent loses track of coupons between turns', attributions: convIds.map((id) => ({ conversationId: id, msgIndex: 0 })) });
  const rs = await Promise.all(Array.from({ length: 10 }, () => post(`/problems/${P3.problemId}/fixes`, {})));
  assert.ok(rs.every((r) => r.status === 200), rs.map((r) => r.text).join('\n'));
  assert.is(new Set(rs.map((r) => r.body.id)).size, 1);
  assert.is((await get(`/problems/${P3.problemId}/fixes`)).body.fixes.length, 1);
});

test('a step claimed by a process that died is taken over once the claim is stale (2 minutes on the clock)', async () => {
  const P4 = problems.add({ displayName: 'Fourth', causeStatement: 'The agent forgets loyalty discounts at checkout', attributions: convIds.map((id) => ({ conversationId: id, msgIndex: 0 })) });
  const d = (await post(`/problems/${P4.problemId}/fixes`, {})).body;
  const store = createFixStore(await sys.rt.bus.kv(KV_BUCKETS.fixes.name), sys.rt.store);
  const e = (await store.get('default', d.id))!;
  await store.update(e, { ...e.fix, status: 'SCOPING', claim: { id: 'crashed', at: new Date(sys.clock.now).toISOString() } }, { trigger: 'advance', actor: 'test' });
  const blocked = (await post(`/fixes/${d.id}/advance`)).body;
  assert.is(blocked.status, 'SCOPING', 'a live claim is respected');
  sys.clock.advance(121_000);
  const taken = (await post(`/fixes/${d.id}/advance`)).body;
  assert.is(taken.status, 'PROPOSING', taken.statusReason);
});

test('GATING with unfinished runs polls (stays GATING with progress) until the results are in', async () => {
  const f = (await get(`/fixes?status=PROPOSING`)).body.fixes[0];
  assert.ok(f, 'a fix in PROPOSING');
  const proposed = (await post(`/fixes/${f.id}/advance`)).body;
  assert.is(proposed.status, 'PROPOSED');
  // a worker whose agent harness answers only when released
  await worker!.stop();
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  worker = await startReplayWorker(sys.rt.bus, { replay: async (item) => (await released, scriptedOutcome(item)) });
  try {
    const g = (await post(`/fixes/${f.id}/advance`)).body;
    assert.is(g.status, 'GATING');
    const poll = (await post(`/fixes/${f.id}/advance`)).body;
    assert.is(poll.status, 'GATING');
    assert.match(poll.statusReason, /gate 0\/16 results, control 0\/8/);
  } finally {
    release();
  }
  const done = await advanceUntil(f.id, (s) => s !== 'GATING');
  assert.is(done.status, 'VERIFIED', done.statusReason);
});

test('503 when no replay worker answers (PROPOSED → advance)', async () => {
  const f = (await get(`/fixes?status=VERIFIED`)).body.fixes[0];
  assert.ok(f);
  await worker!.stop();
  worker = undefined;
  const r = await post(`/fixes/${f.id}/verify`, {});
  assert.is(r.status, 503, r.text);
  assert.ok(r.headers.get('retry-after'));
  assert.is((await get(`/fixes/${f.id}`)).body.status, 'VERIFIED', 'the fix is left as it was');
  const d = (await post(`/problems/${P.problemId}/fixes`, {})).body;
  const p = await advanceUntil(d.id, (s) => s === 'PROPOSED' || s === 'VERIFIED', 5);
  assert.is(p.status, 'PROPOSED');
  const adv = await post(`/fixes/${d.id}/advance`);
  assert.is(adv.status, 503, adv.text);
  assert.is((await get(`/fixes/${d.id}`)).body.status, 'PROPOSED', 'PROPOSED → advance without a worker leaves the fix as it was');
});

test.run();
