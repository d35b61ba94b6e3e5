import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { KvConflictError, KvExistsError, kvCompareAndSet, kvCreate, kvCreateIfAbsent, kvUpdate } from '../../../core/kv.js';
import { acquireLease, renewLease, withLease } from '../../../core/lease.js';
import { startNats, type TestNats } from '../../helpers/nats.js';

let nats: TestNats;
let kv: KV;
let close: () => Promise<void>;

test.before(async () => {
  nats = await startNats();
  const nc = await connect({ servers: nats.url });
  kv = await new Kvm(jetstream(nc)).create('t_kv', { history: 1 });
  close = async () => {
    await nc.close();
    await nats.stop();
  };
});
test.after(() => close());

test('create refuses an existing key with KvExistsError; update at a stale revision with KvConflictError', async () => {
  const r1 = await kvCreate(kv, 'a', 'one');
  const err = await kvCreate(kv, 'a', 'two').catch((e) => e);
  assert.instance(err, KvExistsError);
  assert.is((err as KvExistsError).key, 'a');
  const r2 = await kvUpdate(kv, 'a', 'two', r1);
  const stale = await kvUpdate(kv, 'a', 'three', r1).catch((e) => e);
  assert.instance(stale, KvConflictError);
  assert.is((await kv.get('a'))!.string(), 'two');
  assert.ok(r2 > r1);
});

test('create-if-absent returns the first value to every caller', async () => {
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => kvCreateIfAbsent(kv, 'secret', `v${i}`)));
  assert.is(results.filter((r) => r.created).length, 1);
  assert.is(new Set(results.map((r) => r.value)).size, 1);
});

test('compare-and-set: ten concurrent increments all land', async () => {
  await Promise.all(Array.from({ length: 10 }, () => kvCompareAndSet<{ n: number }>(kv, 'counter', (c) => ({ n: (c?.n ?? 0) + 1 }), 50)));
  assert.equal((await kv.get('counter'))!.json(), { n: 10 });
});

test('a lease has one holder; an expired lease can be taken over; the old holder cannot renew it', async () => {
  const now = Date.now();
  const a = await acquireLease(kv, 'job.x', 'a', 1000, now);
  assert.ok(a);
  assert.is(await acquireLease(kv, 'job.x', 'b', 1000, now + 10), undefined);
  const b = await acquireLease(kv, 'job.x', 'b', 1000, now + 2000);
  assert.ok(b);
  const lost = await renewLease(kv, a!, 1000).catch((e) => e);
  assert.instance(lost, KvConflictError);
});

test('withLease: concurrent runners never overlap, and the lease is released after the work', async () => {
  let active = 0;
  let maxActive = 0;
  let ran = 0;
  const work = async () => {
    active++;
    maxActive = Math.max(maxActive, active);
    await new Promise((r) => setTimeout(r, 50));
    active--;
    ran++;
  };
  const outcomes = await Promise.all(['r1', 'r2', 'r3', 'r4'].map((h) => withLease(kv, 'job.y', h, 5000, work)));
  assert.is(maxActive, 1);
  assert.is(outcomes.filter((o) => o.ran).length, ran);
  assert.ok(ran >= 1);
  // released: the next runner takes it at once
  assert.ok((await withLease(kv, 'job.y', 'r5', 5000, async () => 1)).ran);
});

test('withLease renews a lease that outlives its ttl and aborts the work when it is taken over', async () => {
  const held = await withLease(kv, 'job.z', 'slow', 300, async (signal) => {
    await new Promise((r) => setTimeout(r, 700)); // > ttl: only renewals keep it
    return signal.aborted;
  });
  assert.equal(held, { ran: true, value: false });
  let lost = false;
  const out = await withLease(
    kv,
    'job.w',
    'victim',
    300,
    async (signal) => {
      // someone forcibly rewrites the lease (e.g. after a long pause of this holder)
      const e = await kv.get('job.w');
      await kv.update('job.w', JSON.stringify({ holder: 'thief', until: Date.now() + 60_000 }), e!.revision);
      await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
      return signal.aborted;
    },
    (what) => (lost ||= what === 'lost'),
  );
  assert.equal(out, { ran: true, value: true });
  assert.ok(lost);
  assert.is(JSON.parse((await kv.get('job.w'))!.string()).holder, 'thief');
});

test.run();
