/**
 * Analysis batches in a pipeline (ANALYZE_PREFETCH=1, docs/stream.md "Batches in a pipeline"): the next batch's
 * conversations are read while the batch before it is analyzed, a conversation of the batch in
 * flight is read for the next batch only after that batch's write, and a user's memory is read
 * only once the batch before has written it. With ANALYSIS_THREADS=2 a batch of two tenants is analyzed in two
 * parts at once and written once ("Analysis threads"). Real nats-server and chDB; the stream role
 * is started by the test, its analysis work wrapped to observe (and hold) the batches.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Config } from '../../../core/config.js';
import type { Runtime } from '../../../core/runtime.js';
import { startStream } from '../../../stream/main.js';
import type { WorkRequest } from '../../../stream/analyze/work.js';
import { batchOf, conversationEvents, promptEvent, publishBatch } from '../../helpers/events.js';
import { eventually, startTestSystem, type TestSystem } from '../../helpers/system.js';

let ts: TestSystem;

test.before(async () => {
  ts = await startTestSystem({ roles: ['query'], env: { ANALYZE_DEBOUNCE_MS: '100', ANALYZE_BATCH_INTERVAL_MS: '0', JOB_INTERVAL_MS: '3600000' } });
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

const rtWith = (stream: Partial<Config['stream']>): Runtime => {
  const rt = ts.system.rt;
  return Object.create(rt, { config: { value: { ...rt.config, stream: { ...rt.config.stream, ...stream } } } }) as Runtime;
};
const metric = (name: string, labels?: Record<string, string>) => ts.system.rt.metrics.value(name, labels);
const idsOf = (input: WorkRequest) => input.loaded.flatMap((c) => c.keys.map((k) => k.conversationId));
const memoriesOf = (input: WorkRequest) => input.loaded.flatMap((c) => c.memories.map(([, doc]) => doc));

/** A user's turn stating a durable fact (world state keeps it in the user's memory). */
const publishTurn = (conv: string, text: string, atMs: number) =>
  publishBatch(ts.system.rt.bus.js, batchOf([promptEvent(conv, text, atMs, { user_id: 'pipeline-user' })]));

/** The message count each analyzed conversation's rollup holds. */
async function analyzedCounts(ids: string[]): Promise<Record<string, number>> {
  const rows = await ts.system.rt.store.query<{ c: string; n: string }>(
    `SELECT conversation_id AS c, toString(message_count) AS n FROM {{db}}.conversations FINAL WHERE conversation_id IN {ids:Array(String)}`,
    { ids },
  );
  return Object.fromEntries(rows.map((r) => [r.c, Number(r.n)]));
}

/** A stream role whose first analysis batch stays on the analysis thread until `release()`; every batch's input recorded. */
async function streamHoldingFirstBatch(stream: Partial<Config['stream']>) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const inputs: WorkRequest[] = [];
  const role = await startStream(rtWith(stream), {
    wrapWork: (work) => async (input) => {
      inputs.push(input);
      if (inputs.length === 1) await gate;
      return work(input);
    },
  });
  return { role, inputs, release };
}

test('ANALYZE_PREFETCH=1: the next batch loads while one is analyzed; a conversation in flight waits; memory is read after the write before', async () => {
  const batchesBefore = metric('stream_analyze_batch_conversations');
  const { role: stream, inputs, release } = await streamHoldingFirstBatch({ analyzePrefetch: 1 });
  try {
    const t0 = Date.UTC(2026, 10, 1);
    await publishTurn('pipe-a', 'hello, my email is ana.pipeline@example.com and I need the tests fixed', t0);
    assert.ok(await eventually(async () => inputs.length === 1, { timeoutMs: 15_000 }), 'the first batch reached the analysis thread');
    assert.equal(idsOf(inputs[0]!), ['pipe-a']);

    // while it is held: a new conversation of the same user, and a new message of the one in flight
    await publishTurn('pipe-b', 'another question about the build, same person here', t0 + 60_000);
    await publishTurn('pipe-a', 'and one more thing about the tests', t0 + 10_000);
    const taken = await eventually(async () => metric('stream_analyze_batch_conversations') - batchesBefore >= 2, { timeoutMs: 15_000 });
    assert.ok(taken, 'the second batch was taken (and its reads started) while the first one was still being analyzed');
    assert.is(inputs.length, 1, 'it waits for the first batch to be written before its own analysis');

    release();
    const done = await eventually(
      async () => {
        const counts = await analyzedCounts(['pipe-a', 'pipe-b']);
        return counts['pipe-a'] === 2 && counts['pipe-b'] === 1 ? counts : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    assert.ok(done, `both conversations analyzed with their final content: ${JSON.stringify(await analyzedCounts(['pipe-a', 'pipe-b']))}`);

    // the conversation in flight was left out of the reads made during its analysis, and joined the
    // next batch once that analysis was written: its reads there hold what the first one recorded
    assert.equal(idsOf(inputs[1]!).sort(), ['pipe-a', 'pipe-b']);
    const statesOfA = inputs[1]!.loaded.map((c) => c.states).join('\n');
    assert.match(statesOfA, /"conversation_id":"pipe-a"/, 'read after the first batch wrote its outcomes');
    assert.ok(
      memoriesOf(inputs[1]!).some((doc) => doc.includes('ana.pipeline@example.com')),
      `the second batch started from the memory the first one wrote: ${JSON.stringify(memoriesOf(inputs[1]!))}`,
    );
  } finally {
    release();
    await stream.close();
  }
});

test('by default the next batch is taken only once the one before is written', async () => {
  const batchesBefore = metric('stream_analyze_batch_conversations');
  const { role: stream, inputs, release } = await streamHoldingFirstBatch({});
  try {
    const t0 = Date.UTC(2026, 10, 2);
    await publishTurn('seq-a', 'a first question about the build', t0);
    assert.ok(await eventually(async () => inputs.length === 1, { timeoutMs: 15_000 }), 'the first batch reached the analysis thread');
    await publishTurn('seq-b', 'a second conversation meanwhile', t0 + 60_000);
    // the job of seq-b comes due (100 ms) while the first batch is held: it is not taken yet
    await new Promise((r) => setTimeout(r, 1_000));
    assert.is(metric('stream_analyze_batch_conversations') - batchesBefore, 1, 'no second batch taken while the first is analyzed');
    release();
    const done = await eventually(async () => {
      const counts = await analyzedCounts(['seq-a', 'seq-b']);
      return counts['seq-a'] === 1 && counts['seq-b'] === 1 ? counts : undefined;
    }, { timeoutMs: 20_000, intervalMs: 200 });
    assert.ok(done, 'both analyzed once the first batch was written');
  } finally {
    release();
    await stream.close();
  }
});

test('ANALYSIS_THREADS=2: a batch of two tenants is analyzed in two parts at once, each of whole tenants, and every analysis is written', async () => {
  const tenantsOfInput = (input: WorkRequest) => [...new Set(input.loaded.flatMap((c) => c.keys.map((k) => k.tenantId)))].sort();
  const parts: string[][] = [];
  let running = 0;
  let most = 0;
  // paused until every conversation is published: they are stored together and come due together
  const stream = await startStream(rtWith({ analysisThreads: 2 }), {
    paused: true,
    wrapWork: (work) => async (input) => {
      parts.push(tenantsOfInput(input));
      most = Math.max(most, ++running);
      try {
        return await work(input);
      } finally {
        running--;
      }
    },
  });
  try {
    const ids: string[] = [];
    for (const tenant of ['default', 'threads-b']) {
      for (let i = 0; i < 3; i++) {
        const id = `thr-${tenant}-${i}`;
        ids.push(id);
        const events = conversationEvents(id, 3).map((e) => ({ ...e, tenant_id: tenant }));
        await publishBatch(ts.system.rt.bus.js, batchOf(events, 'logs', tenant));
      }
    }
    stream.resume();
    const done = await eventually(
      async () => {
        const counts = await analyzedCounts(ids);
        return ids.every((id) => counts[id] === 3) ? counts : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    assert.ok(done, `every conversation analyzed: ${JSON.stringify(await analyzedCounts(ids))}`);
    assert.ok(parts.length >= 2);
    assert.ok(parts.every((p) => p.length === 1), `each part holds one tenant: ${JSON.stringify(parts)}`);
    assert.is(most, 2, 'the two parts ran at once');
    const states = await ts.system.rt.store.query<{ n: string }>(
      `SELECT toString(uniqExact(tenant_id, conversation_id)) AS n FROM {{db}}.analysis_state FINAL WHERE conversation_id IN {ids:Array(String)} AND outcome = 'ok'`,
      { ids },
    );
    assert.is(Number(states[0]!.n), ids.length, 'every outcome recorded');
  } finally {
    await stream.close();
  }
});

test.run();
