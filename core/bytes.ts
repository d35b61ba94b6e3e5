/** A Buffer over the same memory as a byte view (no copy): bytes moved from a worker, a message's body. */
export const bufferOf = (view: Uint8Array): Buffer => Buffer.from(view.buffer, view.byteOffset, view.byteLength);

/**
 * Bytes as one view or as parts in order (views into the memory they were made in): a body that is
 * written to a file with one gathering write, never copied into a buffer of its own first.
 */
export type ByteParts = Uint8Array | readonly Uint8Array[];

export const isPartList = (b: ByteParts): b is readonly Uint8Array[] => Array.isArray(b);

export function partsLength(b: ByteParts): number {
  if (!isPartList(b)) return b.byteLength;
  let n = 0;
  for (const p of b) n += p.byteLength;
  return n;
}

/** The bytes as one Buffer: the view itself (no copy), or the parts concatenated. */
export const joined = (b: ByteParts): Buffer => (isPartList(b) ? (b.length === 1 ? bufferOf(b[0]!) : Buffer.concat(b)) : bufferOf(b));

/**
 * The parts of `b` after its first `skip` bytes (views, no copy): what is left to write after a
 * short write.
 */
export function partsAfter(b: readonly Uint8Array[], skip: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let left = skip;
  for (const p of b) {
    if (left >= p.byteLength) {
      left -= p.byteLength;
      continue;
    }
    out.push(left ? p.subarray(left) : p);
    left = 0;
  }
  return out;
}
