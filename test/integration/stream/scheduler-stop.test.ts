/**
 * The leased-job scheduler against a real nats-server (its leases are KV entries): a job still
 * running when the role stops is told to give up, and that is reported as stopped — not as a
 * failed job with a warning and an error count; a tick run on demand (`tick`) waits for its jobs,
 * and each run's wall time is in the metrics.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Writable } from 'node:stream';
import { createLogger } from '../../../core/log.js';
import { createMetrics } from '../../../core/metrics.js';
import type { Store } from '../../../core/clickhouse.js';
import { KV_BUCKETS } from '../../../schemas/subjects.js';
import { streamMetrics } from '../../../stream/metrics.js';
import { startScheduler, type TenantJob } from '../../../stream/analyze/scheduler.js';
import { useBusWithTopology } from '../../helpers/nats.js';
import { eventually } from '../../helpers/system.js';

const suite = useBusWithTopology(test);

test('a job running when the role stops is reported as stopped, not as failed', async () => {
  const bus = suite.bus();
  const lines: Array<{ level: number; msg: string }> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  const log = createLogger('info', {}, sink);
  const registry = createMetrics();
  let started = false;
  // a long job that gives up when its signal is aborted, as the real jobs do
  const job: TenantJob = {
    name: 'long-job',
    version: 1,
    scope: 'global',
    run: (ctx) =>
      new Promise<void>((_resolve, reject) => {
        started = true;
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
      }),
  };
  const scheduler = startScheduler({
    kv: bus.kv(KV_BUCKETS.leases.name),
    jobs: [job],
    ctx: { store: {} as Store, js: bus.js, jsm: bus.jsm, log, intervalMs: 60_000, debounceMs: 0 },
    holder: 'test-holder',
    metrics: streamMetrics(registry),
    firstTickMs: 10,
  });
  await eventually(async () => (started ? true : undefined), { timeoutMs: 10_000 });
  await scheduler.stop();
  const text = await registry.render();
  assert.match(text, /stream_tenant_job_runs_total\{job="long-job",outcome="stopped"\} 1/);
  assert.not.match(text, /outcome="error"/);
  assert.equal(lines.filter((l) => l.level >= 40).map((l) => l.msg), [], 'no warning or error logged');
  assert.ok(lines.some((l) => l.msg === 'leased job stopped: the role is stopping'));
});

test('a tick on demand runs every job to its end, and the duration of each run is measured', async () => {
  const bus = suite.bus();
  const registry = createMetrics();
  const ran: string[] = [];
  const job = (name: string, ms: number): TenantJob => ({
    name,
    version: 1,
    scope: 'global',
    run: async () => {
      await new Promise((r) => setTimeout(r, ms));
      ran.push(name);
    },
  });
  const scheduler = startScheduler({
    kv: bus.kv(KV_BUCKETS.leases.name),
    jobs: [job('quick-job', 5), job('slow-job', 300)],
    ctx: { store: {} as Store, js: bus.js, jsm: bus.jsm, log: createLogger('warn', {}, new Writable({ write: (_c, _e, done) => done() })), intervalMs: 60_000, debounceMs: 0 },
    holder: 'test-holder-2',
    metrics: streamMetrics(registry),
    // no timer tick within the test: only the one asked for
    firstTickMs: 60_000,
  });
  try {
    await scheduler.tick();
    assert.equal(ran, ['quick-job', 'slow-job'], 'both jobs ran before tick() resolved');
    const text = await registry.render();
    assert.match(text, /stream_tenant_job_run_seconds_count\{job="slow-job"\} 1/);
    assert.match(text, /stream_tenant_job_run_seconds_count\{job="quick-job"\} 1/);
    // the slow job's run (300 ms at least) is above the 0.25 s bucket, and its sum says so
    assert.match(text, /stream_tenant_job_run_seconds_bucket\{job="slow-job",le="0.25"\} 0/);
    assert.match(text, /stream_tenant_job_run_seconds_sum\{job="slow-job"\} 0\.[3-9]|stream_tenant_job_run_seconds_sum\{job="slow-job"\} [1-9]/);
  } finally {
    await scheduler.stop();
  }
});

test.run();
