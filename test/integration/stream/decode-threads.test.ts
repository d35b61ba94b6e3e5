/**
 * Every configured decode thread decodes (docs/stream.md "Consumers"): with two threads, a backlog
 * waiting when the role starts is shared between them, and `/metrics` says how many messages each
 * one decoded and for how long. Before, the pool kept one thread and started the second only once
 * 16 tasks waited on the first, which a fetch's messages, grouped into a few tasks, never made:
 * the second thread never decoded. Real nats-server and chDB.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Runtime } from '../../../core/runtime.js';
import { startStream } from '../../../stream/main.js';
import { batchOf, conversationEvents, publishBatch } from '../../helpers/events.js';
import { eventually, startTestSystem, type TestSystem } from '../../helpers/system.js';

let ts: TestSystem;

test.before(async () => {
  ts = await startTestSystem({ roles: ['query'], env: { ANALYZE_DEBOUNCE_MS: '600000', JOB_INTERVAL_MS: '3600000' } });
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

const withThreads = (workerThreads: number): Runtime => {
  const rt = ts.system.rt;
  return Object.create(rt, { config: { value: { ...rt.config, stream: { ...rt.config.stream, workerThreads } } } }) as Runtime;
};

/** Values of one metric family by its `thread` label. */
function byThread(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of text.matchAll(new RegExp(`^tracehouse_${name}\\{thread="(\\d+)"\\} (\\S+)$`, 'gm'))) out.set(m[1]!, Number(m[2]));
  return out;
}

async function storedEvents(prefix: string): Promise<number> {
  const [r] = await ts.system.rt.store.query<{ n: string }>(
    `SELECT toString(count()) AS n FROM {{db}}.events WHERE tenant_id = 'default' AND startsWith(conversation_id, {prefix:String})`,
    { prefix },
  );
  return Number(r?.n ?? 0);
}

test('two decode threads share a backlog, and /metrics shows what each decoded', async () => {
  const stream = await startStream(withThreads(2), { paused: true });
  try {
    const before = await ts.system.rt.metrics.render();
    assert.match(before, /^tracehouse_stream_decode_threads 2$/m, 'both threads run from the start');
    const messages = 400;
    let events = 0;
    for (let i = 0; i < messages; i++) {
      const batch = batchOf(conversationEvents(`threads-${i}`, 3));
      events += batch.events.length;
      await publishBatch(ts.system.rt.bus.js, batch);
    }
    stream.resume();
    const done = await eventually(async () => ((await storedEvents('threads-')) >= events ? true : undefined), { timeoutMs: 60_000, intervalMs: 100 });
    assert.ok(done, `stored ${await storedEvents('threads-')} of ${events} events`);
    const text = await ts.system.rt.metrics.render();
    const decoded = byThread(text, 'stream_decoded_messages_total');
    const busy = byThread(text, 'stream_decode_busy_seconds_total');
    const counts = [...decoded.values()];
    assert.is(decoded.size, 2, `messages decoded by thread: ${JSON.stringify([...decoded])}`);
    assert.is(
      counts.reduce((a, b) => a + b, 0),
      messages,
      'each message decoded once',
    );
    for (const [thread, n] of decoded) {
      assert.ok(n > 0, `thread ${thread} decoded ${n} messages`);
      assert.ok((busy.get(thread) ?? 0) > 0, `thread ${thread} busy ${busy.get(thread)} s`);
    }
  } finally {
    await stream.close();
  }
});

test.run();
