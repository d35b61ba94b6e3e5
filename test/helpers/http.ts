import { gzipSync } from 'node:zlib';

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** fetch with JSON handling; body objects are sent as JSON, Buffers as given. */
export async function http<T = any>(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: unknown; gzip?: boolean } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: BodyInit | undefined;
  if (opts.body !== undefined) {
    if (Buffer.isBuffer(opts.body) || typeof opts.body === 'string') body = opts.body as BodyInit;
    else {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    if (opts.gzip) {
      body = gzipSync(Buffer.from(body as string | Buffer));
      headers['content-encoding'] = 'gzip';
    }
  }
  const res = await fetch(url, { method: opts.method ?? (body !== undefined ? 'POST' : 'GET'), headers, body });
  const text = Buffer.from(await res.arrayBuffer()).toString('utf8');
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep text
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}
