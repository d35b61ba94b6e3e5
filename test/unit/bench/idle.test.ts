import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isIdle, waitForIdle, waitForIdleWithJobs, type Backlogs } from '../../../bench/lib/idle.js';

/** A fake clock and a scripted probe: each poll returns the next backlog (the last one repeats). */
function script(seq: Backlogs[]) {
  let t = 0;
  let i = 0;
  return {
    probe: async () => seq[Math.min(i++, seq.length - 1)]!,
    now: () => t,
    sleep: async (ms: number) => void (t += ms),
    polls: () => i,
  };
}
const b = (ingest: number, analyze = 0, merges = 0): Backlogs => ({ ingest, analyze, merges });

test('idle needs every backlog at zero', () => {
  assert.ok(isIdle(b(0)));
  assert.not.ok(isIdle(b(1)));
  assert.not.ok(isIdle(b(0, 2)));
  assert.not.ok(isIdle(b(0, 0, 1)));
});

test('waits until INGEST, ANALYZE and merges stay empty for the settle polls', async () => {
  const s = script([b(500, 3, 1), b(20, 3, 1), b(0, 1, 0), b(0, 0, 0), b(0, 0, 1), b(0, 0, 0)]);
  const r = await waitForIdle(s.probe, { timeoutMs: 60_000, intervalMs: 100, settlePolls: 3, now: s.now, sleep: s.sleep });
  assert.ok(r.idle);
  assert.equal(r.before, b(500, 3, 1));
  assert.equal(r.after, b(0));
  // idle at polls 4, broken at 5 (a merge), then 6, 7, 8 in a row
  assert.is(r.polls, 8);
  assert.is(r.waited_ms, 700);
});

test('gives up after the timeout and reports what was still pending', async () => {
  const s = script([b(10, 5)]);
  const r = await waitForIdle(s.probe, { timeoutMs: 1000, intervalMs: 250, now: s.now, sleep: s.sleep });
  assert.not.ok(r.idle);
  assert.equal(r.after, b(10, 5));
  assert.is(r.waited_ms, 1000);
});

test('an already idle system waits only the settle polls', async () => {
  const s = script([b(0)]);
  const r = await waitForIdle(s.probe, { timeoutMs: 1000, intervalMs: 50, settlePolls: 2, now: s.now, sleep: s.sleep });
  assert.ok(r.idle);
  assert.is(r.polls, 2);
});

test('with the jobs: idle, then the jobs run to their end, then idle again, all counted in the wait', async () => {
  // backlogs drain, then the jobs leave merges behind, which drain too
  const s = script([b(5), b(0), b(0), b(0), b(0, 0, 2), b(0), b(0), b(0)]);
  let cpu = 10;
  const calls: string[] = [];
  const runJobs = async () => {
    calls.push(`jobs after poll ${s.polls()}`);
    await s.sleep(4000);
    cpu += 6.25;
  };
  const r = await waitForIdleWithJobs(s.probe, runJobs, () => cpu, { timeoutMs: 60_000, intervalMs: 100, settlePolls: 3, now: s.now, sleep: s.sleep });
  assert.equal(calls, ['jobs after poll 4'], 'the jobs start once the first wait is idle');
  assert.ok(r.idle);
  assert.equal(r.before, b(5), 'the backlogs before the first wait');
  assert.equal(r.jobs, { ms: 4000, cpu_s: 6.3 });
  // 300 ms, then the jobs' 4,000, then 300 ms again (the merges, then three idle polls)
  assert.is(r.waited_ms, 4600);
});

test.run();
