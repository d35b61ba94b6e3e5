/**
 * Issue 17 "Must show": five kill -9 cycles of the all-in-one process group (`tracehouse start`:
 * managed nats-server, embedded ClickHouse, every role) under a steady load. Nothing acknowledged
 * is lost or stored twice, INGEST is empty at the end (no message stranded below the ack floor),
 * and the events acknowledged just before each kill show in the data API after the restart. The
 * seconds are printed, not asserted (timings depend on the machine; `bench/kill-cycles.ts` holds
 * them to 5 s).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runKillCycles } from '../../../bench/lib/kill-cycles.js';

test('five kill -9 cycles under steady load: 0 lost, 0 duplicated, visible again after each restart, INGEST empty', async () => {
  const r = await runKillCycles({ cycles: Number(process.env.KILL_CYCLES ?? 5), loadMs: 1500, requestsPerSecond: 30, log: (l) => console.log(`  ${l}`) });
  console.log(
    `  ${r.acknowledgedEvents} events acknowledged in ${r.seconds} s; lost ${r.lost}, duplicated ${r.duplicated}, physical duplicate rows ${r.physicalDuplicateRows}, ` +
      `INGEST ${r.ingestMessages} (${r.orphans} orphans), dead letters ${r.deadLetters}; visible after ready (ms): ${r.cycles.map((c) => c.visibleAfterReadyMs).join(', ')}`,
  );
  assert.ok(r.acknowledgedEvents > 0);
  assert.ok(r.cycles.every((c) => c.probed > 0), 'load was acknowledged before every kill');
  assert.is(r.lost, 0, 'every acknowledged event stored');
  assert.is(r.duplicated, 0, 'no event stored twice');
  assert.is(r.ingestMessages, 0, 'INGEST empty: no message left below the ack floor');
  assert.is(r.orphans, 0);
  assert.is(r.deadLetters, 0);
  assert.ok(r.cycles.every((c) => c.visibleAfterReadyMs >= 0), 'the events acknowledged before every kill became visible');
});

test.run();
