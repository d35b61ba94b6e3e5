/**
 * The load generator's HTTP/1.1 connection (bench/lib/raw-http.ts) against a node:http server:
 * what arrives is the request as sent (method, path, headers, body), each status comes back,
 * whatever way the response's body is framed, and a connection the server ends is opened again.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RawConnection, requestHead } from '../../../bench/lib/raw-http.js';
import { runLoad } from '../../../bench/lib/load-client.js';
import { patchBody, type PoolRequest } from '../../../bench/lib/pool.js';

let server: Server;
let port = 0;
const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: Buffer }> = [];
let handle: (req: IncomingMessage, body: Buffer, res: ServerResponse) => void = (_q, _b, res) => res.end();

test.before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handle(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
test.after(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));

const head = (path: string, body: Buffer) => requestHead(`127.0.0.1:${port}`, path, { 'content-type': 'application/json', 'content-length': body.length, authorization: 'Bearer k1' });

test('the request arrives as sent; statuses come back whatever the framing of the body', async () => {
  seen.length = 0;
  const conn = new RawConnection('127.0.0.1', port);
  const answers: Array<[string, (res: ServerResponse) => void, number]> = [
    ['/length', (res) => res.writeHead(202, { 'content-type': 'application/json' }).end('{"accepted":3}'), 202],
    // two writes and no length: node:http frames the body as chunks
    ['/chunked', (res) => { res.writeHead(400); res.write('{"error":'); setTimeout(() => res.end('"bad"}'), 5); }, 400],
    ['/empty', (res) => res.writeHead(204).end(), 204],
    ['/big', (res) => res.writeHead(503, { 'retry-after': '1' }).end('x'.repeat(300_000)), 503],
  ];
  for (const [path, answer, status] of answers) {
    handle = (_req, _body, res) => answer(res);
    const body = Buffer.from(`{"path":"${path}","pad":"${'é'.repeat(5000)}"}`);
    assert.is(await conn.request(head(path, body), body), status, path);
    const got = seen.at(-1)!;
    assert.is(got.method, 'POST');
    assert.is(got.url, path);
    assert.is(got.headers.authorization, 'Bearer k1');
    assert.is(got.headers['content-type'], 'application/json');
    assert.ok(got.body.equals(body), `${path}: the body arrives byte for byte`);
  }
  assert.is(seen.length, answers.length);
  conn.close();
});

test('a connection the server closes is opened again for the next request; the request it carried fails', async () => {
  const conn = new RawConnection('127.0.0.1', port);
  const body = Buffer.from('{}');
  handle = (_req, _body, res) => res.writeHead(200, { connection: 'close' }).end('{}');
  assert.is(await conn.request(head('/close', body), body), 200, 'answered, then closed');
  handle = (_req, _body, res) => res.socket!.destroy();
  let failed = false;
  await conn.request(head('/drop', body), body).catch(() => (failed = true));
  assert.ok(failed, 'a dropped connection fails its request');
  handle = (_req, _body, res) => res.end('{}');
  assert.is(await conn.request(head('/again', body), body), 200, 'the next request goes through a new connection');
  conn.close();
});

test('runLoad sends every request of the pool with its round written into the body, each once', async () => {
  seen.length = 0;
  handle = (_req, _body, res) => res.writeHead(200).end('{}');
  const make = (id: string): PoolRequest => {
    const body = Buffer.from(`{"session":"${id}","again":"${id}"}`);
    return { tenant: 't00', format: 'direct', route: '/v1/ingest', contentType: 'application/json', body, events: 2, slots: [body.indexOf(id), body.lastIndexOf(id)] };
  };
  const pool = [make('aaaaaaaa-1'), make('bbbbbbbb-2'), make('cccccccc-3')];
  const r = await runLoad({ baseUrl: `http://127.0.0.1:${port}`, pool, keys: { t00: 'key-t00' }, concurrency: 2, durationMs: 300, roundBase: 7 });
  assert.ok(r.ok > pool.length, `requests answered: ${r.ok}`);
  assert.is(r.ok, r.sent);
  assert.is(r.okEvents, 2 * r.ok);
  assert.is(seen.length, r.sent);
  const bodies = new Set(seen.map((s) => s.body.toString()));
  assert.is(bodies.size, seen.length, 'no two requests carry the same body');
  seen.forEach((s, i) => assert.ok(bodies.has(patchBody(pool[i % pool.length]!, 7 + Math.floor(i / pool.length)).toString()), `request ${i} as patchBody makes it`));
  assert.ok(seen.every((s) => s.headers.authorization === 'Bearer key-t00'));
});

test.run();
