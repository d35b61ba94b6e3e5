import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../../core/config.js';
import { connectBus, declareTopology, type Bus } from '../../../core/nats.js';
import { createStore } from '../../../core/clickhouse.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { tempDir } from '../../helpers/tmp.js';
import { batchOf, conversationEvents, publishBatch } from '../../helpers/events.js';
import { counts, sleep } from './helpers.js';
import { TABLES } from '../../../stream/rows.js';

const CHILD = fileURLToPath(new URL('./stream-child.js', import.meta.url));
let nats: TestNats;
let bus: Bus;
const dataDir = tempDir('th-crash-');
let env: Record<string, string>;

function startChild(extra: Record<string, string> = {}): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [CHILD], { env: { ...process.env, ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const t = setInterval(() => {
      if (out.includes('ready')) {
        clearInterval(t);
        resolve({ child, output: () => out });
      } else if (child.exitCode !== null) {
        clearInterval(t);
        reject(new Error(`child exited: ${out}`));
      }
    }, 50);
  });
}
const exited = (c: ChildProcess) => (c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => c.once('exit', () => r())));

test.before(async () => {
  nats = await startNats();
  env = { DATA_DIR: dataDir, NATS_URL: nats.url, LOG_LEVEL: 'warn', SINK_FLUSH_INTERVAL_MS: '200', ANALYZE_DEBOUNCE_MS: '100', ANALYZE_BATCH_INTERVAL_MS: '0', STREAM_ACK_WAIT_MS: '2000' };
  bus = await connectBus(nats.url);
  await declareTopology(bus, { replicas: 1, maxDeliver: 5, ackWaitMs: 2000 });
});
test.after(async () => {
  await bus?.close();
  await nats?.stop();
});

test('stream role killed with SIGKILL mid-batch, restarted: every row exactly once', async () => {
  const first = await startChild({ STREAM_TEST_INSERT_DELAY_MS: '150' });
  const batches = Array.from({ length: 60 }, (_, i) => batchOf(conversationEvents(`crash-${i % 15}`, 2, i * 100_000)));
  for (const b of batches.slice(0, 30)) await publishBatch(bus.js, b);
  // kill once the first table insert of a batch is done and before its messages are acked
  for (let i = 0; i < 200 && !first.output().includes(`inserted ${TABLES[0]}`); i++) await sleep(20);
  const publishing = (async () => {
    for (const b of batches.slice(30)) await publishBatch(bus.js, b);
  })();
  first.child.kill('SIGKILL');
  await exited(first.child);
  await publishing;
  const before = await bus.jsm.streams.info('INGEST');
  assert.ok(before.state.messages > 0, 'the kill left unacknowledged messages');

  const second = await startChild();
  for (let i = 0; i < 300; i++) {
    const s = await bus.jsm.streams.info('INGEST');
    const a = await bus.jsm.streams.info('ANALYZE');
    if (s.state.messages === 0 && a.state.messages === 0) break;
    await sleep(100);
  }
  await sleep(500);
  second.child.kill('SIGTERM');
  await exited(second.child);
  assert.is(second.child.exitCode, 0, second.output());

  const store = createStore(loadConfig(env));
  try {
    const c = await counts(store);
    if (process.env.DEBUG_CRASH) console.log(c, first.output(), second.output(), await store.query('SELECT * FROM {{db}}.messages LIMIT 1'));
    assert.is(c.events, 60 * 8);
    assert.is(c.messages, 60 * 2);
    assert.is(c.toolCalls, 60 * 2);
    assert.is(c.conversations, 15);
    const conv = await store.query<any>(`SELECT sum(message_count) AS m, sum(tool_call_count) AS t, sum(tool_failure_count) AS f FROM {{db}}.conversations FINAL`);
    assert.equal(conv[0], { m: '120', t: '120', f: '60' });
    const dlq = await bus.jsm.streams.info('DLQ');
    assert.is(dlq.state.messages, 0);
  } finally {
    await store.close();
  }
});

test.run();
