/** A Buffer over the same memory as a byte view (no copy): bytes moved from a worker, a message's body. */
export const bufferOf = (view: Uint8Array): Buffer => Buffer.from(view.buffer, view.byteOffset, view.byteLength);
