/**
 * The rest of the transition table: delivery as a draft PR through a local fake of the GitHub
 * REST API (branch, body with the magic word, throttles with 409 naming the sibling, SUPERSEDED),
 * the signed merge webhook (401 unsigned or wrong; redeliveries converge) → SHIPPED + mark_fixed,
 * lazy reconciliation (CONFIRMING, REGRESSED, HELD after 14 days on an injected clock), and the
 * statuses the spec leaves open: NO_EVIDENCE, BLOCKED_COVERAGE, UNROUTED, HANDED_OFF, NO_HEADROOM,
 * ABANDONED, GATE_FAILED, GATE_INCONCLUSIVE. The fix tools over MCP on fixes in those states:
 * fix_checkout refusals, fix_verify findings, fix_mark_applied, fix_dismiss, fixes paging.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createFixServices, type FixServices } from '../../../fixes/services.js';
import { startReplayWorker, type ReplayWorker } from '../../../fixes/replay-worker.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { signPayload } from '../../../query/routes/fixes.js';
import { runCli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tmp.js';
import { http } from '../../helpers/http.js';
import { createMemoryProblems } from '../../helpers/problems.js';
import { startFakeGithub, type FakeGithub } from '../../helpers/fake-github.js';
import { advanceUntil as advanceFix, seedConversations, startFixSystem, type FixSystem } from '../../helpers/fix-system.js';

const SECRET = 'whsec-test-0123456789';
// the problems run stamps fixed-monitoring on the suite's clock
const problems = createMemoryProblems(() => sys.clock.now);
let sys: FixSystem;
let svc: FixServices;
let gh: FakeGithub;
let worker: ReplayWorker;
let mcp: Client;

const convs = (prefix: string, n = 8) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
const attr = (ids: string[]) => ids.map((conversationId) => ({ conversationId, msgIndex: 0 }));
const shared = convs('conv');
const mk = (word: string, extra: Partial<Parameters<typeof problems.add>[0]> = {}) =>
  problems.add({ displayName: `${word} problem`, causeStatement: `The agent mishandles ${word} requests by skipping verification steps`, attributions: attr(shared), ...extra });
const PA = mk('alpha', { rankScore: 0.9 });
const PB = mk('alpha', { rankScore: 0.8, causeStatement: 'The agent mishandles alpha refunds by inventing eligibility policies' });
const PBR = mk('bravo');
const PCH = mk('charlie');
const PD = mk('delta');
const PC = mk('alpha', { causeStatement: 'The agent mishandles alpha exchanges by ignoring warehouse availability' });
const PE = mk('echo');
const P_NOEV = mk('alpha', { attributions: [] });
const P_FEW = mk('alpha', { attributions: attr(shared.slice(0, 3)) });
const P_TOOL = mk('lookup_order', { causeStatement: 'lookup_order calls fail with malformed order identifiers', attributions: attr(convs('tool')) });
const P_GONE = mk('bravo');
const P_ABSTAIN = mk('charlie', { attributions: attr(convs('silent')) });
const P_ACME = problems.add({ tenant: 'acme', attributions: attr(shared) } as never);

const GRAPH = {
  agents: [{ key: 'support' }],
  artifacts: [
    ...['alpha', 'bravo', 'charlie', 'delta', 'echo'].map((w) => ({ key: `${w}-prompt`, kind: 'prompt', source_path: `prompts/${w}.md`, prompt_key: w, keywords: [w] })),
    { key: 'tools/lookup', kind: 'tool_schema', source_path: 'tools/lookup.json', tools: ['lookup_order'] },
  ],
  relationships: [],
};

const api = (path: string, tenant = 'default') => `${sys.url}/api/tenants/${tenant}${path}`;
const post = (path: string, body?: unknown, key = sys.adminKey, tenant = 'default') => http(api(path, tenant), { method: 'POST', headers: { 'x-api-key': key }, body });
const get = (path: string) => http(api(path), { headers: { 'x-api-key': sys.adminKey } });
const draft = async (p: { problemId: string }, body: unknown = {}) => {
  const r = await post(`/problems/${p.problemId}/fixes`, body);
  assert.is(r.status, 200, r.text);
  return r.body;
};
const advanceUntil = (fixId: string, stop: (s: string) => boolean, tenant = 'default', key = sys.adminKey) => advanceFix(() => post(`/fixes/${fixId}/advance`, undefined, key, tenant), stop);
const verified = async (p: { problemId: string }) => {
  const d = await draft(p);
  const f = await advanceUntil(d.id, (s) => !['DRAFT', 'SCOPING', 'PROPOSING', 'PROPOSED', 'GATING'].includes(s));
  assert.is(f.status, 'VERIFIED', f.statusReason);
  return f;
};
const webhook = (payload: unknown, signature?: string | null, event = 'pull_request') => {
  const raw = JSON.stringify(payload);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-github-event': event };
  if (signature !== null) headers['x-hub-signature-256'] = signature ?? signPayload(SECRET, raw);
  return http(`${sys.url}/api/webhooks/code-host`, { method: 'POST', headers, body: raw });
};
/** One MCP tool call: `{data, warnings}` or `{error}`, plus `isError`. */
const call = async (name: string, args: Record<string, unknown>) => {
  const r = (await mcp.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as { content: Array<{ text: string }>; isError?: boolean };
  return { ...JSON.parse(r.content[0]!.text), isError: !!r.isError };
};
const merged = (pr: { body: string; head: string; url: string }, commit = 'c0ffee'.padEnd(40, '0')) => ({
  action: 'closed',
  pull_request: { merged: true, body: pr.body, head: { ref: pr.head }, html_url: pr.url, merge_commit_sha: commit, merged_at: '2026-11-23T12:00:00Z' },
});

test.before(async () => {
  gh = await startFakeGithub({ owner: 'acme', repo: 'harness' });
  sys = await startFixSystem({
    problems,
    env: { FIX_GITHUB_TOKEN: 'ghs_test', FIX_GITHUB_REPO: 'acme/harness', FIX_GITHUB_API_URL: gh.url, FIX_WEBHOOK_SECRET: SECRET },
  });
  svc = await createFixServices({ config: sys.config, bus: sys.rt.bus, store: sys.rt.store, problems, now: () => sys.clock.now });
  await seedConversations(sys.rt, 'default', [...shared, ...convs('tool')].map((id) => ({ id, user: `Please help with my order ${id}.` })));
  await seedConversations(sys.rt, 'acme', shared.map((id) => ({ id, user: `Please help with my order ${id}.` })));
  await sys.rt.store.insert(
    'conversation_tool_calls',
    convs('tool').map((id, i) => ({ tenant_id: 'default', conversation_id: id, item_key: `k${i}`, version: 1, is_deleted: 0, analyzer_version: 1, tool_use_id: `t${i}`, tool_name: 'lookup_order', message_index: 1, result_index: 2, ts: new Date().toISOString(), success: 0, effect_class: 'read', error: 'invalid order id', error_type: 'validation', category_id: '', family: 'bad_arguments', environment: '', user_id: '' })),
    { async_insert: 0 },
  );
  await svc.harness.sync('default', { graph: GRAPH, dryRun: false });
  const guidance = `Known failure to avoid: ${PE.causeStatement}`;
  await svc.prompts.sync(
    'default',
    ['alpha', 'bravo', 'charlie', 'delta', 'echo'].map((w) => ({ key: w, content: w === 'echo' ? `You handle echo requests.\n- ${guidance}` : `You handle ${w} requests for the shop.` })),
    { dryRun: false },
  );
  worker = await startReplayWorker(sys.rt.bus);
  mcp = new Client({ name: 'lifecycle', version: '1.0.0' });
  const signed = (await sys.rt.keys.create({ tenant: 'default', role: 'admin' })).key;
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${sys.url}/mcp`), { requestInit: { headers: { 'x-api-key': signed } } }));
});

test.after(async () => {
  await mcp?.close();
  await worker.stop();
  await sys.stop();
  await gh.stop();
});

let older: any;
let fdId = '';
let fa: any;
test('submit pr → PR_OPEN: draft PR on svc/fix/<shortref> with the magic word; an older draft on the same file → SUPERSEDED', async () => {
  older = await draft(PB);
  older = await advanceUntil(older.id, (s) => s === 'PROPOSED');
  assert.is(older.targetSourcePath, 'prompts/alpha.md');
  fa = await verified(PA);
  assert.is(fa.targetSourcePath, 'prompts/alpha.md');
  const r = await post(`/fixes/${fa.id}/submit`, { channel: 'pr' });
  assert.is(r.status, 200, r.text);
  assert.is(r.body.status, 'PR_OPEN');
  assert.is(r.body.prBranch, `svc/fix/${fa.shortRef.toLowerCase()}`);
  const pr = gh.pulls.find((p) => p.head === r.body.prBranch)!;
  assert.ok(pr, 'the fake code host received the pull request');
  assert.is(pr.draft, true);
  assert.is(pr.base, 'main');
  assert.ok(pr.body.includes(`Fixes SVC-FIX-${fa.shortRef}`));
  assert.is(r.body.prUrl, pr.html_url);
  const file = gh.files.get(`${r.body.prBranch}:prompts/alpha.md`)!;
  assert.ok(file.content.includes('Known failure to avoid'), 'the candidate is committed on the fix branch');
  assert.ok(gh.requests.every((q) => q.auth.length > 0));
  assert.is((await get(`/fixes/${older.id}`)).body.status, 'SUPERSEDED');
  assert.is((await post(`/fixes/${older.id}/dismiss`, { reason: 'x' })).status, 409, 'dismiss on SUPERSEDED is 409');
});

test('throttles: one open PR per target file (409 naming the sibling), three per workspace', async () => {
  const fc = await verified(PC);
  const r = await post(`/fixes/${fc.id}/submit`, { channel: 'pr' });
  assert.is(r.status, 409, r.text);
  assert.ok(r.body.message.includes(`SVC-FIX-${fa.shortRef}`), r.body.message);
  for (const p of [PBR, PCH]) {
    const f = await verified(p);
    assert.is((await post(`/fixes/${f.id}/submit`, { channel: 'pr' })).status, 200);
  }
  const fd = await verified(PD);
  fdId = fd.id;
  const over = await post(`/fixes/${fd.id}/submit`, { channel: 'pr' });
  assert.is(over.status, 409, over.text);
  assert.match(over.body.message, /limit 3/);
  assert.match(over.body.message, /SVC-FIX-/);
  // gate failure on re-verify with a candidate that lacks the guidance: ties on every case
  const v = await post(`/fixes/${fd.id}/verify`, { candidateContent: 'You handle delta requests for the shop. Be brief and friendly always.' });
  assert.is(v.status, 200, v.text);
  const failed = await advanceUntil(fd.id, (s) => s !== 'GATING');
  assert.is(failed.status, 'GATE_FAILED', failed.statusReason);
  assert.is(failed.gateResult.verdict, 'fail');
  assert.is(failed.gateResult.holdout.wins, 0);
  const again = await post(`/fixes/${fd.id}/verify`, {});
  assert.is(again.status, 200, 'GATE_FAILED can be re-gated');
});

test('merge webhook: 401 unsigned or wrong signature; signed → SHIPPED + mark_fixed (svc-github-app, fix_ref); redelivery converges', async () => {
  const pr = gh.pulls.find((p) => p.head === `svc/fix/${fa.shortRef.toLowerCase()}`)!;
  const payload = merged({ body: pr.body, head: pr.head, url: pr.html_url });
  assert.is((await webhook(payload, null)).status, 401);
  assert.is((await webhook(payload, signPayload('wrong-secret', JSON.stringify(payload)))).status, 401);
  assert.is((await webhook(payload, 'sha256=zz')).status, 401);
  assert.is((await get(`/fixes/${fa.id}`)).body.status, 'PR_OPEN', 'nothing happened on a bad signature');
  const r1 = await webhook(payload);
  assert.is(r1.status, 202, r1.text);
  assert.is(r1.body.fixes[0].status, 'SHIPPED');
  assert.is(r1.body.fixes[0].duplicate, false);
  const f = (await get(`/fixes/${fa.id}`)).body;
  assert.is(f.status, 'SHIPPED');
  assert.equal(f.fixRef, { prUrl: pr.html_url, mergeCommit: 'c0ffee'.padEnd(40, '0'), promptVersionId: fa.candidateRef.promptVersionId, mergedAt: '2026-11-23T12:00:00Z' });
  const fb = problems.feedback.filter((x) => x.problemId === PA.problemId && x.action === 'mark_fixed');
  assert.is(fb.length, 1);
  assert.is(fb[0]!.actor, 'svc-github-app');
  assert.equal(fb[0]!.fix_ref, { fix_id: fa.id, short_ref: fa.shortRef, pr_url: pr.html_url, merge_commit: 'c0ffee'.padEnd(40, '0'), prompt_version_id: fa.candidateRef.promptVersionId });
  const r2 = await webhook(payload);
  assert.is(r2.status, 202);
  assert.is(r2.body.fixes[0].feedback_id, r1.body.fixes[0].feedback_id);
  assert.is(r2.body.fixes[0].duplicate, true);
  assert.is(problems.feedback.filter((x) => x.problemId === PA.problemId && x.action === 'mark_fixed').length, 1);
  assert.is((await get(`/fixes/${fa.id}`)).body.status, 'SHIPPED');
  // a non-merge event is accepted and ignored
  assert.is((await webhook({ action: 'opened', pull_request: { merged: false } })).status, 202);
});

test('reads reconcile lazily: SHIPPED → CONFIRMING in monitoring → REGRESSED when the problem reopens', async () => {
  await problems.runOnce('default');
  assert.is((await get(`/fixes/${fa.id}`)).body.status, 'CONFIRMING');
  problems.recur(PA.problemId);
  await problems.runOnce('default');
  const f = (await get(`/fixes/${fa.id}`)).body;
  assert.is(f.status, 'REGRESSED');
  const hist = await svc.pipeline.history('default', fa.id);
  assert.equal(hist.map((h) => h.to_status).slice(-3), ['SHIPPED', 'CONFIRMING', 'REGRESSED']);
  // a late redelivery of the merge does not mark the reopened problem fixed again
  const pr = gh.pulls.find((p) => p.head === `svc/fix/${fa.shortRef.toLowerCase()}`)!;
  const late = await webhook(merged({ body: pr.body, head: pr.head, url: pr.html_url }));
  assert.is(late.status, 202);
  assert.is(late.body.fixes[0].outcome, 'converged');
  assert.is(problems.feedback.filter((x) => x.problemId === PA.problemId && x.action === 'mark_fixed').length, 1);
  assert.is((await get(`/fixes/${fa.id}`)).body.status, 'REGRESSED');
});

test('fix_mark_applied: SHIPPED + mark_fixed; HELD after 14 clean monitoring days on the clock, not before monitoring starts; a repeat is a flagged no-op; dismiss on HELD is 409', async () => {
  const open = (await get('/fixes?status=PR_OPEN')).body.fixes;
  const f = open.find((x: any) => x.problemId === PBR.problemId);
  const r = await svc.pipeline.markApplied('default', f.id, 'deployed by hand', 'svc-mcp:test');
  assert.is(r.fix.status, 'SHIPPED');
  assert.is(r.duplicate, false);
  assert.ok(problems.feedback.some((x) => x.problemId === PBR.problemId && x.action === 'mark_fixed'));
  // no problems run has applied the mark_fixed: the problem is not monitored, so no day is clean
  sys.clock.advance(15 * 86_400_000);
  assert.is((await get(`/fixes/${f.id}`)).body.status, 'SHIPPED');
  await problems.runOnce('default');
  assert.is((await get(`/fixes/${f.id}`)).body.status, 'CONFIRMING');
  sys.clock.advance(13 * 86_400_000);
  assert.is((await get(`/fixes/${f.id}`)).body.status, 'CONFIRMING');
  sys.clock.advance(1 * 86_400_000 + 1000);
  assert.is((await get(`/fixes/${f.id}`)).body.status, 'HELD');
  const again = await svc.pipeline.markApplied('default', f.id, undefined, 'svc-mcp:test');
  assert.is(again.duplicate, true);
  assert.ok(again.warning);
  assert.is((await post(`/fixes/${f.id}/dismiss`, { reason: 'late' })).status, 409);
});

test('scoping outcomes: NO_EVIDENCE, BLOCKED_COVERAGE, HANDED_OFF (tool schema), UNROUTED (no harness graph)', async () => {
  const noev = await advanceUntil((await draft(P_NOEV)).id, (s) => s !== 'DRAFT' && s !== 'SCOPING');
  assert.is(noev.status, 'NO_EVIDENCE');
  const few = await advanceUntil((await draft(P_FEW)).id, (s) => s !== 'DRAFT' && s !== 'SCOPING');
  assert.is(few.status, 'BLOCKED_COVERAGE');
  assert.match(few.statusReason, /at least 4/);
  const tool = await advanceUntil((await draft(P_TOOL)).id, (s) => s !== 'DRAFT' && s !== 'SCOPING');
  assert.is(tool.status, 'HANDED_OFF', tool.statusReason);
  assert.is(tool.fixType, 'TOOL_SCHEMA');
  assert.is(tool.targetSourcePath, 'tools/lookup.json');
  const packet = (await get(`/fixes/${tool.id}/packet`)).body;
  assert.is(packet.target.fix_type, 'TOOL_SCHEMA');
  assert.not.ok('candidate' in packet);
  assert.is((await post(`/fixes/${tool.id}/advance`)).body.status, 'HANDED_OFF', 'advance on other statuses is a no-op');
  // tenant acme has no harness graph
  const d = await post(`/problems/${P_ACME.problemId}/fixes`, {}, sys.otherKey, 'acme');
  assert.is(d.status, 200, d.text);
  const un = await advanceUntil(d.body.id, (s) => s !== 'DRAFT' && s !== 'SCOPING', 'acme', sys.otherKey);
  assert.is(un.status, 'UNROUTED');
  assert.is(un.fixType, 'UNROUTED');
  const up = (await http(api(`/fixes/${un.id}/packet`, 'acme'), { headers: { 'x-api-key': sys.otherKey } })).body;
  assert.equal(up.target, { fix_type: 'UNROUTED' });
  // an ended attempt frees the problem: drafting again starts attempt 2
  const next = await draft(P_NOEV);
  assert.is(next.attemptNo, 2);
});

test('proposing: NO_HEADROOM when the baseline already carries the guidance; ABANDONED when the problem was resolved', async () => {
  const e = await advanceUntil((await draft(PE)).id, (s) => !['DRAFT', 'SCOPING', 'PROPOSING'].includes(s));
  assert.is(e.status, 'NO_HEADROOM', e.statusReason);
  const g = await draft(P_GONE);
  problems.set(P_GONE.problemId, { lifecycle: 'resolved' });
  const gone = await advanceUntil(g.id, (s) => s !== 'DRAFT' && s !== 'SCOPING');
  assert.is(gone.status, 'ABANDONED');
  assert.is((await post(`/fixes/${g.id}/dismiss`, { reason: 'x' })).status, 409, 'dismiss on ABANDONED is 409');
  assert.is((await post(`/fixes/${e.id}/dismiss`, { reason: 'nothing to add' })).body.status, 'REJECTED', 'NO_HEADROOM can be dismissed');
});

test('gate: more than 30% abstained (no scenario to replay) → GATE_INCONCLUSIVE', async () => {
  const f = await advanceUntil((await draft(P_ABSTAIN)).id, (s) => !['DRAFT', 'SCOPING', 'PROPOSING', 'PROPOSED', 'GATING'].includes(s));
  assert.is(f.status, 'GATE_INCONCLUSIVE', f.statusReason);
  assert.is(f.gateResult.verdict, 'inconclusive');
  assert.is(f.gateResult.abstained, f.holdoutCaseIds.length);
  const again = await post(`/fixes/${f.id}/verify`, {});
  assert.is(again.status, 200, 'GATE_INCONCLUSIVE can be re-gated');
  assert.is((await get(`/fixes/${f.id}`)).body.status, 'GATING');
});

test('tracehouse fix-verify (the packet verify command): exit 0 on a holdout win, 1 failing, 3 degraded', async () => {
  // the uploaded candidate of the previous test replaced the fix's candidate: it failed again
  const f = await advanceUntil(fdId, (s) => s !== 'GATING');
  assert.is(f.status, 'GATE_FAILED', f.statusReason);
  const env = { TRACEHOUSE_URL: sys.url, TRACEHOUSE_API_KEY: sys.adminKey };
  const dir = tempDir('th-cand-');
  const good = join(dir, 'good.md');
  writeFileSync(good, `You handle delta requests for the shop.\nKnown failure to avoid: ${PD.causeStatement}`);
  const win = await runCli(['fix-verify', fdId, '--candidate', good, '--max-wait-seconds', '60'], env);
  assert.is(win.code, 0, win.stderr + win.stdout);
  assert.match(win.stdout, /"verdict":"pass"/);
  const file = join(dir, 'candidate.md');
  writeFileSync(file, 'You handle delta requests for the shop. Reply briefly to every customer.');
  const failing = await runCli(['fix-verify', fdId, '--candidate', file, '--max-wait-seconds', '60'], env);
  assert.is(failing.code, 1, failing.stderr + failing.stdout);
  await worker.stop();
  const degraded = await runCli(['fix-verify', fdId, '--max-wait-seconds', '60'], env);
  assert.is(degraded.code, 3, degraded.stderr + degraded.stdout);
  assert.match(degraded.stderr, /replay worker/);
  worker = await startReplayWorker(sys.rt.bus);
});

test('a merge notification that names the fix only in its head branch (no magic word in the body) ships the PR_OPEN fix', async () => {
  const f = (await get('/fixes?status=PR_OPEN')).body.fixes.find((x: any) => x.problemId === PCH.problemId);
  assert.ok(f, 'the charlie fix is PR_OPEN');
  const pr = gh.pulls.find((p) => p.head === `svc/fix/${f.shortRef.toLowerCase()}`)!;
  const r = await webhook(merged({ body: 'Tightens the charlie prompt.', head: pr.head, url: pr.html_url }));
  assert.is(r.status, 202, r.text);
  assert.equal(r.body.fixes.map((x: any) => [x.fix_id, x.status]), [[f.id, 'SHIPPED']]);
  assert.is((await get(`/fixes/${f.id}`)).body.status, 'SHIPPED');
  const fb = problems.feedback.filter((x) => x.problemId === PCH.problemId && x.action === 'mark_fixed');
  assert.is(fb.length, 1);
  assert.is(fb[0]!.actor, 'svc-github-app');
});

test('MCP fix_checkout refuses a TOOL_SCHEMA fix and a fix without a candidate with 400', async () => {
  const handedOff = (await get('/fixes?status=HANDED_OFF')).body.fixes.find((x: any) => x.fixType === 'TOOL_SCHEMA');
  assert.ok(handedOff);
  const tool = await call('fix_checkout', { fix_id: handedOff.id });
  assert.is(tool.isError, true);
  assert.is(tool.error.status, 400);
  assert.match(tool.error.message, /TOOL_SCHEMA/);
  const drafted = (await get('/fixes?status=DRAFT')).body.fixes.find((x: any) => x.problemId === P_NOEV.problemId);
  assert.ok(drafted);
  const none = await call('fix_checkout', { fix_id: drafted.id });
  assert.is(none.isError, true);
  assert.is(none.error.status, 400);
  assert.match(none.error.message, /no proposed candidate/);
});

test('MCP fix_verify with a failing candidate: GATE_FAILED is a tool error with one finding per holdout case', async () => {
  const v = await call('fix_verify', { fix_id: fdId, candidate_content: 'You handle delta requests for the shop. Reply briefly to every customer.', poll_interval_seconds: 2, max_wait_seconds: 60 });
  assert.is(v.isError, true, JSON.stringify(v));
  assert.is(v.data.fix.status, 'GATE_FAILED');
  assert.match(v.warnings.join(' '), /gate failed/);
  assert.equal(v.data.findings.map((x: any) => x.case_id).sort(), [...v.data.fix.holdoutCaseIds].sort());
  for (const x of v.data.findings) assert.is(x.outcome, 'tie', JSON.stringify(x));
  assert.is(v.data.next_steps[0].tool, 'fix_verify');
});

test('MCP fix_mark_applied: SHIPPED with mark_fixed feedback by the MCP actor; a second call is a duplicate flagged by a warning', async () => {
  const fc = (await get('/fixes?status=VERIFIED')).body.fixes.find((x: any) => x.problemId === PC.problemId);
  assert.ok(fc, 'the throttled alpha fix is still VERIFIED');
  const r = await call('fix_mark_applied', { fix_id: fc.id, note: 'deployed with the weekly release' });
  assert.is(r.isError, false, JSON.stringify(r));
  assert.is(r.data.fix.status, 'SHIPPED');
  assert.is(r.data.duplicate, false);
  assert.equal(r.warnings, []);
  const fb = problems.feedback.filter((x) => x.problemId === PC.problemId && x.action === 'mark_fixed');
  assert.is(fb.length, 1);
  assert.is(fb[0]!.feedbackId, r.data.feedback_id);
  assert.match(fb[0]!.actor, /^svc-mcp:/);
  const again = await call('fix_mark_applied', { fix_id: fc.id });
  assert.is(again.isError, false, JSON.stringify(again));
  assert.is(again.data.duplicate, true);
  assert.is(again.warnings.length, 1);
  assert.is(again.data.fix.status, 'SHIPPED');
  assert.is(problems.feedback.filter((x) => x.problemId === PC.problemId && x.action === 'mark_fixed').length, 1, 'no second feedback');
});

test('MCP fix_dismiss: REJECTED with the reason as dismiss feedback on the problem', async () => {
  const drafted = (await get('/fixes?status=DRAFT')).body.fixes.find((x: any) => x.problemId === P_NOEV.problemId);
  const r = await call('fix_dismiss', { fix_id: drafted.id, reason: 'no conversations show this problem' });
  assert.is(r.isError, false, JSON.stringify(r));
  assert.is(r.data.fix.status, 'REJECTED');
  assert.is((await get(`/fixes/${drafted.id}`)).body.status, 'REJECTED');
  assert.ok(problems.feedback.some((x) => x.problemId === P_NOEV.problemId && x.action === 'dismiss' && x.reason?.includes('no conversations show this problem')));
});

test('MCP fixes: next_cursor pages through the whole ranked queue once; an invalid cursor is a 400 tool error', async () => {
  const all = (await get('/fixes?limit=100')).body.fixes.map((x: any) => x.id);
  assert.ok(all.length > 6);
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 20; i++) {
    const page = await call('fixes', { limit: 3, ...(cursor ? { cursor } : {}) });
    assert.is(page.isError, false, JSON.stringify(page));
    assert.ok(page.data.fixes.length <= 3);
    seen.push(...page.data.fixes.map((x: any) => x.id));
    if (!page.data.pagination.has_more) {
      assert.is(page.data.pagination.next_cursor, null);
      break;
    }
    cursor = page.data.pagination.next_cursor;
  }
  assert.equal(seen, all, 'the pages together are the ranked queue, each fix once');
  const bad = await call('fixes', { limit: 3, cursor: 'not-a-cursor' });
  assert.is(bad.isError, true);
  assert.is(bad.error.status, 400);
  const first = await call('fixes', { limit: 1 });
  assert.is((await call('fixes', { status: 'SHIPPED', limit: 1, cursor: first.data.pagination.next_cursor })).error.status, 400, 'a cursor of another status filter is refused');
});

test.run();
