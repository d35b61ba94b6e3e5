/**
 * `npm run bench`: measures Tracehouse on this machine against ceilings measured in the same run
 * (see bench/README.md). Prints a table, writes bench/results/<time>-<commit>.json and .svg, and
 * latest.json / latest.svg. `--compare A B` prints two results side by side.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { projectRoot } from '../core/paths.js';
import { parseArgs, UsageError, type BenchOptions } from './options.js';
import { prepareBench, startBenchSystem } from './lib/system.js';
import { buildPool } from './lib/pool.js';
import { measureInsert, rowsFor } from './ceilings/clickhouse.js';
import { measureJetStream } from './ceilings/jetstream.js';
import { measureStoreCeilings, realRows, type RealRows } from './ceilings/real-rows.js';
import { measureEdgeAlone, OTLP_FORMATS } from './phases/edge-alone.js';
import { measureStreamDrain, type DrainResult } from './phases/drain.js';
import { measureEdge, measureParseCeilings } from './phases/edge.js';
import { createStore } from '../core/clickhouse.js';
import { migrate } from '../core/migrations.js';
import { loadConfig } from '../core/config.js';
import { connect } from '@nats-io/transport-node';
import { measureE2e, measureFreshness } from './phases/e2e.js';
import { loadDataset, measureQueries } from './phases/query.js';
import { formatBacklogs, waitForIdle, waitForIdleWithJobs } from './lib/idle.js';
import { processCpuSeconds } from './lib/cpu.js';
import { measureMemory } from './phases/memory.js';
import { DEFAULT_CONVERSATION_OPTIONS } from './workload/conversation.js';
import { buildSummary, checkGoals, type BenchResult, type Machine } from './report/summary.js';
import { formatReport } from './report/text.js';
import { renderSvg } from './report/svg.js';
import { formatCompare } from './report/compare.js';

const log = (s: string) => process.stderr.write(`[bench] ${s}\n`);

function machine(): Machine {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    if (dirty) commit += '+dirty';
  } catch {
    // not a git checkout
  }
  return { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', memory_gb: Math.round(totalmem() / 2 ** 30), node: process.version, commit, load_avg_start: loadavg() };
}

/** Bus ceiling messages: the ceiling rows grouped per tenant into batches like the ingest role publishes. */
function busBatches(events: Record<string, unknown>[], perBatch = 500): Array<{ subject: string; data: Uint8Array; events: number }> {
  const byTenant = new Map<string, Record<string, unknown>[]>();
  for (const e of events) {
    const t = String(e.tenant_id);
    const list = byTenant.get(t) ?? [];
    list.push(e);
    byTenant.set(t, list);
  }
  const out: Array<{ subject: string; data: Uint8Array; events: number }> = [];
  for (const [tenant, list] of byTenant) {
    for (let i = 0; i < list.length; i += perBatch) {
      const part = list.slice(i, i + perBatch);
      out.push({ subject: `${tenant}.logs`, data: Buffer.from(JSON.stringify({ v: 1, tenant_id: tenant, source: 'logs', request_id: `bench-${i}`, events: part })), events: part.length });
    }
  }
  return out;
}

async function run(o: BenchOptions): Promise<BenchResult> {
  const started = Date.now();
  const phases: Record<string, number> = {};
  let mark = Date.now();
  /** Seconds since the previous mark, recorded under `name` (where a run's time goes). */
  const lap = (name: string) => {
    const now = Date.now();
    phases[name] = Math.round((now - mark) / 100) / 10;
    mark = now;
  };
  const m = machine();
  const notes: string[] = [];
  const base = await prepareBench();
  const ceilings: BenchResult['ceilings'] = {};
  const mixed = buildPool(o.quick ? 40_000 : 150_000, { seed: o.seed });
  let real: RealRows | undefined;
  let drain: DrainResult | undefined;
  let parseCeilings: Awaited<ReturnType<typeof measureParseCeilings>> = {};
  if (!o.skip.has('ceilings')) {
    // ceilings first, before the system starts: nothing else of ours competes for the cores
    const convs = Math.ceil(o.ceilingEvents / 31);
    const { rows } = rowsFor({ ...DEFAULT_CONVERSATION_OPTIONS, seed: o.seed + 3 }, convs);
    const store = createStore(loadConfig({ DATA_DIR: base.dataDir }));
    // the rows the system stores for the load pool: edge pipeline + the stream's decode, as bytes
    real = realRows(mixed.requests);
    try {
      ceilings.clickhouse_insert = await measureInsert(store.client, 'bench_ceiling', rows);
      await migrate(store);
      ceilings.store = await measureStoreCeilings(store, real);
    } finally {
      await store.close();
    }
    log(`ceiling insert (client, generator rows): ${ceilings.clickhouse_insert.events_per_s} events/s`);
    const sc = ceilings.store;
    log(`ceiling store, real rows (${sc.events} events, ${sc.rows} rows, ${sc.json_bytes_per_event} B JSON/event): best bulk insert ${sc.best_insert_events_per_s} events/s (${sc.best_insert_rows_per_s} rows/s, ${sc.best_insert_cpu_s_per_million} CPU-s per M events), no parsing ${sc.no_parse_events_per_s} events/s; stored ${sc.bytes_per_event.total} B/event ${JSON.stringify(sc.bytes_per_event)}`);
    const nc = await connect({ servers: base.nats.url });
    ceilings.jetstream = await measureJetStream(nc, real.messages);
    void busBatches;
    await nc.close();
    log(`ceiling jetstream: publish ${ceilings.jetstream.publish_events_per_s}, consume ${ceilings.jetstream.consume_events_per_s} events/s`);
    if (!o.skip.has('edge')) {
      parseCeilings = await measureParseCeilings(o);
      const parse = Object.values(parseCeilings).map((t) => t!.events_per_s);
      ceilings.http_parse_events_per_s = Math.round(parse.reduce((a, b) => a + b, 0) / Math.max(1, parse.length));
      log(`ceiling http parse: ${ceilings.http_parse_events_per_s} events/s (mean of formats)`);
    }
  }
  lap('ceilings');
  if (!o.skip.has('drain')) {
    real ??= realRows(mixed.requests);
    drain = await measureStreamDrain(base.nats.url, base.dataDir, real, o.drainRounds, log, base.nats.pid);
    log(`stream drain alone: ${drain.missing ?? `${drain.events_per_s} events/s over ${drain.events} events (${drain.seconds} s), ${drain.cpu_s_per_million} CPU-s per M events${drain.bus_cpu_s_per_million !== undefined ? ` (+ bus ${drain.bus_cpu_s_per_million})` : ''}${drain.first_rounds ? `, the first ${drain.first_rounds.rounds} rounds ${drain.first_rounds.events_per_s} events/s (${drain.first_rounds.seconds} s)` : ''}${drain.peak_rss_mb !== undefined ? `, peak RSS ${drain.peak_rss_mb} MB` : ''}${drain.events_inserts ? `, ${drain.events_inserts.count} events inserts of ${drain.events_inserts.mean_rows} rows, inserts ${drain.events_inserts.insert_seconds} s` : ''}${drain.with_analysis ? `; with the analyses done ${drain.with_analysis.seconds} s, ${drain.with_analysis.cpu_s_per_million} CPU-s per M events${drain.with_analysis.phases ? ` (${drain.with_analysis.phases.batches} analysis batches: load ${drain.with_analysis.phases.load_s} s, work ${drain.with_analysis.phases.work_s} s, write ${drain.with_analysis.phases.write_s} s)` : ''}` : ''}`}`);
  }
  lap('drain');
  log(`starting the system in-process (${o.quick ? 'quick' : 'full'} run)`);
  const sys = await startBenchSystem({ tenants: DEFAULT_CONVERSATION_OPTIONS.tenants, base });
  const partial: Omit<BenchResult, 'summary' | 'goals'> = {
    version: 1, label: o.label, started_at: new Date(started).toISOString(), duration_s: 0,
    options: { quick: o.quick, events: o.events, seed: o.seed, concurrency: o.concurrency, edge_seconds: o.edgeSeconds, step_seconds: o.stepSeconds, skip: [...o.skip] },
    machine: m, ceilings, drain, edge: [], query: [], notes, phase_seconds: phases,
  };
  let queryPaths: string[] = [];
  /** Waits for an idle system before a phase; says how long it took, and notes it when it was not. */
  const settle = async (phase: string, timeoutMs: number, opts: { jobs?: boolean } = {}) => {
    // with `jobs`, the tenant jobs' due work (first problems and taxonomy runs over what the earlier
    // phases stored) runs here, not at a random step of the measurement; its cost is reported
    const idle = opts.jobs
      ? await waitForIdleWithJobs(() => sys.backlogs(), () => sys.runJobs(), () => processCpuSeconds(), { timeoutMs })
      : await waitForIdle(() => sys.backlogs(), { timeoutMs });
    if (idle.jobs) log(`${phase}: tenant jobs run first in ${idle.jobs.ms} ms (${idle.jobs.cpu_s} CPU-s)`);
    log(`${phase}: ${idle.idle ? 'idle' : 'NOT idle'} after ${idle.waited_ms} ms (before: ${formatBacklogs(idle.before)}; now: ${formatBacklogs(idle.after)})`);
    if (!idle.idle) notes.push(`${phase} phase started before the system was idle (after ${idle.waited_ms} ms: ${formatBacklogs(idle.after)})`);
    return idle;
  };
  lap('system_start');
  try {
    if (!o.skip.has('edge')) partial.edge = await measureEdge(sys, o, parseCeilings, log);
    lap('edge');
    if (!o.skip.has('e2e')) {
      // the ramp starts from an idle system, not during the catching-up after the edge phase's
      // overload (its stored events' analyses and merges), as the freshness and query phases do
      const idle = await settle('end-to-end', 60_000, { jobs: true });
      partial.e2e = { ...(await measureE2e(sys, o, mixed, log)), start_idle: idle };
    }
    lap('e2e');
    if (!o.skip.has('freshness')) {
      const max = partial.e2e?.max_sustained_events_per_s;
      const rate = o.freshnessRate ?? (max && Number.isFinite(max) ? Math.round(max / 2) : 2000);
      if (o.freshnessRate) notes.push(`freshness measured at ${o.freshnessRate} events/s (--freshness-rate), not at half the sustained end-to-end rate`);
      else if (!max || !Number.isFinite(max)) notes.push('freshness measured at 2,000 events/s: no sustained end-to-end rate was found');
      // freshness at a rate the system sustains, not the catching-up after the overloaded last step:
      // the phase starts once the stores, analyses and merges that step left are done (or after 60 s)
      const idle = await settle('freshness', 60_000, { jobs: true });
      partial.freshness = { ...(await measureFreshness(sys, o, mixed, rate)), start_idle: idle };
      const f = partial.freshness;
      log(`freshness: ${f.missing ?? `p50 ${f.latency?.p50_ms} ms, p99 ${f.latency?.p99_ms} ms${f.stored_latency ? ` (accepted → stored p50 ${f.stored_latency.p50_ms} / p99 ${f.stored_latency.p99_ms} ms, stored → visible ${f.stored_to_visible?.p50_ms} / ${f.stored_to_visible?.p99_ms} ms)` : ''}`}`);
    }
    lap('freshness');
    if (!o.skip.has('query') || !o.skip.has('memory')) {
      const { result, opts } = await loadDataset(sys.system.rt.store, o, log);
      partial.dataset = result;
      log(`dataset: ${result.events} events in ${result.load_seconds} s`);
      lap('dataset');
      if (!o.skip.has('query')) {
        // time the API, not background work: earlier phases leave INGEST/ANALYZE backlogs and the
        // bulk load leaves merges running
        const idle = await settle('query', o.quick && o.events <= 1_000_000 ? 90_000 : 600_000);
        partial.query = await measureQueries(sys, o, opts, result.generated_conversations ?? result.conversations, log);
        partial.query_idle = { ...idle, end: await sys.backlogs() };
        queryPaths = partial.query.filter((q) => q.api).map((q) => q.path);
      }
      lap('query');
    }
  } finally {
    await sys.system.stop();
  }
  lap('system_stop');
  try {
    if (!o.skip.has('edge-alone')) {
      // the edge's target is "alone": the ingest role and the bare parse server, each a process of
      // its own under the same load, one after the other (nothing else of ours running)
      partial.edge_alone = await measureEdgeAlone({ env: sys.env, keys: sys.keys, formats: OTLP_FORMATS, concurrency: o.concurrency, warmupSeconds: o.quick ? 1 : 3, seconds: o.quick ? 2 : 5, log });
    }
    lap('edge_alone');
    if (!o.skip.has('memory')) {
      partial.memory = await measureMemory(sys.env, mixed, sys.keys, queryPaths, { loadSeconds: o.quick ? 2.5 : 10, concurrency: o.concurrency }, log);
    }
    lap('memory');
  } finally {
    await sys.nats.stop();
    rmSync(base.dataDir, { recursive: true, force: true });
  }
  m.load_avg_end = loadavg();
  partial.duration_s = Math.round((Date.now() - started) / 1000);
  const summary = buildSummary(partial);
  return { ...partial, summary, goals: checkGoals(summary) };
}

function write(r: BenchResult, outDir: string): string {
  const dir = resolve(projectRoot, outDir);
  mkdirSync(dir, { recursive: true });
  const stem = `${r.started_at.replace(/[:.]/g, '-')}-${r.machine.commit}`;
  const json = JSON.stringify(r, null, 2);
  const svg = renderSvg(r);
  writeFileSync(join(dir, `${stem}.json`), json);
  writeFileSync(join(dir, `${stem}.svg`), svg);
  writeFileSync(join(dir, 'latest.json'), json);
  writeFileSync(join(dir, 'latest.svg'), svg);
  return join(dir, `${stem}.json`);
}

export async function main(argv: string[]): Promise<number> {
  let o: BenchOptions;
  try {
    o = parseArgs(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n`);
      return argv.includes('--help') || argv.includes('-h') ? 0 : 2;
    }
    throw err;
  }
  if (o.compare) {
    const read = (p: string) => JSON.parse(readFileSync(resolve(process.cwd(), p), 'utf8')) as BenchResult;
    const [a, b] = o.compare;
    let ra: BenchResult;
    let rb: BenchResult;
    try {
      ra = read(a);
      rb = read(b);
    } catch {
      // paths relative to bench/ as the README writes them
      ra = read(join(projectRoot, 'bench', a));
      rb = read(join(projectRoot, 'bench', b));
    }
    process.stdout.write(formatCompare(ra, rb, [a, b]) + '\n');
    return 0;
  }
  const r = await run(o);
  const file = write(r, o.outDir);
  process.stdout.write(formatReport(r) + '\n');
  process.stdout.write(`\nwritten: ${file} (and latest.json, latest.svg)\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
