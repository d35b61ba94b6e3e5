/**
 * The leased-job scheduler against a real nats-server (its leases are KV entries): a job still
 * running when the role stops is told to give up, and that is reported as stopped — not as a
 * failed job with a warning and an error count.
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

test.run();
