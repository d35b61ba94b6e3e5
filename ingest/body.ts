import { gunzip, inflate, type InputType } from 'node:zlib';
import { promisify } from 'node:util';
import type { IncomingMessage } from 'node:http';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../core/errors.js';

const gunzipAsync = promisify(gunzip) as (buf: InputType, opts: object) => Promise<Buffer>;
const inflateAsync = promisify(inflate) as (buf: InputType, opts: object) => Promise<Buffer>;

export type BodyEncoding = 'json' | 'protobuf';

/** Content type of an OTLP request; `charset` and other parameters are accepted and ignored (UTF-8). */
export function otlpEncoding(contentType: string | undefined): BodyEncoding {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === '' || type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'application/x-protobuf' || type === 'application/protobuf' || type === 'application/vnd.google.protobuf') return 'protobuf';
  throw new UnsupportedMediaTypeError(`unsupported content type "${type.slice(0, 100)}": send application/json or application/x-protobuf`);
}

/**
 * /v1/ingest takes JSON only: `application/json`, any `+json` type, or no content type at all (as
 * some clients send). `text/plain` and form bodies are refused with 415 rather than parsed anyway.
 */
export function requireJson(contentType: string | undefined): void {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === '' || type === 'application/json' || type.endsWith('+json')) return;
  throw new UnsupportedMediaTypeError(`unsupported content type "${type.slice(0, 100)}": /v1/ingest takes application/json`);
}

/**
 * Reads a request body under `maxBytes`: refused from `Content-Length` before reading, counted
 * while streaming, and counted again after `Content-Encoding: gzip|deflate` (zlib's
 * maxOutputLength stops inflation at the limit, so a small bomb never allocates past it).
 */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    throw new PayloadTooLargeError(maxBytes);
  }
  const encoding = String(req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (!['identity', 'gzip', 'x-gzip', 'deflate', ''].includes(encoding)) {
    req.resume();
    throw new UnsupportedMediaTypeError(`unsupported content encoding "${encoding.slice(0, 40)}": send gzip or identity`);
  }
  const raw = await collect(req, maxBytes);
  if (encoding === 'identity' || encoding === '') return raw;
  return decompress(raw, encoding === 'deflate' ? 'deflate' : 'gzip', maxBytes);
}

function collect(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err: Error | null, value?: Buffer) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (err) reject(err);
      else resolve(value!);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        // keep draining (discarding) so the 413 can still be written on this connection
        req.resume();
        finish(new PayloadTooLargeError(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(null, Buffer.concat(chunks, size));
    const onError = (err: Error) => finish(err);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** Exported for tests: decompresses with a hard output cap; corrupt input is a 400 from the caller. */
export async function decompress(raw: Buffer, kind: 'gzip' | 'deflate', maxBytes: number): Promise<Buffer> {
  try {
    return await (kind === 'gzip' ? gunzipAsync : inflateAsync)(raw, { maxOutputLength: maxBytes });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw new PayloadTooLargeError(maxBytes);
    throw new CorruptBodyError(err);
  }
}

/** A compressed body that does not inflate; routes turn it into their own 400 message. */
export class CorruptBodyError extends Error {
  override name = 'CorruptBodyError';
  constructor(cause: unknown) {
    super('request body is not valid compressed data', { cause });
  }
}

/** Text of a JSON body; a UTF-8 BOM is skipped. */
export function bodyText(buf: Buffer): string {
  const text = buf.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
