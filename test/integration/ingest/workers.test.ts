/**
 * INGEST_WORKERS: `tracehouse ingest` as several processes sharing the ingest port, against NATS
 * alone: the ingest role never opens ClickHouse, so no CLICKHOUSE_URL is needed and no embedded
 * engine is created; requests are accepted and published, SIGTERM stops every process.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { connectBus } from '../../../core/nats.js';
import { projectRoot } from '../../../core/paths.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { tempDir } from '../../helpers/tmp.js';

let nats: TestNats;

test.before(async () => {
  nats = await startNats();
});
test.after(async () => {
  await nats?.stop();
});

const children = (pid: number) => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)]).toString().trim().split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};

test('INGEST_WORKERS=2 without CLICKHOUSE_URL: two processes serve the ingest port, open no ClickHouse; requests are published; SIGTERM stops them all', async () => {
  const key = 'workers-bootstrap-key-0123456789';
  const dataDir = tempDir();
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'tracehouse.js'), 'ingest'], {
    env: {
      PATH: process.env.PATH ?? '', NATS_URL: nats.url, DATA_DIR: dataDir, INGEST_WORKERS: '2', INGEST_PORT: '0',
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
  // neither worker created (or locked) an embedded engine: a stream process may own it
  assert.not.ok(existsSync(join(dataDir, 'clickhouse')), 'no embedded ClickHouse under DATA_DIR');
  assert.not.match(out, /CLICKHOUSE_URL is not set/);
  child.kill('SIGTERM');
  const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 15_000))]);
  if (code === 'timeout') child.kill('SIGKILL');
  assert.is(code, 0, out);
  assert.is(children(child.pid!), 0, 'no worker left');
});

test.run();
