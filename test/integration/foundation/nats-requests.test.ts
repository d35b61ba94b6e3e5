/**
 * The bus client's requests after `skipSettledRequestErrors` (core/nats.ts): an answered request
 * builds no "cancelled" error and releases its slot; a timeout, a failed send and a closed
 * connection still reject as the client makes them.
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

test.run();
