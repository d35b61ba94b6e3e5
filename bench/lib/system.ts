import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../../core/config.js';
import { createLogger } from '../../core/log.js';
import { startManagedNats, type ManagedNats } from '../../core/nats.js';
import { startSystem, type System } from '../../cli/system.js';
import { tenantName } from '../workload/conversation.js';
import { CONSUMERS } from '../../schemas/subjects.js';
import type { Backlogs } from './idle.js';
import type { StreamHandle } from '../../stream/main.js';

export interface BenchSystem {
  system: System;
  config: Config;
  env: Record<string, string>;
  nats: ManagedNats;
  dataDir: string;
  ingestUrl: string;
  queryUrl: string;
  adminKey: string;
  /** Key of each workload tenant (`*` = admin key of tenant `default`). */
  keys: Record<string, string>;
  /** INGEST stream backlog of the store consumer (pending + unacknowledged); undefined when absent. */
  backlog(): Promise<{ pending: number; ackPending: number; delivered: number } | undefined>;
  /** INGEST and ANALYZE backlogs and running ClickHouse merges (what `waitForIdle` polls). */
  backlogs(): Promise<Backlogs>;
  /** Runs the stream role's tenant jobs now (one scheduler tick) and waits for them. */
  runJobs(): Promise<void>;
}

export interface BenchBase {
  dataDir: string;
  nats: ManagedNats;
}

/**
 * The temp DATA_DIR and the bench-owned nats-server (free port), before the system starts;
 * `monitorPort` also opens the server's HTTP monitoring (`/varz`) there, for a probe of its traffic.
 */
export async function prepareBench(opts: { monitorPort?: number } = {}): Promise<BenchBase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'th-bench-'));
  const extraArgs = opts.monitorPort ? ['-m', String(opts.monitorPort)] : [];
  const nats = await startManagedNats({ storeDir: join(dataDir, 'nats-bench'), bin: process.env.NATS_SERVER_BIN || 'nats-server', extraArgs });
  return { dataDir, nats };
}

/**
 * The whole system in this process, as `tracehouse start` runs it, on a temp DATA_DIR, a
 * bench-owned nats-server on a free port and HTTP ports 0, with a known bootstrap key.
 */
export async function startBenchSystem(opts: { tenants: number; env?: Record<string, string>; base?: BenchBase }): Promise<BenchSystem> {
  const { dataDir, nats } = opts.base ?? (await prepareBench());
  const adminKey = `bench-bootstrap-${randomBytes(12).toString('hex')}`;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    NATS_URL: nats.url,
    INGEST_PORT: '0',
    QUERY_PORT: '0',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    TRACEHOUSE_BOOTSTRAP_KEY: adminKey,
    TRACEHOUSE_SECRET: `bench-secret-${randomBytes(8).toString('hex')}`,
    ...opts.env,
    // extra settings of the system under test as JSON, e.g. BENCH_SYSTEM_ENV='{"ANALYZE_DEBOUNCE_MS":"2000"}'
    ...(JSON.parse(process.env.BENCH_SYSTEM_ENV ?? '{}') as Record<string, string>),
  };
  const config = loadConfig(env);
  const system = await startSystem(config, { log: createLogger(config.logLevel, {}, process.stderr) });
  const keys: Record<string, string> = { '*': adminKey };
  for (let i = 0; i < opts.tenants; i++) {
    const t = tenantName(i);
    keys[t] = (await system.rt.keys.create({ tenant: t, role: 'admin', label: 'bench' })).key;
  }
  return {
    system,
    config,
    env,
    nats,
    dataDir,
    ingestUrl: system.ingestUrl ?? '',
    queryUrl: system.queryUrl ?? '',
    adminKey,
    keys,
    async backlog() {
      try {
        const info = await system.rt.bus.jsm.consumers.info('INGEST', 'store');
        return { pending: info.num_pending, ackPending: info.num_ack_pending, delivered: info.delivered.stream_seq };
      } catch {
        return undefined;
      }
    },
    async runJobs() {
      const stream = system.roles.find((r) => r.name === 'stream') as Partial<StreamHandle> | undefined;
      await stream?.runJobs?.();
    },
    async backlogs() {
      const open = async (c: { stream: string; durable: string }) => {
        try {
          const info = await system.rt.bus.jsm.consumers.info(c.stream, c.durable);
          return info.num_pending + info.num_ack_pending;
        } catch {
          return 0; // consumer absent: nothing waits on it
        }
      };
      const store = system.rt.store;
      const merges = await store
        .query<{ n: string }>('SELECT count() AS n FROM system.merges WHERE database = {db:String}', { db: store.database })
        .then((r) => Number(r[0]?.n ?? 0), () => 0);
      return { ingest: await open(CONSUMERS.store), analyze: await open(CONSUMERS.analyze), merges };
    },
  };
}

/** Probes a POST route: false when the route does not exist (404/405/501) or the server is absent. */
export async function routeExists(url: string, init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array }): Promise<{ exists: boolean; status: number }> {
  try {
    const res = await fetch(url, { method: init.method ?? 'POST', headers: init.headers, body: init.body as BodyInit | undefined });
    await res.arrayBuffer();
    return { exists: ![404, 405, 501].includes(res.status), status: res.status };
  } catch {
    return { exists: false, status: 0 };
  }
}
