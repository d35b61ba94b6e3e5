import cluster from 'node:cluster';
import { loadConfig, type Config } from '../../core/config.js';
import type { Logger } from '../../core/log.js';
import { UsageError } from '../args.js';
import type { Command } from '../command.js';
import type { RoleName } from '../system.js';

async function run(roles: RoleName[]): Promise<void> {
  // loaded here, not at the top: `tracehouse --help` and the light commands load none of the roles
  const { createLogger } = await import('../../core/log.js');
  const { installShutdown } = await import('../../core/shutdown.js');
  const { startSystem } = await import('../system.js');
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  if (roles.length === 1 && !config.nats.url) {
    throw new UsageError(
      `running the ${roles[0]} role alone needs NATS_URL${roles[0] === 'ingest' ? '' : ' (and normally CLICKHOUSE_URL)'}: the roles of one deployment share one NATS. ` +
        'Use `tracehouse start` to run every role in one process on the embedded default.',
    );
  }
  const ingestAlone = roles.length === 1 && roles[0] === 'ingest';
  if (ingestAlone && config.ingest.workers > 1 && cluster.isPrimary) return runWorkers(config, log);
  // the ingest role alone never opens ClickHouse (cli/system.ts)
  if (roles.length === 1 && !ingestAlone && !config.clickhouse.url) {
    log.warn('CLICKHOUSE_URL is not set: this role opens the embedded ClickHouse, which only one process can own');
  }
  const system = await startSystem(config, { roles, log });
  if (cluster.isWorker) {
    // one of INGEST_WORKERS processes: the primary prints the banner once every worker listens and
    // decides when to stop (a Ctrl-C reaches the whole process group: workers wait for its word)
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      system.stop().then(() => process.exit(0), (err) => (log.error({ err }, 'shutdown failed'), process.exit(1)));
    };
    process.on('SIGINT', () => {});
    process.on('SIGTERM', () => {});
    process.on('message', (m: { stop?: boolean }) => m?.stop && stop());
    process.on('disconnect', stop);
    process.send?.({ ready: system.ingestUrl });
    return;
  }
  installShutdown(() => system.stop(), log);
  if (system.mintedKey) {
    // printed once, to the terminal, never to the log stream
    process.stderr.write(
      `\n  ┌──────────────────────────────────────────────────────────────────────────\n` +
        `  │ First start: an admin API key for tenant "default" was created.\n` +
        `  │ It is shown only now; store it:\n  │\n  │   ${system.mintedKey}\n  │\n` +
        `  │ Ingest: Authorization: Bearer <key>    Data API: x-api-key: <key>\n` +
        `  └──────────────────────────────────────────────────────────────────────────\n\n`,
    );
  }
  const lines = [
    system.ingestUrl && `ingest  ${system.ingestUrl}  (OTLP/HTTP, hooks, /v1/ingest)`,
    system.queryUrl && `query   ${system.queryUrl}/api/v1/data`,
    roles.includes('stream') && 'stream  consuming INGEST',
  ].filter(Boolean);
  process.stderr.write(`tracehouse ready:\n  ${lines.join('\n  ')}\nCtrl-C stops gracefully; a second Ctrl-C forces exit.\n`);
}

/**
 * `tracehouse ingest` with INGEST_WORKERS > 1: that many processes (node:cluster) share the ingest
 * port, the primary only supervises. A signal is passed to every worker, each stops gracefully
 * (finishes its in-flight requests); a worker that dies is replaced.
 */
async function runWorkers(config: Config, log: Logger): Promise<void> {
  const { installShutdown } = await import('../../core/shutdown.js');
  const n = config.ingest.workers;
  let stopping = false;
  const urls: string[] = [];
  const ready = new Promise<void>((resolve, reject) => {
    cluster.on('message', (_w, msg: { ready?: string }) => {
      if (msg?.ready !== undefined) urls.push(msg.ready);
      if (urls.length === n) resolve();
    });
    cluster.on('exit', (w, code, signal) => {
      if (stopping) return;
      if (urls.length < n) return reject(new Error(`an ingest worker exited during start (code ${code ?? signal})`));
      log.error({ pid: w.process.pid, code, signal }, 'ingest worker exited: starting another');
      cluster.fork();
    });
  });
  for (let i = 0; i < n; i++) cluster.fork();
  await ready;
  const stop = async () => {
    stopping = true;
    const alive = Object.values(cluster.workers ?? {}).filter((w) => w && !w.isDead());
    await Promise.all(alive.map((w) => new Promise<void>((resolve) => {
      w!.once('exit', () => resolve());
      w!.send({ stop: true });
    })));
  };
  installShutdown(stop, log);
  process.stderr.write(`tracehouse ready:\n  ingest  ${urls[0]}  (OTLP/HTTP, hooks, /v1/ingest; ${n} processes)\nCtrl-C stops gracefully; a second Ctrl-C forces exit.\n`);
}

const COMMON = `Configuration is read from the environment (see \`tracehouse config --help\`).
Stops gracefully on SIGINT/SIGTERM: stop accepting, finish in-flight requests, drain consumers,
flush batches, close clients, stop the managed nats-server. A second signal forces exit.`;

export const startCommand: Command = {
  name: 'start',
  summary: 'Run ingest, stream and query in one process (embedded default)',
  usage: `Usage: tracehouse start

Runs all three roles in one process: ingest HTTP on INGEST_PORT (4318), query HTTP on QUERY_PORT
(8080) and the stream consumers. Without CLICKHOUSE_URL it uses embedded ClickHouse under DATA_DIR;
without NATS_URL it runs a managed nats-server with its store under DATA_DIR.
On the first start of an empty key store it prints an admin key for tenant "default" once
(or registers TRACEHOUSE_BOOTSTRAP_KEY instead).

${COMMON}`,
  run: () => run(['ingest', 'stream', 'query']),
};

const role = (name: RoleName, summary: string, detail: string): Command => ({
  name,
  summary,
  usage: `Usage: tracehouse ${name}

${detail}
Production mode: needs NATS_URL, and (stream, query) CLICKHOUSE_URL so that several processes share one store.

${COMMON}`,
  run: () => run([name]),
});

export const roleCommands: Command[] = [
  role('ingest', 'Run only the ingest role (production)', 'Serves the ingestion routes of spec/ingestion.md on INGEST_PORT. Needs NATS only: it never opens\nClickHouse. INGEST_WORKERS=N runs N processes sharing the port.'),
  role('stream', 'Run only the stream role (production)', 'Consumes the INGEST and ANALYZE streams into ClickHouse.'),
  role('query', 'Run only the query role (production)', 'Serves the data API of spec/data-api.md on QUERY_PORT.'),
];
