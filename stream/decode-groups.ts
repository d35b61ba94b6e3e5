/**
 * Decode tasks that carry several messages. A task costs the pool 35–50 µs of CPU whatever its
 * size (the hand-over both ways, the worker's wake-up); the bench's messages carry about 30 events,
 * but a producer that posts one hook event per request makes one message per event. The messages
 * that arrive in one turn of the event loop (one fetch's worth, typically) go to the pool as one
 * task, up to `maxMessages` or `maxBytes`; each message still gets its own result, so a poison
 * message is dead-lettered alone, a message whose decoding throws fails alone (the task catches
 * per message), and a task that fails as a whole (the worker died) fails only the messages it
 * carried.
 */
import type { DecodeResult } from './batch.js';
import type { Decoder } from './store-consumer.js';

/** A message whose decoding threw: transient as far as the consumer knows (redelivered, then dead-lettered). */
export interface DecodeFailure {
  kind: 'failed';
  error: string;
}

export interface GroupedDecoderOptions {
  /** One task: the messages' bytes in, one result per message out, in the same order. */
  run(messages: Uint8Array[]): Promise<Array<DecodeResult | DecodeFailure>>;
  /** Messages the decoder may hold at once (handed over and not answered yet). */
  capacity: number;
  /** Messages per task. Default 32. */
  maxMessages?: number;
  /** Bytes per task: a larger group is cut there. Default 1 MiB. */
  maxBytes?: number;
  /**
   * How long a group waits for more messages before it leaves short of `maxMessages`: a task costs
   * the same for one message as for thirty, and a producer of one event per request sends the
   * stream one message at a time. 0: the group leaves at the end of the turn (`setImmediate`).
   */
  gatherMs?: number;
  /** Runs a function when the group is due (tests); by default after `gatherMs` or at the turn's end. */
  defer?: (fn: () => void) => void;
}

interface Waiting {
  data: Uint8Array;
  resolve(r: DecodeResult): void;
  reject(err: unknown): void;
}

export function createGroupedDecoder(opts: GroupedDecoderOptions): Decoder {
  const maxMessages = opts.maxMessages ?? 32;
  const maxBytes = opts.maxBytes ?? 1024 * 1024;
  const gatherMs = opts.gatherMs ?? 0;
  const defer = opts.defer ?? (gatherMs > 0 ? (fn: () => void) => void setTimeout(fn, gatherMs) : (fn: () => void) => void setImmediate(fn));
  let group: Waiting[] = [];
  let bytes = 0;
  let deferred = false;
  let held = 0;

  const dispatch = () => {
    const sent = group;
    group = [];
    bytes = 0;
    if (sent.length === 0) return;
    let task: ReturnType<GroupedDecoderOptions['run']>;
    try {
      task = opts.run(sent.map((w) => w.data));
    } catch (err) {
      // a runner that throws at once (a pool already closed) fails the group like a failed task
      task = Promise.reject(err);
    }
    task.then(
      (results) => {
        sent.forEach((w, i) => {
          held--;
          const r = results[i];
          if (!r) w.reject(new Error(`decode task answered ${results.length} of ${sent.length} messages`));
          else if (r.kind === 'failed') w.reject(new Error(r.error));
          else w.resolve(r);
        });
      },
      (err: unknown) => {
        for (const w of sent) {
          held--;
          w.reject(err);
        }
      },
    );
  };
  const dispatchDeferred = () => {
    deferred = false;
    dispatch();
  };

  return {
    decode(data) {
      held++;
      return new Promise<DecodeResult>((resolve, reject) => {
        group.push({ data, resolve, reject });
        bytes += data.byteLength;
        if (group.length >= maxMessages || bytes >= maxBytes) dispatch();
        else if (!deferred) {
          deferred = true;
          defer(dispatchDeferred);
        }
      });
    },
    room: () => opts.capacity - held,
  };
}
