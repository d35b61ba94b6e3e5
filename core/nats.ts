import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, isAbsolute, join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  jetstream,
  jetstreamManager,
  AckPolicy,
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  type JetStreamClient,
  type JetStreamManager,
  type StreamConfig,
} from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { DependencyError } from './errors.js';
import { coalesceWrites } from './nats-client.js';
import type { Logger } from './log.js';
import { distRoot } from './paths.js';
import { DEFAULT_NATS_GC, defaultNatsProcs, type NatsServerGc } from './config.js';
import { STREAMS, KV_BUCKETS, CONSUMERS } from '../schemas/subjects.js';

export interface Bus {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  kv(bucket: string): Promise<KV>;
  /** True while the connection is open and JetStream answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface ManagedNats {
  readonly url: string;
  readonly pid: number;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and waits for it to exit. */
  stop(): Promise<void>;
}

const MISSING_BINARY = (bin: string) =>
  `nats-server was not found (looked for "${bin}" on PATH). Tracehouse runs a local NATS JetStream server ` +
  `for the embedded default. Install it with \`apt-get install nats-server\` (Debian/Ubuntu, 2.9 or newer) or ` +
  `\`brew install nats-server\` (macOS), set NATS_SERVER_BIN to its path, or point NATS_URL at an existing ` +
  `NATS server started with JetStream (\`nats-server -js\`).`;

export function findBinary(bin: string): string | undefined {
  if (isAbsolute(bin) || bin.includes('/')) return existsSync(bin) ? bin : undefined;
  const dirs = (process.env.PATH ?? '').split(delimiter).concat(['/usr/sbin', '/usr/local/sbin', '/usr/local/bin']);
  for (const d of dirs) {
    const p = join(d, bin);
    if (d && existsSync(p)) return p;
  }
  return undefined;
}

/** The first port of the kernel's ephemeral range: local ports of outgoing connections and of `listen(0)` come from there. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 0) return low;
  } catch {
    // not Linux: the IANA range
  }
  return 49152;
}

/** Lowest port `freePort` picks from. */
const PICK_FROM = 10_000;

/** Resolves with the port once a server listened on it and closed; with undefined when it is taken. */
function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(undefined) : reject(err)));
    srv.listen(port, '127.0.0.1', () => {
      const bound = (srv.address() as { port: number }).port;
      srv.close(() => resolve(bound));
    });
  });
}

/**
 * A loopback port that is free now, for a server started just after (often in another process, and
 * again on the same port after a restart). Picked at random below the kernel's ephemeral range: a
 * port from that range, which `listen(0)` gives, may meanwhile become the local port of any outgoing
 * connection on the machine, and a server then fails to listen on it (EADDRINUSE), which happened
 * on busy machines where other processes open many connections. Falls back to the kernel's choice.
 */
export async function freePort(): Promise<number> {
  const below = ephemeralLow();
  for (let i = 0; i < 20 && below - PICK_FROM >= 1000; i++) {
    const port = await tryListen(PICK_FROM + Math.floor(Math.random() * (below - PICK_FROM)));
    if (port !== undefined) return port;
  }
  const port = await tryListen(0);
  if (port === undefined) throw new Error('no free loopback port');
  return port;
}

/**
 * Starts `nats-server -js` on a free loopback port with its store under `storeDir`, through a
 * supervisor that stops it when this process dies in any way. A server left behind by a killed
 * earlier run on the same store is stopped first (two servers on one store would corrupt it).
 * `procs` is the server's GOMAXPROCS (default: half the cores, at least one; core/config.ts), `gc`
 * its GOGC and GOMEMLIMIT (default: DEFAULT_NATS_GC).
 */
export async function startManagedNats(opts: { storeDir: string; bin: string; log?: Logger; extraArgs?: string[]; procs?: number; gc?: NatsServerGc }): Promise<ManagedNats> {
  const bin = findBinary(opts.bin);
  if (!bin) throw new DependencyError(MISSING_BINARY(opts.bin));
  mkdirSync(opts.storeDir, { recursive: true });
  const pidFile = join(opts.storeDir, 'server.pid');
  const urlFile = join(opts.storeDir, 'server.url');
  const ownerFile = join(opts.storeDir, 'server.owner');
  // a live owner (a running `tracehouse start`) means its server is meant to run on: share it
  const running = await runningServer(pidFile, urlFile, ownerFile);
  if (running) return { url: running, pid: Number(readFileSync(pidFile, 'utf8')), stop: async () => {} };
  await stopLeftover(pidFile);
  // The server logs to a file, never to a pipe of ours: after a SIGKILL of this process the pipe has
  // no reader, and a server that meets it while shutting down dies before it persists the stream's
  // deletes. Acked INGEST messages then came back at the next start below the consumer's ack floor,
  // never delivered or removed again (docs/operations.md "Crash recovery").
  const logFile = join(opts.storeDir, 'nats-server.log');
  const gc = opts.gc ?? DEFAULT_NATS_GC;
  let lastErr: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', opts.storeDir, '-l', logFile, ...(opts.extraArgs ?? [])];
    const logStart = fileSize(logFile);
    const child = spawn(process.execPath, [join(distRoot, 'core', 'nats-supervisor.js'), bin, ...args], {
      stdio: ['pipe', 'ignore', 'pipe'],
      detached: true,
      // the supervisor passes its environment on to the server: the Go runtime reads GOMAXPROCS,
      // GOGC and GOMEMLIMIT from it
      env: { ...process.env, GOMAXPROCS: String(opts.procs ?? defaultNatsProcs()), GOGC: gc.gogc, GOMEMLIMIT: gc.memLimit },
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    const url = `nats://127.0.0.1:${port}`;
    try {
      await waitForPort(port, child, 15_000);
      writeFileSync(pidFile, String(child.pid));
      writeFileSync(urlFile, url);
      writeFileSync(ownerFile, String(process.pid));
      opts.log?.info({ url, storeDir: opts.storeDir }, 'managed nats-server started');
      return {
        url,
        pid: child.pid!,
        stop: () => stopChild(child, pidFile),
      };
    } catch (err) {
      const detail = `${stderr.trim()}\n${tailFrom(logFile, logStart, 4000).trim()}`.trim();
      lastErr = new DependencyError(`nats-server did not start: ${(err as Error).message}\n${detail}`, { cause: err });
      await stopChild(child, pidFile);
    }
  }
  throw lastErr;
}

/**
 * The URL of a server whose owner still runs. The owner, not the supervisor, decides: a supervisor
 * outlives its owner's SIGKILL until it notices the closed pipe, and a server shared in that window
 * stops under its new user (connection refused, or state read in the middle of the shutdown).
 */
async function runningServer(pidFile: string, urlFile: string, ownerFile: string): Promise<string | undefined> {
  if (!existsSync(pidFile) || !existsSync(urlFile) || !existsSync(ownerFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  const owner = Number(readFileSync(ownerFile, 'utf8'));
  if (!(pid > 0) || !isAlive(pid) || !(owner > 0) || !isAlive(owner)) return undefined;
  const url = readFileSync(urlFile, 'utf8').trim();
  try {
    const nc = await connect({ servers: url, timeout: 1000, reconnect: false });
    await nc.close();
    return url;
  } catch {
    return undefined;
  }
}

/** Stops a server left by an earlier run on this store and waits (up to 10 s, without blocking) until it is gone. */
async function stopLeftover(pidFile: string): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  if (pid > 0) {
    try {
      // the supervisor's group holds the server; SIGTERM both (and wake a stopped supervisor)
      process.kill(-pid, 'SIGTERM');
      process.kill(-pid, 'SIGCONT');
    } catch {
      // already gone
    }
    // a second server must never open the store while the first one still writes it
    for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    if (isAlive(pid)) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
      for (let i = 0; i < 20 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    }
  }
  rmSync(pidFile, { force: true });
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Up to `max` bytes the file gained after offset `from` (the log of one failed start). */
function tailFrom(path: string, from: number, max: number): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = statSync(path).size;
    const start = Math.max(from, size - max);
    const buf = Buffer.alloc(Math.max(0, size - start));
    readSync(fd, buf, 0, buf.length, start);
    return buf.toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** True while a process with this pid exists (signal 0 probes without sending). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function stopChild(child: ChildProcess, pidFile: string): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    rmSync(pidFile, { force: true });
    return;
  }
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.stdin?.end();
    setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }, 8000).unref();
  });
  rmSync(pidFile, { force: true });
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`);
    try {
      const nc = await connect({ servers: `127.0.0.1:${port}`, timeout: 500, reconnect: false });
      await nc.close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`port ${port} not ready after ${timeoutMs} ms`);
}

/** Connects and reconnects forever: a restarted or failed-over server is picked up by itself. */
export async function connectBus(url: string, opts: { log?: Logger; name?: string } = {}): Promise<Bus> {
  const nc = await connect({
    servers: url.split(',').map((s) => s.trim()),
    name: opts.name ?? 'tracehouse',
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    timeout: 5000,
    // async stack traces cost two Error captures per request and publish on the hot path
    noAsyncTraces: true,
  });
  coalesceWrites(nc);
  (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnect' || s.type === 'error') opts.log?.warn({ nats: s.type }, 'nats connection status');
    }
  })().catch(() => {});
  const js = jetstream(nc);
  let jsm: JetStreamManager;
  try {
    jsm = await jetstreamManager(nc);
  } catch (err) {
    // JetStream not available yet (a cluster electing its leader): do not leave a reconnecting client behind
    await nc.close().catch(() => {});
    throw err;
  }
  const kvm = new Kvm(js);
  const buckets = new Map<string, Promise<KV>>();
  return {
    nc,
    js,
    jsm,
    kv(bucket) {
      let p = buckets.get(bucket);
      if (!p) {
        p = kvm.open(bucket);
        buckets.set(bucket, p);
        p.catch(() => buckets.delete(bucket));
      }
      return p;
    },
    async ping() {
      if (nc.isClosed()) return false;
      try {
        await Promise.race([jsm.getAccountInfo(), new Promise((_, rej) => setTimeout(() => rej(new Error('timeout')), 2000))]);
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (nc.isClosed()) return;
      try {
        await nc.drain();
      } catch {
        await nc.close();
      }
    },
  };
}

/**
 * Ack wait of the `analyze` consumer: its jobs run for seconds without progress heartbeats, so it
 * keeps a long wait; a crash delays re-analysis by up to this long, never the visibility of events
 * (the `store` consumer uses STREAM_ACK_WAIT_MS with heartbeats, docs/stream.md "Recovery").
 */
export const ANALYZE_ACK_WAIT_MS = 30_000;

/** Declares every stream, durable consumer and KV bucket; safe to run at every start. */
export async function declareTopology(bus: Bus, opts: { replicas: number; maxDeliver: number; ackWaitMs: number }): Promise<void> {
  const base: Partial<StreamConfig> = { storage: StorageType.File, num_replicas: opts.replicas, discard: DiscardPolicy.Old };
  for (const s of Object.values(STREAMS)) {
    const cfg: Partial<StreamConfig> & { name: string } = {
      ...base,
      name: s.name,
      subjects: [s.subjects],
      retention: s.workQueue ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
      duplicate_window: s.duplicateWindowMs * 1_000_000,
      max_age: s.maxAgeMs * 1_000_000,
    };
    try {
      await bus.jsm.streams.info(s.name);
      await bus.jsm.streams.update(s.name, cfg);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await bus.jsm.streams.add(cfg);
    }
  }
  for (const c of Object.values(CONSUMERS)) {
    const cfg = {
      durable_name: c.durable,
      ack_policy: AckPolicy.Explicit,
      ack_wait: (c === CONSUMERS.store ? opts.ackWaitMs : Math.max(opts.ackWaitMs, ANALYZE_ACK_WAIT_MS)) * 1_000_000,
      // Unlimited on the server: the consumers count deliveries and dead-letter a message past
      // STREAM_MAX_DELIVER themselves. A server-side limit would end a message whose last delivery
      // went to a crashed process without any ack: on a work-queue stream it then stays stored below
      // the ack floor for ever, neither delivered nor removed (and its events never stored).
      max_deliver: -1,
      max_ack_pending: 20_000,
      filter_subject: c.filter,
    };
    try {
      await bus.jsm.consumers.info(c.stream, c.durable);
      await bus.jsm.consumers.update(c.stream, c.durable, { ack_wait: cfg.ack_wait, max_deliver: cfg.max_deliver, max_ack_pending: cfg.max_ack_pending });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await bus.jsm.consumers.add(c.stream, cfg);
    }
  }
  const kvm = new Kvm(bus.js);
  for (const b of Object.values(KV_BUCKETS)) await kvm.create(b.name, { history: b.history, replicas: opts.replicas });
}

export function isNotFound(err: unknown): boolean {
  const e = err as { code?: unknown; api_error?: { err_code?: number; code?: number }; name?: string };
  const code = e?.api_error?.err_code;
  return code === 10059 || code === 10014 || e?.api_error?.code === 404 || e?.name === 'StreamNotFoundError' || e?.name === 'ConsumerNotFoundError';
}
