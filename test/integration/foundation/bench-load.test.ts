/**
 * The bench's load generator runs in a process of its own (bench/lib/load-process.ts): a local HTTP
 * server receives the patched pool bodies with each tenant's key, a pool crosses once however
 * many loads use it, the offered rate is kept, and the generator's CPU is reported from its own
 * process (this one serves the requests here, so its own CPU says nothing of the client's).
 */
import { createServer, type Server } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadInProcess, stagePool } from '../../../bench/lib/load.js';
import type { PoolRequest } from '../../../bench/lib/pool.js';

let server: Server;
let url = '';
const seen: Array<{ path: string; auth: string; body: string }> = [];

test.before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', auth: req.headers.authorization ?? '', body: Buffer.concat(chunks).toString() });
      res.writeHead(req.url === '/refuse' ? 400 : 200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
test.after(() => new Promise<void>((r) => server.close(() => r())));

const conv = 'sess-00000000-aaaa-4bbb-8ccc-000000000001';
const body = (n: number) => Buffer.from(JSON.stringify({ conversation: conv, n }));
const request = (route: string, tenant: string, n: number): PoolRequest => ({
  route,
  contentType: 'application/json',
  tenant,
  format: 'direct',
  body: body(n),
  events: 2,
  // the variant slot: the first 8 hex digits of the conversation id's uuid part
  slots: [body(n).indexOf(conv) + 5],
});

test('a closed-loop load in the load process: every body sent with its tenant key and a fresh variant, counted by status', async () => {
  const pool = [request('/a', 't1', 1), request('/refuse', 't2', 2), request('/a', 'other', 3)];
  seen.length = 0;
  const res = await loadInProcess({ baseUrl: url, pool, keys: { t1: 'key-1', '*': 'key-any' }, concurrency: 2, durationMs: 400, roundBase: 7 });
  assert.ok(res.sent >= 6, `${res.sent} requests`);
  assert.is(res.sent, seen.length);
  assert.is(res.ok, seen.filter((s) => s.path !== '/refuse').length);
  assert.is(res.okEvents, res.ok * 2);
  assert.is(res.statuses['400'], seen.filter((s) => s.path === '/refuse').length);
  assert.equal(new Set(seen.map((s) => `${s.path} ${s.auth}`)), new Set(['/a Bearer key-1', '/refuse Bearer key-any', '/a Bearer key-any']));
  // round 7 on the first pass over the pool: the slot holds 00000007
  assert.ok(seen[0]!.body.includes('sess-00000007-aaaa'), seen[0]!.body);
  assert.ok(typeof res.cpuSeconds === 'number' && res.cpuSeconds > 0, 'the load process reports its CPU');
});

test('an open-loop load keeps its rate; a pool is staged once for every load that uses it', async () => {
  const pool = [request('/a', 't1', 1)];
  const first = stagePool(pool);
  assert.is(stagePool(pool), first, 'the same pool is not sent twice');
  await first;
  seen.length = 0;
  const res = await loadInProcess({ baseUrl: url, pool, keys: { '*': 'k' }, concurrency: 4, durationMs: 1000, eventsPerSecond: 100, roundBase: 1 });
  // 100 events/s of 2-event requests for 1 s: 50 requests (one more may start at the window's edge)
  assert.ok(res.sent >= 45 && res.sent <= 51, `${res.sent} requests at 50 per second`);
  const again = await loadInProcess({ baseUrl: url, pool, keys: { '*': 'k' }, concurrency: 1, durationMs: 200, roundBase: 1 });
  assert.ok(again.ok > 0);
});

test.run();
