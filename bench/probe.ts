/**
 * Where the CPU of the whole system goes at a steady offered rate: the system in this process as
 * `npm start` composes it, the bench's mixed workload at `--rate` events/s for `--seconds`, counted
 * from the first request until the INGEST backlog (and, unless `--no-analysis`, the ANALYZE backlog)
 * is empty. Reports µs of CPU per accepted event by thread group (bench/lib/threads.ts), the
 * process's user and system time and page faults, the main thread's collections, the embedded
 * engine's statements by shape (count, summed wall time), with `--merges` the merges seen by table
 * (count, their elapsed seconds at last sight, uncompressed bytes), the nats-server's traffic and CPU,
 * and how many conversations the analyses ran on (the stream's metrics: events per analysis).
 *
 *   node dist/bench/probe.js [--rate 4000] [--seconds 15] [--no-analysis] [--statements 25] [--statement-cpu] [--threads] [--merges] [--prof FILE] [--alloc 30]
 *                            [--preload-seconds 20 --preload-rate 20000]   # a store with data (and its tenant jobs run) before the window
 *                            [--table-setting 'merge_selector_base = 12' [--setting-tables events,messages]]   # a MergeTree setting tried
 *   BENCH_SYSTEM_ENV='{"ANALYZE_BATCH_INTERVAL_MS":"5000"}' node dist/bench/probe.js   # another setting
 *
 * Diagnostic only: the engine's statements are timed by wrapping the `chdb` session's methods in
 * this process, which nothing else does. `--prof FILE` writes a .cpuprofile of the main thread over
 * the measured window.
 */
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { Session as InspectorSession } from 'node:inspector';
import { PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { freePort } from '../core/nats.js';
import { projectRoot } from '../core/paths.js';
import { buildPool } from './lib/pool.js';
import { loadInProcess, stagePool } from './lib/load.js';
import { prepareBench, startBenchSystem } from './lib/system.js';
import { scrape } from './lib/scrape.js';
import { drain, nextRounds } from './phases/edge.js';
import { clockTicks, processCpuSeconds, treeCpuSeconds } from './lib/cpu.js';
import { sampleThreads, statementShape, statementThreads, threadTicks, ticksByGroup } from './lib/threads.js';
import { DEFAULT_CONVERSATION_OPTIONS } from './workload/conversation.js';
import { formatBacklogs, waitForIdleWithJobs } from './lib/idle.js';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '4000' },
    seconds: { type: 'string', default: '15' },
    'no-analysis': { type: 'boolean', default: false },
    statements: { type: 'string', default: '25' },
    'statement-cpu': { type: 'boolean', default: false },
    threads: { type: 'boolean', default: false },
    prof: { type: 'string' },
    'preload-seconds': { type: 'string', default: '0' },
    'preload-rate': { type: 'string', default: '20000' },
    merges: { type: 'boolean', default: false },
    alloc: { type: 'string' },
    'table-setting': { type: 'string' },
    'setting-tables': { type: 'string' },
  },
});
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const analysis = !values['no-analysis'];
const log = (s: string) => process.stderr.write(`[probe] ${s}\n`);

/** Every statement the embedded engine runs in this process: count and wall time by shape. */
const statements = new Map<string, { n: number; ms: number }>();
/**
 * With `--statement-cpu`: each thread's clock ticks during each statement's call, by shape. The
 * gate hands the engine one statement at a time, so the thread that runs a call (one of libuv's)
 * and the engine's query threads gain ticks only inside calls; which threads those are is decided
 * after the window (statementThreads), since Node's threads all carry the same name.
 */
const statementTicks = new Map<string, Map<number, number>>();
const statementCpu = Boolean(values['statement-cpu']);
let timing = false;
function timeEngineStatements(): void {
  const chdb = createRequire(`${projectRoot}/package.json`)('chdb') as { Session: { prototype: Record<string, (...a: unknown[]) => Promise<unknown>> } };
  for (const method of ['queryAsync', 'queryBindAsync', 'insert']) {
    const original = chdb.Session.prototype[method]!;
    chdb.Session.prototype[method] = function (this: unknown, ...args: unknown[]) {
      const started = performance.now();
      const shape = method === 'insert' ? `INSERT (raw) ${String((args[0] as { table?: string })?.table)}` : statementShape(String(args[0]));
      const before = statementCpu && timing ? sampleThreads() : undefined;
      return original.apply(this, args).finally(() => {
        if (!timing) return;
        const s = statements.get(shape) ?? { n: 0, ms: 0 };
        s.n++;
        s.ms += performance.now() - started;
        statements.set(shape, s);
        if (before) {
          const by = statementTicks.get(shape) ?? new Map<number, number>();
          for (const t of threadTicks(before, sampleThreads())) if (t.ticks > 0) by.set(t.tid, (by.get(t.tid) ?? 0) + t.ticks);
          statementTicks.set(shape, by);
        }
      });
    };
  }
}

async function varz(port: number): Promise<{ in_msgs: number; out_msgs: number; in_bytes: number; out_bytes: number }> {
  return (await fetch(`http://127.0.0.1:${port}/varz`)).json() as Promise<{ in_msgs: number; out_msgs: number; in_bytes: number; out_bytes: number }>;
}

function inspectorPost<T>(session: InspectorSession, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) => session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res as T))));
}

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

/** Sampled bytes allocated by each function of the main thread (collected objects included), largest first. */
function allocationsByFunction(root: SamplingNode): Array<[string, number]> {
  const by = new Map<string, number>();
  const walk = (n: SamplingNode) => {
    const f = n.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(dist|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
    by.set(key, (by.get(key) ?? 0) + n.selfSize);
    for (const c of n.children) walk(c);
  };
  walk(root);
  return [...by].sort((a, b) => b[1] - a[1]);
}

/** The stream's analysis counters so far (its /metrics): conversations analyzed, batches, jobs by outcome. */
async function analysesSoFar(): Promise<{ conversations: number; batches: number; jobs: Record<string, number> } | undefined> {
  const m = await scrape(sys.ingestUrl).catch(() => undefined);
  if (!m) return undefined;
  // a histogram without observations yet has no series: none analyzed
  const count = (name: string) => m.series(name).reduce((a, x) => a + x.value, 0);
  const jobs = Object.fromEntries(m.series('stream_analyze_jobs_total').map((x) => [x.labels.outcome ?? '', x.value]));
  return { conversations: count('stream_analyze_batch_conversations_sum'), batches: count('stream_analyze_batch_conversations_count'), jobs };
}

timeEngineStatements();
const pool = buildPool(50_000);
const monitorPort = await freePort();
const base = await prepareBench({ monitorPort });
const env: Record<string, string> = analysis ? {} : { ANALYZE_DEBOUNCE_MS: '3600000' };
const sys = await startBenchSystem({ tenants: DEFAULT_CONVERSATION_OPTIONS.tenants, base, env });
const clkTck = clockTicks();
try {
  // the system's own start-up work (migrations, first compilations) settles before the window, and
  // the pool reaches the load generator's process
  await Promise.all([new Promise((r) => setTimeout(r, 3000)), stagePool(pool.requests)]);
  const preloadS = Number(values['preload-seconds']);
  if (preloadS > 0) {
    // data in the store and its background work done, as the bench's phases before the end-to-end ramp leave it
    const pre = await loadInProcess({ baseUrl: sys.ingestUrl, pool: pool.requests, keys: sys.keys, concurrency: 64, durationMs: preloadS * 1000, eventsPerSecond: Number(values['preload-rate']), roundBase: nextRounds() });
    // as the bench does before its end-to-end ramp: the tenant jobs' first runs over the preloaded data
    const idle = await waitForIdleWithJobs(() => sys.backlogs(), () => sys.runJobs(), () => processCpuSeconds(), { timeoutMs: 120_000 });
    log(`preloaded ${pre.okEvents} events in ${preloadS} s; tenant jobs run in ${idle.jobs!.ms} ms (${idle.jobs!.cpu_s} CPU-s); idle after ${idle.waited_ms} ms (${formatBacklogs(idle.after)})`);
  }
  const gcs = new Map<string, { n: number; ms: number }>();
  const gcKind: Record<number, string> = { 1: 'scavenge', 2: 'mark-compact', 4: 'incremental marking', 8: 'weak callbacks', 16: 'minor mark-sweep' };
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = gcKind[(e as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? 'other';
      const g = gcs.get(kind) ?? { n: 0, ms: 0 };
      g.n++;
      g.ms += e.duration;
      gcs.set(kind, g);
    }
  });
  const store = sys.system.rt.store;
  if (values['table-setting']) {
    // a MergeTree setting tried on the system's tables before the window (e.g. `merge_selector_base = 12`)
    const only = values['setting-tables']?.split(',');
    const tables = (await store.query<{ name: string }>("SELECT name FROM system.tables WHERE database = {db:String} AND engine LIKE '%MergeTree'", { db: store.database })).filter((t) => !only || only.includes(t.name));
    for (const t of tables) await store.command(`ALTER TABLE ${store.database}.${t.name} MODIFY SETTING ${values['table-setting']}`);
    log(`${values['table-setting']} on ${tables.length} tables`);
  }
  const inspector = values.prof || values.alloc ? new InspectorSession() : undefined;
  if (inspector) inspector.connect();
  if (inspector && values.prof) {
    await inspectorPost(inspector, 'Profiler.enable');
    await inspectorPost(inspector, 'Profiler.start');
  }
  if (inspector && values.alloc) {
    // every sampled allocation, also of objects a collection freed since: where the collections' work comes from
    await inspectorPost(inspector, 'HeapProfiler.enable');
    await inspectorPost(inspector, 'HeapProfiler.startSampling', { samplingInterval: 32_768, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  }
  observer.observe({ entryTypes: ['gc'] });
  const bus0 = await varz(monitorPort);
  const busCpu0 = treeCpuSeconds(sys.nats.pid);
  const usage0 = process.resourceUsage();
  const threads0 = sampleThreads();
  // with --merges, the merges running at each poll (every 100 ms), by table: a merge is counted once,
  // at its last sight (the polls are statements of their own, on the engine's lane)
  const mergeSeen = new Map<string, { table: string; elapsed: number; bytes: number }>();
  let sampling = values.merges;
  const sampler = (async () => {
    while (sampling) {
      const rows = await store.query<{ table: string; part: string; elapsed: number; bytes: string }>('SELECT table, result_part_name AS part, elapsed, total_size_bytes_uncompressed AS bytes FROM system.merges WHERE database = {db:String}', { db: store.database }).catch(() => []);
      for (const r of rows) mergeSeen.set(r.table + r.part, { table: r.table, elapsed: Number(r.elapsed), bytes: Number(r.bytes) });
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const analyses0 = await analysesSoFar();
  timing = true;
  const started = performance.now();
  log(`${rate} events/s for ${seconds} s${analysis ? '' : ' (analyses off)'}`);
  const res = await loadInProcess({ baseUrl: sys.ingestUrl, pool: pool.requests, keys: sys.keys, concurrency: 64, durationMs: seconds * 1000, eventsPerSecond: rate, roundBase: nextRounds() });
  await drain(sys, 120_000);
  if (analysis) {
    for (let i = 0; i < 240; i++) {
      if ((await sys.backlogs()).analyze === 0) break;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  const windowS = (performance.now() - started) / 1000;
  timing = false;
  sampling = false;
  await sampler;
  const threads1 = sampleThreads();
  const usage1 = process.resourceUsage();
  const busCpu = treeCpuSeconds(sys.nats.pid) - busCpu0;
  const bus1 = await varz(monitorPort);
  observer.disconnect();
  let allocations: Array<[string, number]> | undefined;
  if (inspector && values.alloc) {
    const { profile } = await inspectorPost<{ profile: { head: SamplingNode } }>(inspector, 'HeapProfiler.stopSampling');
    allocations = allocationsByFunction(profile.head);
  }
  if (inspector && values.prof) {
    const { profile } = await inspectorPost<{ profile: unknown }>(inspector, 'Profiler.stop');
    writeFileSync(values.prof, JSON.stringify(profile));
  }
  inspector?.disconnect();

  const events = res.okEvents;
  const perEvent = (cpuS: number) => ((cpuS / events) * 1e6).toFixed(1);
  const groups = ticksByGroup(threads0, threads1, process.pid);
  // the load generator is a process of its own (bench/lib/load-process.ts): none of its threads is here
  const load = res.cpuSeconds ?? 0;
  let totalTicks = 0;
  for (const g of groups.values()) totalTicks += g.ticks;
  console.log(`accepted ${events} events in ${seconds} s (${Math.round(events / seconds)}/s); window until the backlogs emptied ${windowS.toFixed(1)} s`);
  console.log(`\nCPU of the system's threads (the load generator's process, ${load.toFixed(2)} s, not among them)`);
  console.log(`${'threads'.padEnd(34)} ${'n'.padStart(3)} ${'CPU-s'.padStart(7)} ${'µs/event'.padStart(9)}`);
  for (const [name, g] of [...groups].sort((a, b) => b[1].ticks - a[1].ticks)) {
    if (g.ticks <= 0) continue;
    console.log(`${name.padEnd(34)} ${String(g.threads).padStart(3)} ${(g.ticks / clkTck).toFixed(2).padStart(7)} ${perEvent(g.ticks / clkTck).padStart(9)}`);
  }
  if (values.threads) {
    // every thread by id (creation order): Node's come as V8's platform threads first, libuv's pool
    // when first used, then each worker isolate and its own threads
    for (const t of threadTicks(threads0, threads1).sort((a, b) => a.tid - b.tid)) {
      if (t.ticks > 0) console.log(`  ${String(t.tid).padStart(8)} ${t.comm.padEnd(16)} nice ${String(t.nice).padStart(3)} ${(t.ticks / clkTck).toFixed(2).padStart(7)} s ${perEvent(t.ticks / clkTck).padStart(9)} µs/event`);
    }
  }
  console.log(`${'all'.padEnd(34)} ${''.padStart(3)} ${(totalTicks / clkTck).toFixed(2).padStart(7)} ${perEvent(totalTicks / clkTck).padStart(9)}`);
  const user = (usage1.userCPUTime - usage0.userCPUTime) / 1e6;
  const system = (usage1.systemCPUTime - usage0.systemCPUTime) / 1e6;
  console.log(`process: user ${user.toFixed(2)} s, system ${system.toFixed(2)} s, minor page faults ${usage1.minorPageFault - usage0.minorPageFault}, context switches ${usage1.voluntaryContextSwitches - usage0.voluntaryContextSwitches} voluntary + ${usage1.involuntaryContextSwitches - usage0.involuntaryContextSwitches} involuntary`);
  console.log(`main thread collections: ${[...gcs].map(([k, g]) => `${k} ${g.n} (${Math.round(g.ms)} ms)`).join(', ') || 'none'}`);
  console.log(`bus: ${perEvent(busCpu)} µs/event of nats-server CPU; in ${bus1.in_msgs - bus0.in_msgs} messages (${((bus1.in_bytes - bus0.in_bytes) / events).toFixed(0)} B/event), out ${bus1.out_msgs - bus0.out_msgs} messages (${((bus1.out_bytes - bus0.out_bytes) / events).toFixed(0)} B/event)`);
  const rows = [...statements].sort((a, b) => b[1].ms - a[1].ms);
  const wall = rows.reduce((a, [, s]) => a + s.ms, 0);
  console.log(`\nengine statements: ${rows.reduce((a, [, s]) => a + s.n, 0)}, ${(wall / 1000).toFixed(2)} s of wall time in all (${((wall / 1000 / windowS) * 100).toFixed(0)}% of the window: one statement at a time)`);
  if (statementCpu) {
    const inside = statementThreads(threadTicks(threads0, threads1), statementTicks, process.pid);
    const cpuOf = (shape: string) => [...(statementTicks.get(shape) ?? [])].reduce((a, [tid, t]) => a + (inside.has(tid) ? t : 0), 0) / clkTck;
    const byCpu = rows.map(([shape, s]) => [shape, s, cpuOf(shape)] as const).sort((a, b) => b[2] - a[2]);
    const all = byCpu.reduce((a, [, , c]) => a + c, 0);
    console.log(`engine CPU of the statements (their calling threads and the engine's query threads: ${inside.size} threads): ${all.toFixed(2)} s, ${perEvent(all)} µs/event`);
    for (const [shape, s, cpu] of byCpu.slice(0, Number(values.statements))) console.log(`${cpu.toFixed(2).padStart(7)} s ${perEvent(cpu).padStart(6)} µs/ev ${s.ms.toFixed(0).padStart(7)} ms ${String(s.n).padStart(5)}×  ${shape}`);
  } else {
    for (const [shape, s] of rows.slice(0, Number(values.statements))) console.log(`${s.ms.toFixed(0).padStart(7)} ms ${String(s.n).padStart(5)}×  ${shape}`);
  }
  if (values.merges) {
    const byTable = new Map<string, { n: number; s: number; mb: number }>();
    for (const m of mergeSeen.values()) {
      const t = byTable.get(m.table) ?? { n: 0, s: 0, mb: 0 };
      t.n++;
      t.s += m.elapsed;
      t.mb += m.bytes / 1e6;
      byTable.set(m.table, t);
    }
    const merges = [...byTable].sort((a, b) => b[1].s - a[1].s);
    console.log(`\nmerges seen (polled every 100 ms; their elapsed time at last sight): ${merges.reduce((a, [, m]) => a + m.n, 0)}, ${merges.reduce((a, [, m]) => a + m.s, 0).toFixed(2)} s`);
    for (const [table, m] of merges) console.log(`${m.s.toFixed(2).padStart(7)} s ${String(m.n).padStart(5)}×  ${table} (${m.mb.toFixed(1)} MB uncompressed)`);
  }
  if (allocations) {
    const total = allocations.reduce((a, [, b]) => a + b, 0);
    console.log(`\nmain thread allocations (sampled every 32 KiB, freed objects included): ${(total / events).toFixed(0)} B/event`);
    for (const [fn, bytes] of allocations.slice(0, Number(values.alloc))) console.log(`${(bytes / events).toFixed(0).padStart(7)} B/event  ${fn}`);
  }
  // how often the window's conversations were analyzed: once each unless their events arrived in several debounce windows
  const analyses1 = await analysesSoFar();
  if (analyses1 && analyses0) {
    const conversations = analyses1.conversations - analyses0.conversations;
    const jobs = Object.entries(analyses1.jobs).map(([k, n]) => `${k} ${n - (analyses0.jobs[k] ?? 0)}`);
    console.log(`\nanalyses in the window: ${conversations} conversations in ${analyses1.batches - analyses0.batches} batches (${(events / Math.max(1, conversations)).toFixed(1)} events per conversation analyzed); jobs: ${jobs.join(', ')}`);
  }
  if (values.prof) console.log(`\nprofile of the main thread: ${values.prof}`);
} finally {
  await sys.system.stop();
  await sys.nats.stop();
}
