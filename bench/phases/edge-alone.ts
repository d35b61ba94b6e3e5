/**
 * The ingest role alone against the bare parse ceiling, in the same shape: each is a process of its
 * own (one event loop) under the same closed-loop load of the same request pool, one format at a
 * time, the edge first and then the parse server, each after a warm-up of its own and, once before
 * the first format, a warm-up on all the measured formats together. The edge's figures are its
 * accepted events/s and the CPU of its process tree from /proc: one process unless the caller's env
 * sets INGEST_WORKERS. It publishes to the bench's nats-server, whose CPU is not counted, as the
 * load generator's is not; the INGEST stream is purged after each measurement so the backlog never
 * refuses traffic.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { connectBus } from '../../core/nats.js';
import { projectRoot } from '../../core/paths.js';
import { buildPool, onlyFormat, formatsOnly, type Pool } from '../lib/pool.js';
import { loadInProcess, type LoadResult } from '../lib/load.js';
import { treeCpuSeconds } from '../lib/cpu.js';
import { ratio } from '../lib/stats.js';
import { startChild } from './memory.js';
import { nextRounds } from './edge.js';
import type { Format } from '../workload/conversation.js';

/** The formats of the target "OTLP JSON and protobuf". */
export const OTLP_FORMATS: readonly Format[] = ['otlp-json-a', 'otlp-proto-a', 'otlp-json-b', 'otlp-proto-b'];

export interface AloneFigures {
  events_per_s: number;
  cpu_s_per_million: number;
  /** CPU seconds per second of the process (1 = one core busy). */
  cores: number;
  non_2xx: number;
}

export interface EdgeAloneRow {
  format: Format | 'mixed';
  edge: AloneFigures;
  parse?: AloneFigures;
  /** Edge events/s over the parse server's, same load, same run. */
  edge_vs_parse?: number;
}

export interface EdgeAloneOptions {
  env: Record<string, string>;
  keys: Record<string, string>;
  formats: ReadonlyArray<Format | 'mixed'>;
  concurrency: number;
  warmupSeconds: number;
  seconds: number;
  /** Also measure the parse server (default true). */
  ceiling?: boolean;
  /** Node flags of the ingest process (e.g. --cpu-prof). */
  nodeArgs?: string[];
  log: (s: string) => void;
}

async function startParseChild(): Promise<{ proc: ChildProcess; url: string; stop(): Promise<void> }> {
  const proc = spawn(process.execPath, [join(projectRoot, 'dist', 'bench', 'ceilings', 'http-parse-child.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /port (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    proc.once('exit', (code) => reject(new Error(`parse server exited with ${code}`)));
  });
  return {
    proc,
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}

function figures(res: LoadResult, cpu: number): AloneFigures {
  const s = res.elapsedMs / 1000;
  return {
    events_per_s: Math.round(res.okEvents / s),
    cpu_s_per_million: Math.round((cpu / Math.max(1, res.okEvents)) * 1e7) / 10,
    cores: Math.round((cpu / s) * 100) / 100,
    non_2xx: res.sent - res.ok,
  };
}

export async function measureEdgeAlone(o: EdgeAloneOptions): Promise<EdgeAloneRow[]> {
  const edge = await startChild('ingest', o.env, o.nodeArgs ?? []);
  let parse: Awaited<ReturnType<typeof startParseChild>> | undefined;
  let bus: Awaited<ReturnType<typeof connectBus>> | undefined;
  const rows: EdgeAloneRow[] = [];
  try {
    parse = o.ceiling === false ? undefined : await startParseChild();
    bus = await connectBus(o.env.NATS_URL!);
    const { jsm } = bus;
    // both processes first run every measured format together, so the first format measured does
    // not pay the fresh process's compilation alone (a 1 s warm-up of its own left otlp-json-a at
    // 43 CPU-s per M events where the same format measured second took 33)
    const formats = o.formats.filter((f): f is Format => f !== 'mixed');
    const all: Pool = buildPool(20_000, o.formats.includes('mixed') || formats.length === 0 ? {} : { formatWeights: formatsOnly(formats) });
    const warm = (baseUrl: string, keys: Record<string, string>) =>
      loadInProcess({ baseUrl, pool: all.requests, keys, concurrency: o.concurrency, durationMs: 2 * o.warmupSeconds * 1000, roundBase: nextRounds() });
    await warm(edge.ingestUrl!, o.keys);
    if (parse) await warm(parse.url, { '*': 'ceiling' });
    await jsm.streams.purge('INGEST');
    for (const format of o.formats) {
      const pool: Pool = buildPool(20_000, format === 'mixed' ? {} : { formatWeights: onlyFormat(format) });
      const measure = async (baseUrl: string, pid: number, keys: Record<string, string>) => {
        const spec = (ms: number) => ({ baseUrl, pool: pool.requests, keys, concurrency: o.concurrency, durationMs: ms, roundBase: nextRounds() });
        await loadInProcess(spec(o.warmupSeconds * 1000));
        await jsm.streams.purge('INGEST');
        const cpu0 = treeCpuSeconds(pid);
        const res = await loadInProcess(spec(o.seconds * 1000));
        const f = figures(res, treeCpuSeconds(pid) - cpu0);
        await jsm.streams.purge('INGEST');
        return f;
      };
      const row: EdgeAloneRow = { format, edge: await measure(edge.ingestUrl!, edge.proc.pid!, o.keys) };
      if (parse) {
        row.parse = await measure(parse.url, parse.proc.pid!, { '*': 'ceiling' });
        row.edge_vs_parse = ratio(row.edge.events_per_s, row.parse.events_per_s);
      }
      o.log(`edge alone ${format}: ${row.edge.events_per_s} ev/s at ${row.edge.cpu_s_per_million} CPU-s per M events${row.parse ? `; parse server alone ${row.parse.events_per_s} ev/s at ${row.parse.cpu_s_per_million}; ratio ${row.edge_vs_parse}` : ''}`);
      rows.push(row);
    }
  } finally {
    await bus?.close();
    await edge.stop();
    await parse?.stop();
  }
  return rows;
}
