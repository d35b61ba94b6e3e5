/**
 * A request/reply service of a running role over NATS, for commands that must not open the store
 * themselves (the embedded engine is locked to the process that runs it): replicas answer as one
 * queue group, so one request gets one reply — the JSON of the answer, or `{error}` with the
 * first line of what went wrong.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from './log.js';

export function startResponder(nc: NatsConnection, subject: string, queue: string, answer: (request: string) => Promise<unknown>, log: Logger): { stop(): void } {
  const sub: Subscription = nc.subscribe(subject, {
    queue,
    callback: (err, msg) => {
      if (err) {
        log.warn({ err, subject }, 'responder subscription failed');
        return;
      }
      Promise.resolve()
        .then(() => answer(msg.string()))
        .then(
          (result) => msg.respond(JSON.stringify(result)),
          (e: unknown) => {
            log.warn({ err: e, subject }, 'request failed');
            msg.respond(JSON.stringify({ error: String((e as Error)?.message ?? e).split('\n')[0] }));
          },
        );
    },
  });
  return { stop: () => sub.unsubscribe() };
}
