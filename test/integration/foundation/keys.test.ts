import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Writable } from 'node:stream';
import { connectBus, declareTopology, type Bus } from '../../../core/nats.js';
import { createKeyStore, type KeyStore } from '../../../core/keys.js';
import { KV_BUCKETS } from '../../../schemas/subjects.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { runCli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tmp.js';
import { startTestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';

let nats: TestNats;
let bus: Bus;
let keys: KeyStore;
const SECRET = 'unit-secret-0123456789abcdef';

test.before(async () => {
  nats = await startNats();
  bus = await connectBus(nats.url);
  await declareTopology(bus, { replicas: 1, maxDeliver: 5, ackWaitMs: 30_000 });
  keys = createKeyStore(await bus.kv(KV_BUCKETS.keys.name), SECRET);
});
test.after(async () => {
  await bus?.close();
  await nats?.stop();
});

async function bucketDump(): Promise<string> {
  const kv = await bus.kv(KV_BUCKETS.keys.name);
  let all = '';
  for await (const k of await kv.keys()) {
    const e = await kv.get(k);
    all += `${k}=${e?.string() ?? ''}\n`;
  }
  return all;
}

test('a minted key authenticates with its tenant, role and scopes', async () => {
  const { key, record } = await keys.create({ tenant: 'acme', role: 'member', scopes: ['ingest'] });
  assert.match(key, /^th\./);
  const p = await keys.authenticate(key, { scope: 'ingest' });
  assert.equal(p, { keyId: record.id, tenant: 'acme', role: 'member', scopes: ['ingest'] });
});

test('a key without the needed scope is refused with 403', async () => {
  const { key } = await keys.create({ tenant: 'acme', role: 'member', scopes: ['ingest'] });
  try {
    await keys.authenticate(key, { scope: 'read' });
    assert.unreachable();
  } catch (err) {
    assert.is((err as { status: number }).status, 403);
  }
});

test('the secret is stored only as a hash: it never appears in the KV bucket', async () => {
  const { key } = await keys.create({ tenant: 'hashy', role: 'admin' });
  const dump = await bucketDump();
  assert.not.ok(dump.includes(key));
  assert.not.ok(dump.includes(key.split('.')[2]!), 'random part of the key must not be stored');
  assert.ok(dump.includes('"tenant":"hashy"'));
});

test('a forged signature, an unknown key and a tampered tenant are 401', async () => {
  const { key } = await keys.create({ tenant: 'acme', role: 'member' });
  const parts = key.split('.');
  const forged = [parts[0], Buffer.from('evil').toString('base64url'), parts[2], parts[3]].join('.');
  for (const bad of [forged, key.slice(0, -2) + 'xx', 'th.a.b.c', 'not-a-key-at-all-123']) {
    try {
      await keys.authenticate(bad);
      assert.unreachable(bad);
    } catch (err) {
      assert.is((err as { status: number }).status, 401, bad);
    }
  }
  try {
    await keys.authenticate(undefined);
    assert.unreachable();
  } catch (err) {
    assert.match((err as Error).message, /required/);
  }
});

test('revocation takes effect on the next request', async () => {
  const { key, record } = await keys.create({ tenant: 'acme', role: 'member' });
  await keys.authenticate(key);
  assert.ok(await keys.revoke(record.id));
  try {
    await keys.authenticate(key);
    assert.unreachable();
  } catch (err) {
    assert.is((err as { status: number }).status, 401);
    assert.match((err as Error).message, /revoked/);
  }
  assert.not.ok(await keys.revoke('ffffffffffff'));
});

/** The key store over the real bucket, with its record reads counted and, on request, the next one held. */
async function observedStore() {
  const real = await bus.kv(KV_BUCKETS.keys.name);
  const seen = { gets: 0, hold: undefined as undefined | { sent: () => void; release: Promise<void> } };
  const kv = new Proxy(real, {
    get(target, prop, receiver) {
      if (prop !== 'get') return Reflect.get(target, prop, receiver);
      return async (k: string) => {
        seen.gets++;
        const answer = target.get(k);
        const hold = seen.hold;
        seen.hold = undefined;
        if (hold) {
          hold.sent();
          await hold.release;
        }
        return answer;
      };
    },
  });
  return { store: createKeyStore(kv, SECRET), seen };
}

test('requests of one turn share one read of the key record; a later request reads again', async () => {
  const { store, seen } = await observedStore();
  const { key } = await keys.create({ tenant: 'burst', role: 'member' });
  const all = await Promise.all(Array.from({ length: 20 }, () => store.authenticate(key, { scope: 'ingest' })));
  assert.ok(all.every((p) => p.tenant === 'burst'));
  assert.is(seen.gets, 1, 'one read for twenty requests that arrived together');
  await store.authenticate(key);
  assert.is(seen.gets, 2, 'a request of a later turn sends its own read');
});

test('a read already sent is never shared: a revocation between two requests refuses the second', async () => {
  const { store, seen } = await observedStore();
  const { key, record } = await keys.create({ tenant: 'race', role: 'member' });
  let release!: () => void;
  const sent = new Promise<void>((resolve) => {
    seen.hold = { sent: resolve, release: new Promise<void>((r) => (release = r)) };
  });
  const first = store.authenticate(key);
  await sent; // the first request's read has left, its answer held back
  assert.ok(await keys.revoke(record.id));
  // a store that joined the held read would wait for it: let it go after a while, so that such a
  // store fails this test instead of hanging it
  const timer = setTimeout(release, 2_000);
  const second = await store.authenticate(key).then(
    () => 'accepted',
    (err: { code?: string }) => err.code,
  );
  assert.is(second, 'key_revoked');
  clearTimeout(timer);
  release();
  assert.is((await first).tenant, 'race', 'the first request was read before the revocation');
  assert.is(seen.gets, 2);
});

test('an unsigned legacy key resolves through the store and must match a tenant given separately', async () => {
  assert.ok(await keys.register('legacy-key-abcdefghijklmnop', { tenant: 'old', role: 'member' }));
  assert.not.ok(await keys.register('legacy-key-abcdefghijklmnop', { tenant: 'old', role: 'member' }), 'registering twice is refused');
  assert.is((await keys.authenticate('legacy-key-abcdefghijklmnop', { tenant: 'old' })).tenant, 'old');
  for (const opts of [{ tenant: 'other' }, { requireTenantForLegacy: true }]) {
    try {
      await keys.authenticate('legacy-key-abcdefghijklmnop', opts);
      assert.unreachable();
    } catch (err) {
      assert.is((err as { status: number }).status, 401);
    }
  }
});

test('CLI: keys create prints the key once, list shows it without the secret, revoke disables it', async () => {
  const env = { NATS_URL: nats.url, TRACEHOUSE_SECRET: SECRET, DATA_DIR: tempDir() };
  const created = await runCli(['keys', 'create', '--tenant', 'cli-t', '--role', 'admin', '--scope', 'read', '--json'], env);
  assert.is(created.code, 0, created.stderr);
  const { key, id, scopes } = JSON.parse(created.stdout);
  assert.equal(scopes, ['read']);
  const listed = await runCli(['keys', 'list', '--tenant', 'cli-t'], env);
  assert.is(listed.code, 0, listed.stderr);
  assert.ok(listed.stdout.includes(id));
  assert.not.ok(listed.stdout.includes(key));
  assert.is((await keys.authenticate(key)).tenant, 'cli-t');
  const revoked = await runCli(['keys', 'revoke', id], env);
  assert.is(revoked.code, 0, revoked.stderr);
  await assert_rejects(() => keys.authenticate(key));
  const bad = await runCli(['keys', 'create', '--tenant', 'x', '--role', 'root'], env);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /--role must be member or admin/);
  const help = await runCli(['keys', '--help'], env);
  assert.is(help.code, 0);
  assert.match(help.stdout, /keys create --tenant T --role member\|admin/);
});

async function assert_rejects(fn: () => Promise<unknown>) {
  try {
    await fn();
  } catch {
    return;
  }
  assert.unreachable('expected a rejection');
}

test('bootstrap key: registered as admin of tenant default on an empty store; keys never reach the logs', async () => {
  const lines: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  const own = await startNats();
  const bootstrap = 'bootstrap-known-key-0123456789';
  const ts = await startTestSystem({ nats: own, logStream, env: { TRACEHOUSE_BOOTSTRAP_KEY: bootstrap, LOG_LEVEL: 'debug' } });
  try {
    const p = await ts.system.rt.keys.authenticate(bootstrap);
    assert.equal([p.tenant, p.role], ['default', 'admin']);
    const r = await http(`${ts.queryUrl}/api/v1/data/whoami`, { headers: { 'x-api-key': bootstrap, 'x-request-id': 'trace-me-42' } });
    assert.is(r.status, 200);
    const denied = await http(`${ts.queryUrl}/api/v1/data/whoami`, { headers: { 'x-api-key': 'wrong-key-0123456789', 'x-request-id': 'trace-me-43' } });
    assert.is(denied.status, 401);
    assert.is(r.body.tenant, 'default');
    const minted = await ts.system.rt.keys.create({ tenant: 'logged', role: 'member' });
    await http(`${ts.queryUrl}/api/v1/data/whoami`, { headers: { 'x-api-key': minted.key } });
    await http(`${ts.queryUrl}/api/v1/data/whoami`, { headers: { 'x-api-key': minted.key + 'x' } });
    // a second bootstrap attempt on a non-empty store does nothing
    assert.equal(await ts.system.rt.keys.bootstrap('another-bootstrap-key-xyz123'), { kind: 'none' });
  } finally {
    await ts.stop({ withNats: true });
  }
  const log = lines.join('');
  for (const id of ['trace-me-42', 'trace-me-43']) {
    const tagged = lines.filter((l) => l.includes(id));
    assert.ok(tagged.length >= 1, `log lines of request ${id}`);
    for (const l of tagged) assert.is(JSON.parse(l).requestId, id, 'the request id is a field of every line of that request');
  }
  assert.ok(log.includes('request'), 'debug logging captured');
  assert.not.ok(log.includes(bootstrap));
  assert.not.match(log, /th\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{20,}\./, 'no minted key in the logs');
});

test.run();
