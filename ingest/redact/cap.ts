/** spec/ingestion.md Limits, in bytes of UTF-8. */
export const LIMITS = {
  promptBytes: 8 * 1024,
  commandBytes: 4096,
  errorBytes: 2048,
} as const;

export interface Capped {
  text: string;
  truncated: boolean;
}

/**
 * Cuts `text` to at most `maxBytes` UTF-8 bytes without splitting a character (the cut backs off
 * to the start of a multi-byte sequence). Pure.
 */
export function capBytes(text: string, maxBytes: number): Capped {
  // fast path: every UTF-16 unit is at most 3 UTF-8 bytes
  if (text.length * 3 <= maxBytes) return { text, truncated: false };
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return { text, truncated: false };
  let end = maxBytes;
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return { text: buf.subarray(0, end).toString('utf8'), truncated: true };
}
