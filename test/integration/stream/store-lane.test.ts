import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, eventually, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { startStream } from '../../../stream/main.js';

// The embedded engine runs one statement at a time. The sink's inserts of accepted rows go in the
// gate's store lane (core/engine-gate.ts), ahead of the analyses' and jobs' statements: an event
// accepted while background work is queued is stored after the statement already running, not
// after the whole queue.
let ts: TestSystem;
let stream: Awaited<ReturnType<typeof startStream>>;

test.before(async () => {
  ts = await startTestSystem({ roles: ['ingest'], openStore: true });
  stream = await startStream(ts.system.rt);
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

/** When the conversation's message row was inserted (the engine's clock, ms since the epoch), once it is. */
async function insertedAt(conversation: string): Promise<number | undefined> {
  const [r] = await ts.system.rt.store.query<{ at: string }>(
    "SELECT toUnixTimestamp64Milli(min(inserted_at)) AS at FROM {{db}}.messages WHERE tenant_id = 'default' AND conversation_id = {c:String} HAVING count() > 0",
    { c: conversation },
  );
  return r ? Number(r.at) : undefined;
}

test('an event accepted behind queued background statements is stored right after the one running', async () => {
  // a first event: the stream is warm and every table has been inserted into once
  assert.is((await post('lane-warm')).status, 200);
  assert.ok(await eventually(() => insertedAt('lane-warm')), 'the warm-up event is stored');

  // four background statements of about two seconds each, queued at once
  const finished: number[] = [];
  const slow = () => ts.system.rt.store.query('SELECT sleepEachRow(0.5) AS s FROM numbers(4) SETTINGS max_block_size = 1');
  const background = [0, 1, 2, 3].map((i) => slow().then(() => (finished[i] = Date.now())));
  const r = await post('lane-1');
  assert.is(r.status, 200, JSON.stringify(r.body));
  await Promise.all(background);
  const at = await eventually(() => insertedAt('lane-1'));
  assert.ok(at, 'the event is stored');
  // the sink's flush was cut within the first statement (the tests' flush interval is 50 ms); in the
  // background lane its insert would have waited for all four statements
  assert.ok(at! < finished[1]!, `stored at +${at! - finished[0]!} ms after the first statement ended, before the second did (+${finished[1]! - finished[0]!} ms)`);
});

test.run();
