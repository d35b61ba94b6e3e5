/**
 * A backlog is stored in inserts cut by size (docs/stream.md "The sink", "A backlog fills the
 * buffer"): messages waiting on INGEST when the stream role starts are delivered with JetStream's
 * count of those still behind them, and while that count fills the buffer by itself the sink cuts
 * it by its row limit rather than by the flush interval or the quiet rule. Real nats-server and
 * chDB; the decoder is slowed (one message at a time, 5 ms each) so that, without the rule, the interval would cut
 * the backlog into many small inserts. Every event is stored once either way.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Config } from '../../../core/config.js';
import type { Runtime } from '../../../core/runtime.js';
import { startStream } from '../../../stream/main.js';
import type { InsertFn } from '../../../stream/sink.js';
import { TABLES } from '../../../stream/rows.js';
import { batchOf, conversationEvents, publishBatch } from '../../helpers/events.js';
import { eventually, startTestSystem, type TestSystem } from '../../helpers/system.js';
import { sleep } from './helpers.js';

let ts: TestSystem;

test.before(async () => {
  ts = await startTestSystem({ roles: ['query'], env: { ANALYZE_DEBOUNCE_MS: '600000', JOB_INTERVAL_MS: '3600000' } });
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

const rtWith = (stream: Partial<Config['stream']>): Runtime => {
  const rt = ts.system.rt;
  return Object.create(rt, { config: { value: { ...rt.config, stream: { ...rt.config.stream, ...stream } } } }) as Runtime;
};

async function storedEvents(prefix: string): Promise<{ rows: number; distinct: number }> {
  const [r] = await ts.system.rt.store.query<{ rows: string; distinct: string }>(
    `SELECT toString(count()) AS rows, toString(uniqExact(event_id)) AS distinct FROM {{db}}.events WHERE tenant_id = 'default' AND startsWith(conversation_id, {prefix:String})`,
    { prefix },
  );
  return { rows: Number(r?.rows ?? 0), distinct: Number(r?.distinct ?? 0) };
}

test('a backlog waiting when the role starts is inserted in batches cut by their row limit, each event once', async () => {
  // 20 messages of 7 rows: filled in about 100 ms of decoding, well inside the backlog's age bound
  // (8 intervals, 480 ms) even on a busy machine, while the 60 ms interval alone would cut at about 12
  const MAX_ROWS = 140;
  const eventsInserts: number[] = [];
  /** Rows of every table per flush (a flush inserts `events` last: stream/rows.ts TABLES). */
  const flushes: number[] = [];
  let flushRows = 0;
  const stream = await startStream(rtWith({ maxBatchRows: MAX_ROWS, flushIntervalMs: 60, quietMs: 5 }), {
    paused: true,
    wrapInsert: (insert: InsertFn): InsertFn => async (table, block, settings) => {
      await insert(table, block, settings);
      flushRows += block.rows;
      if (table === TABLES[TABLES.length - 1]) {
        eventsInserts.push(block.rows);
        flushes.push(flushRows);
        flushRows = 0;
      }
    },
    // one message at a time, 5 ms each: rows reach the sink at a steady trickle, as from a slow decoder
    wrapDecoder: (decoder) => {
      let queue: Promise<unknown> = Promise.resolve();
      return {
        room: () => decoder.room(),
        decode: (data) => {
          const next = queue.then(() => sleep(5)).then(() => decoder.decode(data));
          queue = next.catch(() => undefined);
          return next;
        },
      };
    },
  });
  try {
    let events = 0;
    for (let i = 0; i < 80; i++) {
      const batch = batchOf(conversationEvents(`backlog-${i}`, 2));
      events += batch.events.length;
      await publishBatch(ts.system.rt.bus.js, batch);
    }
    stream.resume();
    const done = await eventually(async () => ((await storedEvents('backlog-')).rows >= events ? true : undefined), { timeoutMs: 30_000, intervalMs: 100 });
    assert.ok(done, `stored ${(await storedEvents('backlog-')).rows} of ${events} events`);
    await sleep(200);
    const stored = await storedEvents('backlog-');
    assert.equal(stored, { rows: events, distinct: events }, 'every event stored once');
    const inserted = eventsInserts.reduce((a, b) => a + b, 0);
    assert.is(inserted, events);
    // a size cut takes the message that reaches the limit: a batch cut by size holds at least MAX_ROWS
    // rows; only the end of the backlog (too little behind it to fill a buffer) is cut by time
    const bySize = flushes.filter((rows) => rows >= MAX_ROWS).length;
    assert.ok(bySize >= 3 && bySize >= flushes.length - 2, `rows per flush ${flushes.join(', ')}: the backlog went in batches cut by size, not by the 60 ms interval`);
  } finally {
    await stream.close();
  }
});

test.run();
