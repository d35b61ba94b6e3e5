import { randomBytes } from 'node:crypto';
import { buildPool, type Pool } from '../lib/pool.js';
import { loadInProcess, stagePool, throughput, type Throughput } from '../lib/load.js';
import { routeExists, type BenchSystem } from '../lib/system.js';
import { summarize, type LatencySummary } from '../lib/stats.js';
import { processCpuSeconds, treeCpuSeconds } from '../lib/cpu.js';
import { drain, nextRounds } from './edge.js';
import { nextRate } from '../lib/ladder.js';
import type { BenchOptions } from '../options.js';
import { formatBacklogs, waitForIdle, waitForIdleWithJobs, type IdleWait } from '../lib/idle.js';

/** The mixed workload offered at `rate` events/s for `seconds`, 64 requests at most in flight. */
const offer = (sys: BenchSystem, pool: Pool, rate: number, seconds: number) =>
  loadInProcess({ baseUrl: sys.ingestUrl, pool: pool.requests, keys: sys.keys, concurrency: 64, durationMs: seconds * 1000, eventsPerSecond: rate, roundBase: nextRounds() });

/** CPU seconds per million accepted events, to one decimal. */
const perMillion = (cpuS: number, accepted: number) => Math.round((cpuS / (accepted || 1)) * 1e6 * 10) / 10;

export interface Step {
  offered_events_per_s: number;
  accepted_events_per_s: number;
  backlog_max: number;
  backlog_end: number;
  /** Time for the backlog to empty after the step; -1 when it did not within the limit. */
  drain_ms: number;
  non_2xx_share: number;
  bounded: boolean;
  /**
   * CPU seconds per million accepted events of the system under test (ingest + stream + engine: the
   * bench process; the load generator is a process of its own), from the start of the step until its
   * backlog drained; `bus_cpu_s_per_million` is the nats-server's.
   */
  cpu_s_per_million: number;
  bus_cpu_s_per_million: number;
  /**
   * The load generator's CPU seconds per million accepted events over the step's load (its own
   * process, every thread; not the system's, but on the same cores). Since 2 Dec 2026.
   */
  load_cpu_s_per_million?: number;
  /**
   * A step after a missed one starts on an idle system: the wait for the analyses and merges of the
   * overload before it (a step after a sustained one starts as soon as the INGEST backlog is empty).
   */
  idle_before?: IdleWait;
}

/**
 * The whole cost of the highest sustained rate: one more step at it, four times a ramp step's
 * length, started on an idle system, its CPU counted until the system is idle again (INGEST and
 * ANALYZE backlogs and merges at zero), so the analyses and merges of its events are in the figure,
 * not only the work done before its INGEST backlog emptied (what a ramp step counts). The tenant
 * jobs' due passes run before it. The work that runs on a timer whatever the rate (sink and analysis
 * ticks, tenant job ticks) falls in the tail too: the longer load keeps that share nearer what a
 * steady load pays, so the figure is an upper bound of a steady load's cost, and a ramp step's a
 * lower one.
 */
export const COST_STEP_FACTOR = 4;

export interface CostStep {
  offered_events_per_s: number;
  accepted_events_per_s: number;
  /** Seconds of offered load. */
  load_seconds: number;
  /** From the step's start until idle again (or until the wait gave up). */
  seconds: number;
  /** Whether the system was idle at the end; when not, the CPU is what was spent until the wait gave up. */
  idle: boolean;
  cpu_s_per_million: number;
  bus_cpu_s_per_million: number;
  idle_before: IdleWait;
}

export interface E2eResult {
  missing?: string;
  cost?: CostStep;
  /** The wait for an idle system before the first step (what the edge phase left: stores, analyses, merges). */
  start_idle?: IdleWait;
  steps: Step[];
  max_sustained_events_per_s: number;
}

/**
 * Steps the offered rate of the mixed workload up until the system stops keeping up. A step is
 * sustained when the client got ≥ 90% of the offered rate accepted, under 1% non-2xx answers, and
 * the INGEST backlog (pending + unacknowledged on the store consumer) emptied within a quarter of
 * the step's length after it: the consumer kept pace and the backlog stayed bounded.
 */
export async function measureE2e(sys: BenchSystem, o: BenchOptions, pool: Pool, log: (s: string) => void): Promise<E2eResult> {
  const first = pool.requests[0]!;
  const probe = await routeExists(sys.ingestUrl + first.route, { headers: { 'content-type': first.contentType, authorization: `Bearer ${sys.keys[first.tenant]}` }, body: first.body });
  if (!probe.exists) return { missing: `n/a (not implemented: ingest ${first.route} ${probe.status || 'no answer'})`, steps: [], max_sustained_events_per_s: NaN };
  if (!(await sys.backlog())) return { missing: 'n/a (not implemented: no store consumer on INGEST)', steps: [], max_sustained_events_per_s: NaN };
  await drain(sys, 30_000);
  // the pool reaches the load process before the first step's window opens
  await stagePool(pool.requests);
  const steps: Step[] = [];
  // start low (a loaded 2-core machine sustains a few thousand events/s), grow ×1.6 per step, and
  // place two steps between the first miss and the last sustained step (bench/lib/ladder.ts)
  const maxSteps = o.quick ? 10 : 13;
  for (let rate = nextRate([], maxSteps); rate !== undefined; rate = nextRate(steps.map((s) => ({ offered: s.offered_events_per_s, sustained: s.bounded })), maxSteps)) {
    // the overload of a missed step leaves analyses and merges behind that would run inside the next
    // step: a step after a miss waits for them (at most 60 s)
    const missedLast = steps.length > 0 && !steps.at(-1)!.bounded;
    const idleBefore = missedLast ? await waitForIdle(() => sys.backlogs(), { timeoutMs: 60_000 }) : undefined;
    if (idleBefore) log(`e2e: ${idleBefore.idle ? 'idle' : 'NOT idle'} ${idleBefore.waited_ms} ms after the missed step (before: ${formatBacklogs(idleBefore.before)}; now: ${formatBacklogs(idleBefore.after)})`);
    const before = await sys.backlog();
    const cpu0 = processCpuSeconds();
    const bus0 = treeCpuSeconds(sys.nats.pid);
    let backlogMax = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const b = await sys.backlog();
        if (b) backlogMax = Math.max(backlogMax, b.pending + b.ackPending);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const res = await offer(sys, pool, rate, o.stepSeconds);
    sampling = false;
    await sampler;
    const end = await sys.backlog();
    const t0 = Date.now();
    const limit = o.stepSeconds * 250;
    const drained = await drain(sys, Math.max(limit, 60_000));
    const drainMs = drained ? Date.now() - t0 : -1;
    const t = throughput(res);
    // the load generator runs in a process of its own: this process's CPU is the system's alone
    const cpu = processCpuSeconds() - cpu0;
    const non2xx = res.sent ? (res.sent - res.ok) / res.sent : 1;
    const consumed = (end?.delivered ?? 0) > (before?.delivered ?? 0);
    const bounded = t.events_per_s >= 0.9 * rate && non2xx < 0.01 && drained && drainMs <= limit && consumed;
    steps.push({ offered_events_per_s: rate, accepted_events_per_s: t.events_per_s, backlog_max: backlogMax, backlog_end: (end?.pending ?? 0) + (end?.ackPending ?? 0), drain_ms: drainMs, non_2xx_share: Math.round(non2xx * 1000) / 1000, bounded, cpu_s_per_million: perMillion(cpu, res.okEvents), bus_cpu_s_per_million: perMillion(treeCpuSeconds(sys.nats.pid) - bus0, res.okEvents), ...(res.cpuSeconds !== undefined ? { load_cpu_s_per_million: perMillion(res.cpuSeconds, res.okEvents) } : {}), ...(idleBefore ? { idle_before: idleBefore } : {}) });
    log(`e2e step ${rate} ev/s offered: accepted ${t.events_per_s} (request p50 ${t.p50_ms} / p99 ${t.p99_ms} ms), backlog max ${backlogMax} msgs, drain ${drainMs} ms, ${steps.at(-1)!.cpu_s_per_million} CPU-s per M events (+ bus ${steps.at(-1)!.bus_cpu_s_per_million}; load generator ${steps.at(-1)!.load_cpu_s_per_million ?? 'n/a'}), ${bounded ? 'sustained' : 'NOT sustained'}`);
    if (!consumed) return { missing: 'n/a (stream role consumed nothing)', steps, max_sustained_events_per_s: NaN };
  }
  const ok = steps.filter((s) => s.bounded);
  if (ok.length === 0) return { steps, max_sustained_events_per_s: 0 };
  const top = ok.reduce((a, b) => (b.accepted_events_per_s > a.accepted_events_per_s ? b : a));
  const cost = await measureCost(sys, o, pool, top.offered_events_per_s, log);
  return { steps, max_sustained_events_per_s: top.accepted_events_per_s, cost };
}

/** CostStep: the highest sustained rate once more, from idle to idle. */
async function measureCost(sys: BenchSystem, o: BenchOptions, pool: Pool, rate: number, log: (s: string) => void): Promise<CostStep> {
  // the tenant jobs' due passes run first, as before the ramp: a pass landing in the window would be
  // charged to its events whole (16–19 CPU-s for the bench's tenants on first passes)
  const idleBefore = await waitForIdleWithJobs(() => sys.backlogs(), () => sys.runJobs(), () => processCpuSeconds(), { timeoutMs: 60_000 });
  const started = performance.now();
  const cpu0 = processCpuSeconds();
  const bus0 = treeCpuSeconds(sys.nats.pid);
  const loadSeconds = o.stepSeconds * COST_STEP_FACTOR;
  const res = await offer(sys, pool, rate, loadSeconds);
  const after = await waitForIdle(() => sys.backlogs(), { timeoutMs: 120_000 });
  const cost: CostStep = {
    offered_events_per_s: rate,
    accepted_events_per_s: throughput(res).events_per_s,
    load_seconds: loadSeconds,
    seconds: Math.round((performance.now() - started) / 10) / 100,
    idle: after.idle,
    cpu_s_per_million: perMillion(processCpuSeconds() - cpu0, res.okEvents),
    bus_cpu_s_per_million: perMillion(treeCpuSeconds(sys.nats.pid) - bus0, res.okEvents),
    idle_before: idleBefore,
  };
  log(`e2e cost at ${rate} ev/s offered: accepted ${cost.accepted_events_per_s}, ${cost.idle ? 'idle' : 'NOT idle'} ${cost.seconds} s after its start (${loadSeconds} s of load), ${cost.cpu_s_per_million} CPU-s per M events (+ bus ${cost.bus_cpu_s_per_million}) with its analyses and merges`);
  return cost;
}

export interface FreshnessResult {
  missing?: string;
  /** The wait for an idle system before the phase (what the end-to-end steps left: stores, analyses, merges). */
  start_idle?: IdleWait;
  rate_events_per_s: number;
  markers: number;
  timeouts: number;
  latency?: LatencySummary;
  /** The duration of each context read of the markers' polls: a data API read while the system ingests. */
  read_latency?: LatencySummary;
  /**
   * The markers' latency split where the engine stored them (their `messages` row's `inserted_at`,
   * read once after the phase): accepted → stored (edge, bus, decode, the sink's buffer, the
   * insert) and stored → visible (the polls' own latency and interval).
   */
  stored_latency?: LatencySummary;
  stored_to_visible?: LatencySummary;
  background?: Throughput;
}

/** Accepted → stored and stored → visible of the seen markers, from their rows' insert time (one read, after the phase). */
async function storedSplit(sys: BenchSystem, seenAt: Map<string, { accepted: number; visible: number }>): Promise<Pick<FreshnessResult, 'stored_latency' | 'stored_to_visible'>> {
  if (seenAt.size === 0) return {};
  const rows = await sys.system.rt.store.query<{ id: string; at: string }>(
    'SELECT conversation_id AS id, toString(toUnixTimestamp64Milli(min(inserted_at))) AS at FROM {{db}}.messages WHERE conversation_id IN {ids:Array(String)} GROUP BY conversation_id',
    { ids: [...seenAt.keys()] },
  );
  const stored: number[] = [];
  const visible: number[] = [];
  for (const r of rows) {
    const m = seenAt.get(r.id)!;
    stored.push(Number(r.at) - m.accepted);
    visible.push(m.visible - Number(r.at));
  }
  return { stored_latency: summarize(stored), stored_to_visible: summarize(visible) };
}

/**
 * Freshness: while background load runs at `rate`, a marker conversation is posted to /v1/ingest
 * every 300 ms and its context is polled through the data API until its message is visible. The
 * figure is accepted (200 from ingest) → visible (context answers with ≥ 1 message). Each poll's
 * duration is kept as well: how long a data API read takes while the system ingests.
 */
export async function measureFreshness(sys: BenchSystem, o: BenchOptions, pool: Pool, rate: number): Promise<FreshnessResult> {
  const key = sys.keys.t00!;
  const ctxUrl = (id: string) => `${sys.queryUrl}/api/v1/data/conversations/${encodeURIComponent(id)}/context`;
  const probe = await routeExists(ctxUrl('probe-absent'), { method: 'GET', headers: { 'x-api-key': key } });
  if (!sys.queryUrl || !probe.exists && probe.status !== 404) return { missing: 'n/a (not implemented: query context endpoint)', rate_events_per_s: rate, markers: 0, timeouts: 0 };
  const reads: number[] = [];
  /** Wall-clock accept and visibility times of each seen marker, by conversation id. */
  const seenAt = new Map<string, { accepted: number; visible: number }>();
  const marker = async (): Promise<number | undefined> => {
    const id = `fresh-${randomBytes(8).toString('hex')}`;
    const body = JSON.stringify({ events: [{ conversation_id: id, role: 'user', message: 'freshness marker', timestamp: new Date().toISOString() }] });
    const res = await fetch(`${sys.ingestUrl}/v1/ingest`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body });
    await res.arrayBuffer();
    if (res.status === 404 || res.status === 405) throw new Error('direct ingest not implemented');
    if (res.status !== 200 && res.status !== 202) return undefined;
    const accepted = performance.now();
    const acceptedWall = Date.now();
    while (performance.now() - accepted < 15_000) {
      const asked = performance.now();
      const r = await fetch(ctxUrl(id), { headers: { 'x-api-key': key } });
      const j = (await r.json().catch(() => ({}))) as { total_messages?: number };
      reads.push(performance.now() - asked);
      if (r.status === 200 && (j.total_messages ?? 0) > 0) {
        seenAt.set(id, { accepted: acceptedWall, visible: Date.now() });
        return performance.now() - accepted;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    return Infinity;
  };
  const background = offer(sys, pool, rate, o.freshnessSeconds);
  const tasks: Array<Promise<number | undefined>> = [];
  const started = Date.now();
  try {
    while (Date.now() - started < o.freshnessSeconds * 1000) {
      tasks.push(marker());
      await new Promise((r) => setTimeout(r, 300));
    }
    const results = await Promise.all(tasks);
    const bg = throughput(await background);
    const seen = results.filter((v): v is number => v !== undefined && Number.isFinite(v));
    const timeouts = results.filter((v) => v === Infinity).length;
    const split = await storedSplit(sys, seenAt).catch(() => undefined);
    return { rate_events_per_s: rate, markers: results.length, timeouts, latency: summarize(seen.concat(Array(timeouts).fill(15_000))), read_latency: summarize(reads), ...split, background: bg };
  } catch (err) {
    await background.catch(() => undefined);
    return { missing: `n/a (${(err as Error).message})`, rate_events_per_s: rate, markers: 0, timeouts: 0 };
  }
}

export { buildPool };
