/**
 * The smoke test against a ClickHouse server and a NATS server in containers (testcontainers).
 * Runs only where a Docker engine answers; elsewhere it prints why it is skipped.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { startTestSystem, eventually, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import type { TestNats } from '../../helpers/nats.js';

const CLICKHOUSE_IMAGE = 'clickhouse/clickhouse-server:26.7';
const NATS_IMAGE = 'nats:2.10.22-alpine';

const engine = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8' });
const hasEngine = !engine.error && engine.status === 0 && engine.stdout.trim() !== '';

if (!hasEngine) {
  console.log(`[skip] containers smoke suite: no Docker engine answers here (docker info: ${(engine.stderr || String(engine.error ?? '')).trim().split('\n')[0] || 'no output'})`);
} else {
  const { GenericContainer, Wait } = await import('testcontainers');
  type Started = Awaited<ReturnType<InstanceType<typeof GenericContainer>['start']>>;
  let ch: Started;
  let nats: Started;
  let ts: TestSystem;

  test.before(async () => {
    ch = await new GenericContainer(CLICKHOUSE_IMAGE)
      .withEnvironment({ CLICKHOUSE_USER: 'tracehouse', CLICKHOUSE_PASSWORD: 'tracehouse' })
      .withExposedPorts(8123)
      .withWaitStrategy(Wait.forHttp('/ping', 8123))
      .start();
    nats = await new GenericContainer(NATS_IMAGE).withCommand(['-js']).withExposedPorts(4222).withWaitStrategy(Wait.forLogMessage(/Server is ready/)).start();
    const natsUrl = `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`;
    const external: TestNats = { url: natsUrl, port: nats.getMappedPort(4222), storeDir: '', stop: async () => {}, kill: async () => {}, restart: async () => {} };
    ts = await startTestSystem({
      nats: external,
      env: { CLICKHOUSE_URL: `http://${ch.getHost()}:${ch.getMappedPort(8123)}`, CLICKHOUSE_USER: 'tracehouse', CLICKHOUSE_PASSWORD: 'tracehouse' },
    });
  });
  test.after(async () => {
    await ts?.stop();
    await nats?.stop();
    await ch?.stop();
  });

  test('server ClickHouse + NATS: ready, one event in, read back through the data API', async () => {
    assert.is((await http(`${ts.ingestUrl}/readyz`)).status, 200);
    assert.is((await http(`${ts.queryUrl}/readyz`)).status, 200);
    const sent = await http(`${ts.ingestUrl}/v1/ingest`, {
      headers: { authorization: `Bearer ${ts.adminKey}` },
      body: { events: [{ conversation_id: 'smoke-1', role: 'user', message: 'hello from a container test' }] },
    });
    assert.is(sent.status, 200, sent.text);
    const list = await eventually(async () => {
      const r = await http(`${ts.queryUrl}/api/v1/data/conversations`, { headers: { 'x-api-key': ts.adminKey } });
      return r.body?.conversations?.length ? r : undefined;
    });
    assert.is(list?.body.conversations[0].conversation_id, 'smoke-1');
    const [row] = await ts.system.rt.store.query<{ big: string }>('SELECT toUInt64(18446744073709551615) AS big');
    assert.is(row!.big, '18446744073709551615', '64-bit integers come back the same way as on chDB');
  });

  test.run();
}
