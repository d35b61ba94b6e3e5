/**
 * The bus client's requests after `skipSettledRequestErrors` (core/nats-client.ts): an answered request
 * builds no "cancelled" error and releases its slot; a timeout, a failed send and a closed
 * connection still reject as the client makes them. And its writes after `coalesceWrites`: the
 * commands of one turn of the event loop leave in one write, each delivered, in order, also after
 * a reconnection.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { connectBus, type Bus } from '../../../core/nats.js';
import { startNats, type TestNats } from '../../helpers/nats.js';

// the client's own errors module (its internal request code reads `RequestError` from it per call)
const errorsModule = createRequire(import.meta.url)(join(dirname(createRequire(import.meta.url).resolve('@nats-io/nats-core')), 'errors.js')) as {
  RequestError: new (message?: string, options?: ErrorOptions) => Error;
};

let nats: TestNats;
let bus: Bus;
test.before(async () => {
  nats = await startNats();
  bus = await connectBus(nats.url);
  bus.nc.subscribe('echo', {
    callback: (_err, m) => {
      m.respond(m.data);
    },
  });
});
test.after(async () => {
  await bus?.close();
  await nats?.stop();
});

/** Open requests of the connection (the client's request table). */
const openRequests = (b: Bus) => (b.nc as unknown as { protocol: { muxSubscriptions: { reqs: Map<string, unknown> } } }).protocol.muxSubscriptions.reqs.size;

/** Runs `fn` counting the `RequestError`s the client constructs, by message. */
async function countingRequestErrors(fn: () => Promise<void>): Promise<Record<string, number>> {
  const Original = errorsModule.RequestError;
  const seen: Record<string, number> = {};
  errorsModule.RequestError = class extends Original {
    constructor(message?: string, options?: ErrorOptions) {
      super(message, options);
      seen[message ?? ''] = (seen[message ?? ''] ?? 0) + 1;
    }
  };
  try {
    await fn();
  } finally {
    errorsModule.RequestError = Original;
  }
  return seen;
}

test('answered requests resolve with their answers, build no error and leave no open request', async () => {
  const seen = await countingRequestErrors(async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => bus.nc.request('echo', `m${i}`, { timeout: 2_000 })));
    assert.equal(answers.map((m) => m.string()), Array.from({ length: 50 }, (_, i) => `m${i}`));
  });
  assert.equal(seen, {});
  assert.is(openRequests(bus), 0);
  // the JetStream calls of the system (publishes, KV reads, stream info) are such requests
  const seenJs = await countingRequestErrors(async () => {
    const info = await bus.jsm.getAccountInfo();
    assert.ok(info.limits, 'an account answer');
  });
  assert.equal(seenJs, {});
});

test('a request nobody answers in time still rejects with the timeout and releases its slot', async () => {
  bus.nc.subscribe('silent', { callback: () => {} });
  const err = await bus.nc.request('silent', 'x', { timeout: 150 }).then(
    () => undefined,
    (e: Error) => e,
  );
  assert.ok(err, 'rejected');
  assert.is(err!.name, 'TimeoutError');
  assert.is(openRequests(bus), 0);
});

test('requests in flight when the connection closes reject; so does a request without responders', async () => {
  const other = await connectBus(nats.url);
  other.nc.subscribe('slow', { callback: () => {} });
  const none = await other.nc.request('no-one-listens', 'x', { timeout: 1_000 }).then(
    () => 'answered',
    (e: Error) => e.name,
  );
  assert.is(none, 'RequestError', 'no responders');
  const pending = other.nc.request('slow', 'x', { timeout: 5_000 }).then(
    () => 'answered',
    (e: Error) => e.name,
  );
  await other.close();
  assert.ok(['RequestError', 'ClosedConnectionError'].includes(await pending), 'closing rejects what is open');
});

/** Counts the socket writes (syscalls: `_write` or `_writev`) of a connection's current socket. */
function countingWrites(b: Bus): { count(): number; stop(): void } {
  const socket = (b.nc as unknown as { protocol: { transport: { socket: Record<string, unknown> } } }).protocol.transport.socket;
  let n = 0;
  const originals = ['_write', '_writev'].map((name) => [name, socket[name]] as const);
  for (const [name, fn] of originals) {
    if (typeof fn !== 'function') continue;
    socket[name] = function (this: unknown, ...args: unknown[]) {
      n++;
      return (fn as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
  return { count: () => n, stop: () => originals.forEach(([name, fn]) => (socket[name] = fn)) };
}

/** Publishes `n` messages on `subject`, each from its own callback of the same turn of the event loop. */
function publishInOneTurn(b: Bus, subject: string, n: number, tag: string): Promise<void> {
  return new Promise((resolve) => {
    for (let i = 0; i < n; i++) {
      setImmediate(() => {
        b.nc.publish(subject, `${tag}${i}`);
        if (i === n - 1) setImmediate(resolve);
      });
    }
  });
}

test('the publishes of one turn of the event loop leave in one write, each delivered in order, also after a reconnection', async () => {
  const publisher = await connectBus(nats.url);
  const reader = await connectBus(nats.url);
  const got: string[] = [];
  reader.nc.subscribe('coalesced', {
    callback: (_err, m) => {
      got.push(m.string());
    },
  });
  await reader.nc.flush();
  const want = (tag: string) => Array.from({ length: 20 }, (_, i) => `${tag}${i}`);
  const until = async (n: number) => {
    for (let i = 0; i < 200 && got.length < n; i++) await new Promise((r) => setTimeout(r, 10));
  };

  const writes = countingWrites(publisher);
  await publishInOneTurn(publisher, 'coalesced', 20, 'a');
  writes.stop();
  assert.is(writes.count(), 1, `20 publishes from 20 callbacks of one turn: ${writes.count()} writes`);
  await until(20);
  assert.equal(got, want('a'));

  // a restarted server: the client's new socket is corked the same way
  const connected = (b: Bus) => (b.nc as unknown as { protocol: { connected: boolean } }).protocol.connected;
  const waitFor = async (ok: () => boolean, what: string) => {
    for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(ok(), what);
  };
  await nats.stop();
  await waitFor(() => !connected(publisher) && !connected(reader), 'both clients saw the server go');
  await nats.restart();
  await waitFor(() => connected(publisher) && connected(reader), 'both clients reconnected');
  await reader.nc.flush();
  const again = countingWrites(publisher);
  await publishInOneTurn(publisher, 'coalesced', 20, 'b');
  again.stop();
  assert.is(again.count(), 1, `after the reconnection: ${again.count()} writes`);
  await until(40);
  assert.equal(got, [...want('a'), ...want('b')]);
  await publisher.close();
  await reader.close();
});

test.run();
