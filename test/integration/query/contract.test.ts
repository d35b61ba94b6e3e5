/**
 * spec/data-api.md "Limits" and "Errors", table-driven, for every implemented endpoint; the
 * authentication rules on every route; the OpenAPI document against the mounted routes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { createDataRouter } from '../../../query/app.js';
import { ENDPOINTS } from '../../../schemas/api/index.js';
import { FIX_ROUTES } from '../../../schemas/api/fixes.js';

let ts: TestSystem;
const url = (p: string) => `${ts.queryUrl}/api/v1/data${p}`;
const get = (p: string, key = ts.adminKey) => http(url(p), { headers: { 'x-api-key': key } });
const post = (p: string, body: unknown, headers: Record<string, string> = {}) => http(url(p), { method: 'POST', headers: { 'x-api-key': ts.adminKey, ...headers }, body });

test.before(async () => {
  ts = await startTestSystem({ roles: ['query'] });
  const t0 = Date.now() - 3_600_000;
  // one 20-message conversation for the context window rows
  await ts.system.rt.store.insert(
    'messages',
    Array.from({ length: 20 }, (_, i) => ({ tenant_id: 'default', conversation_id: 'c20', message_id: `m${String(i).padStart(2, '0')}`, ts: new Date(t0 + i * 1000).toISOString(), seq: i, role: i % 2 ? 'assistant' : 'user', content: `message ${i}` })),
  );
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

// ---- Limits table: [row of the spec, request, check of the effective value]
type Check = (body: any) => unknown;
const ctxWindow: Check = (b) => [b.context.from_index, b.context.center_index, b.context.to_index];
const LIMITS: [string, string, Check, unknown][] = [
  ['list limit default 20', '/conversations', (b) => b.pagination.limit, 20],
  ['list limit 1..100: 0 clamps to 1', '/conversations?limit=0', (b) => b.pagination.limit, 1],
  ['list limit 1..100: 100 kept', '/conversations?limit=100', (b) => b.pagination.limit, 100],
  ['list limit 1..100: 101 clamps to 100', '/conversations?limit=101', (b) => b.pagination.limit, 100],
  ['list limit huge clamps to 100', '/conversations?limit=99999999999', (b) => b.pagination.limit, 100],
  ['list offset default 0', '/conversations', (b) => b.pagination.offset, 0],
  ['list offset 0..10,000: 10000 kept', '/conversations?offset=10000', (b) => b.pagination.offset, 10000],
  ['list offset 0..10,000: 10001 clamps', '/conversations?offset=10001', (b) => b.pagination.offset, 10000],
  ['context window default 2', '/conversations/c20/context?msg_index=10', ctxWindow, [8, 10, 12]],
  ['context window 1..5: 5 kept', '/conversations/c20/context?msg_index=10&window=5', ctxWindow, [5, 10, 15]],
  ['context window 1..5: 6 clamps to 5', '/conversations/c20/context?msg_index=10&window=6', ctxWindow, [5, 10, 15]],
  ['context window 1..5: 1 kept', '/conversations/c20/context?msg_index=10&window=1', ctxWindow, [9, 10, 11]],
  ['context msg_index default middle', '/conversations/c20/context', ctxWindow, [7, 9, 11]],
  ['context msg_index past end clamps to last', '/conversations/c20/context?msg_index=500', ctxWindow, [17, 19, 19]],
  ['world_state 200 characters accepted', `/conversations?world_state=${'a'.repeat(200)}`, (b) => b.pagination.total, 0],
  ['overview days_back default 7', '/overview', (b) => b.period.days, 7],
  ['overview days_back 1..90: 0 clamps to 1', '/overview?days_back=0', (b) => b.period.days, 1],
  ['overview days_back 1..90: 90 kept', '/overview?days_back=90', (b) => b.period.days, 90],
  ['overview days_back 1..90: 91 clamps to 90', '/overview?days_back=91', (b) => b.period.days, 90],
  ['overview top clusters at most 10', '/overview', (b) => b.top_clusters.length <= 10, true],
  ['overview recent activity at most 10', '/overview', (b) => b.recent_activity.length <= 10, true],
  ['tool-failures days_back 91 clamps to 90', '/tool-failures?days_back=91', (b) => b.period.days, 90],
  ['tool-failures/:tool days_back 0 clamps to 1', '/tool-failures/x?days_back=0', (b) => b.period.days, 1],
  ['emotions limit default 20', '/emotions', (b) => [b.pagination.limit, b.pagination.offset], [20, 0]],
  ['emotions limit 1..100: 0 clamps to 1', '/emotions?limit=0', (b) => b.pagination.limit, 1],
  ['emotions limit 1..100: 101 clamps to 100', '/emotions?limit=101', (b) => b.pagination.limit, 100],
  ['emotions offset 0..10,000: 10001 clamps', '/emotions?offset=10001', (b) => b.pagination.offset, 10000],
  ['emotions min_score 0..1: 2 clamps (accepted)', '/emotions?min_score=2', (b) => b.pagination.total, 0],
  ['hallucinations limit default 20', '/hallucinations', (b) => [b.pagination.limit, b.pagination.offset], [20, 0]],
  ['hallucinations limit 1..100: 101 clamps to 100', '/hallucinations?limit=101', (b) => b.pagination.limit, 100],
  ['hallucinations offset 0..10,000: 10001 clamps', '/hallucinations?offset=10001', (b) => b.pagination.offset, 10000],
  ['search limit default 20', '/search?q=message', (b) => b.pagination.limit, 20],
  ['search limit 1..50: 51 clamps to 50', '/search?q=message&limit=51', (b) => b.pagination.limit, 50],
  ['search limit 1..50: 0 clamps to 1', '/search?q=message&limit=0', (b) => [b.pagination.limit, b.pagination.returned, b.pagination.has_more], [1, 1, true]],
  ['search q 200 characters accepted', `/search?q=${'a'.repeat(200)}`, (b) => b.hits.length, 0],
  ['cluster conversations limit default 10', '/clusters/n1/conversations', (b) => b.pagination.limit, 10],
  ['cluster conversations limit 1..100: 0 clamps to 1', '/clusters/n1/conversations?limit=0', (b) => b.pagination.limit, 1],
  ['cluster conversations limit 1..100: 101 clamps to 100', '/clusters/n1/conversations?limit=101', (b) => b.pagination.limit, 100],
  ['cluster conversations offset 0..10,000: 10001 clamps', '/clusters/n1/conversations?offset=10001', (b) => b.pagination.offset, 10000],
  ['unknown cluster node: 200 with cluster null', '/clusters/n1/conversations', (b) => [b.cluster, b.conversations.length], [null, 0]],
  ['no taxonomy yet: cluster_run null', '/clusters?time_range=7d', (b) => [b.cluster_run, b.clusters.length, b.breadcrumb.length], [null, 0, 0]],
  ['task-cluster search q 2 characters accepted', '/task-clusters/search?q=ab', (b) => [b.clusterRunId, b.matches.length], [null, 0]],
  ['task-cluster search q 200 characters accepted', `/task-clusters/search?q=${'a'.repeat(200)}&limit=51`, (b) => b.matches.length, 0],
  ['task-cluster search node_id makes q optional', '/task-clusters/search?node_id=x', (b) => b.query, ''],
];
for (const [name, path, check, expected] of LIMITS) {
  test(`limit: ${name}`, async () => {
    const r = await get(path);
    assert.is(r.status, 200, r.text);
    assert.equal(check(r.body), expected);
  });
}

test('limit: feedback note 4,000 characters accepted, 4,001 rejected; agent 64; cli_version 32', async () => {
  assert.is((await post('/feedback', { category: 'other', note: 'n'.repeat(4000) })).status, 202);
  assert.is((await post('/feedback', { category: 'other', note: 'n'.repeat(4001) })).status, 400);
  assert.is((await post('/feedback', { category: 'other', agent: 'a'.repeat(64), cli_version: 'v'.repeat(32) })).status, 202);
  assert.is((await post('/feedback', { category: 'other', agent: 'a'.repeat(65) })).status, 400);
  assert.is((await post('/feedback', { category: 'other', cli_version: 'v'.repeat(33) })).status, 400);
});

// ---- Errors: 400 for non-integers, wrong sign, enums outside their set
const BAD: [string, RegExp][] = [
  ['/conversations?limit=abc', /limit must be an integer/],
  ['/conversations?limit=1.5', /limit must be an integer/],
  ['/conversations?limit=1e2', /limit must be an integer/],
  ['/conversations?limit=-1', /limit must be a non-negative integer/],
  ['/conversations?offset=-5', /offset must be a non-negative integer/],
  ['/conversations?offset=x', /offset must be an integer/],
  ['/conversations?limit=5&limit=6', /limit must be given once/],
  ['/conversations?time_range=2d', /time_range must be one of: all, 1h, 24h, 3d, 7d, 30d, 90d/],
  ['/conversations?environment=prod', /environment must be one of: all, development, staging, production/],
  ['/conversations?outcome=maybe', /outcome must be one of: any, positive, negative/],
  [`/conversations?world_state=${'a'.repeat(201)}`, /world_state must NOT have more than 200 characters/],
  ['/conversations/c20/context?window=0', /window must be a positive integer/],
  ['/conversations/c20/context?window=-2', /window must be a positive integer/],
  ['/conversations/c20/context?window=two', /window must be an integer/],
  ['/conversations/c20/context?msg_index=-1', /msg_index must be a non-negative integer/],
  ['/conversations/c20/context?msg_index=1.0', /msg_index must be an integer/],
  ['/overview?days_back=-7', /days_back must be a non-negative integer/],
  ['/overview?days_back=week', /days_back must be an integer/],
  ['/overview?environment=qa', /environment must be one of/],
  ['/tool-failures?days_back=1.5', /days_back must be an integer/],
  ['/tool-failures?limit=-1', /limit must be a non-negative integer/],
  ['/tool-failures/Bash?environment=x', /environment must be one of/],
  ['/tool-failures?family=missing', /family must be one of: user_rejected, /],
  ['/tool-failures/Bash?category_limit=-1', /category_limit must be a non-negative integer/],
  ['/emotions?family=anger', /family must be one of: frustration, /],
  ['/emotions?signal=frustration', /signal must be one of: annoyance, /],
  ['/emotions?min_score=-1', /min_score must be a non-negative number/],
  ['/emotions?min_score=high', /min_score must be a number/],
  ['/emotions?limit=2.5', /limit must be an integer/],
  ['/emotions?time_range=1w', /time_range must be one of/],
  ['/hallucinations?verdict=maybe', /verdict must be one of: contradicted, verified/],
  ['/hallucinations?offset=-1', /offset must be a non-negative integer/],
  ['/hallucinations?environment=test', /environment must be one of/],
  ['/search', /q is required/],
  ['/search?q=x&mode=fuzzy', /mode must be one of: keyword, semantic, hybrid/],
  ['/search?q=x&limit=-3', /limit must be a non-negative integer/],
  [`/search?q=${'a'.repeat(201)}`, /q must NOT have more than 200 characters/],
  ['/clusters?time_range=2d', /time_range must be one of/],
  ['/clusters/n1/conversations?limit=-1', /limit must be a non-negative integer/],
  ['/clusters/n1/conversations?offset=1.5', /offset must be an integer/],
  ['/task-clusters/search', /q is required unless node_id is given/],
  ['/task-clusters/search?q=a', /q must NOT have fewer than 2 characters/],
  [`/task-clusters/search?q=${'a'.repeat(201)}`, /q must NOT have more than 200 characters/],
  ['/task-clusters/search?q=ab&mode=keyword', /mode must be one of: fuzzy, semantic, hybrid/],
  ['/task-clusters/search?q=ab&limit=-2', /limit must be a non-negative integer/],
];
for (const [path, message] of BAD) {
  test(`400: GET ${path.slice(0, 70)}`, async () => {
    const r = await get(path);
    assert.is(r.status, 400);
    assert.ok(Array.isArray(r.body.message), 'message is an array of validation messages');
    assert.ok(r.body.message.some((m: string) => message.test(m)), JSON.stringify(r.body.message));
  });
}

test('400: several problems are all reported', async () => {
  const r = await get('/conversations?limit=x&environment=qa&offset=-1');
  assert.is(r.status, 400);
  assert.is(r.body.message.length, 3);
});

const BAD_BODIES: [string, unknown, RegExp][] = [
  ['missing category', {}, /category is required/],
  ['unknown category', { category: 'bad' }, /category must be one of: bad_cluster_label, /],
  ['unknown severity', { category: 'other', severity: 'urgent' }, /severity must be one of: info, low, medium, high/],
  ['unknown source', { category: 'other', source: 'web' }, /source must be one of: cli, sdk, ui/],
  ['refs not an object', { category: 'other', refs: 'x' }, /refs must be object/],
  ['command_context not an object', { category: 'other', command_context: [1] }, /command_context must be object/],
  ['note not a string', { category: 'other', note: 5 }, /note must be string/],
  ['unknown field', { category: 'other', colour: 'red' }, /colour is not allowed/],
  ['array body', [{ category: 'other' }], /body must be a JSON object/],
];
for (const [name, body, message] of BAD_BODIES) {
  test(`400: POST /feedback ${name}`, async () => {
    const r = await post('/feedback', body);
    assert.is(r.status, 400);
    assert.ok([r.body.message].flat().some((m: string) => message.test(m)), JSON.stringify(r.body.message));
  });
}

test('400/413/415: POST /feedback with invalid JSON, oversized or non-JSON body', async () => {
  const bad = await http(url('/feedback'), { method: 'POST', headers: { 'x-api-key': ts.adminKey, 'content-type': 'application/json' }, body: '{"category":' });
  assert.is(bad.status, 400);
  const big = await post('/feedback', { category: 'other', refs: { blob: 'x'.repeat(70_000) } });
  assert.is(big.status, 413);
  const text = await http(url('/feedback'), { method: 'POST', headers: { 'x-api-key': ts.adminKey, 'content-type': 'text/plain' }, body: 'hello' });
  assert.is(text.status, 415);
});

test('202: POST /feedback with every field, severity defaults to low', async () => {
  const r = await post('/feedback', { category: 'api_quirk', severity: 'high', note: 'n', source: 'sdk', agent: 'a', cli_version: '1.0', refs: { a: 1 }, command_context: { argv: ['x'] } });
  assert.is(r.status, 202);
  assert.equal(Object.keys(r.body).sort(), ['feedback_id', 'submitted_at']);
});

// ---- Authentication on every route (each POST with a body its route accepts)
const PROBLEM = '00000000-0000-4000-8000-000000000000';
const ROUTES: [string, string, unknown?][] = [
  ['GET', '/conversations'],
  ['GET', '/conversations/c20/context'],
  ['GET', '/conversations/c20/step-scores'],
  ['GET', '/conversations/c20/world-state'],
  ['GET', '/conversations/c20/world-state/replay'],
  ['GET', '/conversations/c20/world-state/snapshot?msg_index=0&block_index=0'],
  ['GET', '/overview'],
  ['GET', '/tool-failures'],
  ['GET', '/tool-failures/Bash'],
  ['GET', '/emotions'],
  ['GET', '/hallucinations'],
  ['GET', '/search?q=x'],
  ['GET', '/clusters'],
  ['GET', '/clusters/n1/conversations'],
  ['GET', '/task-clusters/search?q=refund'],
  ['GET', '/task-clusters/search?node_id=n1'],
  ['GET', '/problems'],
  ['GET', `/problems/${PROBLEM}`],
  ['GET', `/problems/${PROBLEM}/reports`],
  ['GET', `/problems/${PROBLEM}/conversations`],
  ['GET', `/problems/${PROBLEM}/evidence`],
  ['GET', `/problems/${PROBLEM}/feedback`],
  ['POST', `/problems/${PROBLEM}/feedback`, { action: 'mark_fixed' }],
  ['POST', '/problems/not-a-uuid/feedback', { action: 'mark_fixed' }],
  ['POST', '/feedback', { category: 'other' }],
  ['GET', '/openapi.json'],
  ['GET', '/whoami'],
  ['GET', '/no-such-endpoint'],
];

test('401: a missing key is refused on every route with a message saying it is required', async () => {
  for (const [method, p, body] of ROUTES) {
    const r = await http(url(p), { method, ...(body ? { body } : {}) });
    assert.is(r.status, 401, `${method} ${p}`);
    assert.match(r.body.message, /required/i);
  }
});

test('every mounted data route is in the authentication list', async () => {
  const listed = new Set(ROUTES.map(([m, p]) => `${m} ${p.split('?')[0]!.replace(/\/(c20|Bash|n1|not-a-uuid|[0-9a-f-]{36})(?=\/|$)/g, '/:id')}`));
  for (const e of ENDPOINTS) {
    const key = `${e.method.toUpperCase()} ${e.path.replace(/\{\w+\}/g, ':id')}`;
    assert.ok(listed.has(key), `${key} is checked for 401`);
  }
});

test('401: invalid and revoked keys are refused on every route; 403 without the read scope', async () => {
  const revoked = await ts.system.rt.keys.create({ tenant: 'default', role: 'member', scopes: ['read'] });
  await ts.system.rt.keys.revoke(revoked.record.id);
  const ingestOnly = await ts.system.rt.keys.create({ tenant: 'default', role: 'member', scopes: ['ingest'] });
  for (const [method, p, body] of ROUTES) {
    const send = (key: string) => http(url(p), { method, headers: { 'x-api-key': key }, ...(body ? { body } : {}) });
    const invalid = await send('th.bogus.key.value');
    assert.is(invalid.status, 401, `${method} ${p}`);
    assert.is(typeof invalid.body.message, 'string');
    assert.is((await send('plain-unknown-key')).status, 401);
    const rv = await send(revoked.key);
    assert.is(rv.status, 401);
    assert.match(rv.body.message, /revoked/);
    assert.is((await send(ingestOnly.key)).status, 403, `${method} ${p}`);
  }
});

test('problem feedback takes any read key of the tenant: the spec\'s 400 for a non-UUID id comes first, then 404 for an unknown problem', async () => {
  const member = await ts.system.rt.keys.create({ tenant: 'default', role: 'member', scopes: ['read'] });
  const send = (p: string, body: unknown) => http(url(p), { method: 'POST', headers: { 'x-api-key': member.key }, body });
  const bad = await send('/problems/not-a-uuid/feedback', { action: 'mark_fixed' });
  assert.equal([bad.status, bad.body.message], [400, 'problem id must be a UUID']);
  const unknown = await send(`/problems/${PROBLEM}/feedback`, { action: 'mark_fixed' });
  assert.is(unknown.status, 404, unknown.text);
  const invalid = await send(`/problems/${PROBLEM}/feedback`, { action: 'explode' });
  assert.is(invalid.status, 400);
});

test('413: a feedback body over 64 KB names the real limit', async () => {
  const blob = 'x'.repeat(70_000);
  for (const [p, body] of [['/feedback', { category: 'other', refs: { blob } }], [`/problems/${PROBLEM}/feedback`, { action: 'dismiss', reason: blob }]] as const) {
    const r = await post(p, body);
    assert.equal([r.status, r.body.message], [413, 'request body exceeds the 64 KB limit'], p);
  }
});

test('task-cluster search reports the mode that ran: fuzzy without a taxonomy run, whatever mode asked', async () => {
  for (const mode of ['', '&mode=hybrid', '&mode=semantic', '&mode=fuzzy']) {
    const r = await get(`/task-clusters/search?q=refund${mode}`);
    assert.equal([r.status, r.body.clusterRunId, r.body.search_mode, r.body.matches], [200, null, 'fuzzy', []], mode);
  }
  const lookup = await get('/task-clusters/search?node_id=n1&mode=semantic');
  assert.equal([lookup.body.search_mode, lookup.body.matches], ['fuzzy', []]);
});

test('unknown ids are not 404: context and tool detail answer 200 with empty data', async () => {
  assert.is((await get('/conversations/unknown/context')).status, 200);
  assert.is((await get('/tool-failures/unknown')).status, 200);
  const nf = await get('/no-such-endpoint');
  assert.is(nf.status, 404);
  assert.is(typeof nf.body.message, 'string');
});

test('whoami answers the key\'s tenant, role and scopes', async () => {
  const r = await get('/whoami');
  assert.equal(r.body, { tenant: 'default', role: 'admin', scopes: ['ingest', 'read'] });
});

// ---- OpenAPI
test('GET /openapi.json is an OpenAPI 3.1 document covering every mounted route', async () => {
  const r = await get('/openapi.json');
  assert.is(r.status, 200);
  const doc = r.body;
  assert.is(doc.openapi, '3.1.0');
  assert.is(doc.info.title, 'Tracehouse API');
  assert.type(doc.info.version, 'string');
  assert.equal(doc.servers.map((s: any) => s.url), ['/api/v1/data']);
  assert.equal(doc.components.securitySchemes.apiKey, { type: 'apiKey', in: 'header', name: 'x-api-key' });
  const ajv = new Ajv2020({ strict: false });
  const ops = new Set<string>();
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    assert.ok(path.startsWith('/'), path);
    const { servers, ...methods } = item;
    // a path-level server only where the path is not relative to the data API's base (the fix routes under /api)
    if (servers) assert.equal(servers.map((s: any) => s.url), ['/api'], path);
    for (const [method, op] of Object.entries<any>(methods)) {
      assert.ok(['get', 'post'].includes(method));
      assert.type(op.operationId, 'string');
      assert.not.ok(ops.has(op.operationId), 'operationId unique');
      ops.add(op.operationId);
      const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const name of pathParams) assert.ok(op.parameters.some((p: any) => p.in === 'path' && p.name === name && p.required === true), `${path} declares ${name}`);
      for (const p of op.parameters) {
        assert.ok(['path', 'query'].includes(p.in));
        ajv.compile(p.schema); // a valid JSON Schema
      }
      const ok = op.responses['200'] ?? op.responses['202'];
      assert.ok(ok, `${method} ${path} has a success response`);
      ajv.compile(ok.content['application/json'].schema);
      for (const code of ['400', '401']) assert.ok(op.responses[code], `${method} ${path} documents ${code}`);
      if (op.requestBody) ajv.compile(op.requestBody.content['application/json'].schema);
    }
  }
  // every $ref resolves
  const refs = JSON.stringify(doc).match(/"\$ref":"#\/[^"]+"/g) ?? [];
  for (const ref of refs) {
    const pointer = ref.slice(10, -1).split('/');
    let node: any = doc;
    for (const seg of pointer) node = node?.[seg];
    assert.ok(node, `unresolved ${ref}`);
  }
  // every mounted data-API route is documented relative to the default server, and nothing else is
  // (the fix routes, each with its own server, are checked in test/integration/fixes/openapi.test.ts)
  const router = createDataRouter({ ...ts.system.rt, log: ts.system.rt.log } as any);
  const mounted = router.stack
    .filter((l) => l.name !== 'unmatched')
    .flatMap((l) => l.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${String(l.path).replace('/api/v1/data', '').replace(/:(\w+)/g, '{$1}')}`));
  const documented = Object.entries<any>(doc.paths)
    .filter(([, item]) => !item.servers)
    .flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`));
  assert.equal(mounted.sort(), documented.sort());
  assert.is(documented.length, ENDPOINTS.length);
  const fixOps = Object.entries<any>(doc.paths)
    .filter(([, item]) => item.servers)
    .flatMap(([p, item]) => Object.keys(item).filter((k) => k !== 'servers').map((m) => `${m.toUpperCase()} ${p}`));
  assert.equal(fixOps.sort(), FIX_ROUTES.map((f) => `${f.method.toUpperCase()} ${f.path}`).sort());
});

test.run();
