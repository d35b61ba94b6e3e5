import { loadConfig, type Config } from '../../core/config.js';
import type { Bus } from '../../core/nats.js';
import { CONSUMERS, STREAMS } from '../../schemas/subjects.js';
import type { TableStatus } from '../../stream/status-responder.js';
import type { Command } from '../command.js';

/** How long a running system has to answer the row-count request. */
const ASK_TIMEOUT_MS = 5000;

type Tables = { source: 'running system' | 'store'; counts: Record<string, number> } | { error: string };

export const statusCommand: Command = {
  name: 'status',
  summary: 'Show stream and consumer state from NATS and row counts per table',
  usage: `Usage: tracehouse status [--json]

Prints each JetStream stream (messages, bytes), each durable consumer (pending = not delivered
yet, ack pending = delivered and not acknowledged, redelivered) and the messages of INGEST the
consumer will never deliver (stranded: left by crashes of earlier versions), then the row count of
each ClickHouse table. Row counts come from the running system when one answers (a running
\`tracehouse start\` holds the embedded store, so it is asked over NATS), otherwise from the store
itself.`,
  booleans: ['json'],
  async run(args) {
    const { openBus } = await import('../../core/runtime.js');
    const config = loadConfig();
    const { bus, close } = await openBus(config);
    const out: { streams: Array<Record<string, number | string>>; consumers: Array<Record<string, number | string>>; tables: Tables } = { streams: [], consumers: [], tables: { error: '' } };
    try {
      for (const s of Object.values(STREAMS)) {
        const i = await bus.jsm.streams.info(s.name);
        out.streams.push({ stream: s.name, messages: i.state.messages, bytes: i.state.bytes, first_seq: i.state.first_seq, last_seq: i.state.last_seq, replicas: i.config.num_replicas });
      }
      for (const c of Object.values(CONSUMERS)) {
        const i = await bus.jsm.consumers.info(c.stream, c.durable);
        const stored = out.streams.find((s) => s.stream === c.stream)!.messages as number;
        out.consumers.push({
          stream: c.stream,
          consumer: c.durable,
          pending: i.num_pending,
          ack_pending: i.num_ack_pending,
          redelivered: i.num_redelivered,
          stranded: Math.max(0, stored - i.num_pending - i.num_ack_pending),
          delivered: i.delivered.stream_seq,
          ack_floor: i.ack_floor.stream_seq,
        });
      }
      out.tables = await rowCounts(bus, config);
    } finally {
      await close();
    }
    if (args.flags.json) {
      process.stdout.write(JSON.stringify(out) + '\n');
      return;
    }
    process.stdout.write(render(out) + '\n');
  },
};

function render(out: { streams: Array<Record<string, number | string>>; consumers: Array<Record<string, number | string>>; tables: Tables }): string {
  const lines = ['STREAM     MESSAGES    BYTES'];
  for (const s of out.streams) lines.push(`${String(s.stream).padEnd(11)}${String(s.messages).padEnd(12)}${s.bytes}`);
  lines.push('', 'CONSUMER        PENDING     ACK_PENDING REDELIVERED STRANDED');
  for (const c of out.consumers) {
    lines.push(`${`${c.stream}/${c.consumer}`.padEnd(16)}${String(c.pending).padEnd(12)}${String(c.ack_pending).padEnd(12)}${String(c.redelivered).padEnd(12)}${c.stranded}`);
  }
  if ('error' in out.tables) lines.push('', `row counts unavailable: ${out.tables.error}`);
  else {
    lines.push('', `TABLE          ROWS    (from the ${out.tables.source})`);
    for (const [t, n] of Object.entries(out.tables.counts)) lines.push(`${t.padEnd(15)}${n}`);
  }
  return lines.join('\n');
}

/**
 * Row counts: asked of the running system first (its stream role answers on STATUS_SUBJECT; with
 * no responder NATS says so at once), else read from the store when this process may open it.
 */
async function rowCounts(bus: Bus, config: Config): Promise<Tables> {
  const asked = await askRunning(bus);
  if (asked.kind === 'answer') return { source: 'running system', counts: asked.status.tables };
  if (asked.kind === 'failed') return { error: asked.reason };
  const { createStore } = await import('../../core/clickhouse.js');
  const { tableCounts } = await import('../../stream/status-responder.js');
  let store;
  try {
    store = createStore(config);
    return { source: 'store', counts: await tableCounts(store) };
  } catch (err) {
    return { error: String((err as Error)?.message ?? err).split('\n')[0]!.slice(0, 200) };
  } finally {
    await store?.close().catch(() => {});
  }
}

type Asked = { kind: 'answer'; status: TableStatus } | { kind: 'none' } | { kind: 'failed'; reason: string };

async function askRunning(bus: Bus): Promise<Asked> {
  const { STATUS_SUBJECT } = await import('../../stream/status-responder.js');
  const { NoRespondersError, RequestError } = await import('@nats-io/transport-node');
  const isNoResponders = (err: unknown) => err instanceof NoRespondersError || (err instanceof RequestError && err.isNoResponders());
  try {
    const reply = await bus.nc.request(STATUS_SUBJECT, '', { timeout: ASK_TIMEOUT_MS });
    const body = reply.json<TableStatus & { error?: string }>();
    return body.error ? { kind: 'failed', reason: `the running system could not count: ${body.error}` } : { kind: 'answer', status: body };
  } catch (err) {
    // no stream role is running: the store is free to open (or served by a ClickHouse server)
    if (isNoResponders(err)) return { kind: 'none' };
    return { kind: 'failed', reason: `the running system did not answer within ${ASK_TIMEOUT_MS / 1000} s` };
  }
}
