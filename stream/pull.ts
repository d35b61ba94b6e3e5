/**
 * What both durable consumers of the stream role share: finding the consumer (it may not exist
 * yet while another process declares the topology), and the pull loop that fetches only as many
 * messages as there is room for and otherwise waits until work completes.
 */
import type { Consumer, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import type { Logger } from '../core/log.js';
import { backoffDelay, sleep } from '../core/retry.js';

const FETCH_EXPIRES_MS = 1000;
/** Longest wait for room before the loop looks again (work may complete without a wake). */
const ROOM_POLL_MS = 200;

/** A wait that ends on `wake()` (work completed, stop requested) or after ROOM_POLL_MS. */
export interface RoomSignal {
  wait(): Promise<void>;
  wake(): void;
}

export function createRoomSignal(): RoomSignal {
  let wake: (() => void) | undefined;
  return {
    wait: () =>
      new Promise<void>((resolve) => {
        wake = () => {
          wake = undefined;
          resolve();
        };
        setTimeout(() => wake?.(), ROOM_POLL_MS).unref();
      }),
    wake: () => wake?.(),
  };
}

/** The durable consumer, retried with backoff until it exists or `stopped()`. */
export async function getConsumer(js: JetStreamClient, stream: string, durable: string, log: Logger, stopped: () => boolean): Promise<Consumer | undefined> {
  for (let attempt = 1; !stopped(); attempt++) {
    try {
      return await js.consumers.get(stream, durable);
    } catch (err) {
      log.warn({ err: (err as Error)?.message, attempt, durable }, 'consumer not available yet: retrying');
      await sleep(backoffDelay(attempt, 200, 5000));
    }
  }
  return undefined;
}

export interface PullLoopOptions {
  consumer: Consumer;
  /** Messages that may be fetched now. */
  room(): number;
  /**
   * Fewest messages worth a fetch (default 1): with less room the loop waits for work to complete
   * (a wake or the poll) instead of fetching a few messages per round trip.
   */
  minRoom?: number;
  signal: RoomSignal;
  onMessage(m: JsMsg): void;
  stopped(): boolean;
  log: Logger;
}

/** Pulls until stopped; a failed fetch (server restart, leader change) is retried after 250 ms. */
export async function pullLoop(opts: PullLoopOptions): Promise<void> {
  while (!opts.stopped()) {
    const room = opts.room();
    if (room < Math.max(1, opts.minRoom ?? 1)) {
      await opts.signal.wait();
      continue;
    }
    try {
      const iter = await opts.consumer.fetch({ max_messages: room, expires: FETCH_EXPIRES_MS });
      for await (const m of iter) opts.onMessage(m);
    } catch (err) {
      if (opts.stopped()) break;
      opts.log.warn({ err: (err as Error)?.message }, 'fetch failed: retrying');
      await sleep(250);
    }
  }
}
