import { loadConfig } from '../../core/config.js';
import { createLogger } from '../../core/log.js';
import { installShutdown } from '../../core/shutdown.js';
import { UsageError } from '../args.js';
import type { Command } from '../command.js';
import { startSystem, type RoleName } from '../system.js';

async function run(roles: RoleName[]): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  if (roles.length === 1 && !config.nats.url) {
    throw new UsageError(
      `running the ${roles[0]} role alone needs NATS_URL (and normally CLICKHOUSE_URL): the roles of one deployment share one NATS. ` +
        'Use `tracehouse start` to run every role in one process on the embedded default.',
    );
  }
  if (roles.length === 1 && !config.clickhouse.url) {
    log.warn('CLICKHOUSE_URL is not set: this role opens the embedded ClickHouse, which only one process can own');
  }
  const system = await startSystem(config, { roles, log });
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
Production mode: needs NATS_URL, and CLICKHOUSE_URL so that several processes share one store.

${COMMON}`,
  run: () => run([name]),
});

export const roleCommands: Command[] = [
  role('ingest', 'Run only the ingest role (production)', 'Serves the ingestion routes of spec/ingestion.md on INGEST_PORT.'),
  role('stream', 'Run only the stream role (production)', 'Consumes the INGEST and ANALYZE streams into ClickHouse.'),
  role('query', 'Run only the query role (production)', 'Serves the data API of spec/data-api.md on QUERY_PORT.'),
];
