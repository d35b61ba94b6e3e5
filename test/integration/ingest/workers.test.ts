/**
 * INGEST_WORKERS: `tracehouse ingest` as several processes sharing the ingest port, against a
 * ClickHouse server URL (the engine behind ClickHouse's HTTP interface, test/helpers/ch-http-child.ts)
 * and NATS; requests are accepted and published, SIGTERM stops every process.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectBus } from '../../../core/nats.js';
import { projectRoot } from '../../../core/paths.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { tempDir } from '../../helpers/tmp.js';
import { runCli } from '../../helpers/cli.js';

let nats: TestNats;
let engine: ChildProcess | undefined;
let engineUrl = '';

test.before(async () => {
  nats = await startNats();
  engine = spawn(process.execPath, [fileURLToPath(new URL('../../helpers/ch-http-child.js', import.meta.url)), tempDir()], { stdio: ['ignore', 'pipe', 'inherit'] });
  engineUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    engine!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /port (\d+)/.exec(out);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    });
    engine!.once('exit', (code) => reject(new Error(`engine exited ${code}`)));
  });
});
test.after(async () => {
  engine?.kill('SIGTERM');
  await nats?.stop();
});

const children = (pid: number) => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)]).toString().trim().split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};

test('INGEST_WORKERS=2: two processes serve the ingest port; requests are published; SIGTERM stops them all', async () => {
  const key = 'workers-bootstrap-key-0123456789';
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'tracehouse.js'), 'ingest'], {
    env: {
      PATH: process.env.PATH ?? '', NATS_URL: nats.url, CLICKHOUSE_URL: engineUrl, DATA_DIR: tempDir(), INGEST_WORKERS: '2', INGEST_PORT: '0',
      TRACEHOUSE_SECRET: 'workers-secret-0123456789', TRACEHOUSE_BOOTSTRAP_KEY: key, LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  let url: string | undefined;
  for (let i = 0; i < 600 && !url; i++) {
    await new Promise((r) => setTimeout(r, 100));
    url = /ingest\s+(http:\/\/[^\s/]+)/.exec(out)?.[1];
  }
  assert.ok(url, out);
  assert.match(out, /2 processes/);
  assert.is(children(child.pid!), 2, 'two worker processes');
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) {
    const body = JSON.stringify({ events: [{ conversation_id: `w-${i}`, role: 'user', message: `hello ${i}`, timestamp: new Date().toISOString() }] });
    const r = await fetch(`${url}/v1/ingest`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body });
    await r.arrayBuffer();
    statuses.push(r.status);
  }
  assert.equal(statuses, Array(12).fill(200), out);
  const bus = await connectBus(nats.url);
  const info = await bus.jsm.streams.info('INGEST');
  await bus.close();
  assert.is(info.state.messages, 12, 'every accepted request is on INGEST');
  child.kill('SIGTERM');
  const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 15_000))]);
  if (code === 'timeout') child.kill('SIGKILL');
  assert.is(code, 0, out);
  assert.is(children(child.pid!), 0, 'no worker left');
});

test('INGEST_WORKERS above 1 without CLICKHOUSE_URL refuses to start and says why', async () => {
  const r = await runCli(['ingest'], { DATA_DIR: tempDir(), NATS_URL: nats.url, INGEST_WORKERS: '2' });
  assert.is(r.code, 2);
  assert.match(r.stderr, /INGEST_WORKERS above 1 needs CLICKHOUSE_URL/);
});

test.run();
