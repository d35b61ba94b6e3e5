import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadInProcess, throughput } from '../../../bench/lib/load.js';
import { withPercentiles } from '../../../bench/lib/load-client.js';
import type { PoolRequest } from '../../../bench/lib/pool.js';

let server: Server;
let baseUrl = '';

test.before(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after(() => new Promise<void>((r) => server.close(() => r())));

test('autocannon in a worker thread reports latency percentiles (aggregated from its histogram)', async () => {
  const pool: PoolRequest[] = [{ tenant: 't00', format: 'direct', route: '/v1/ingest', contentType: 'application/json', body: Buffer.from('{"events":[]}'), events: 1, slots: [] }];
  const r = await loadInProcess({ baseUrl, pool, keys: { '*': 'k' }, concurrency: 2, durationMs: 1000, roundBase: 0, noPatch: true }, 'autocannon');
  assert.ok(r.ok > 0, 'requests answered');
  assert.ok(r.percentiles, 'percentiles present');
  for (const v of Object.values(r.percentiles!)) assert.ok(Number.isFinite(v) && v >= 0, `finite percentile ${v}`);
  const t = throughput(r);
  assert.ok(Number.isFinite(t.p99_ms) && t.p99_ms >= t.p50_ms, 'p99 >= p50 in the throughput row');
});

test('withPercentiles keeps an aggregated result and aggregates a raw one', () => {
  const done = { latency: { p50: 1, p97_5: 2, p99: 3, max: 4 } };
  assert.is(withPercentiles(done, () => { throw new Error('no aggregation expected'); }), done);
  const raw = { latencies: 'encoded' };
  assert.equal(withPercentiles(raw, () => ({ latency: { p99: 9 } })), { latency: { p99: 9 } });
});

test.run();
