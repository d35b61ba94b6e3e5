import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngineGate, gatedConnection, HOLD_IDLE_MS, STORE_RUN, type Lane } from '../../../core/engine-gate.js';

/** A statement that finishes when the test says so, recording when it started. */
function statement(log: string[], name: string) {
  let finish!: (v: string) => void;
  let fail!: (e: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return {
    fn: () => {
      log.push(name);
      return done;
    },
    finish: () => finish(name),
    fail: (e: Error) => fail(e),
  };
}

const tick = () => new Promise((r) => setImmediate(r));

test('a read submitted behind queued background statements runs as soon as the running one ends', async () => {
  const gate = createEngineGate();
  const started: string[] = [];
  const s = { bg1: statement(started, 'bg1'), bg2: statement(started, 'bg2'), bg3: statement(started, 'bg3'), read: statement(started, 'read') };
  const results = [gate.run('background', s.bg1.fn), gate.run('background', s.bg2.fn), gate.run('background', s.bg3.fn), gate.run('read', s.read.fn)];
  await tick();
  assert.equal(started, ['bg1'], 'one statement at a time');
  assert.equal(gate.waiting(), { read: 1, store: 0, background: 2 });
  s.bg1.finish();
  await tick();
  assert.equal(started, ['bg1', 'read'], 'the read goes before the background statements submitted ahead of it');
  s.read.finish();
  await tick();
  s.bg2.finish();
  await tick();
  s.bg3.finish();
  assert.equal(await Promise.all(results), ['bg1', 'bg2', 'bg3', 'read'], 'every caller gets its own result');
  assert.equal(started, ['bg1', 'read', 'bg2', 'bg3']);
});

test('while both lanes wait they take turns: a steady stream of reads never holds background work for more than one read per statement', async () => {
  const gate = createEngineGate();
  const started: string[] = [];
  const first = statement(started, 'bg0');
  const all: Array<Promise<string>> = [gate.run('background', first.fn)];
  const pending = new Map<string, ReturnType<typeof statement>>();
  for (const name of ['bg1', 'bg2', 'bg3']) {
    const st = statement(started, name);
    pending.set(name, st);
    all.push(gate.run('background', st.fn));
  }
  for (const name of ['r1', 'r2', 'r3', 'r4', 'r5']) {
    const st = statement(started, name);
    pending.set(name, st);
    all.push(gate.run('read', st.fn));
  }
  await tick();
  first.finish();
  // finish whatever runs, one statement at a time, until all have run
  for (let i = 0; i < 8; i++) {
    await tick();
    pending.get(started[started.length - 1]!)!.finish();
  }
  await Promise.all(all);
  assert.equal(started, ['bg0', 'r1', 'bg1', 'r2', 'bg2', 'r3', 'bg3', 'r4', 'r5'], 'a read first, then turns; the reads left run once no background work waits');
});

test('a read arriving while a read runs waits for one background statement at most', async () => {
  const gate = createEngineGate();
  const started: string[] = [];
  const r0 = statement(started, 'r0');
  const p0 = gate.run('read', r0.fn);
  const bg = statement(started, 'bg');
  const pb = gate.run('background', bg.fn);
  const r1 = statement(started, 'r1');
  const p1 = gate.run('read', r1.fn);
  await tick();
  r0.finish();
  await tick();
  assert.equal(started, ['r0', 'bg'], 'the background statement waiting goes after the running read');
  bg.finish();
  await tick();
  assert.equal(started, ['r0', 'bg', 'r1']);
  r1.finish();
  await Promise.all([p0, pb, p1]);
});

/**
 * A gate driven by hand: `submit` queues a named statement in a lane, `finishLast` finishes the
 * statement that started last (the one running), and `started` is the order in which they began.
 */
function harness() {
  const gate = createEngineGate();
  const started: string[] = [];
  const pending = new Map<string, ReturnType<typeof statement>>();
  const all: Array<Promise<string>> = [];
  return {
    started,
    submit(lane: Lane, name: string) {
      const st = statement(started, name);
      pending.set(name, st);
      all.push(gate.run(lane, st.fn));
    },
    async finishLast(times = 1) {
      for (let i = 0; i < times; i++) {
        await tick();
        pending.get(started[started.length - 1]!)!.finish();
      }
    },
    settled: () => Promise.all(all),
  };
}

test('the sink\'s inserts go before background work queued ahead of them, a few in a row at most', async () => {
  const h = harness();
  for (let i = 0; i <= 3; i++) h.submit('background', `bg${i}`);
  const stores = Array.from({ length: STORE_RUN + 2 }, (_, i) => `s${i + 1}`);
  for (const name of stores) h.submit('store', name);
  await h.finishLast(4 + stores.length);
  await h.settled();
  const expected = ['bg0', ...stores.slice(0, STORE_RUN), 'bg1', ...stores.slice(STORE_RUN), 'bg2', 'bg3'];
  assert.equal(h.started, expected, `store statements first, ${STORE_RUN} in a row while background work waits, then one background statement`);
});

test('store statements that ran while no background work waited do not count against the run', async () => {
  const h = harness();
  h.submit('background', 'bg0');
  h.submit('store', 's1');
  h.submit('store', 's2');
  await h.finishLast(2); // bg0 ends: s1 runs, nothing else waits; s1 ends: s2 runs
  await tick();
  assert.equal(h.started, ['bg0', 's1', 's2']);
  // while s2 runs, background work arrives with more inserts than a run
  const later = Array.from({ length: STORE_RUN + 1 }, (_, i) => `s${i + 3}`);
  h.submit('background', 'bg1');
  for (const n of later) h.submit('store', n);
  await h.finishLast(later.length + 2);
  await h.settled();
  assert.equal(h.started, ['bg0', 's1', 's2', ...later.slice(0, STORE_RUN), 'bg1', ...later.slice(STORE_RUN)]);
});

test('reads take turns with store and background statements alike', async () => {
  const h = harness();
  for (const [lane, name] of [['background', 'bg0'], ['background', 'bg1'], ['store', 's1'], ['store', 's2'], ['read', 'r1'], ['read', 'r2'], ['read', 'r3']] as const) h.submit(lane, name);
  await h.finishLast(7);
  await h.settled();
  assert.equal(h.started, ['bg0', 'r1', 's1', 'r2', 's2', 'r3', 'bg1'], 'a read after every other statement; among the others the store lane first');
});

/**
 * A flush as the sink makes it: its tables one after another, each submitted a turn of the event
 * loop after the one before ended (its bytes are written to a file first), under a hold or not.
 * Background statements are queued before it; returns the order statements started in.
 */
async function flushBehindBackground(tables: number, held: boolean): Promise<string[]> {
  const gate = createEngineGate();
  const started: string[] = [];
  const byName = new Map<string, ReturnType<typeof statement>>();
  const submit = (lane: Lane, name: string) => {
    const st = statement(started, name);
    byName.set(name, st);
    return gate.run(lane, st.fn);
  };
  const all = [submit('background', 'bg0'), submit('background', 'bg1'), submit('background', 'bg2')];
  const release = held ? gate.hold() : () => undefined;
  const flush = (async () => {
    for (let t = 1; t <= tables; t++) {
      await tick();
      await submit('store', `t${t}`);
    }
    release();
  })();
  await tick();
  // finish whatever runs, one statement at a time, until every statement has run
  for (let done = 0; done < tables + 3; done++) {
    for (let i = 0; i < 4 && byName.get(started[started.length - 1]!) === undefined; i++) await tick();
    const running = started[started.length - 1]!;
    byName.get(running)!.finish();
    byName.delete(running);
    for (let i = 0; i < 3; i++) await tick();
  }
  await Promise.all([...all, flush]);
  return started;
}

test('a held store lane keeps background work out between a flush\'s tables; without the hold each table waited for one', async () => {
  assert.equal(await flushBehindBackground(3, true), ['bg0', 't1', 't2', 't3', 'bg1', 'bg2'], 'held: the flush\'s tables in a row');
  assert.equal(await flushBehindBackground(3, false), ['bg0', 't1', 'bg1', 't2', 'bg2', 't3'], 'not held: background work between the tables');
});

test('a hold still lets one background statement go after STORE_RUN store statements in a row', async () => {
  const started = await flushBehindBackground(STORE_RUN + 2, true);
  assert.equal(started.slice(0, STORE_RUN + 3), ['bg0', 't1', 't2', 't3', 't4', 'bg1', 't5'].slice(0, STORE_RUN + 3));
  assert.equal(started.length, STORE_RUN + 5);
});

test('under a hold with no store statement coming, background work waits HOLD_IDLE_MS at most; releasing the hold lets it go at once', async () => {
  const gate = createEngineGate();
  const started: string[] = [];
  const release = gate.hold();
  const bg = statement(started, 'bg');
  const t0 = Date.now();
  const p = gate.run('background', bg.fn);
  await tick();
  assert.equal(started, [], 'held: the idle engine waits for the store lane');
  while (started.length === 0 && Date.now() - t0 < 2_000) await new Promise((r) => setTimeout(r, 5));
  assert.equal(started, ['bg']);
  assert.ok(Date.now() - t0 >= HOLD_IDLE_MS - 5, `not before the idle bound (${Date.now() - t0} ms)`);
  bg.finish();
  await p;

  const bg2 = statement(started, 'bg2');
  const p2 = gate.run('background', bg2.fn);
  await tick();
  assert.equal(started, ['bg'], 'the hold is still on: the next background statement waits again');
  release();
  release();
  assert.equal(started, ['bg', 'bg2'], 'released (twice: the second does nothing): it goes at once');
  bg2.finish();
  await p2;
  const bg3 = statement(started, 'bg3');
  const p3 = gate.run('background', bg3.fn);
  assert.equal(started, ['bg', 'bg2', 'bg3'], 'no hold left');
  bg3.finish();
  await p3;
});

test('background statements arriving during a hold\'s idle time do not renew its bound', async () => {
  const gate = createEngineGate();
  const started: string[] = [];
  const release = gate.hold();
  const t0 = Date.now();
  const runs: Array<Promise<string>> = [];
  const statements: Array<ReturnType<typeof statement>> = [];
  // a new background statement every 10 ms, for four times the bound
  while (Date.now() - t0 < 4 * HOLD_IDLE_MS && started.length === 0) {
    const st = statement(started, `bg${statements.length}`);
    statements.push(st);
    runs.push(gate.run('background', st.fn));
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(started, ['bg0'], `the first went once the engine had idled ${HOLD_IDLE_MS} ms (${Date.now() - t0} ms)`);
  release();
  for (const st of statements) st.finish();
  await Promise.all(runs);
});

test('a failing or throwing statement frees the engine for the next one', async () => {
  const gate = createEngineGate();
  const started: string[] = [];
  const a = statement(started, 'a');
  const pa = gate.run('background', a.fn);
  const pThrow = gate.run('read', () => {
    throw new Error('synchronous');
  });
  const b = statement(started, 'b');
  const pb = gate.run('background', b.fn);
  const outcome = (p: Promise<unknown>) => p.then(() => 'resolved', (e: Error) => e.message);
  const [oa, oThrow] = [outcome(pa), outcome(pThrow)];
  a.fail(new Error('engine said no'));
  assert.is(await oa, 'engine said no');
  assert.is(await oThrow, 'synchronous');
  await tick();
  assert.equal(started, ['a', 'b']);
  b.finish();
  assert.is(await pb, 'b');
  assert.equal(gate.waiting(), { read: 0, store: 0, background: 0 });
});

test('thousands of queued statements run in order, one at a time', async () => {
  const gate = createEngineGate();
  let running = 0;
  let most = 0;
  const order: number[] = [];
  const all = Array.from({ length: 5000 }, (_, i) =>
    gate.run('background' as Lane, async () => {
      running++;
      most = Math.max(most, running);
      await Promise.resolve();
      order.push(i);
      running--;
      return i;
    }),
  );
  await Promise.all(all);
  assert.is(most, 1);
  assert.equal(order, Array.from({ length: 5000 }, (_, i) => i));
});

test('a gated connection passes statements through the gate and everything else straight to the connection', async () => {
  const gate = createEngineGate();
  class Conn {
    #secret = 'private state';
    calls: string[] = [];
    async query(x: string) {
      this.calls.push(`query ${x}`);
      return this.#secret;
    }
    close() {
      this.calls.push('close');
      return this.#secret;
    }
  }
  const conn = new Conn();
  const blocker = statement([], 'blocker');
  const pBlock = gate.run('background', blocker.fn);
  const gated = gatedConnection(conn, gate, 'read');
  const q = gated.query('SELECT 1');
  await tick();
  assert.equal(conn.calls, [], 'the statement waits for the one running');
  assert.is(gated.close(), 'private state', 'other members reach the connection bound to it');
  blocker.finish();
  await pBlock;
  assert.is(await q, 'private state');
  assert.equal(conn.calls, ['close', 'query SELECT 1']);
});

test.run();
