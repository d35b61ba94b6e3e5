import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';

let ts: TestSystem;

test.before(async () => {
  ts = await startTestSystem();
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

test('both HTTP roles answer /healthz and /readyz with 200; the edge depends on NATS alone', async () => {
  for (const [base, checks] of [[ts.ingestUrl, { nats: true }], [ts.queryUrl, { clickhouse: true, nats: true }]] as const) {
    const h = await http(`${base}/healthz`);
    assert.is(h.status, 200);
    const r = await http(`${base}/readyz`);
    assert.is(r.status, 200);
    assert.equal(r.body.checks, checks);
  }
});

test('every response carries a request id, and an incoming one is kept', async () => {
  const a = await http(`${ts.queryUrl}/healthz`);
  assert.match(a.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  const b = await http(`${ts.queryUrl}/healthz`, { headers: { 'x-request-id': 'req-abc.123' } });
  assert.is(b.headers.get('x-request-id'), 'req-abc.123');
});

test('/metrics is Prometheus text with request counts by route and status', async () => {
  await http(`${ts.queryUrl}/api/v1/data/whoami`, { headers: { 'x-api-key': ts.adminKey } });
  const m = await http(`${ts.queryUrl}/metrics`);
  assert.is(m.status, 200);
  assert.match(m.headers.get('content-type') ?? '', /text\/plain/);
  assert.match(m.text, /# TYPE tracehouse_http_requests_total counter/);
  assert.match(m.text, /tracehouse_http_requests_total\{role="query",method="GET",route="\/api\/v1\/data\/whoami",status="200"\} 1/);
  assert.match(m.text, /tracehouse_http_request_duration_seconds_bucket/);
});

test('/readyz answers 503 naming nats when NATS is stopped, and 200 again after it returns', async () => {
  await ts.nats.stop();
  const r = await http(`${ts.ingestUrl}/readyz`);
  assert.is(r.status, 503);
  assert.equal(r.body.failing, ['nats']);
  assert.match(r.body.message, /nats/);
  await ts.nats.restart();
  let status = 0;
  for (let i = 0; i < 100 && status !== 200; i++) {
    await new Promise((res) => setTimeout(res, 100));
    status = (await http(`${ts.queryUrl}/readyz`)).status;
  }
  assert.is(status, 200);
});

test.run();
