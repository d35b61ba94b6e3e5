/** Piscina task: INGEST message bodies in, each one's rows out (or the reason it is poison). Pure. */
import { decodeMessage, type DecodeResult } from '../batch.js';
import type { DecodeFailure } from '../decode-groups.js';
import { movedResult } from './moved.js';
import { describeError } from '../../core/errors.js';

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
  return movedResult(results, buffers);
}
