import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../../core/nats.js';
import { projectRoot } from '../../../core/paths.js';
import { tempDir } from '../../helpers/tmp.js';
import { http } from '../../helpers/http.js';
import { commands } from '../../../cli/commands/index.js';

function serversUsing(dir: string): string[] {
  try {
    return execFileSync('pgrep', ['-af', 'nats-server'], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes(dir) && !l.includes('nats-supervisor'));
  } catch {
    return [];
  }
}

async function waitReady(url: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    try {
      if ((await http(`${url}/readyz`)).status === 200) return Date.now() - started;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms`);
}

test('npm start on an empty data dir: ready within 30 s, prints a working admin key, Ctrl-C exits within 10 s leaving no nats-server; the server schedules on NATS_SERVER_PROCS cores', async () => {
  const dataDir = tempDir();
  const [ingestPort, queryPort] = [await freePort(), await freePort()];
  // detached: its own process group, so a group SIGINT is what a terminal Ctrl-C sends
  const child = spawn('npm', ['start', '--silent'], {
    cwd: projectRoot,
    env: { PATH: `${process.env.PATH}:/usr/sbin`, HOME: process.env.HOME ?? '/root', DATA_DIR: dataDir, INGEST_PORT: String(ingestPort), QUERY_PORT: String(queryPort), LOG_LEVEL: 'warn', NATS_SERVER_PROCS: '1', NATS_SERVER_GOGC: '250' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  try {
    await waitReady(`http://127.0.0.1:${ingestPort}`, 30_000);
    await waitReady(`http://127.0.0.1:${queryPort}`, 30_000);
    const key = /\b(th\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/.exec(out)?.[1];
    assert.ok(key, `admin key printed:\n${out}`);
    assert.is(out.split(key!).length - 1, 1, 'the key is printed exactly once');
    const ok = await http(`http://127.0.0.1:${queryPort}/api/v1/data/whoami`, { headers: { 'x-api-key': key! } });
    assert.is(ok.status, 200);
    assert.is(ok.body.tenant, 'default');
    const denied = await http(`http://127.0.0.1:${queryPort}/api/v1/data/whoami`);
    assert.is(denied.status, 401);
    const servers = serversUsing(dataDir);
    assert.is(servers.length, 1, 'one managed nats-server with its store under DATA_DIR');
    // the Go runtime of the server reads GOMAXPROCS from its environment
    const environ = readFileSync(`/proc/${servers[0]!.trim().split(/\s+/)[0]}/environ`, 'utf8').split('\0');
    assert.ok(environ.includes('GOMAXPROCS=1'), `GOMAXPROCS=1 in the server's environment: ${environ.filter((e) => e.startsWith('GOMAX')).join(' ') || 'absent'}`);
    // and its collector's settings: the defaults, GOGC as the start set it
    for (const v of ['GOGC=250', 'GOMEMLIMIT=512MiB']) assert.ok(environ.includes(v), `${v} in the server's environment: ${environ.filter((e) => e.startsWith('GO')).join(' ')}`);
  } finally {
    const t0 = Date.now();
    process.kill(-child.pid!, 'SIGINT');
    const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 10_000))]);
    if (code === 'timeout') process.kill(-child.pid!, 'SIGKILL');
    assert.is.not(code, 'timeout', `exits within 10 s of Ctrl-C (${Date.now() - t0} ms)`);
  }
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(serversUsing(dataDir), [], 'no nats-server left running');
});

test('a second start on the same data dir prints no new key and reuses the stored state', async () => {
  const dataDir = tempDir();
  const env = { PATH: `${process.env.PATH}:/usr/sbin`, HOME: process.env.HOME ?? '/root', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  for (const round of [1, 2]) {
    const [ingestPort, queryPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, [join(projectRoot, 'bin', 'tracehouse.js'), 'start'], {
      env: { ...env, INGEST_PORT: String(ingestPort), QUERY_PORT: String(queryPort) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise((r) => child.on('exit', r));
    await waitReady(`http://127.0.0.1:${queryPort}`, 30_000);
    child.kill('SIGTERM');
    await exited;
    if (round === 1) assert.match(out, /First start/);
    else assert.not.match(out, /First start/);
  }
});

test('a crashed parent (SIGKILL) leaves no nats-server behind', async () => {
  const dataDir = tempDir();
  const [ingestPort, queryPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'tracehouse.js'), 'start'], {
    env: { PATH: `${process.env.PATH}:/usr/sbin`, DATA_DIR: dataDir, INGEST_PORT: String(ingestPort), QUERY_PORT: String(queryPort), LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  await waitReady(`http://127.0.0.1:${queryPort}`, 30_000);
  assert.is(serversUsing(dataDir).length, 1);
  child.kill('SIGKILL');
  let left = serversUsing(dataDir);
  for (let i = 0; i < 50 && left.length; i++) {
    await new Promise((r) => setTimeout(r, 100));
    left = serversUsing(dataDir);
  }
  assert.equal(left, []);
});

test('a missing nats-server binary fails with a paragraph saying how to get it', async () => {
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'tracehouse.js'), 'start'], {
    env: { PATH: process.env.PATH ?? '', DATA_DIR: tempDir(), NATS_SERVER_BIN: 'nats-server-that-does-not-exist', LOG_LEVEL: 'warn', INGEST_PORT: '0', QUERY_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise((r) => child.on('exit', r));
  assert.is(code, 1);
  assert.match(err, /apt-get install nats-server/);
  assert.match(err, /brew install nats-server/);
  assert.match(err, /NATS_URL/);
});

test('an invalid configuration value fails start naming the variable', async () => {
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'tracehouse.js'), 'start'], {
    env: { PATH: process.env.PATH ?? '', DATA_DIR: tempDir(), INGEST_PORT: 'eighty' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise((r) => child.on('exit', r));
  assert.is(code, 1);
  assert.match(err, /INGEST_PORT="eighty": expected an integer between 0 and 65535/);
});

test('tracehouse config prints the effective configuration with secrets masked', async () => {
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'tracehouse.js'), 'config'], {
    env: { PATH: process.env.PATH ?? '', CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_PASSWORD: 'hunter2-password', TRACEHOUSE_SECRET: 'a-very-secret-value-123', INGEST_PORT: '9999' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  assert.is(await new Promise((r) => child.on('exit', r)), 0);
  const printed = JSON.parse(out);
  assert.is(printed.http.ingestPort, 9999);
  assert.is(printed.clickhouse.url, 'http://ch:8123');
  assert.not.ok(out.includes('hunter2-password'));
  assert.not.ok(out.includes('a-very-secret-value-123'));
});

test('every command answers --help', async () => {
  const help = async (cmd: string) => {
    const child = spawn(process.execPath, [join(projectRoot, 'bin', 'tracehouse.js'), cmd, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const code = await new Promise((r) => child.on('exit', r));
    assert.is(code, 0, cmd);
    assert.match(out, new RegExp(`Usage: tracehouse ${cmd}|tracehouse ${cmd}`), cmd);
  };
  // three processes at a time: each spends most of its 1–2 s loading the CLI
  const queue = commands.map((c) => c.name);
  await Promise.all(Array.from({ length: 3 }, async () => {
    for (let cmd = queue.shift(); cmd; cmd = queue.shift()) await help(cmd);
  }));
});

test.run();
