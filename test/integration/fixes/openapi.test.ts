/**
 * The fix routes in the service's OpenAPI document (GET /openapi.json): every fix route the server
 * mounts is documented with its method, under its own base URL (a path-level `servers` entry), and
 * nothing else is; every request of this suite goes to the URL the document gives (server + path)
 * and every answer — successes through the whole pipeline (draft, advance to VERIFIED, verify,
 * submit as a pull request to a local fake code host and as a local branch, the signed merge
 * notification, dismiss, prompt sync, queue, packet) and the error rows — is checked against the
 * documented status and response schema with ajv.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { createFixServices, type FixServices } from '../../../fixes/services.js';
import { startReplayWorker, type ReplayWorker } from '../../../fixes/replay-worker.js';
import { createFixRouter } from '../../../query/app.js';
import { signPayload } from '../../../query/routes/fixes.js';
import { http, type HttpResult } from '../../helpers/http.js';
import { createMemoryProblems } from '../../helpers/problems.js';
import { startFakeGithub, type FakeGithub } from '../../helpers/fake-github.js';
import { advanceUntil as advanceFix, REFUND_BASELINE, REFUND_CONVERSATIONS, seedRefundScenario, startFixSystem, type FixSystem } from '../../helpers/fix-system.js';

const SECRET = 'whsec-openapi-0123456789';
const problems = createMemoryProblems();
const convIds = REFUND_CONVERSATIONS;
const attributions = convIds.map((id) => ({ conversationId: id, msgIndex: 0 }));
const P1 = problems.add({ attributions, rankScore: 0.9 });
const P2 = problems.add({ displayName: 'Second problem', causeStatement: 'The agent forgets shipping addresses between turns', attributions, rankScore: 0.5 });
const P3 = problems.add({ displayName: 'Third problem', causeStatement: 'The agent promises refunds it cannot grant', attributions, rankScore: 0.2 });

let sys: FixSystem;
let svc: FixServices;
let gh: FakeGithub;
let worker: ReplayWorker | undefined;
let doc: any;

interface DocOp {
  method: string;
  path: string;
  server: string;
  op: any;
  pattern: RegExp;
}
let fixOps: DocOp[] = [];
/** operationId → statuses answered in this suite. */
const seen = new Map<string, Set<number>>();
const ajv = new Ajv2020({ strict: false, allErrors: true });
const validators = new Map<string, ValidateFunction>();

const resolve = (node: any): any => {
  if (!node?.$ref) return node;
  let out: any = doc;
  for (const seg of String(node.$ref).slice(2).split('/')) out = out?.[seg];
  assert.ok(out, `unresolved ${node.$ref}`);
  return resolve(out);
};

/**
 * Sends a request to the fix route the document names for `method` and the concrete `path`
 * (relative to the route's server), then checks that the document lists the answer's status for
 * that operation and that the body validates against the documented schema.
 */
async function call(method: 'GET' | 'POST', path: string, opts: { body?: unknown; key?: string | null; headers?: Record<string, string> } = {}): Promise<HttpResult> {
  const matches = fixOps.filter((o) => o.method === method.toLowerCase() && o.pattern.test(path.split('?')[0]!));
  assert.is(matches.length, 1, `${method} ${path} matches one documented fix operation`);
  const d = matches[0]!;
  const key = opts.key === undefined ? sys.adminKey : opts.key;
  const headers: Record<string, string> = { ...(key ? { 'x-api-key': key } : {}), ...opts.headers };
  const r = await http(`${sys.url}${d.server}${path}`, { method, headers, body: opts.body });
  const documented = d.op.responses[String(r.status)];
  assert.ok(documented, `${d.op.operationId} answered ${r.status}, which the document does not list: ${r.text.slice(0, 300)}`);
  const schema = resolve(resolve(documented).content['application/json'].schema);
  const id = `${d.op.operationId} ${r.status}`;
  let validate = validators.get(id);
  if (!validate) validators.set(id, (validate = ajv.compile(schema)));
  assert.ok(validate(r.body), `${id} body does not match the document: ${ajv.errorsText(validate.errors)}\n${r.text.slice(0, 500)}`);
  if (!seen.has(d.op.operationId)) seen.set(d.op.operationId, new Set());
  seen.get(d.op.operationId)!.add(r.status);
  return r;
}

const t = (p: string) => `/tenants/default${p}`;
const advanceUntil = (fixId: string, stop: (s: string) => boolean) => advanceFix(() => call('POST', t(`/fixes/${fixId}/advance`)), stop);
const IN_FLIGHT = ['DRAFT', 'SCOPING', 'PROPOSING', 'PROPOSED', 'GATING'];
const draft = async (problemId: string) => {
  const r = await call('POST', t(`/problems/${problemId}/fixes`), { body: { fixType: 'auto' } });
  assert.is(r.status, 200, r.text);
  return r.body;
};

test.before(async () => {
  gh = await startFakeGithub({ owner: 'acme', repo: 'harness' });
  sys = await startFixSystem({
    problems,
    env: { FIX_GITHUB_TOKEN: 'ghs_test', FIX_GITHUB_REPO: 'acme/harness', FIX_GITHUB_API_URL: gh.url, FIX_WEBHOOK_SECRET: SECRET },
  });
  svc = await createFixServices({ config: sys.config, bus: sys.rt.bus, store: sys.rt.store, problems, now: () => sys.clock.now });
  await seedRefundScenario(sys, svc);
  worker = await startReplayWorker(sys.rt.bus);
});

test.after(async () => {
  await worker?.stop();
  await sys?.stop();
  await gh?.stop();
});

test('/openapi.json (no key) is the whole service: title, the data API as default server, the fix routes under /api', async () => {
  const r = await http(`${sys.url}/openapi.json`);
  assert.is(r.status, 200);
  doc = r.body;
  assert.is(doc.info.title, 'Tracehouse API');
  assert.match(doc.info.description, /fix/i);
  assert.equal(doc.servers.map((s: any) => s.url), ['/api/v1/data']);
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    if (!item.servers) continue;
    for (const [method, op] of Object.entries<any>(item)) {
      if (method === 'servers') continue;
      const pattern = new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`);
      fixOps.push({ method, path, server: item.servers[0].url, op, pattern });
    }
  }
  assert.ok(fixOps.length > 0, 'the document has fix routes');
  assert.ok(fixOps.every((o) => o.server === '/api'), 'the fix routes are relative to /api');
  // the keyed copy under the data API is the same document
  const keyed = await http(`${sys.url}/api/v1/data/openapi.json`, { headers: { 'x-api-key': sys.adminKey } });
  assert.equal(keyed.body, doc);
});

test('every fix route the server mounts is documented with its method, and every documented one is answered', async () => {
  const router = createFixRouter({ config: sys.config, keys: sys.rt.keys } as never, svc);
  const mounted = router.stack.flatMap((l) => l.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${String(l.path).replace(/^\/api/, '').replace(/:(\w+)/g, '{$1}')}`));
  const documented = fixOps.map((o) => `${o.method.toUpperCase()} ${o.path}`);
  assert.equal(mounted.sort(), documented.sort());
  // over HTTP, at the documented URL: the route exists (no key → 401 before anything else),
  // and a method the document does not list for the path is 405
  for (const o of fixOps) {
    const concrete = o.path.replace(/\{\w+\}/g, (m) => (m === '{tenantId}' ? 'default' : randomUUID()));
    const r = await http(`${sys.url}${o.server}${concrete}`, { method: o.method.toUpperCase(), ...(o.method === 'post' ? { body: {} } : {}) });
    assert.is(r.status, 401, `${o.method} ${o.path}: ${r.text}`);
    const listed = new Set(fixOps.filter((x) => x.path === o.path).map((x) => x.method));
    for (const other of ['get', 'post', 'put', 'delete']) {
      if (listed.has(other)) continue;
      const x = await http(`${sys.url}${o.server}${concrete}`, { method: other.toUpperCase() });
      assert.is(x.status, 405, `${other} ${o.path} is not served`);
    }
  }
});

let f1: any;
let prBranch = '';
test('draft, list, queue, one fix, packet: live answers match the documented schemas', async () => {
  f1 = await draft(P1.problemId);
  assert.is(f1.status, 'DRAFT');
  const list = await call('GET', t(`/problems/${P1.problemId}/fixes`));
  assert.equal(list.body.fixes.map((f: any) => f.id), [f1.id]);
  const queue = await call('GET', t('/fixes?limit=1'));
  assert.is(queue.status, 200);
  assert.is(queue.body.fixes[0].id, f1.id);
  assert.is((await call('GET', t('/fixes?status=DRAFT'))).body.fixes.length, 1);
  assert.is((await call('GET', t(`/fixes/${f1.id}`))).body.id, f1.id);
  const packet = await call('GET', t(`/fixes/${f1.id}/packet`));
  assert.is(packet.body.fix_id, f1.id);
});

test('advance through the pipeline to VERIFIED (gate result, candidate), verify again, then submit as a pull request', async () => {
  f1 = await advanceUntil(f1.id, (s) => !IN_FLIGHT.includes(s));
  assert.is(f1.status, 'VERIFIED', f1.statusReason);
  assert.ok(f1.gateResult && f1.candidateRef);
  const v = await call('POST', t(`/fixes/${f1.id}/verify`), { body: {} });
  assert.is(v.status, 200, v.text);
  f1 = await advanceUntil(f1.id, (s) => s !== 'GATING');
  assert.is(f1.status, 'VERIFIED', f1.statusReason);
  assert.is(f1.gateRunId, v.body.gateRunId);
  const s = await call('POST', t(`/fixes/${f1.id}/submit`), { body: { channel: 'pr' } });
  assert.is(s.status, 200, s.text);
  assert.is(s.body.status, 'PR_OPEN');
  prBranch = s.body.prBranch;
  // the full queue page now holds fixes with a gate result and a pull request
  const page = await call('GET', t('/fixes'));
  assert.is(page.body.fixes[0].prUrl, s.body.prUrl);
});

test('the signed merge notification: ignored and shipping answers match the document; the shipped fix has its fixRef', async () => {
  const send = (payload: unknown, event = 'pull_request') => {
    const raw = JSON.stringify(payload);
    return call('POST', '/webhooks/code-host', { key: null, body: raw, headers: { 'content-type': 'application/json', 'x-github-event': event, 'x-hub-signature-256': signPayload(SECRET, raw) } });
  };
  const ignored = await send({ action: 'opened', pull_request: { merged: false } });
  assert.is(ignored.status, 202);
  assert.equal(ignored.body.fixes, []);
  const pr = gh.pulls.find((p) => p.head === prBranch);
  assert.ok(pr, 'the fake code host received the pull request');
  const merged = await send({ action: 'closed', pull_request: { merged: true, body: pr.body, head: { ref: pr.head }, html_url: pr.html_url, merge_commit_sha: 'c0ffee'.padEnd(40, '0'), merged_at: '2026-11-23T12:00:00Z' } });
  assert.is(merged.status, 202, merged.text);
  assert.is(merged.body.fixes[0].fix_id, f1.id);
  assert.is(merged.body.fixes[0].outcome, 'shipped');
  const shipped = await call('GET', t(`/fixes/${f1.id}`));
  assert.is(shipped.body.status, 'SHIPPED');
  assert.is(shipped.body.fixRef.mergeCommit, 'c0ffee'.padEnd(40, '0'));
  const unsigned = await call('POST', '/webhooks/code-host', { key: null, body: { action: 'closed' }, headers: { 'x-github-event': 'pull_request' } });
  assert.is(unsigned.status, 401);
});

test('local delivery, dismissal and prompt sync answers match the document', async () => {
  let f2 = await draft(P2.problemId);
  f2 = await advanceUntil(f2.id, (s) => !IN_FLIGHT.includes(s));
  assert.is(f2.status, 'VERIFIED', f2.statusReason);
  const s = await call('POST', t(`/fixes/${f2.id}/submit`), { body: { channel: 'local_ref', localRef: 'feature/shipping-address' } });
  assert.equal(s.body, { status: 'APPLIED_LOCALLY', prUrl: null, prBranch: 'feature/shipping-address' });
  assert.is((await call('GET', t(`/fixes/${f2.id}`))).body.deliveryChannel, 'local');
  const f3 = await draft(P3.problemId);
  const d = await call('POST', t(`/fixes/${f3.id}/dismiss`), { body: { reason: 'not worth it' } });
  assert.is(d.body.status, 'REJECTED');
  const sync = await call('POST', t('/prompts/sync'), { body: { prompts: [{ key: 'support-system', content: `${REFUND_BASELINE} Always confirm the order number.` }], dryRun: true } });
  assert.is(sync.status, 200, sync.text);
  assert.is(sync.body.prompts[0].action, 'updated');
  assert.is(sync.body.prompts[0].versionId, null);
});

test('error answers use documented statuses and the Error body: 400, 401, 403, 404, 409, 413', async () => {
  assert.is((await call('POST', t('/problems/not-a-uuid/fixes'), { body: {} })).status, 400);
  assert.is((await call('GET', t('/problems/not-a-uuid/fixes'))).status, 400);
  assert.is((await call('GET', t('/fixes?status=NOPE'))).status, 400);
  assert.is((await call('GET', t('/fixes?cursor=garbage'))).status, 400);
  assert.is((await call('POST', t(`/fixes/${f1.id}/submit`), { body: { channel: 'email' } })).status, 400);
  assert.is((await call('POST', t(`/fixes/${f1.id}/verify`), { body: { candidateContent: 'too short' } })).status, 400);
  assert.is((await call('POST', t(`/fixes/${f1.id}/advance`), { body: { extra: 1 } })).status, 400);
  assert.is((await call('POST', t('/prompts/sync'), { body: { prompts: [] } })).status, 400);
  assert.is((await call('GET', t('/fixes'), { key: null })).status, 401);
  assert.is((await call('GET', t(`/fixes/${f1.id}`), { key: 'th.bad.key.value' })).status, 401);
  assert.is((await call('GET', t('/fixes'), { key: sys.otherKey })).status, 403);
  assert.is((await call('POST', t(`/fixes/${f1.id}/dismiss`), { body: { reason: 'x' }, key: sys.memberKey })).status, 403);
  assert.is((await call('POST', t(`/problems/${randomUUID()}/fixes`), { body: {} })).status, 404);
  assert.is((await call('GET', t(`/problems/${randomUUID()}/fixes`))).status, 404);
  for (const p of ['', '/packet']) assert.is((await call('GET', t(`/fixes/${randomUUID()}${p}`))).status, 404);
  for (const action of ['advance', 'verify', 'dismiss']) assert.is((await call('POST', t(`/fixes/${randomUUID()}/${action}`), { body: action === 'dismiss' ? { reason: 'x' } : {} })).status, 404);
  assert.is((await call('POST', t(`/fixes/${randomUUID()}/submit`), { body: { channel: 'pr' } })).status, 404);
  const f4 = await draft(P3.problemId);
  assert.is((await call('POST', t(`/fixes/${f4.id}/submit`), { body: { channel: 'local_ref', localRef: 'x' } })).status, 409);
  assert.is((await call('POST', t(`/fixes/${f4.id}/verify`), { body: {} })).status, 409);
  assert.is((await call('POST', t(`/fixes/${f1.id}/dismiss`), { body: { reason: 'x' } })).status, 200, 'a shipped fix can still be dismissed');
  assert.is((await call('POST', t(`/fixes/${f1.id}/dismiss`), { body: { reason: 'again' } })).status, 409);
  assert.is((await call('POST', t(`/fixes/${f4.id}/dismiss`), { body: { reason: 'x'.repeat(1024 * 1024 + 10) } })).status, 413);
});

test('every documented fix operation was answered with a documented success status in this suite', () => {
  for (const o of fixOps) {
    const ok = [...(seen.get(o.op.operationId) ?? [])].filter((s) => s < 300);
    assert.ok(ok.length > 0, `${o.op.operationId} was never answered with a success`);
  }
});

test.run();
