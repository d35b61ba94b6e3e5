/**
 * Waits until the system under test is idle before a latency measurement, so that the query phase
 * times the API and not background work: the INGEST backlog (store consumer), the ANALYZE backlog
 * (conversation rollups) and ClickHouse's running merges of the system's database all at zero for
 * `settlePolls` polls in a row. Gives up after `timeoutMs` and says so (the figures then carry it).
 */
export interface Backlogs {
  /** Pending + unacknowledged messages on the INGEST store consumer (0 when absent). */
  ingest: number;
  /** Pending + unacknowledged jobs on the ANALYZE consumer (0 when absent). */
  analyze: number;
  /** Merges running in the system's ClickHouse database. */
  merges: number;
}

export interface IdleWait {
  idle: boolean;
  /**
   * The tenant jobs' due work (problems, taxonomy, rollups), run to completion once the backlogs
   * were empty, before the idle wait went on: wall time and the bench process's CPU.
   */
  jobs?: { ms: number; cpu_s: number };
  waited_ms: number;
  polls: number;
  before: Backlogs;
  after: Backlogs;
}

export interface IdleOptions {
  timeoutMs: number;
  intervalMs?: number;
  settlePolls?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The backlogs as the bench's log and report print them. */
export const formatBacklogs = (b: Backlogs) => `INGEST ${b.ingest}, ANALYZE ${b.analyze}, merges ${b.merges}`;

export const isIdle = (b: Backlogs) => b.ingest === 0 && b.analyze === 0 && b.merges === 0;

export async function waitForIdle(probe: () => Promise<Backlogs>, o: IdleOptions): Promise<IdleWait> {
  const now = o.now ?? (() => performance.now());
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const interval = o.intervalMs ?? 250;
  const settle = o.settlePolls ?? 3;
  const t0 = now();
  const before = await probe();
  let last = before;
  let polls = 1;
  let streak = isIdle(before) ? 1 : 0;
  while (streak < settle && now() - t0 < o.timeoutMs) {
    await sleep(interval);
    last = await probe();
    polls++;
    streak = isIdle(last) ? streak + 1 : 0;
  }
  return { idle: streak >= settle, waited_ms: Math.round(now() - t0), polls, before, after: last };
}

/**
 * `waitForIdle`, then the tenant jobs' due work run to its end (`runJobs`), then `waitForIdle`
 * again: a phase starts with the first runs over what earlier phases stored behind it, not inside
 * it. The wait counts all three; `jobs` has the jobs' wall time and the CPU `cpuSeconds` saw.
 */
export async function waitForIdleWithJobs(probe: () => Promise<Backlogs>, runJobs: () => Promise<void>, cpuSeconds: () => number, o: IdleOptions): Promise<IdleWait> {
  const first = await waitForIdle(probe, o);
  const now = o.now ?? (() => performance.now());
  const t0 = now();
  const cpu0 = cpuSeconds();
  await runJobs();
  const jobs = { ms: Math.round(now() - t0), cpu_s: Math.round((cpuSeconds() - cpu0) * 10) / 10 };
  const again = await waitForIdle(probe, o);
  return { ...again, waited_ms: first.waited_ms + jobs.ms + again.waited_ms, before: first.before, jobs };
}
