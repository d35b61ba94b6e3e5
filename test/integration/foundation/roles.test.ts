import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../../core/nats.js';
import { projectRoot } from '../../../core/paths.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { tempDir } from '../../helpers/tmp.js';
import { http } from '../../helpers/http.js';
import { runCli } from '../../helpers/cli.js';

let nats: TestNats;
test.before(async () => {
  nats = await startNats();
});
test.after(async () => {
  await nats?.stop();
});

const ROLE_PORT = { ingest: 'INGEST_PORT', query: 'QUERY_PORT', stream: 'STREAM_PORT' } as const;

for (const role of ['ingest', 'stream', 'query'] as const) {
  test(`tracehouse ${role} runs the role alone against NATS_URL, serves /readyz, stops on SIGTERM`, async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [join(projectRoot, 'bin', 'tracehouse.js'), role], {
      env: {
        PATH: process.env.PATH ?? '',
        NATS_URL: nats.url,
        // each role process owns its own embedded store here; production points all at CLICKHOUSE_URL
        DATA_DIR: tempDir(),
        TRACEHOUSE_SECRET: 'roles-secret-0123456789',
        LOG_LEVEL: 'warn',
        INGEST_PORT: '0',
        QUERY_PORT: '0',
        STREAM_PORT: '0',
        [ROLE_PORT[role]]: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    let status = 0;
    for (let i = 0; i < 150 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = await http(`http://127.0.0.1:${port}/readyz`).then((r) => r.status, () => 0);
    }
    assert.is(status, 200, out);
    const metrics = await http(`http://127.0.0.1:${port}/metrics`);
    assert.match(metrics.text, /# TYPE/);
    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 10_000))]);
    if (code === 'timeout') child.kill('SIGKILL');
    assert.is(code, 0, out);
  });
}

test('a role alone without NATS_URL refuses to start and says why', async () => {
  const r = await runCli(['query'], { DATA_DIR: tempDir() });
  assert.is(r.code, 2);
  assert.match(r.stderr, /needs NATS_URL/);
  assert.match(r.stderr, /tracehouse start/);
});

test.run();
