import type { AppContext } from '../core/http.js';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../core/errors.js';

/**
 * Reads a JSON request body as a stream with a byte cap (refused on Content-Length before reading,
 * and again while streaming). A missing Content-Type is read as JSON; any other type gives 415.
 */
export async function readJsonBody(ctx: AppContext, maxBytes: number): Promise<unknown> {
  const type = ctx.get('content-type');
  if (type && !/^application\/(?:[\w.+-]*\+)?json\b/i.test(type)) throw new UnsupportedMediaTypeError('body must be application/json');
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > maxBytes) throw new PayloadTooLargeError(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new PayloadTooLargeError(maxBytes);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) throw new BadRequestError('body must be a JSON object', { details: ['body must be a JSON object'] });
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BadRequestError('body is not valid JSON', { details: ['body is not valid JSON'] });
  }
}
