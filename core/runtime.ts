import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { applyHeapGrowth, type Config } from './config.js';
import { createLogger, type Logger } from './log.js';
import { createMetrics, type Metrics } from './metrics.js';
import { createStore, type Store } from './clickhouse.js';
import { migrate } from './migrations.js';
import { connectBus, declareTopology, startManagedNats, type Bus, type ManagedNats } from './nats.js';
import { createKeyStore, type KeyStore } from './keys.js';
import { kvCreateIfAbsent } from './kv.js';
import { KV_BUCKETS } from '../schemas/subjects.js';

/** Shared dependencies of the roles running in one process, built once by the composition root. */
export interface Runtime {
  readonly config: Config;
  readonly log: Logger;
  readonly metrics: Metrics;
  /**
   * ClickHouse. A process that runs only the ingest role never opens it (`openStore: false`): the
   * edge publishes to the bus and nothing else, so the embedded engine stays free for the process
   * that stores, and INGEST_WORKERS processes need no store. Reading it there throws.
   */
  readonly store: Store;
  readonly bus: Bus;
  readonly keys: KeyStore;
  readonly natsUrl: string;
  readonly managedNats?: ManagedNats;
  /** Closes the bus and the store, then stops the managed nats-server. */
  close(): Promise<void>;
}

/** What every role's start function returns. `close` drains the role; it never closes shared clients. */
export interface RoleHandle {
  readonly name: string;
  readonly url?: string;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  log?: Logger;
  /** Apply migrations (default true). */
  migrate?: boolean;
  /** Declare streams, consumers and buckets (default true). */
  declare?: boolean;
  /** Open ClickHouse (and migrate it when `migrate`); default true. */
  openStore?: boolean;
}

export async function createRuntime(config: Config, opts: RuntimeOptions = {}): Promise<Runtime> {
  applyHeapGrowth(config);
  const log = opts.log ?? createLogger(config.logLevel);
  const metrics = createMetrics();
  let managedNats: ManagedNats | undefined;
  let natsUrl = config.nats.url;
  if (!natsUrl) {
    managedNats = await startManagedNats({ storeDir: join(config.dataDir, 'nats'), bin: config.nats.serverBin, procs: config.nats.serverProcs, gc: config.nats.serverGc, log });
    natsUrl = managedNats.url;
  }
  let bus: Bus | undefined;
  let store: Store | undefined;
  try {
    bus = await connectBus(natsUrl, { log });
    if (opts.declare !== false) {
      await declareTopology(bus, { replicas: config.nats.replicas, maxDeliver: config.stream.maxDeliver, ackWaitMs: config.stream.ackWaitMs });
    }
    if (opts.openStore !== false) {
      store = createStore(config);
      if (opts.migrate !== false) await migrate(store, { cluster: config.clickhouse.cluster, log });
    }
    const kv = await bus.kv(KV_BUCKETS.keys.name);
    const secret = config.secret || (await sharedSecret(bus));
    const keys = createKeyStore(kv, secret);
    const b = bus;
    const s = store;
    return {
      config,
      log,
      metrics,
      get store(): Store {
        if (!s) throw new Error('this process did not open ClickHouse (it runs only the ingest role)');
        return s;
      },
      bus: b,
      keys,
      natsUrl,
      managedNats,
      async close() {
        await b.close().catch((err) => log.warn({ err }, 'closing nats'));
        await s?.close().catch((err) => log.warn({ err }, 'closing clickhouse'));
        if (managedNats) await managedNats.stop();
      },
    };
  } catch (err) {
    await bus?.close().catch(() => {});
    await store?.close().catch(() => {});
    await managedNats?.stop();
    throw err;
  }
}

/**
 * Without TRACEHOUSE_SECRET, one random secret is created once in the keys bucket (create-if-absent)
 * so that every replica verifies the same signatures. Production should set TRACEHOUSE_SECRET.
 */
async function sharedSecret(bus: Bus): Promise<string> {
  const kv = await bus.kv(KV_BUCKETS.keys.name);
  // another replica (or an earlier start) may have created it: then that one is used
  return (await kvCreateIfAbsent(kv, 'signing-secret', randomBytes(32).toString('base64url'))).value;
}

/** For CLI commands that need only the bus (keys, dlq): never opens the embedded ClickHouse. */
export async function openBus(config: Config, log?: Logger): Promise<{ bus: Bus; keys: KeyStore; close(): Promise<void> }> {
  let managed: ManagedNats | undefined;
  let url = config.nats.url;
  if (!url) {
    managed = await startManagedNats({ storeDir: join(config.dataDir, 'nats'), bin: config.nats.serverBin, procs: config.nats.serverProcs, gc: config.nats.serverGc, log });
    url = managed.url;
  }
  const bus = await connectBus(url, { log });
  try {
    await declareTopology(bus, { replicas: config.nats.replicas, maxDeliver: config.stream.maxDeliver, ackWaitMs: config.stream.ackWaitMs });
    const kv = await bus.kv(KV_BUCKETS.keys.name);
    const keys = createKeyStore(kv, config.secret || (await sharedSecret(bus)));
    return {
      bus,
      keys,
      async close() {
        await bus.close();
        await managed?.stop();
      },
    };
  } catch (err) {
    await bus.close();
    await managed?.stop();
    throw err;
  }
}
