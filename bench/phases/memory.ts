import { processCpuSeconds } from '../lib/cpu.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../core/paths.js';
import { connectBus } from '../../core/nats.js';
import { loadInProcess } from '../lib/load.js';
import type { Pool } from '../lib/pool.js';
import { nextRounds } from './edge.js';

/** Peak resident set (VmHWM) of a process in MB, from /proc; NaN where /proc is absent. */
export function peakRssMb(pid: number | 'self'): number {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : NaN;
  } catch {
    return NaN;
  }
}

export interface Child {
  proc: ChildProcess;
  ingestUrl?: string;
  queryUrl?: string;
  stop(): Promise<void>;
}

/** Starts `node bin/tracehouse.js <command>` and waits for its "ready" banner (URLs parsed from it); ports are free ones unless `env` names them, so benches run side by side. */
export async function startChild(command: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<Child> {
  const proc = spawn(process.execPath, [...nodeArgs, join(projectRoot, 'bin', 'tracehouse.js'), command], { env: { ...process.env, STREAM_PORT: '0', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let text = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} not ready after 90 s: ${text.slice(-500)}`)), 90_000);
    proc.stderr!.on('data', (d: Buffer) => {
      text = (text + d.toString()).slice(-20_000);
      if (/ready:[\s\S]*Ctrl-C/.test(text)) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code}: ${text.slice(-500)}`));
    });
  });
  await ready;
  const url = (role: string) => new RegExp(`${role}\\s+(http://[^\\s/]+)`).exec(text)?.[1];
  return {
    proc,
    ingestUrl: url('ingest'),
    queryUrl: url('query'),
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        const kill = setTimeout(() => proc.kill('SIGKILL'), 20_000);
        proc.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        proc.kill('SIGTERM');
      }),
  };
}

export interface MemoryResult {
  all_in_one_mb: number;
  ingest_mb: number;
  stream_mb: number;
  query_mb: number;
  /** CPU seconds of the ingest role alone (its process, from /proc) per million events it accepted under load. */
  ingest_cpu_s_per_million?: number;
  ingest_events_per_s?: number;
  bench_process_mb: number;
  notes: string[];
}

/**
 * Peak RSS per role. Embedded ClickHouse is owned by one process at a time, so the roles run one
 * after another on the bench's data directory (with the query dataset) and its NATS: all-in-one
 * under ingest load and queries; ingest alone under load (its backlog is left on INGEST); stream
 * alone draining that backlog; query alone answering the query pass.
 */
export async function measureMemory(env: Record<string, string>, pool: Pool, keys: Record<string, string>, queryPaths: string[], o: { loadSeconds: number; concurrency: number }, log: (s: string) => void): Promise<MemoryResult> {
  const notes: string[] = [];
  const load = (url: string) => loadInProcess({ baseUrl: url, pool: pool.requests, keys, concurrency: o.concurrency, durationMs: o.loadSeconds * 1000, roundBase: nextRounds() });
  const queries = async (url: string) => {
    for (const p of queryPaths) for (let i = 0; i < 5; i++) await fetch(`${url}/api/v1/data${p}`, { headers: { 'x-api-key': keys.t00! } }).then((r) => r.arrayBuffer()).catch(() => undefined);
  };
  const measure = async (command: string, work: (c: Child) => Promise<void>): Promise<number> => {
    let child: Child | undefined;
    try {
      child = await startChild(command, env);
      await work(child);
      const mb = peakRssMb(child.proc.pid!);
      log(`memory ${command}: peak RSS ${mb} MB`);
      return mb;
    } catch (err) {
      notes.push(`${command}: ${(err as Error).message.split('\n')[0]}`);
      return NaN;
    } finally {
      await child?.stop();
    }
  };
  const all = await measure('start', async (c) => {
    if (c.ingestUrl) await load(c.ingestUrl);
    if (c.queryUrl) await queries(c.queryUrl);
  });
  let ingestCpu: number | undefined;
  let ingestRate: number | undefined;
  const ingest = await measure('ingest', async (c) => {
    if (!c.ingestUrl) return;
    const cpu0 = processCpuSeconds(c.proc.pid!);
    const res = await load(c.ingestUrl);
    const cpu = processCpuSeconds(c.proc.pid!) - cpu0;
    if (res.okEvents > 0) {
      ingestCpu = Math.round((cpu / res.okEvents) * 1e6 * 10) / 10;
      ingestRate = Math.round(res.okEvents / (res.elapsedMs / 1000));
      log(`ingest alone: ${ingestRate} events/s accepted, ${ingestCpu} CPU-s per M events`);
    }
  });
  const bus = await connectBus(env.NATS_URL!);
  const stream = await measure('stream', async () => {
    const until = Date.now() + 120_000;
    while (Date.now() < until) {
      const info = await bus.jsm.consumers.info('INGEST', 'store').catch(() => undefined);
      if (!info || (info.num_pending === 0 && info.num_ack_pending === 0)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
  });
  await bus.close();
  const query = await measure('query', async (c) => {
    if (c.queryUrl) await queries(c.queryUrl);
  });
  return { all_in_one_mb: all, ingest_mb: ingest, stream_mb: stream, query_mb: query, ingest_cpu_s_per_million: ingestCpu, ingest_events_per_s: ingestRate, bench_process_mb: peakRssMb('self'), notes };
}
