import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, eventually, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { startStream } from '../../../stream/main.js';
import { joined } from '../../../core/bytes.js';

// The embedded engine runs one statement at a time. The sink's inserts of accepted rows go in the
// gate's store lane (core/engine-gate.ts), ahead of the analyses' and jobs' statements: an event
// accepted while background work is queued is stored after the statement already running, not
// after the whole queue; the sink holds its lane for a flush, so its later tables follow at once.
let ts: TestSystem;
let stream: Awaited<ReturnType<typeof startStream>>;
/** When the sink handed the insert of a conversation's `messages` row to the store (ms since the epoch). */
const submitted = new Map<string, number>();
const watched = new Set<string>();

test.before(async () => {
  ts = await startTestSystem({ roles: ['ingest'], openStore: true });
  stream = await startStream(ts.system.rt, {
    wrapInsert: (insert) => async (table, block, settings) => {
      if (table === 'messages') for (const c of watched) if (!submitted.has(c) && joined(block.body).includes(c)) submitted.set(c, Date.now());
      return insert(table, block, settings);
    },
  });
});
test.after(async () => {
  await stream?.close();
  await ts?.stop({ withNats: true });
});

const post = (conversation: string) =>
  http(`${ts.ingestUrl}/v1/ingest`, {
    headers: { authorization: `Bearer ${ts.adminKey}` },
    body: { events: [{ conversation_id: conversation, role: 'user', message: 'hello', timestamp: new Date().toISOString() }] },
  });

/** When the conversation's row of `table` was inserted (the engine's clock, ms since the epoch), once it is. */
async function insertedAt(conversation: string, table: 'messages' | 'events' = 'messages'): Promise<number | undefined> {
  const [r] = await ts.system.rt.store.query<{ at: string }>(
    `SELECT toUnixTimestamp64Milli(min(inserted_at)) AS at FROM {{db}}.${table} WHERE tenant_id = 'default' AND conversation_id = {c:String} HAVING count() > 0`,
    { c: conversation },
  );
  return r ? Number(r.at) : undefined;
}

test('an event accepted behind queued background statements is stored right after the one running, every table of its flush', async () => {
  // a first event: the stream is warm and every table has been inserted into once
  assert.is((await post('lane-warm')).status, 200);
  assert.ok(await eventually(() => insertedAt('lane-warm')), 'the warm-up event is stored');

  // The scenario needs the event's insert to reach the engine's gate while the first background
  // statement still runs; on a machine loaded by other work the event's way there (edge, bus,
  // decoding, the sink's 50 ms flush interval) can take longer, and then it is run again with
  // longer statements instead of judging the gate on a scenario that did not happen.
  for (const secondsPerRow of [0.5, 1, 2]) {
    const conversation = `lane-${secondsPerRow}`;
    watched.add(conversation);
    // four background statements of four rows each, queued at once
    const finished: number[] = [];
    const slow = () => ts.system.rt.store.query(`SELECT sleepEachRow(${secondsPerRow}) AS s FROM numbers(4) SETTINGS max_block_size = 1`);
    const background = [0, 1, 2, 3].map((i) => slow().then(() => (finished[i] = Date.now())));
    const r = await post(conversation);
    assert.is(r.status, 200, JSON.stringify(r.body));
    await Promise.all(background);
    const at = await eventually(() => insertedAt(conversation));
    assert.ok(at, 'the event is stored');
    const handed = submitted.get(conversation);
    assert.ok(handed, 'the sink inserted the event');
    if (handed! >= finished[0]!) {
      console.log(`  (the event reached the gate ${handed! - finished[0]!} ms after the first ${4 * secondsPerRow} s statement ended: run again with longer statements)`);
      continue;
    }
    // in the background lane its insert would have waited for all four statements
    assert.ok(at! < finished[1]!, `stored at +${at! - finished[0]!} ms after the first statement ended, before the second did (+${finished[1]! - finished[0]!} ms)`);
    // the flush's last table (\`events\`, inserted once \`messages\` is) too: the sink holds its lane
    // for the flush, so no background statement goes between its tables
    const last = await insertedAt(conversation, 'events');
    assert.ok(last! < finished[1]!, `the event's events row stored at +${last! - finished[0]!} ms, before the second statement ended (+${finished[1]! - finished[0]!} ms)`);
    return;
  }
  assert.unreachable('the event never reached the gate while the first statement ran, even with 8 s statements');
});

test.run();
