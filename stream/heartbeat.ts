import type { JsMsg } from '@nats-io/jetstream';
import type { Logger } from '../core/log.js';

/**
 * Progress heartbeats (`working`) for the messages a consumer holds, so that its ack wait does not
 * redeliver a message that is only waiting (being decoded, in the sink's buffer, in a long insert,
 * a held analysis job). Checked every half period: a message first seen by a check is sent one a
 * period later, then every period, so it goes at most two periods without a sign of life (two
 * thirds of the ack wait when the period is a third of it), and one done within a period — the
 * usual case — costs no heartbeat at all.
 */
export function startHeartbeats(held: () => Iterable<JsMsg>, periodMs: number, log: Logger, what: string): { stop(): void } {
  /** When each message was first seen, then last sent a heartbeat. */
  const touched = new WeakMap<JsMsg, number>();
  const timer = setInterval(() => {
    const now = Date.now();
    let failed = 0;
    for (const m of held()) {
      const last = touched.get(m);
      if (last === undefined) touched.set(m, now);
      else if (now - last >= periodMs) {
        try {
          m.working();
          touched.set(m, now);
        } catch {
          failed++;
        }
      }
    }
    // a closed connection: the server redelivers these messages after the ack wait anyway
    if (failed) log.warn({ failed }, `progress heartbeats of ${what} could not be sent`);
  }, Math.max(1, Math.floor(periodMs / 2)));
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
