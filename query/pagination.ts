import { createHmac, timingSafeEqual } from 'node:crypto';
import { BadRequestError } from '../core/errors.js';

/**
 * The three pagination patterns of spec/data-api.md "Pagination patterns".
 */

/** Pattern 1, limit + offset with an exact `total`. */
export function offsetPage(limit: number, offset: number, total: number) {
  return { limit, offset, total, has_more: offset + limit < total };
}

/**
 * Pattern 2, limit only: fetch `limit + 1` rows; the extra row only tells whether more exist.
 * Returns the rows to send and the pagination block.
 */
export function limitPage<T>(rows: T[], limit: number): { rows: T[]; pagination: { limit: number; returned: number; has_more: boolean } } {
  const page = rows.slice(0, limit);
  return { rows: page, pagination: { limit, returned: page.length, has_more: rows.length > limit } };
}

/**
 * Pattern 3, keyset cursor: an opaque token carrying the sort key of the last row sent. It is
 * signed (HMAC-SHA256, truncated to 128 bits) and bound to a scope (endpoint + resource + tenant),
 * so a cursor that was edited, forged or taken from another endpoint or tenant gives 400.
 * Format: base64url(JSON payload) "." base64url(signature).
 */
export interface CursorCodec {
  encode(scope: string, position: unknown): string;
  /** Throws 400 (`invalid cursor`) on anything not produced by `encode` for this scope. */
  decode<T = unknown>(scope: string, cursor: string): T;
}

const MAX_CURSOR_CHARS = 2048;

export function createCursorCodec(secret: string): CursorCodec {
  if (!secret) throw new Error('cursor secret must not be empty');
  const key = createHmac('sha256', secret).update('tracehouse/data-api/cursor/v1').digest();
  const sign = (payload: string) => createHmac('sha256', key).update(payload).digest().subarray(0, 16);
  const invalid = () => new BadRequestError('invalid cursor: send back the next_cursor of a previous response unchanged', { code: 'invalid_cursor' });
  return {
    encode(scope, position) {
      const payload = Buffer.from(JSON.stringify({ v: 1, s: scope, p: position })).toString('base64url');
      return `${payload}.${sign(payload).toString('base64url')}`;
    },
    decode<T>(scope: string, cursor: string): T {
      if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_CHARS) throw invalid();
      const parts = cursor.split('.');
      if (parts.length !== 2 || !parts[0] || !parts[1]) throw invalid();
      const [payload, sig] = parts as [string, string];
      // compare the text, not decoded bytes: base64 padding bits would let two spellings pass
      const got = Buffer.from(sig);
      const expected = Buffer.from(sign(payload).toString('base64url'));
      if (got.length !== expected.length || !timingSafeEqual(got, expected)) throw invalid();
      let parsed: { v?: unknown; s?: unknown; p?: unknown };
      try {
        parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        throw invalid();
      }
      if (!parsed || parsed.v !== 1 || parsed.s !== scope || parsed.p === undefined) throw invalid();
      return parsed.p as T;
    },
  };
}
