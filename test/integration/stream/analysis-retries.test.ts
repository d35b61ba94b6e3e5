/**
 * What bounds an analysis job (docs/stream.md "Failed batches and restarts"): deliveries after the
 * stream role stopped while it held a job are not failures, so a job held across more restarts
 * than STREAM_MAX_DELIVER is still analyzed, never dead-lettered; a batch whose reads fail is
 * retried with its count of failures and analyzed once the reads work; a job whose reads fail every
 * time goes to the DLQ after STREAM_MAX_DELIVER failures, saying so, and a replay of it runs again. Real nats-server and chDB; the
 * stream role is started by the suite.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store } from '../../../core/clickhouse.js';
import { startStream } from '../../../stream/main.js';
import { listDeadLetters, replayDeadLetter } from '../../../stream/dlq.js';
import { CONSUMERS } from '../../../schemas/subjects.js';
import { eventually, startTestSystem, type TestSystem } from '../../helpers/system.js';
import { analysisHelpers } from './analysis-helpers.js';

let ts: TestSystem;
const MAX_DELIVER = 2;

test.before(async () => {
  ts = await startTestSystem({ roles: ['query'], env: { ANALYZE_DEBOUNCE_MS: '100', STREAM_MAX_DELIVER: String(MAX_DELIVER), JOB_INTERVAL_MS: '3600000' } });
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

const { rtWith, metric, publishConversations, notAnalyzed } = analysisHelpers(() => ts);
const deadAnalyses = () => metric('stream_dead_letters_total', { consumer: 'analyze', reason: 'max_deliver' });
const redelivered = () => metric('stream_redeliveries_total', { consumer: 'analyze' });

/** The analysis store with every read naming a conversation that `refuse` picks failing. */
function failingReads(refuse: (params: string) => boolean) {
  const reads = { failed: 0 };
  const wrap = (store: Store): Store => {
    const check = (params: unknown) => {
      if (refuse(JSON.stringify(params ?? {}))) {
        reads.failed++;
        throw new Error('injected read failure');
      }
    };
    return Object.create(store, {
      query: { value: (sql: string, params?: Record<string, unknown>, settings?: never) => (check(params), store.query(sql, params, settings)) },
      queryText: { value: (sql: string, params?: Record<string, unknown>, settings?: never) => (check(params), store.queryText(sql, params, settings)) },
    }) as Store;
  };
  return { wrap, reads };
}

test(`jobs held across more restarts than STREAM_MAX_DELIVER (${MAX_DELIVER}) are analyzed after the last one, none dead-lettered`, async () => {
  const deadBefore = deadAnalyses();
  const { ids } = await publishConversations('restarts', 3, 1);
  const restarts = 2 * MAX_DELIVER;
  for (let r = 0; r < restarts; r++) {
    const deferred = metric('stream_analyze_deferred_jobs_total');
    const again = redelivered();
    // the store path lags for the whole run: every job that comes due is held, none analyzed
    const held = await startStream(rtWith({ analyzeMaxDeferMs: 600_000 }), { wrapLag: () => () => 60_000 });
    try {
      const took = await eventually(async () => (r === 0 ? metric('stream_analyze_deferred_jobs_total') > deferred : redelivered() >= again + ids.length), { timeoutMs: 20_000 });
      assert.ok(took, `run ${r + 1}: the jobs were delivered and held`);
    } finally {
      await held.close();
    }
  }
  assert.ok(await notAnalyzed(ids), 'nothing was analyzed while held');
  const stream = await startStream(ts.system.rt);
  try {
    const done = await eventually(async () => ((await notAnalyzed(ids)) ? undefined : true), { timeoutMs: 30_000, intervalMs: 250 });
    assert.ok(done, `not analyzed after ${restarts} restarts: ${await notAnalyzed(ids)}`);
    assert.is(deadAnalyses(), deadBefore, 'no job was dead-lettered');
  } finally {
    await stream.close();
  }
});

test('a batch whose reads fail is retried and analyzed once they work; one whose reads always fail is dead-lettered after STREAM_MAX_DELIVER failures, and analyzed when replayed', async () => {
  let flaky = 1;
  let unreadable = true;
  const { wrap, reads } = failingReads((params) => (unreadable && params.includes('unreadable-')) || (params.includes('flaky-') && flaky-- > 0));
  const retriesBefore = metric('stream_analyze_jobs_total', { outcome: 'retry' });
  const deadBefore = (await listDeadLetters(ts.system.rt.bus.jsm)).length;
  const stream = await startStream(ts.system.rt, { wrapAnalysisStore: wrap });
  try {
    const { ids } = await publishConversations('flaky', 1, 1);
    const done = await eventually(async () => ((await notAnalyzed(ids)) ? undefined : true), { timeoutMs: 30_000, intervalMs: 250 });
    assert.ok(done, 'analyzed once its reads worked');
    assert.ok(metric('stream_analyze_jobs_total', { outcome: 'retry' }) > retriesBefore, 'after a failed batch');
    // the failed batch's retry job may still wait out its backoff after another job analyzed the
    // conversation: it runs before the next conversation is published, or it would share that
    // conversation's failing batch and, one failure ahead, be dead-lettered before it
    const settled = await eventually(async () => {
      const info = await ts.system.rt.bus.jsm.consumers.info(CONSUMERS.analyze.stream, CONSUMERS.analyze.durable);
      return info.num_pending + info.num_ack_pending === 0 ? true : undefined;
    }, { timeoutMs: 30_000, intervalMs: 100 });
    assert.ok(settled, "the first conversation's jobs are all done");

    const lost = await publishConversations('unreadable', 1, 1);
    const dead = await eventually(async () => {
      const all = await listDeadLetters(ts.system.rt.bus.jsm);
      return all.length > deadBefore ? all.slice(deadBefore) : undefined;
    }, { timeoutMs: 30_000, intervalMs: 250 });
    assert.ok(dead, `the job was dead-lettered (reads failed ${reads.failed} times)`);
    assert.is(dead!.length, 1, JSON.stringify(dead!.map((d) => ({ error: d.error, msgId: d.msgId, seq: d.originalSequence, job: Buffer.from(d.data).toString() }))));
    assert.equal([dead![0]!.subject, dead![0]!.reason, dead![0]!.error], ['dlq.analyze.analyze', 'max_deliver', `analysis failed ${MAX_DELIVER} times`]);
    assert.is(JSON.parse(Buffer.from(dead![0]!.data).toString()).conversation_id, lost.ids[0], "the dead letter is that conversation's job");
    assert.ok(await notAnalyzed(lost.ids), 'never analyzed');
    // the cause mended, a replay runs the job again from no failures (it carried STREAM_MAX_DELIVER)
    unreadable = false;
    await replayDeadLetter(ts.system.rt.bus.js, ts.system.rt.bus.jsm, dead![0]!);
    const replayed = await eventually(async () => ((await notAnalyzed(lost.ids)) ? undefined : true), { timeoutMs: 30_000, intervalMs: 250 });
    assert.ok(replayed, 'analyzed once replayed');
    const after = await listDeadLetters(ts.system.rt.bus.jsm);
    assert.is(after.length, deadBefore, `not dead-lettered again: ${JSON.stringify(after.map((d) => ({ seq: d.seq, time: d.time, msgId: d.msgId, error: d.error, deliveries: d.deliveries, job: Buffer.from(d.data).toString() })))}`);
  } finally {
    await stream.close();
  }
});

test.run();
