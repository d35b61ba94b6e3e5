/**
 * The stream role alone draining a backlog: the real messages of the load pool (as the edge
 * publishes them) are put on INGEST first, then `tracehouse stream` starts in a child process on a
 * data directory of its own; the rate is the events of the backlog over the time from its first
 * delivery until nothing is pending or unacknowledged, and the CPU is the child's own (all its
 * threads: decode workers, engine) over that window, from /proc. Then the window runs on until the
 * drained conversations' analyses are done too (nothing pending or unacknowledged on ANALYZE;
 * analyses held while the store path lagged run then): the CPU per million events including them.
 */
import { join } from 'node:path';
import { connectBus, declareTopology, freePort } from '../../core/nats.js';
import { loadConfig } from '../../core/config.js';
import { ingestSubject, STREAMS } from '../../schemas/subjects.js';
import type { RealRows } from '../ceilings/real-rows.js';
import { processCpuSeconds, treeCpuSeconds } from '../lib/cpu.js';
import { peakRssMb, startChild, type Child } from './memory.js';
import { scrape } from '../lib/scrape.js';

/** Rounds of the backlog timed on their own as well (the first seconds of the role). */
const FIRST_ROUNDS = 2;

export interface DrainResult {
  events: number;
  messages: number;
  seconds: number;
  events_per_s: number;
  cpu_s_per_million: number;
  /** CPU of the nats-server over the same window (deliveries, acks, analysis jobs), per million events: on the same cores. */
  bus_cpu_s_per_million?: number;
  /**
   * The rate over the backlog's first two rounds (the whole backlog of a `--quick` run before 29 Nov
   * 2026, night), from the first delivery until the consumer's ack floor passed them: the role's
   * first seconds, with its code still being compiled, against the whole drain.
   */
  first_rounds?: { rounds: number; events: number; seconds: number; events_per_s: number };
  /** Peak resident set of the stream role's process (VmHWM) at the end of the drain window. */
  peak_rss_mb?: number;
  /** Inserts into `events` during the drain window and their mean size (the sink's batching: each insert is a part to merge). */
  events_inserts?: { count: number; mean_rows: number; insert_seconds: number };
  /** From the first delivery until the analyses of the drained conversations are done as well; `phases`: their batches' wall time by phase. */
  with_analysis?: { seconds: number; cpu_s_per_million: number; phases?: { batches: number; load_s: number; work_s: number; write_s: number } };
  missing?: string;
}

export async function measureStreamDrain(natsUrl: string, dataDir: string, real: RealRows, rounds: number, log: (s: string) => void, natsPid?: number): Promise<DrainResult> {
  const env: Record<string, string> = { DATA_DIR: join(dataDir, 'drain'), NATS_URL: natsUrl, LOG_LEVEL: 'warn', INGEST_PORT: '0', QUERY_PORT: '0' };
  // e.g. BENCH_DRAIN_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the stream role alone
  // extra settings of the stream role as JSON, e.g. BENCH_DRAIN_ENV='{"STREAM_WORKER_THREADS":"2"}'
  // the role's own /metrics (insert counts) on a free port
  env.STREAM_PORT = String(await freePort());
  Object.assign(env, JSON.parse(process.env.BENCH_DRAIN_ENV ?? '{}') as Record<string, string>);
  const nodeArgs = (process.env.BENCH_DRAIN_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const config = loadConfig(env);
  const bus = await connectBus(natsUrl);
  let child: Child | undefined;
  try {
    await declareTopology(bus, { replicas: 1, maxDeliver: config.stream.maxDeliver, ackWaitMs: config.stream.ackWaitMs });
    let next = 0;
    const total = real.messages.length * rounds;
    // every round is a distinct message (own Nats-Msg-Id); rows of later rounds replace the first round's
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        for (let i = next++; i < total; i = next++) {
          const m = real.messages[i % real.messages.length]!;
          await bus.js.publish(ingestSubject(m.tenant, m.source), m.data, { msgID: `bench-drain-${Math.floor(i / real.messages.length)}-${i % real.messages.length}` });
        }
      }),
    );
    const events = real.events * rounds;
    const start = await bus.jsm.consumers.info('INGEST', 'store');
    log(`stream drain: ${total} messages (${events} events) on INGEST; starting the stream role alone`);
    child = await startChild('stream', env, nodeArgs);
    const pid = child.proc.pid!;
    let t0 = 0;
    let cpu0 = 0;
    let bus0 = 0;
    let tFirst = 0;
    const firstSeq = start.delivered.stream_seq + FIRST_ROUNDS * real.messages.length;
    const until = Date.now() + 300_000;
    while (Date.now() < until) {
      const info = await bus.jsm.consumers.info('INGEST', 'store');
      if (!t0 && info.delivered.stream_seq > start.delivered.stream_seq) {
        t0 = performance.now();
        cpu0 = processCpuSeconds(pid);
        bus0 = natsPid ? treeCpuSeconds(natsPid) : 0;
      }
      if (t0 && !tFirst && rounds > FIRST_ROUNDS && info.ack_floor.stream_seq >= firstSeq) tFirst = performance.now();
      if (t0 && info.num_pending === 0 && info.num_ack_pending === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = processCpuSeconds(pid) - cpu0;
    const busCpu = natsPid ? treeCpuSeconds(natsPid) - bus0 : undefined;
    const done = t0 > 0 && Date.now() < until;
    const peakRss = peakRssMb(pid);
    const firstRounds = done && tFirst ? { rounds: FIRST_ROUNDS, events: real.events * FIRST_ROUNDS, seconds: Math.round((tFirst - t0) / 10) / 100, events_per_s: Math.round((real.events * FIRST_ROUNDS) / ((tFirst - t0) / 1000)) } : undefined;
    const inserts = await eventsInserts(Number(env.STREAM_PORT)).catch(() => undefined);
    // the analysis catch-up (not waited for when the debounce puts the jobs minutes away)
    let withAnalysis: DrainResult['with_analysis'];
    const catchUpUntil = Date.now() + 120_000;
    while (done && config.stream.analyzeDebounceMs <= 60_000 && Date.now() < catchUpUntil) {
      const info = await bus.jsm.consumers.info(STREAMS.ANALYZE.name, 'analyze');
      if (info.num_pending === 0 && info.num_ack_pending === 0) {
        const s = (performance.now() - t0) / 1000;
        const phases = await analysisPhases(Number(env.STREAM_PORT)).catch(() => undefined);
        withAnalysis = { seconds: Math.round(s * 100) / 100, cpu_s_per_million: Math.round(((processCpuSeconds(pid) - cpu0) / (real.events * rounds)) * 1e6 * 10) / 10, ...(phases ? { phases } : {}) };
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return {
      events,
      messages: total,
      seconds: Math.round(seconds * 100) / 100,
      events_per_s: done ? Math.round(events / seconds) : NaN,
      cpu_s_per_million: done ? Math.round((cpu / events) * 1e6 * 10) / 10 : NaN,
      ...(done && busCpu !== undefined ? { bus_cpu_s_per_million: Math.round((busCpu / events) * 1e6 * 10) / 10 } : {}),
      ...(firstRounds ? { first_rounds: firstRounds } : {}),
      ...(Number.isFinite(peakRss) ? { peak_rss_mb: peakRss } : {}),
      ...(inserts ? { events_inserts: inserts } : {}),
      ...(withAnalysis ? { with_analysis: withAnalysis } : {}),
      ...(done ? {} : { missing: 'n/a (backlog not drained within 300 s)' }),
    };
  } finally {
    await child?.stop();
    // the drained conversations' analysis jobs belong to the drain's own store: not the system's work
    await bus.jsm.streams.purge(STREAMS.ANALYZE.name).catch(() => undefined);
    await bus.close();
  }
}

/**
 * Count and mean rows of the `events` inserts so far, from the role's `stream_batch_rows` histogram,
 * and the seconds all tables' inserts took (`stream_insert_duration_seconds`): how much of the
 * window the engine spent inserting.
 */
async function eventsInserts(port: number): Promise<{ count: number; mean_rows: number; insert_seconds: number } | undefined> {
  const m = await scrape(`http://127.0.0.1:${port}`);
  const count = m.value('stream_batch_rows_count', { table: 'events' });
  const sum = m.value('stream_batch_rows_sum', { table: 'events' });
  if (!Number.isFinite(count) || count === 0) return undefined;
  const insertSeconds = m.series('stream_insert_duration_seconds_sum').reduce((a, x) => a + x.value, 0);
  return { count, mean_rows: Math.round(sum / count), insert_seconds: Math.round(insertSeconds * 100) / 100 };
}

/** Batches and the seconds of each phase of the analysis batches so far (`stream_analyze_phase_seconds`). */
async function analysisPhases(port: number): Promise<{ batches: number; load_s: number; work_s: number; write_s: number } | undefined> {
  const m = await scrape(`http://127.0.0.1:${port}`);
  const value = (what: string, phase: string) => m.value(`stream_analyze_phase_seconds_${what}`, { phase });
  const batches = value('count', 'load');
  if (!Number.isFinite(batches)) return undefined;
  const r = (x: number) => Math.round(x * 100) / 100;
  return { batches, load_s: r(value('sum', 'load')), work_s: r(value('sum', 'work')), write_s: r(value('sum', 'write')) };
}
