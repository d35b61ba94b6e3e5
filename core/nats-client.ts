/**
 * Two changes to how the NATS client behaves on the hot path, applied to its classes: an answered
 * request is released without building an error (on import), and a connection's commands of one
 * turn of the event loop leave in one socket write (`coalesceWrites`, per connection). Both leave a
 * client version without the members they patch as it is; the tests count errors and writes.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { RequestOne } from '@nats-io/nats-core/internal';

/**
 * A request that got its answer is cancelled by the client to release its timer and its slot, and
 * that cancel builds a `RequestError("cancelled")` (a stack capture) only to reject a promise that
 * is already settled: 6% of the edge's CPU with one event per request (a KV read and a publish).
 * After the answer, the cancel below releases the same timer and slot without the error; a cancel
 * before the answer (a timeout, a failed send, a closed connection) is the client's own.
 */
const ANSWERED = Symbol('answered');
type Request = { [ANSWERED]?: boolean; timer?: { cancel(): void }; mux: { cancel(r: unknown): void } };
function skipSettledRequestErrors(): void {
  const proto = RequestOne.prototype as unknown as Request & { resolver(err: unknown, msg: unknown): void; cancel(err?: Error): void; [ANSWERED]?: boolean };
  // another client version without these methods is left as it is (the test counts the errors)
  if (Object.hasOwn(proto, ANSWERED) || typeof proto.resolver !== 'function' || typeof proto.cancel !== 'function') return;
  const resolver = proto.resolver;
  const cancel = proto.cancel;
  Object.defineProperty(proto, ANSWERED, { value: false, writable: true });
  proto.resolver = function (this: Request, err: unknown, msg: unknown) {
    this[ANSWERED] = true;
    resolver.call(this, err, msg);
  };
  proto.cancel = function (this: Request, err?: Error) {
    if (err !== undefined || !this[ANSWERED]) return cancel.call(this, err);
    this.timer?.cancel();
    this.mux.cancel(this);
  };
}
skipSettledRequestErrors();

/**
 * The client writes its pending commands to the socket at the end of each microtask checkpoint, so
 * every HTTP request's publish, every ack and every pull went out in a write of its own: a syscall
 * each, and on loopback the server's side of the delivery too. The transport's socket is corked at
 * its first write in a turn of the event loop and uncorked in that turn's check phase
 * (`setImmediate`), so the commands of every callback of the turn leave in one `writev`. Nothing
 * waits longer than the rest of the turn it was written in; a reconnection's new socket is corked
 * the same way (the transport's class is patched, once). Measured (bench/probe.js at 8,000
 * events/s, two alternating pairs): the main thread 82.7 · 79.2 → 75.6 · 74.0 µs of CPU per event,
 * the whole process 309 · 302 → 289 · 277, the NATS server 18.3 · 18.3 → 15.5 · 16.7.
 */
const CORKED = Symbol('corked');
type Transport = { socket?: { cork(): void; uncork(): void }; send(frame: Uint8Array): void; [CORKED]?: boolean };
export function coalesceWrites(nc: NatsConnection): void {
  const transport = (nc as unknown as { protocol?: { transport?: Transport } }).protocol?.transport;
  const proto = transport && (Object.getPrototypeOf(transport) as Transport);
  // another client version without these members is left as it is (the test counts the writes)
  if (!proto || Object.hasOwn(proto, CORKED) || typeof proto.send !== 'function') return;
  const send = proto.send;
  Object.defineProperty(proto, CORKED, { value: false, writable: true });
  proto.send = function (this: Transport, frame: Uint8Array) {
    const socket = this.socket;
    if (socket && !this[CORKED]) {
      this[CORKED] = true;
      socket.cork();
      setImmediate(() => {
        this[CORKED] = false;
        socket.uncork();
      });
    }
    send.call(this, frame);
  };
}
