import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../../core/config.js';
import { createLogger } from '../../core/log.js';
import { startSystem, type RoleName, type System } from '../../cli/system.js';
import type { StreamOptions } from '../../stream/main.js';
import type { Store } from '../../core/clickhouse.js';
import { startNats, type TestNats } from './nats.js';
import { migratedDataDir } from './data-template.js';

export interface TestSystem {
  system: System;
  config: Config;
  env: Record<string, string>;
  nats: TestNats;
  ingestUrl: string;
  queryUrl: string;
  /** Admin key of tenant `default` (registered as the bootstrap key). */
  adminKey: string;
  /** Stops the system (documented order); the suite's nats-server keeps running unless `withNats`. */
  stop(opts?: { withNats?: boolean }): Promise<void>;
  /** Starts the system again on the same data directory and NATS. */
  restart(): Promise<TestSystem>;
}

/**
 * The whole system in-process on a suite's own nats-server (free port, temp store) and its own
 * embedded ClickHouse data directory, HTTP roles on port 0. One chDB data directory per process:
 * start at most one data dir per suite file (restarts reuse it).
 */
export async function startTestSystem(
  opts: { env?: Record<string, string>; roles?: RoleName[]; nats?: TestNats; dataDir?: string; logStream?: NodeJS.WritableStream; stream?: StreamOptions; openStore?: boolean } = {},
): Promise<TestSystem> {
  const nats = opts.nats ?? (await startNats());
  const dataDir = opts.dataDir ?? migratedDataDir('th-data-');
  const adminKey = opts.env?.TRACEHOUSE_BOOTSTRAP_KEY ?? `test-bootstrap-${randomBytes(12).toString('hex')}`;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    NATS_URL: nats.url,
    INGEST_PORT: '0',
    QUERY_PORT: '0',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    TRACEHOUSE_BOOTSTRAP_KEY: adminKey,
    TRACEHOUSE_SECRET: 'test-secret-0123456789abcdef',
    SINK_FLUSH_INTERVAL_MS: '50',
    ANALYZE_DEBOUNCE_MS: '100',
    // analyses as soon as due: the suites wait for them
    ANALYZE_BATCH_INTERVAL_MS: '0',
    ...opts.env,
  };
  const config = loadConfig(env);
  const system = await startSystem(config, { roles: opts.roles, stream: opts.stream, openStore: opts.openStore, log: createLogger(config.logLevel, {}, opts.logStream ?? process.stderr) });
  const ts: TestSystem = {
    system,
    config,
    env,
    nats,
    ingestUrl: system.ingestUrl ?? '',
    queryUrl: system.queryUrl ?? '',
    adminKey,
    async stop({ withNats = false } = {}) {
      await system.stop();
      if (withNats) await nats.stop();
    },
    restart: () => startTestSystem({ ...opts, env, nats, dataDir }),
  };
  return ts;
}

/** Polls `fn` until it returns a truthy value or `timeoutMs` passes; returns the last value. */
export async function eventually<T>(fn: () => Promise<T>, opts: { timeoutMs?: number; intervalMs?: number } = {}): Promise<T> {
  const until = Date.now() + (opts.timeoutMs ?? 15_000);
  let last: T;
  for (;;) {
    last = await fn();
    if (last || Date.now() > until) return last;
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}

/**
 * Waits until the tool-failure rollup has no marked group left (its paced passes recomputed every
 * daily row the analyses so far changed); call it once the conversation rows show the analyses ran.
 */
export async function toolRollupSettled(store: Store, timeoutMs = 20_000): Promise<boolean> {
  const pending = async () => Number((await store.query<{ n: string }>('SELECT count() AS n FROM {{db}}.tool_rollup_dirty FINAL WHERE is_deleted = 0'))[0]!.n);
  return eventually(async () => (await pending()) === 0, { timeoutMs, intervalMs: 100 });
}
