import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';

// The embedded engine runs one statement at a time; while reads and background statements both
// wait they take turns (core/engine-gate.ts): a read does not wait for the whole background queue,
// and reads that keep coming never hold background work for more than one read per statement.
let ts: TestSystem;

test.before(async () => {
  ts = await startTestSystem({ roles: ['query'] });
});
test.after(() => ts.stop({ withNats: true }));

/** A background statement that holds the engine for about 300 ms. */
const slow = () => ts.system.rt.store.query('SELECT sleepEachRow(0.1) AS s FROM numbers(3) SETTINGS max_block_size = 1');

/** Resolves to the order in which the labelled promises settled. */
async function settleOrder(entries: Array<[string, Promise<unknown>]>): Promise<string[]> {
  const order: string[] = [];
  await Promise.all(entries.map(([name, p]) => p.then(() => order.push(name))));
  return order;
}

test('a store read submitted behind three slow background statements finishes right after the first', async () => {
  const store = ts.system.rt.store;
  const order = await settleOrder([
    ['bg1', slow()],
    ['bg2', slow()],
    ['bg3', slow()],
    ['read', store.reads().query('SELECT 1 AS one')],
    ['background read', store.query('SELECT 1 AS one')],
  ]);
  assert.equal(order, ['bg1', 'read', 'bg2', 'bg3', 'background read']);
});

test('a data API request waits for the running background statement only, not for those queued before it', async () => {
  const t0 = Date.now();
  const bg = [slow(), slow(), slow()];
  const done = bg.map((p) => p.then(() => Date.now() - t0));
  // let the three statements reach the gate first
  await new Promise((r) => setImmediate(r));
  const r = await http(`${ts.queryUrl}/api/v1/data/conversations?time_range=24h`, { headers: { 'x-api-key': ts.adminKey } });
  const answered = Date.now() - t0;
  assert.is(r.status, 200, JSON.stringify(r.body));
  const [first, second] = await Promise.all(done);
  assert.ok(answered >= first! - 5, `the request ran after the statement already running (answered ${answered} ms, first done ${first} ms)`);
  assert.ok(answered < second!, `the request was answered (${answered} ms) before the second queued statement finished (${second} ms)`);
});

test('reads polling without pause hold each background statement for one read at most', async () => {
  const store = ts.system.rt.store;
  const order: string[] = [];
  let done = false;
  const poller = async () => {
    while (!done) {
      await store.reads().query('SELECT sleepEachRow(0.05) AS s FROM numbers(1)');
      order.push('read');
    }
  };
  const pollers = [poller(), poller(), poller(), poller()];
  // let the pollers queue their reads first
  await new Promise((r) => setTimeout(r, 20));
  const bg = [1, 2, 3].map((i) => slow().then(() => order.push(`bg${i}`)));
  await Promise.all(bg);
  done = true;
  await Promise.all(pollers);
  const from = order.indexOf('bg1');
  const between = (a: string, b: string) => order.slice(order.indexOf(a) + 1, order.indexOf(b)).length;
  assert.ok(from >= 0, order.join(' '));
  assert.is(between('bg1', 'bg2'), 1, order.join(' '));
  assert.is(between('bg2', 'bg3'), 1, order.join(' '));
});

test.run();
