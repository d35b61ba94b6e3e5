import { loadConfig } from '../../core/config.js';
import { flagString, UsageError } from '../args.js';
import type { Command } from '../command.js';

export const dlqCommand: Command = {
  name: 'dlq',
  summary: 'List and replay dead-lettered messages',
  usage: `Usage:
  tracehouse dlq list [--limit N] [--json]
  tracehouse dlq replay <seq>... | --all

Messages that could never be processed (poison) or kept failing (max deliveries), and single
events ClickHouse refused (rejected: the dead letter holds that one event; its neighbours were
stored) are moved to the DLQ stream (subjects dlq.<stream>.<consumer>) with the reason in headers. list shows them oldest first. replay publishes each back to its original subject (under
a new Nats-Msg-Id) and removes it from the DLQ; stored rows stay exactly-once because every table
is keyed by event or message id. Fix the cause first (e.g. upgrade), or a replayed message comes back.`,
  booleans: ['json', 'all'],
  async run(args) {
    const { openBus } = await import('../../core/runtime.js');
    const { listDeadLetters, replayDeadLetter } = await import('../../stream/dlq.js');
    const sub = args.positionals[0];
    if (sub !== 'list' && sub !== 'replay') throw new UsageError('expected list or replay');
    const config = loadConfig();
    const { bus, close } = await openBus(config);
    try {
      if (sub === 'list') {
        const limit = Number(flagString(args, 'limit') ?? 1000);
        if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive integer');
        const list = await listDeadLetters(bus.jsm, { limit });
        if (args.flags.json) {
          process.stdout.write(JSON.stringify(list.map(({ data, ...d }) => d)) + '\n');
          return;
        }
        if (list.length === 0) {
          process.stdout.write('no dead letters\n');
          return;
        }
        process.stdout.write(`${'SEQ'.padEnd(8)}${'TIME'.padEnd(26)}${'REASON'.padEnd(13)}${'DELIV'.padEnd(7)}${'BYTES'.padEnd(9)}${'SUBJECT'.padEnd(28)}ERROR\n`);
        for (const d of list) {
          process.stdout.write(
            `${String(d.seq).padEnd(8)}${d.time.padEnd(26)}${d.reason.padEnd(13)}${String(d.deliveries).padEnd(7)}${String(d.bytes).padEnd(9)}${d.originalSubject.padEnd(28)}${d.eventId ? `event ${d.eventId}: ` : ''}${d.error.slice(0, 120)}\n`,
          );
        }
        return;
      }
      const all = args.flags.all === true;
      const seqs = args.positionals.slice(1).map(Number);
      if (!all && (seqs.length === 0 || seqs.some((s) => !Number.isInteger(s) || s < 1))) throw new UsageError('give DLQ sequence numbers (see `dlq list`) or --all');
      const list = await listDeadLetters(bus.jsm, { limit: 1_000_000 });
      const chosen = all ? list : list.filter((d) => seqs.includes(d.seq));
      const missing = all ? [] : seqs.filter((s) => !chosen.some((d) => d.seq === s));
      for (const d of chosen) await replayDeadLetter(bus.js, bus.jsm, d);
      process.stdout.write(`replayed ${chosen.length} message${chosen.length === 1 ? '' : 's'}\n`);
      if (missing.length) {
        process.stderr.write(`not in the DLQ: ${missing.join(', ')}\n`);
        return 1;
      }
    } finally {
      await close();
    }
  },
};
