/**
 * Kill -9 cycles of the all-in-one process group under steady load (issue 17 "Must show"):
 * `tracehouse start` runs in its own process group on a temp DATA_DIR (managed nats-server,
 * embedded ClickHouse); clients post /v1/ingest requests without pause; each cycle SIGKILLs the
 * whole group, starts it again and measures how long the events acknowledged just before the
 * kill take to show in the data API. At the end the system is drained and stopped, and the store
 * is read directly: every acknowledged event must be there exactly once, and INGEST empty.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { projectRoot } from '../../core/paths.js';
import { freePort } from '../../core/nats.js';
import { createStore } from '../../core/clickhouse.js';
import { loadConfig } from '../../core/config.js';
import { CONSUMERS, STREAMS } from '../../schemas/subjects.js';

export interface KillCycleOptions {
  cycles: number;
  /** Steady load before each kill. */
  loadMs: number;
  /** Concurrent clients. */
  clients?: number;
  /** Requests per second of all clients together: a steady rate the system keeps up with. Default 40. */
  requestsPerSecond?: number;
  eventsPerRequest?: number;
  /** Extra environment of the system (e.g. STREAM_ACK_WAIT_MS). */
  env?: Record<string, string>;
  /** Give up waiting for visibility after this long (reported as not visible). */
  visibilityTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface CycleResult {
  cycle: number;
  /** Requests probed: up to 6 spread over those acknowledged in the last second before the kill, the last one included. */
  probed: number;
  /** Kill → the restarted process printed "ready". */
  restartMs: number;
  /** "ready" → every probed event visible in the data API (-1 when the timeout passed). */
  visibleAfterReadyMs: number;
  /** Kill → every probed event visible. */
  visibleAfterKillMs: number;
}

export interface KillCycleReport {
  cycles: CycleResult[];
  acknowledgedEvents: number;
  /** Acknowledged events missing from `events` (by event id). */
  lost: number;
  /** Event ids with more than one row once deduplicated (FINAL). */
  duplicated: number;
  /** Extra physical rows (rows − distinct event ids) before merges; FINAL hides them. */
  physicalDuplicateRows: number;
  /** Messages still in INGEST at the end, and those the consumer will never deliver. */
  ingestMessages: number;
  orphans: number;
  deadLetters: number;
  seconds: number;
}

const KEY = 'kill-cycles-key-0123456789abcdef';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Running {
  child: ChildProcess;
  readyAtMs: number;
}

function startSystem(env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'tracehouse.js'), 'start'], { env, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err = (err + d).slice(-20_000)));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (err.includes('tracehouse ready')) {
        clearInterval(timer);
        resolve({ child, readyAtMs: Date.now() });
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`tracehouse start exited: ${err.slice(-2000)}`));
      }
    }, 20);
  });
}

const exited = (c: ChildProcess) => (c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => c.once('exit', () => r())));

interface Acked {
  conversation: string;
  eventIds: string[];
  atMs: number;
}

/** Clients posting at a steady total rate; records what was acknowledged (200 with every event accepted). */
function startLoad(ingestUrl: string, clients: number, perRequest: number, requestsPerSecond: number) {
  const intervalMs = (1000 * clients) / requestsPerSecond;
  const acked: Acked[] = [];
  let seq = 0;
  let running = true;
  const client = async (c: number) => {
    await sleep((intervalMs * c) / clients);
    for (let next = Date.now(); running; ) {
      next += intervalMs;
      const n = ++seq;
      const conversation = `kc-${c}-${n}`;
      const events = Array.from({ length: perRequest }, (_, i) => ({ conversation_id: conversation, role: i % 2 ? 'assistant' : 'user', message: `request ${n} message ${i}`, message_id: `${conversation}-${i}` }));
      try {
        const res = await fetch(`${ingestUrl}/v1/ingest`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ events }) });
        const body = (await res.json()) as { count?: number; results?: Array<{ eventId?: string }> };
        if (res.status === 200 && body.count === perRequest) acked.push({ conversation, eventIds: body.results!.map((r) => r.eventId!), atMs: Date.now() });
      } catch {
        // refused connection while the system is down: not acknowledged, nothing to check
      }
      // a steady rate: no catching up after the system was down
      next = Math.max(next, Date.now());
      await sleep(next - Date.now());
    }
  };
  const done = Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  return { acked, stop: () => ((running = false), done) };
}

/**
 * Up to `n` items spread evenly over `list`, its last item included. Probing every request of the
 * last second would itself load the engine (one context query each, every 100 ms, on the one
 * lane of the embedded engine) and measure the probe; the end check covers every event.
 */
function sample<T>(list: T[], n: number): T[] {
  if (list.length <= n) return list;
  return Array.from({ length: n }, (_, i) => list[Math.round(((i + 1) * (list.length - 1)) / n)]!);
}

/** Polls the data API until every probed conversation shows all its messages. */
async function waitVisible(queryUrl: string, probe: Acked[], perRequest: number, timeoutMs: number): Promise<boolean> {
  const pending = new Set(probe.map((a) => a.conversation));
  const until = Date.now() + timeoutMs;
  while (pending.size && Date.now() < until) {
    await Promise.all(
      [...pending].map(async (conversation) => {
        try {
          const res = await fetch(`${queryUrl}/api/v1/data/conversations/${encodeURIComponent(conversation)}/context`, { headers: { 'x-api-key': KEY } });
          const body = (await res.json()) as { total_messages?: number };
          if (res.status === 200 && body.total_messages === perRequest) pending.delete(conversation);
        } catch {
          // the query role is not up yet
        }
      }),
    );
    if (pending.size) await sleep(100);
  }
  return pending.size === 0;
}

async function natsState(dataDir: string) {
  const url = readFileSync(join(dataDir, 'nats', 'server.url'), 'utf8').trim();
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    const s = await jsm.streams.info(STREAMS.INGEST.name);
    const c = await jsm.consumers.info(CONSUMERS.store.stream, CONSUMERS.store.durable);
    const dlq = await jsm.streams.info(STREAMS.DLQ.name);
    return { messages: s.state.messages, pending: c.num_pending, ackPending: c.num_ack_pending, deadLetters: dlq.state.messages };
  } finally {
    await nc.close();
  }
}

/** Runs the cycles on a new data directory, removed afterwards. */
export async function runKillCycles(opts: KillCycleOptions): Promise<KillCycleReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'th-kill-'));
  try {
    return await cyclesIn(dataDir, opts);
  } finally {
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}

async function cyclesIn(dataDir: string, opts: KillCycleOptions): Promise<KillCycleReport> {
  const log = opts.log ?? (() => {});
  const started = Date.now();
  const perRequest = opts.eventsPerRequest ?? 10;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATA_DIR: dataDir,
    TRACEHOUSE_BOOTSTRAP_KEY: KEY,
    LOG_LEVEL: 'warn',
    ...opts.env,
  };
  // the ports stay the same across the restarts; a port taken between its choice and the first start
  // (another process on the machine) is chosen again
  let sys: Running | undefined;
  for (let attempt = 1; !sys; attempt++) {
    env.INGEST_PORT = String(await freePort());
    env.QUERY_PORT = String(await freePort());
    try {
      sys = await startSystem(env);
    } catch (err) {
      if (attempt >= 3 || !/EADDRINUSE/.test((err as Error).message)) throw err;
      log(`a chosen port was taken before the first start (${(err as Error).message.split('\n')[0]}): choosing again`);
    }
  }
  const ingestUrl = `http://127.0.0.1:${env.INGEST_PORT}`;
  const queryUrl = `http://127.0.0.1:${env.QUERY_PORT}`;
  const load = startLoad(ingestUrl, opts.clients ?? 4, perRequest, opts.requestsPerSecond ?? 40);
  const cycles: CycleResult[] = [];
  try {
    for (let cycle = 1; cycle <= opts.cycles; cycle++) {
      await sleep(opts.loadMs);
      const killAt = Date.now();
      const probe = sample(load.acked.filter((a) => a.atMs >= killAt - 1000), 6);
      process.kill(-sys.child.pid!, 'SIGKILL');
      await exited(sys.child);
      sys = await startSystem(env);
      const visible = await waitVisible(queryUrl, probe, perRequest, opts.visibilityTimeoutMs ?? 60_000);
      const now = Date.now();
      const r: CycleResult = {
        cycle,
        probed: probe.length,
        restartMs: sys.readyAtMs - killAt,
        visibleAfterReadyMs: visible ? Math.max(0, now - sys.readyAtMs) : -1,
        visibleAfterKillMs: visible ? now - killAt : -1,
      };
      cycles.push(r);
      log(`cycle ${cycle}: ${r.probed} requests probed, restart ${r.restartMs} ms, visible ${r.visibleAfterReadyMs} ms after ready (${r.visibleAfterKillMs} ms after the kill)`);
    }
  } finally {
    await load.stop();
  }
  // drain: INGEST empty (or only what the consumer will never deliver), then a clean stop
  let state = await natsState(dataDir);
  for (let i = 0; i < 600 && (state.pending > 0 || state.ackPending > 0); i++) {
    await sleep(100);
    state = await natsState(dataDir);
  }
  await sleep(500);
  state = await natsState(dataDir);
  sys.child.kill('SIGTERM');
  await exited(sys.child);
  const acked = load.acked.flatMap((a) => a.eventIds);
  const store = createStore(loadConfig({ DATA_DIR: dataDir }));
  try {
    const [rows] = await store.query<{ rows: string; ids: string }>('SELECT count() AS rows, uniqExact(event_id) AS ids FROM {{db}}.events');
    const [final] = await store.query<{ rows: string; ids: string }>('SELECT count() AS rows, uniqExact(event_id) AS ids FROM {{db}}.events FINAL');
    let found = 0;
    for (let i = 0; i < acked.length; i += 5000) {
      const [r] = await store.query<{ n: string }>('SELECT uniqExact(event_id) AS n FROM {{db}}.events WHERE event_id IN {ids:Array(String)}', { ids: acked.slice(i, i + 5000) });
      found += Number(r!.n);
    }
    return {
      cycles,
      acknowledgedEvents: acked.length,
      lost: acked.length - found,
      duplicated: Number(final!.rows) - Number(final!.ids),
      physicalDuplicateRows: Number(rows!.rows) - Number(rows!.ids),
      ingestMessages: state.messages,
      orphans: state.messages - state.pending - state.ackPending,
      deadLetters: state.deadLetters,
      seconds: Math.round((Date.now() - started) / 1000),
    };
  } finally {
    await store.close();
  }
}
