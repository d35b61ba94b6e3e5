/**
 * The embedded engine behind ClickHouse's HTTP interface, in its own process (one process may own
 * one data directory): the server-side path of `@clickhouse/client` talks to it as to a server.
 * What it speaks: `GET /ping`; `GET|POST /?query=…` with the statement in the `query` parameter
 * (then the body is the data of an INSERT) or as the body; `param_<name>` query parameters bound
 * by the engine; every other URL parameter that is not a protocol option is a setting of that
 * request only; gzip request bodies and responses (`enable_http_compression`); errors as the
 * server sends them (status 500, `Code: N. DB::Exception: …` body, `X-ClickHouse-Exception-Code`);
 * `X-ClickHouse-Summary` on every answer; `FORMAT Native` bodies (binary). Requests run one at a
 * time on one session.
 * Prints `port <n>` when listening. argv[2]: data directory.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { gunzipSync, gzipSync } from 'node:zlib';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'chdb';

const session = new Session(process.argv[2]);
const spool = mkdtempSync(join(tmpdir(), 'ch-http-'));
let spooled = 0;
const PROTOCOL = new Set(['query', 'database', 'query_id', 'session_id', 'session_timeout', 'session_check', 'default_format', 'user', 'password', 'role', 'enable_http_compression', 'wait_end_of_query', 'send_progress_in_http_headers', 'http_headers_progress_interval_ms']);
/** Each setting's value before any request touched it: restored after every request that set it. */
const baseline = new Map<string, string>();

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  const raw = Buffer.concat(parts);
  return req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
}

const quote = (v: string) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * A binary INSERT body (`… FORMAT Native`) cannot follow the statement as text: the engine reads
 * it from a file instead, as a server reads it from the request.
 */
function binaryInsert(inUrl: string, body: Buffer): string | undefined {
  const m = /^(INSERT INTO [^]*?)\s+FORMAT\s+Native\s*$/i.exec(inUrl);
  if (!m || !body.length) return undefined;
  const file = join(spool, `${process.pid}-${++spooled}.native`);
  writeFileSync(file, body);
  return `${m[1]} SELECT * FROM file(${quote(file)}, 'Native')`;
}

async function run(url: URL, body: Buffer): Promise<{ bytes: Uint8Array; rows: number }> {
  const inUrl = url.searchParams.get('query');
  const binary = inUrl !== null ? binaryInsert(inUrl, body) : undefined;
  const sql = binary ?? (inUrl !== null ? (body.length ? `${inUrl}\n${body.toString('utf8')}` : inUrl) : body.toString('utf8'));
  const params: Record<string, string> = {};
  const settings: Array<[string, string]> = [];
  for (const [k, v] of url.searchParams) {
    if (k.startsWith('param_')) params[k.slice(6)] = v;
    else if (!PROTOCOL.has(k)) settings.push([k, v]);
  }
  for (const [k] of settings) {
    if (baseline.has(k)) continue;
    const r = await session.queryBindAsync('SELECT value FROM system.settings WHERE name = {n:String}', { n: k }, { format: 'JSONEachRow' });
    const row = r.text().trim();
    if (!row) throw new Error(`Code: 115. DB::Exception: Setting ${k} is neither a builtin setting nor started with the prefix 'custom_'. (UNKNOWN_SETTING)`);
    baseline.set(k, (JSON.parse(row) as { value: string }).value);
  }
  const prefix = settings.map(([k, v]) => `SET ${k} = ${quote(v)}; `).join('');
  try {
    const r = Object.keys(params).length ? await session.queryBindAsync(prefix + sql, params, {}) : await session.queryAsync(prefix + sql, {});
    return { bytes: r.bytes(), rows: r.rowsRead };
  } finally {
    if (settings.length) await session.queryAsync(settings.map(([k]) => `SET ${k} = ${quote(baseline.get(k)!)}`).join('; '), {});
  }
}

let chain: Promise<unknown> = Promise.resolve();
const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.pathname === '/ping') {
    res.end('Ok.\n');
    return;
  }
  const work = chain.then(async () => {
    const body = await readBody(req);
    try {
      const out = await run(url, body);
      const summary = JSON.stringify({ read_rows: String(out.rows), read_bytes: '0', written_rows: '0', written_bytes: '0', total_rows_to_read: '0', result_rows: '0', result_bytes: '0', elapsed_ns: '0' });
      const gzip = url.searchParams.get('enable_http_compression') === '1' && /gzip/.test(String(req.headers['accept-encoding'] ?? ''));
      const payload = gzip ? gzipSync(out.bytes) : Buffer.from(out.bytes);
      res.writeHead(200, { 'content-type': 'text/plain; charset=UTF-8', 'x-clickhouse-summary': summary, ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
      res.end(payload);
    } catch (err) {
      const msg = String((err as Error)?.message ?? err);
      const code = /Code: (\d+)/.exec(msg)?.[1] ?? '1000';
      res.writeHead(500, { 'content-type': 'text/plain; charset=UTF-8', 'x-clickhouse-exception-code': code });
      res.end(msg.startsWith('Code:') ? `${msg}\n` : `Code: ${code}. DB::Exception: ${msg}\n`);
    }
  });
  chain = work.catch(() => undefined);
});
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  process.stdout.write(`port ${typeof a === 'object' && a ? a.port : 0}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  session.close();
  rmSync(spool, { recursive: true, force: true });
  process.exit(0);
});
