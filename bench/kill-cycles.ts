/**
 * `node dist/bench/kill-cycles.js [--cycles 5] [--load-ms 4000] [--clients 4] [--rate 40] [--json]`: kill -9
 * cycles of the all-in-one process group under steady load (bench/lib/kill-cycles.ts). Prints one
 * line per cycle and the totals; exits 1 when an acknowledged event was lost or duplicated, INGEST
 * kept a message, anything was dead-lettered (the test asserts none), or the events acknowledged
 * before a kill took more than 5 s after the restart to show.
 */
import { runKillCycles } from './lib/kill-cycles.js';

const args = process.argv.slice(2);
const flag = (name: string, def: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const VISIBLE_WITHIN_MS = 5000;
const report = await runKillCycles({
  cycles: flag('cycles', 5),
  loadMs: flag('load-ms', 4000),
  clients: flag('clients', 4),
  requestsPerSecond: flag('rate', 40),
  log: (line) => process.stderr.write(`[kill-cycles] ${line}\n`),
});
if (args.includes('--json')) process.stdout.write(JSON.stringify(report) + '\n');
else {
  const worst = Math.max(...report.cycles.map((c) => (c.visibleAfterReadyMs < 0 ? Infinity : c.visibleAfterReadyMs)));
  process.stdout.write(
    `${report.cycles.length} kill -9 cycles in ${report.seconds} s: ${report.acknowledgedEvents} events acknowledged, ` +
      `${report.lost} lost, ${report.duplicated} duplicated (${report.physicalDuplicateRows} physical duplicate rows before merges), ` +
      `INGEST ${report.ingestMessages} messages (${report.orphans} orphans), ${report.deadLetters} dead letters; ` +
      `visible at most ${worst} ms after ready (restart ${report.cycles.map((c) => c.restartMs).join('/')} ms)\n`,
  );
}
const slow = report.cycles.some((c) => c.visibleAfterReadyMs < 0 || c.visibleAfterReadyMs > VISIBLE_WITHIN_MS);
process.exitCode = report.lost || report.duplicated || report.ingestMessages || report.deadLetters || slow ? 1 : 0;
