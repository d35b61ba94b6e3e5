/**
 * Data-store outages (spec Errors: 503 when a required dependency is unavailable): a ClickHouse
 * that refuses connections (a second query role whose store points at a port nobody listens on)
 * and a stopped nats-server. Fix routes answer 503 with Retry-After, MCP tools a 503 tool error
 * with `retry_after_seconds`; a transition written to KV stands when its history row cannot be
 * inserted, and the row reaches `fix_history` once ClickHouse answers again.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createStore } from '../../../core/clickhouse.js';
import { createMetrics } from '../../../core/metrics.js';
import { freePort } from '../../../core/nats.js';
import type { RoleHandle, Runtime } from '../../../core/runtime.js';
import { createFixServices, type FixServices } from '../../../fixes/services.js';
import { dependencyUnavailable } from '../../../fixes/unavailable.js';
import { startQuery } from '../../../query/main.js';
import { KV_BUCKETS } from '../../../schemas/subjects.js';
import { http } from '../../helpers/http.js';
import { createMemoryProblems } from '../../helpers/problems.js';
import { REFUND_CONVERSATIONS, seedRefundScenario, startFixSystem, type FixSystem } from '../../helpers/fix-system.js';

const problems = createMemoryProblems();
const attributions = REFUND_CONVERSATIONS.map((conversationId) => ({ conversationId, msgIndex: 0 }));
const P = problems.add({ attributions });
const P2 = problems.add({ displayName: 'Coupons lost', causeStatement: 'The agent loses track of coupons between turns', attributions });

let sys: FixSystem;
let svc: FixServices;
/** The query role with the same bus and keys, but a ClickHouse nobody answers for. */
let down: RoleHandle;
let downSvc: FixServices;

const post = (base: string, path: string, body?: unknown, key = sys.adminKey) => http(`${base}/api/tenants/default${path}`, { method: 'POST', headers: { 'x-api-key': key }, body });
const get = (base: string, path: string, key = sys.adminKey) => http(`${base}/api/tenants/default${path}`, { headers: { 'x-api-key': key } });
const parked = async () => {
  const out: string[] = [];
  for await (const k of await (await sys.rt.bus.kv(KV_BUCKETS.fixes.name)).keys('fixhist.>')) out.push(k);
  return out;
};

test.before(async () => {
  sys = await startFixSystem({ problems });
  svc = await createFixServices({ config: sys.config, bus: sys.rt.bus, store: sys.rt.store, problems, now: () => sys.clock.now });
  await seedRefundScenario(sys, svc);
  const config = { ...sys.config, clickhouse: { ...sys.config.clickhouse, url: `http://127.0.0.1:${await freePort()}` } };
  const store = createStore(config);
  downSvc = await createFixServices({ config, bus: sys.rt.bus, store, problems, now: () => sys.clock.now });
  const rt = { ...sys.rt, config, store, metrics: createMetrics() } as Runtime;
  down = await startQuery(rt, { port: 0, problems, now: () => sys.clock.now });
});

test.after(async () => {
  await down?.close();
  await sys.stop();
});

let fixId = '';
test('ClickHouse refuses connections: the draft stands (200), advance answers 503 with Retry-After, the fix records why it stopped', async () => {
  const d = await post(down.url!, `/problems/${P.problemId}/fixes`, {});
  assert.is(d.status, 200, d.text);
  assert.is(d.body.status, 'DRAFT');
  fixId = d.body.id;
  assert.is((await get(sys.url, `/fixes/${fixId}`)).body.status, 'DRAFT', 'the transition is in the store');
  assert.ok((await parked()).length >= 1, 'its history row waits for ClickHouse');
  // scoping reads the evidence conversations from ClickHouse
  const a = await post(down.url!, `/fixes/${fixId}/advance`);
  assert.is(a.status, 503, a.text);
  assert.is(a.headers.get('retry-after'), '5');
  assert.match(a.body.message, /ClickHouse/);
  const f = (await get(sys.url, `/fixes/${fixId}`)).body;
  assert.is(f.status, 'SCOPING');
  assert.match(f.statusReason, /step failed: .*ClickHouse/);
  // the history cannot be read complete while ClickHouse is down: a 503, not a partial answer
  const err = await downSvc.pipeline.history('default', fixId).then(() => undefined, (e: unknown) => e);
  assert.is(dependencyUnavailable(err)?.status, 503, String(err));
});

test('once ClickHouse answers, the parked history rows are stored: one row per transition, none lost', async () => {
  const hist = await svc.pipeline.history('default', fixId);
  assert.equal(hist.map((h) => h.to_status), ['DRAFT', 'SCOPING']);
  assert.equal(await parked(), [], 'parked rows are dropped once stored');
  const next = await post(sys.url, `/fixes/${fixId}/advance`);
  assert.is(next.body.status, 'PROPOSING', next.text);
  assert.equal((await svc.pipeline.history('default', fixId)).map((h) => h.to_status), ['DRAFT', 'SCOPING', 'PROPOSING']);
});

test('MCP over the same outage: the tool error is a 503 data_store_unavailable with retry_after_seconds', async () => {
  const key = (await sys.rt.keys.create({ tenant: 'default', role: 'admin' })).key;
  const client = new Client({ name: 'outage', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${down.url}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
  try {
    const r = (await client.callTool({ name: 'fix_start', arguments: { problem_id: P2.problemId, wait: true, poll_interval_seconds: 2, max_wait_seconds: 10 } })) as { content: Array<{ text: string }>; isError?: boolean };
    assert.is(r.isError, true);
    const body = JSON.parse(r.content[0]!.text);
    assert.equal(body.error.status, 503, r.content[0]!.text);
    assert.is(body.error.code, 'data_store_unavailable');
    assert.is(body.error.retry_after_seconds, 5);
  } finally {
    await client.close();
  }
});

test('nats-server stopped: fix routes and /mcp answer 503 with Retry-After; they answer again once it is back', async () => {
  await sys.nats.stop();
  try {
    const r = await get(sys.url, '/fixes');
    assert.is(r.status, 503, r.text);
    assert.is(r.headers.get('retry-after'), '5');
    assert.match(r.body.message, /NATS/);
    const m = await http(`${sys.url}/mcp`, { method: 'POST', headers: { 'x-api-key': sys.adminKey, accept: 'application/json, text/event-stream' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} } });
    assert.is(m.status, 503, m.text);
    assert.ok(m.headers.get('retry-after'));
  } finally {
    await sys.nats.restart();
  }
  let status = 0;
  for (let i = 0; i < 100 && status !== 200; i++) {
    status = (await get(sys.url, '/fixes')).status;
    if (status !== 200) await new Promise((res) => setTimeout(res, 100));
  }
  assert.is(status, 200);
});

test.run();
