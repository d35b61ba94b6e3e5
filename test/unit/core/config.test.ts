import { availableParallelism } from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig, maskedConfig } from '../../../core/config.js';
import { ConfigError } from '../../../core/errors.js';

test('defaults: embedded ClickHouse, managed NATS, ports 4318 and 8080, ./.tracehouse', () => {
  const c = loadConfig({}, '/srv/app');
  assert.is(c.dataDir, '/srv/app/.tracehouse');
  assert.is(c.clickhouse.url, '');
  assert.is(c.nats.url, '');
  assert.is(c.http.ingestPort, 4318);
  assert.is(c.http.queryPort, 8080);
  assert.is(c.clickhouse.database, 'tracehouse');
  assert.is(c.ingest.maxBodyBytes, 5 * 1024 * 1024);
  // the managed nats-server schedules on half the cores, at least one
  assert.is(c.nats.serverProcs, Math.max(1, Math.floor(availableParallelism() / 2)));
  assert.is(loadConfig({ NATS_SERVER_PROCS: '3' }).nats.serverProcs, 3);
  // the stream role decodes on two threads where there are two cores, on one where there is one
  assert.is(c.stream.workerThreads, Math.min(2, availableParallelism()));
  assert.is(loadConfig({ STREAM_WORKER_THREADS: '1' }).stream.workerThreads, 1);
  // and collects when its heap grew by 4× its live size, under a soft limit of 512 MiB
  assert.equal(c.nats.serverGc, { gogc: '400', memLimit: '512MiB' });
  assert.equal(loadConfig({ NATS_SERVER_GOGC: 'off', NATS_SERVER_GOMEMLIMIT: '2GiB' }).nats.serverGc, { gogc: 'off', memLimit: '2GiB' });
  assert.equal(loadConfig({ NATS_SERVER_GOGC: '100', NATS_SERVER_GOMEMLIMIT: 'off' }).nats.serverGc, { gogc: '100', memLimit: 'off' });
  // the embedded engine's allocator keeps freed memory for 30 s and samples no heap profile; off leaves its built-in options
  assert.is(c.clickhouse.engineMallocConf, 'dirty_decay_ms:30000,muzzy_decay_ms:30000,prof_active:false');
  assert.is(loadConfig({ JE_MALLOC_CONF: 'off' }).clickhouse.engineMallocConf, '');
  assert.is(loadConfig({ JE_MALLOC_CONF: 'dirty_decay_ms:-1,background_thread:true' }).clickhouse.engineMallocConf, 'dirty_decay_ms:-1,background_thread:true');
  // each JavaScript heap grows to 2.5× what its last full collection kept; 0 leaves V8's own choice
  assert.is(c.heapGrowthPercent, 150);
  assert.is(loadConfig({ NODE_HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent, 0);
  assert.is(loadConfig({ NODE_HEAP_GROWTH_PERCENT: '300' }).heapGrowthPercent, 300);
});

test('the configuration is frozen', () => {
  const c = loadConfig({});
  assert.ok(Object.isFrozen(c));
  assert.ok(Object.isFrozen(c.http));
  assert.throws(() => {
    (c.http as { ingestPort: number }).ingestPort = 1;
  });
});

const invalid: Array<[string, string, RegExp]> = [
  ['INGEST_PORT', 'abc', /INGEST_PORT.*integer between 0 and 65535/],
  ['QUERY_PORT', '70000', /QUERY_PORT.*integer between 0 and 65535/],
  ['LOG_LEVEL', 'loud', /LOG_LEVEL.*one of fatal, error, warn, info, debug, trace, silent/],
  ['CLICKHOUSE_URL', 'clickhouse:8123', /CLICKHOUSE_URL.*http: or https:/],
  ['NATS_URL', 'http://x:4222', /NATS_URL.*nats:/],
  ['CLICKHOUSE_DATABASE', 'bad-name;', /CLICKHOUSE_DATABASE/],
  ['TRACEHOUSE_SECRET', 'short', /TRACEHOUSE_SECRET.*at least 16/],
  ['TRACEHOUSE_BOOTSTRAP_KEY', 'has space in it 1234', /TRACEHOUSE_BOOTSTRAP_KEY/],
  ['SINK_MAX_BATCH_ROWS', '0', /SINK_MAX_BATCH_ROWS/],
  ['STREAM_MAX_DELIVER', '-1', /STREAM_MAX_DELIVER/],
  ['NATS_REPLICAS', '9', /NATS_REPLICAS.*between 1 and 5/],
  ['NATS_SERVER_PROCS', '0', /NATS_SERVER_PROCS.*between 1 and 1024/],
  ['NATS_SERVER_GOGC', '-50', /NATS_SERVER_GOGC.*percentage \(1–999999\) or off/],
  ['NATS_SERVER_GOGC', 'fast', /NATS_SERVER_GOGC/],
  ['NATS_SERVER_GOMEMLIMIT', '512MB', /NATS_SERVER_GOMEMLIMIT.*512MiB or 2GiB, or off/],
  ['NATS_SERVER_GOMEMLIMIT', '1 GiB', /NATS_SERVER_GOMEMLIMIT/],
  ['NODE_HEAP_GROWTH_PERCENT', '1001', /NODE_HEAP_GROWTH_PERCENT.*between 0 and 1000/],
  ['NODE_HEAP_GROWTH_PERCENT', '2.5', /NODE_HEAP_GROWTH_PERCENT/],
  ['JE_MALLOC_CONF', 'dirty_decay_ms=30000', /JE_MALLOC_CONF.*off or jemalloc options/],
  ['JE_MALLOC_CONF', 'dirty_decay_ms:1, muzzy_decay_ms:1', /JE_MALLOC_CONF/],
];
for (const [name, value, message] of invalid) {
  test(`invalid ${name}=${value} fails naming the variable`, () => {
    try {
      loadConfig({ [name]: value });
      assert.unreachable('should have thrown');
    } catch (err) {
      assert.instance(err, ConfigError);
      assert.is((err as ConfigError).variable, name);
      assert.match((err as Error).message, message);
    }
  });
}

test('secret values never appear in the invalid-value message', () => {
  try {
    loadConfig({ TRACEHOUSE_SECRET: 'tiny' });
  } catch (err) {
    assert.not.match((err as Error).message, /tiny/);
  }
});

test('masked configuration hides password, secret, bootstrap key and NATS credentials', () => {
  const c = loadConfig({
    CLICKHOUSE_URL: 'http://ch:8123',
    CLICKHOUSE_PASSWORD: 'pw-very-secret',
    TRACEHOUSE_SECRET: 'sekrit-0123456789abcdef',
    TRACEHOUSE_BOOTSTRAP_KEY: 'bootstrap-key-0123456789',
    NATS_URL: 'nats://user:natspass@nats:4222',
  });
  const text = JSON.stringify(maskedConfig(c));
  for (const s of ['pw-very-secret', 'sekrit-0123456789abcdef', 'bootstrap-key-0123456789', 'natspass']) assert.not.ok(text.includes(s), s);
  assert.ok(text.includes('http://ch:8123'));
});

test.run();
