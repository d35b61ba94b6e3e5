import { loadConfig } from '../../core/config.js';
import { join } from 'node:path';
import { createStore } from '../../core/clickhouse.js';
import { managedServerAlive } from '../../core/nats.js';
import { openBus } from '../../core/runtime.js';
import { CONSUMERS, STREAMS } from '../../schemas/subjects.js';
import type { Command } from '../command.js';

const TABLES = ['events', 'spans', 'messages', 'tool_calls', 'conversations'];

export const statusCommand: Command = {
  name: 'status',
  summary: 'Show stream and consumer state from NATS and row counts per table',
  usage: `Usage: tracehouse status [--json]

Prints each JetStream stream (messages, bytes), each durable consumer (pending = lag, waiting for
an ack, redelivered) and the row count of each ClickHouse table. With the embedded ClickHouse the
counts need the data directory, which a running \`tracehouse start\` holds: they are then reported
as unavailable (the metrics endpoint has the same numbers).`,
  booleans: ['json'],
  async run(args) {
    const config = loadConfig();
    const { bus, close } = await openBus(config);
    const out: { streams: unknown[]; consumers: unknown[]; tables: Record<string, number> | { error: string } } = { streams: [], consumers: [], tables: {} };
    try {
      for (const s of Object.values(STREAMS)) {
        const i = await bus.jsm.streams.info(s.name);
        out.streams.push({ stream: s.name, messages: i.state.messages, bytes: i.state.bytes, first_seq: i.state.first_seq, last_seq: i.state.last_seq, replicas: i.config.num_replicas });
      }
      for (const c of Object.values(CONSUMERS)) {
        const i = await bus.jsm.consumers.info(c.stream, c.durable);
        out.consumers.push({ stream: c.stream, consumer: c.durable, pending: i.num_pending, ack_pending: i.num_ack_pending, redelivered: i.num_redelivered, delivered: i.delivered.stream_seq, ack_floor: i.ack_floor.stream_seq });
      }
    } finally {
      await close();
    }
    out.tables = await tableCounts(config);
    if (args.flags.json) {
      process.stdout.write(JSON.stringify(out) + '\n');
      return;
    }
    const lines = ['STREAM     MESSAGES    BYTES'];
    for (const s of out.streams as Array<Record<string, number | string>>) lines.push(`${String(s.stream).padEnd(11)}${String(s.messages).padEnd(12)}${s.bytes}`);
    lines.push('', 'CONSUMER        PENDING     ACK_PENDING REDELIVERED');
    for (const c of out.consumers as Array<Record<string, number | string>>)
      lines.push(`${`${c.stream}/${c.consumer}`.padEnd(16)}${String(c.pending).padEnd(12)}${String(c.ack_pending).padEnd(12)}${c.redelivered}`);
    lines.push('', 'TABLE          ROWS');
    if ('error' in out.tables) lines.push(`row counts unavailable: ${out.tables.error}`);
    else for (const [t, n] of Object.entries(out.tables)) lines.push(`${t.padEnd(15)}${n}`);
    process.stdout.write(lines.join('\n') + '\n');
  },
};

async function tableCounts(config: ReturnType<typeof loadConfig>): Promise<Record<string, number> | { error: string }> {
  // the embedded store belongs to the running `tracehouse start`; opening it here would fail
  if (!config.clickhouse.url && managedServerAlive(join(config.dataDir, 'nats'))) {
    return { error: 'the embedded ClickHouse is owned by the running `tracehouse start` (see tracehouse_stream_inserted_rows_total on its /metrics)' };
  }
  let store;
  try {
    store = createStore(config);
    const counts: Record<string, number> = {};
    for (const t of TABLES) {
      const [r] = await store.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.${t}`);
      counts[t] = Number(r?.n ?? 0);
    }
    return counts;
  } catch (err) {
    return { error: String((err as Error)?.message ?? err).split('\n')[0]!.slice(0, 200) };
  } finally {
    await store?.close().catch(() => {});
  }
}
