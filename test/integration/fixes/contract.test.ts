/**
 * Fix routes and tools against the rows of spec/fix-pipeline.md they are easiest to get wrong:
 * an UNROUTED fix carries no target (fix object and packet), the packet promises no merge
 * confirmation the transition table does not give, the `read` scope on the fix routes and /mcp
 * (403 as on the data API), a signed key naming another tenant in a tool call (403), dismiss on a
 * fix that any read shows as HELD (409, on the injected clock), `fixes_drive` covering active
 * fixes ranked below inactive ones with an honest `coverage_truncated`, and a gate whose replays
 * cannot run ending on a verdict instead of GATING forever.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createFixServices, type FixServices } from '../../../fixes/services.js';
import { startReplayWorker, type ReplayWorker } from '../../../fixes/replay-worker.js';
import { createConversationSource, createMcpServer } from '../../../mcp/server.js';
import { createCursorCodec } from '../../../query/pagination.js';
import { signPayload } from '../../../query/routes/fixes.js';
import { http } from '../../helpers/http.js';
import { createMemoryProblems } from '../../helpers/problems.js';
import { advanceUntil as advanceFix, REFUND_CONVERSATIONS, seedRefundScenario, startFixSystem, type FixSystem } from '../../helpers/fix-system.js';

const SECRET = 'whsec-contract-0123456789';
const DAY_MS = 86_400_000;
// the problems run stamps fixed-monitoring on the suite's clock
const problems = createMemoryProblems(() => sys.clock.now);
const attr = (ids: string[]) => ids.map((conversationId) => ({ conversationId, msgIndex: 0 }));
const add = (tenant: string, extra: Partial<Parameters<typeof problems.add>[0]> = {}) => problems.add({ tenant, ...extra } as never);
const P_BETA = add('beta', { attributions: attr(Array.from({ length: 6 }, (_, i) => `beta-${i}`)) });
const P_REFUND = add('default', { attributions: attr(REFUND_CONVERSATIONS), rankScore: 0.9 });
const P_SHIP = add('default', { displayName: 'Shipping addresses forgotten', causeStatement: 'The agent forgets shipping addresses between turns' });

let sys: FixSystem;
let svc: FixServices;
let betaKey = '';
let ingestKey = '';
let driveKey = '';
let worker: ReplayWorker | undefined;

const api = (path: string, tenant = 'default') => `${sys.url}/api/tenants/${tenant}${path}`;
const post = (path: string, body: unknown, key: string, tenant = 'default') => http(api(path, tenant), { method: 'POST', headers: { 'x-api-key': key }, body });
const get = (path: string, key: string, tenant = 'default') => http(api(path, tenant), { headers: { 'x-api-key': key } });
const advanceUntil = (fixId: string, stop: (s: string) => boolean, key: string, tenant = 'default', max = 80) =>
  advanceFix(() => post(`/fixes/${fixId}/advance`, undefined, key, tenant), stop, max);
const mcpClient = async (key: string) => {
  const c = new Client({ name: 'contract', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${sys.url}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
  return c;
};
const call = async (c: Client, name: string, args: Record<string, unknown> = {}) => {
  const r = (await c.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as { content: Array<{ text: string }>; isError?: boolean };
  return { ...JSON.parse(r.content[0]!.text), isError: !!r.isError };
};

test.before(async () => {
  sys = await startFixSystem({ problems, env: { FIX_WEBHOOK_SECRET: SECRET } });
  svc = await createFixServices({ config: sys.config, bus: sys.rt.bus, store: sys.rt.store, problems, now: () => sys.clock.now });
  betaKey = (await sys.rt.keys.create({ tenant: 'beta', role: 'admin' })).key;
  ingestKey = (await sys.rt.keys.create({ tenant: 'default', role: 'admin', scopes: ['ingest'] })).key;
  driveKey = (await sys.rt.keys.create({ tenant: 'drive', role: 'admin' })).key;
});

test.after(async () => {
  await worker?.stop();
  await sys.stop();
});

let unroutedId = '';
test('a routed prompt with no prod version and no graph content: UNROUTED with fix type UNROUTED and no target; the packet has only fix_type', async () => {
  // tenant beta: the harness graph names a prompt the registry does not hold, without content
  await svc.harness.sync('beta', { graph: { agents: [{ key: 'bot' }], artifacts: [{ key: 'bot/system', kind: 'prompt', source_path: 'prompts/bot.md', prompt_key: 'bot-system', keywords: ['refund'] }], relationships: [] }, dryRun: false });
  const d = await post(`/problems/${P_BETA.problemId}/fixes`, {}, betaKey, 'beta');
  assert.is(d.status, 200, d.text);
  const f = await advanceUntil(d.body.id, (s) => s !== 'DRAFT' && s !== 'SCOPING', betaKey, 'beta');
  unroutedId = f.id;
  assert.is(f.status, 'UNROUTED', f.statusReason);
  assert.match(f.statusReason, /bot\/system has no prod-labeled registry version/);
  assert.is(f.fixType, 'UNROUTED');
  assert.equal([f.targetArtifactKey, f.targetSourcePath, f.routeConfidence, f.promptId, f.baselineVersionId], [null, null, null, null, null]);
  const again = (await get(`/fixes/${f.id}`, betaKey, 'beta')).body;
  assert.is(again.fixType, 'UNROUTED');
  assert.is(again.targetSourcePath, null);
  const p = (await get(`/fixes/${f.id}/packet`, betaKey, 'beta')).body;
  assert.equal(p.target, { fix_type: 'UNROUTED' });
  assert.not.ok('candidate' in p);
  assert.not.ok(JSON.stringify(p.handback).includes('prompts/bot.md'), 'no routed file is named');
});

test('the packet of a fix without a service-opened PR does not promise that a merge confirms it; a merge of its magic word is ignored', async () => {
  const p = (await get(`/fixes/${unroutedId}/packet`, betaKey, 'beta')).body;
  const about = p.handback.constraints.find((c: string) => c.includes(`Fixes ${p.handback.magic_word}`));
  assert.ok(about, JSON.stringify(p.handback.constraints));
  assert.not.match(about, /so the merge confirms/);
  assert.match(about, /does not confirm this fix/);
  assert.match(about, /fix_mark_applied/);
  const raw = JSON.stringify({
    action: 'closed',
    pull_request: { merged: true, body: `Fixes ${p.handback.magic_word}`, head: { ref: 'my-branch' }, html_url: 'https://example.test/pr/1', merge_commit_sha: 'a'.repeat(40), merged_at: '2026-01-01T00:00:00Z' },
  });
  const hook = await http(`${sys.url}/api/webhooks/code-host`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-hub-signature-256': signPayload(SECRET, raw) }, body: raw });
  assert.is(hook.status, 202, hook.text);
  assert.equal(hook.body.fixes.map((x: any) => [x.fix_id, x.outcome]), [[unroutedId, 'ignored']]);
  assert.is((await get(`/fixes/${unroutedId}`, betaKey, 'beta')).body.status, 'UNROUTED');
});

test('an ingest-only key is refused on fix routes and /mcp with 403, as the data API refuses it', async () => {
  const data = await http(`${sys.url}/api/v1/data/whoami`, { headers: { 'x-api-key': ingestKey } });
  assert.is(data.status, 403, data.text);
  const d = await post(`/problems/${P_SHIP.problemId}/fixes`, {}, sys.adminKey);
  assert.is(d.status, 200, d.text);
  for (const path of ['/fixes', `/fixes/${d.body.id}`, `/fixes/${d.body.id}/packet`, `/problems/${P_SHIP.problemId}/fixes`]) {
    const r = await get(path, ingestKey);
    assert.is(r.status, data.status, `${path}: ${r.text}`);
  }
  assert.is((await post(`/fixes/${d.body.id}/dismiss`, { reason: 'x' }, ingestKey)).status, 403);
  const mcp = await http(`${sys.url}/mcp`, { method: 'POST', headers: { 'x-api-key': ingestKey, accept: 'application/json, text/event-stream' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} } });
  assert.is(mcp.status, 403, mcp.text.slice(0, 200));
  assert.is((await get('/fixes', sys.memberKey)).status, 200, 'a read key still reads');
});

test("MCP: a signed key naming another tenant's tenant_id is 403 (authenticated, not a member); an unsigned key without tenant_id stays 401", async () => {
  const signed = await mcpClient((await sys.rt.keys.create({ tenant: 'default', role: 'admin' })).key);
  try {
    const other = await call(signed, 'fixes', { tenant_id: 'acme' });
    assert.is(other.isError, true);
    assert.is(other.error.status, 403, JSON.stringify(other));
    assert.is((await call(signed, 'fix_packet', { fix_id: unroutedId, tenant_id: 'beta' })).error.status, 403);
    assert.is((await call(signed, 'fixes', { tenant_id: 'default' })).isError, false, 'its own tenant is fine');
  } finally {
    await signed.close();
  }
  const legacy = await mcpClient(sys.adminKey);
  try {
    assert.is((await call(legacy, 'fixes', { tenant_id: 'acme' })).error.status, 403);
    assert.is((await call(legacy, 'fixes', {})).error.status, 401);
  } finally {
    await legacy.close();
  }
});

test('dismiss reconciles first: a fix monitored clean for 15 days is HELD, so dismiss is 409 and nothing is posted', async () => {
  const d = (await post(`/problems/${P_SHIP.problemId}/fixes`, {}, sys.adminKey)).body;
  const shipped = await svc.pipeline.markApplied('default', d.id, 'deployed by hand', 'svc-mcp:test');
  assert.is(shipped.fix.status, 'SHIPPED');
  // the run applies the mark_fixed: the problem enters fixed-monitoring now
  await problems.runOnce('default');
  sys.clock.advance(15 * DAY_MS);
  const r = await post(`/fixes/${d.id}/dismiss`, { reason: 'too late' }, sys.adminKey);
  assert.is(r.status, 409, r.text);
  assert.match(r.body.message, /HELD/);
  assert.is((await get(`/fixes/${d.id}`, sys.adminKey)).body.status, 'HELD');
  assert.not.ok(problems.feedback.some((x) => x.action === 'dismiss' && x.problemId === P_SHIP.problemId), 'no dismiss feedback');
});

test('fixes_drive advances active fixes ranked below inactive ones, and says when its per-pass cap left some out', async () => {
  const high = add('drive', { rankScore: 0.99 });
  // three ended attempts of the top-ranked problem sit above every active fix in the queue
  for (let i = 0; i < 3; i++) {
    const d = (await post(`/problems/${high.problemId}/fixes`, {}, driveKey, 'drive')).body;
    assert.is((await post(`/fixes/${d.id}/dismiss`, { reason: 'not now' }, driveKey, 'drive')).body.status, 'REJECTED');
  }
  const low = [0.3, 0.2, 0.1].map((rankScore) => add('drive', { rankScore }));
  const drafts = [];
  for (const p of low) drafts.push((await post(`/problems/${p.problemId}/fixes`, {}, driveKey, 'drive')).body);
  const now = () => sys.clock.now;
  const server = createMcpServer({
    keys: sys.rt.keys,
    apiKey: driveKey,
    services: svc,
    cursors: createCursorCodec('contract-cursor-secret'),
    now,
    conversations: createConversationSource(sys.rt.store, now),
    drivePassCap: 2,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const c = new Client({ name: 'drive', version: '1.0.0' });
  await c.connect(clientSide);
  try {
    const first = await call(c, 'fixes_drive', { max_passes: 1, pass_interval_seconds: 0 });
    assert.is(first.isError, false, JSON.stringify(first));
    assert.is(first.data.passes, 1);
    // no evidence: each advanced draft ends in NO_EVIDENCE
    assert.equal(first.data.fixes.map((x: any) => [x.fix_id, x.status]), [[drafts[0].id, 'NO_EVIDENCE'], [drafts[1].id, 'NO_EVIDENCE']]);
    assert.is(first.data.coverage_truncated, true, 'three active fixes, two per pass');
    assert.equal(first.data.stragglers.map((x: any) => x.fix_id), [drafts[2].id]);
    const second = await call(c, 'fixes_drive', { max_passes: 2, pass_interval_seconds: 0 });
    assert.equal(second.data.fixes.map((x: any) => [x.fix_id, x.status]), [[drafts[2].id, 'NO_EVIDENCE']]);
    assert.is(second.data.passes, 1, 'nothing left to drive after the first pass');
    assert.is(second.data.coverage_truncated, false);
    assert.equal(second.data.stragglers, []);
  } finally {
    await c.close();
    await server.close();
  }
});

test('a gate whose replays cannot run ends GATE_INCONCLUSIVE (the run reports error) instead of GATING forever', async () => {
  await seedRefundScenario(sys, svc);
  const d = (await post(`/problems/${P_REFUND.problemId}/fixes`, {}, sys.adminKey)).body;
  const proposed = await advanceUntil(d.id, (s) => s !== 'DRAFT' && s !== 'SCOPING' && s !== 'PROPOSING', sys.adminKey);
  assert.is(proposed.status, 'PROPOSED', proposed.statusReason);
  // a harness that fails on every item: after its attempts the worker answers `error`
  worker = await startReplayWorker(sys.rt.bus, { maxAttempts: 2, retryDelayMs: 50, replay: async () => Promise.reject(new Error('agent harness crashed')) });
  const g = (await post(`/fixes/${d.id}/advance`, undefined, sys.adminKey)).body;
  assert.is(g.status, 'GATING', g.statusReason);
  const f = await advanceUntil(d.id, (s) => s !== 'GATING', sys.adminKey, 'default', 100);
  assert.is(f.status, 'GATE_INCONCLUSIVE', f.statusReason);
  assert.is(f.gateResult.verdict, 'inconclusive');
  assert.is(f.gateResult.abstained, f.holdoutCaseIds.length);
  assert.match(f.statusReason, /gate run error: .*agent harness crashed/);
  const run = await svc.replay.status('default', f.gateRunId);
  assert.is(run.status, 'error');
  assert.ok((await post(`/fixes/${d.id}/verify`, {}, sys.adminKey)).status === 200, 'an inconclusive gate can be re-gated');
});

test.run();
