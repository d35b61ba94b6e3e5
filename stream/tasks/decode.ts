/** Piscina task: INGEST message bodies in, each one's rows out (or the reason it is poison). Pure. */
import { decodeMessage, type DecodeResult } from '../batch.js';
import type { DecodeFailure } from '../decode-groups.js';
import { movedResult } from './moved.js';
import { describeError } from '../../core/errors.js';
import { parentPort, threadId } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';

/** What a decode thread did in one task, posted to the pool (`stream_decoded_messages_total`, `stream_decode_busy_seconds_total`). */
export interface DecodeStats {
  decodeStats: { thread: number; messages: number; seconds: number };
}

/** One message's result; a throw fails that message only, not the others of the task. */
function decodeOne(data: Uint8Array): DecodeResult | DecodeFailure {
  try {
    return decodeMessage(data);
  } catch (err) {
    return { kind: 'failed', error: describeError(err) };
  }
}

/**
 * One result per message, in order (stream/decode-groups.ts). The rows' bytes go back to the main
 * thread moved, not copied: every chunk's data and lengths have buffers of their own
 * (stream/native.ts, stream/row-bytes.ts), so none is shared or detached under another chunk.
 */
export default function decode(input: { messages: Uint8Array[] }): Array<DecodeResult | DecodeFailure> {
  const started = performance.now();
  const results = input.messages.map(decodeOne);
  const buffers: ArrayBuffer[] = [];
  for (const r of results) {
    if (r.kind !== 'ok') continue;
    for (const chunks of Object.values(r.output.tables)) {
      for (const c of chunks ?? []) {
        buffers.push(c.data.buffer as ArrayBuffer);
        if (c.lens) buffers.push(c.lens.buffer as ArrayBuffer);
      }
    }
  }
  const stats: DecodeStats = { decodeStats: { thread: threadId, messages: results.length, seconds: (performance.now() - started) / 1000 } };
  parentPort?.postMessage(stats);
  return movedResult(results, buffers);
}
