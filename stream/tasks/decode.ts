/** Piscina task: one INGEST message body in, rows out (or the reason it is poison). Pure. */
import { decodeMessage, type DecodeResult } from '../batch.js';

export default function decode(input: { data: Uint8Array }): DecodeResult {
  return decodeMessage(input.data);
}
