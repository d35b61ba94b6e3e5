import { createServer, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import v8 from 'node:v8';
import vm from 'node:vm';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, type TestSystem } from '../../helpers/system.js';
import { createIngestApp } from '../../../ingest/app.js';
import { decodeProtoResponse, encodeProtoRequest } from '../../../ingest/otlp/decode-proto.js';
import { kv, logsEnvelope, purge } from './lib.js';
import { mulberry32 } from '../../../core/random.js';

/**
 * Seeded fuzzing of every route through app.callback(): mutated OTLP JSON, protobuf, hook and
 * direct bodies. Every answer must be 200, 400, 413 or 503 with a well-formed body; the process
 * must not crash, and heap after GC must not grow past a generous bound.
 */
const ITERATIONS = Number(process.env.FUZZ_ITERATIONS ?? 5000);
const SEED = Number(process.env.FUZZ_SEED ?? 20260101);

function prng(seed: number) {
  return mulberry32(seed);
}

let ts: TestSystem;
let server: Server;
let url: string;
const crashes: unknown[] = [];
const statuses = new Map<number, number>();
const onCrash = (e: unknown) => crashes.push(e);

test.before(async () => {
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  ts = await startTestSystem({ roles: ['ingest'] });
  const rt = ts.system.rt;
  server = createServer(createIngestApp({ config: rt.config, log: rt.log, metrics: rt.metrics, bus: rt.bus, keys: rt.keys }).callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
test.after(async () => {
  server?.close();
  await ts?.stop({ withNats: true });
});

const ccLog = (i: number) => ({ timeUnixNano: String(1760000000000000000n + BigInt(i)), body: { stringValue: 'claude_code.tool_result' }, traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', attributes: kv({ 'session.id': 's', tool_name: 'Bash', success: 'true', duration_ms: '5', tool_parameters: '{"bash_command":"TOKEN=abc123 ls"}' }) });
const BASES: Array<{ path: string; kind: 'json' | 'proto'; signal?: 'logs' | 'traces' | 'metrics'; body: unknown }> = [
  { path: '/v1/otel/agent-a/logs', kind: 'json', body: logsEnvelope([ccLog(1), ccLog(2)]) },
  { path: '/v1/logs', kind: 'proto', signal: 'logs', body: logsEnvelope([ccLog(3)], { 'service.name': 'codex_cli_rs' }) },
  { path: '/v1/otel/agent-b/traces', kind: 'json', body: { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', name: 'x', startTimeUnixNano: '1', endTimeUnixNano: '2', events: [{ name: 'e' }] }] }] }] } },
  { path: '/v1/traces', kind: 'proto', signal: 'traces', body: { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: Buffer.alloc(16, 3).toString('base64'), spanId: Buffer.alloc(8, 4).toString('base64'), name: 'y' }] }] }] } },
  { path: '/v1/otel/agent-c/metrics', kind: 'json', body: { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'm', sum: { dataPoints: [{ asDouble: 1, attributes: kv({ a: 'b' }) }] } }] }] }] } },
  { path: '/v1/metrics', kind: 'proto', signal: 'metrics', body: { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'm', gauge: { dataPoints: [{ asInt: '5' }] } }] }] }] } },
  { path: '/v1/otel/agent-a/hooks', kind: 'json', body: [{ hook: 'PostToolUse', session_id: 's', tool_name: 'Bash', command: 'ls', tool_output: 'x', error: { type: 't', message: 'm' } }, { hook_event_name: 'Stop' }] },
  { path: '/v1/otel/agent-b/hooks', kind: 'json', body: { hook: 'PreToolUse', timestamp: '2026-01-01T00:00:00Z', approval: { decision: 'allow', source: 'user' }, subagent: { id: 'a', type: 'b' } } },
  { path: '/v1/ingest', kind: 'json', body: { environment: 'staging', events: [{ conversation_id: 'c', role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'tool_use', tool_name: 'x', tool_use_id: 'y', input: {} }] }, { messageType: 'channel', id: 'i', conversationId: 'c', message: 'm', role: 'user' }, { messageType: 'tool_call', id: 't', conversationId: 'c', name: 'n' }] } },
];

const WEIRD: unknown[] = [null, 0, -1, 1e308, 2 ** 64, 'NaN', '', 'x'.repeat(20000), '\u0000\ud800', true, [], {}, [[[[[]]]]], { __proto__: { polluted: 1 } }, { stringValue: 5 }, { intValue: '99999999999999999999999' }, { kvlistValue: [] }, { arrayValue: { values: [{ arrayValue: { values: 'x' } }] } }, '1767225600', 'claude_code.user_prompt', { doubleValue: {} }];

function mutateJson(v: unknown, rnd: () => number, depth = 0): unknown {
  if (rnd() < 0.08 || depth > 8) return WEIRD[Math.floor(rnd() * WEIRD.length)];
  if (Array.isArray(v)) {
    const out = v.map((x) => (rnd() < 0.5 ? mutateJson(x, rnd, depth + 1) : x));
    if (rnd() < 0.1) out.push(WEIRD[Math.floor(rnd() * WEIRD.length)]);
    if (rnd() < 0.1) out.splice(0, 1);
    if (rnd() < 0.05) for (let i = 0; i < 50; i++) out.push(out[0]);
    return out;
  }
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (rnd() < 0.05) continue;
      out[rnd() < 0.03 ? `${k}_x` : k] = rnd() < 0.5 ? mutateJson(x, rnd, depth + 1) : x;
    }
    return out;
  }
  return rnd() < 0.3 ? WEIRD[Math.floor(rnd() * WEIRD.length)] : v;
}

function mutateBytes(buf: Buffer, rnd: () => number): Buffer {
  const b = Buffer.from(buf);
  const op = rnd();
  if (op < 0.3) return b.subarray(0, Math.floor(rnd() * b.length));
  if (op < 0.7) {
    for (let i = 0; i < 1 + rnd() * 8; i++) b[Math.floor(rnd() * b.length)] = Math.floor(rnd() * 256);
    return b;
  }
  const at = Math.floor(rnd() * b.length);
  return Buffer.concat([b.subarray(0, at), Buffer.from(Array.from({ length: 1 + Math.floor(rnd() * 16) }, () => Math.floor(rnd() * 256))), b.subarray(at)]);
}

function makeRequest(rnd: () => number) {
  const base = BASES[Math.floor(rnd() * BASES.length)]!;
  const body = rnd() < 0.85 ? mutateJson(base.body, rnd) : base.body;
  let bytes: Buffer;
  if (base.kind === 'proto') {
    try {
      bytes = encodeProtoRequest(base.signal!, body as object);
    } catch {
      bytes = encodeProtoRequest(base.signal!, base.body as object);
    }
  } else bytes = Buffer.from(JSON.stringify(body) ?? 'null');
  if (rnd() < 0.25) bytes = mutateBytes(bytes, rnd);
  const headers: Record<string, string> = {
    authorization: `Bearer ${ts.adminKey}`,
    'content-type': base.kind === 'proto' ? 'application/x-protobuf' : rnd() < 0.2 ? 'application/json; charset=utf-8' : 'application/json',
  };
  if (rnd() < 0.15) {
    bytes = gzipSync(bytes);
    headers['content-encoding'] = 'gzip';
    if (rnd() < 0.2) bytes = mutateBytes(bytes, rnd);
  }
  return { path: base.path, kind: base.kind, signal: base.signal, headers, bytes };
}

async function send(req: ReturnType<typeof makeRequest>): Promise<string | undefined> {
  const res = await fetch(`${url}${req.path}`, { method: 'POST', headers: req.headers, body: new Uint8Array(req.bytes) });
  const buf = Buffer.from(await res.arrayBuffer());
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  if (![200, 400, 413, 503].includes(res.status)) return `status ${res.status} on ${req.path}: ${buf.toString('utf8').slice(0, 200)}`;
  const type = res.headers.get('content-type') ?? '';
  if (res.status === 200 && req.kind === 'proto') {
    if (type !== 'application/x-protobuf') return `protobuf request answered with ${type}`;
    decodeProtoResponse(req.signal!, buf);
    return undefined;
  }
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(buf.toString('utf8'));
  } catch {
    return `non-JSON ${res.status} body on ${req.path}`;
  }
  if (res.status !== 200) return typeof parsed.error === 'string' && parsed.error ? undefined : `error body without error on ${req.path}`;
  if (req.path.endsWith('hooks')) return typeof parsed.count === 'number' && typeof parsed.malformed === 'number' && typeof parsed.requestId === 'string' ? undefined : 'bad hooks body';
  if (req.path === '/v1/ingest') return Array.isArray(parsed.results) && typeof parsed.count === 'number' ? undefined : 'bad ingest body';
  return parsed.partialSuccess && typeof parsed.partialSuccess === 'object' ? undefined : 'bad OTLP body';
}

test(`${ITERATIONS} seeded mutated bodies: only 200/400/413/503 with well-formed bodies, no crash, no heap growth`, async () => {
  v8.setFlagsFromString('--expose_gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const rnd = prng(SEED);
  const failures: string[] = [];
  const run = async (n: number) => {
    const CONCURRENCY = 8;
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        next++;
        const req = makeRequest(rnd);
        const problem = await send(req).catch((e) => `request failed: ${String(e)}`);
        if (problem && failures.length < 20) failures.push(problem);
      }
    }));
  };
  await run(300); // warm-up: JIT, caches, connection pool
  await purge(ts);
  gc();
  const before = process.memoryUsage().heapUsed;
  const started = Date.now();
  await run(ITERATIONS);
  await purge(ts);
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  console.log(`fuzz: ${ITERATIONS} requests in ${Date.now() - started} ms; heap ${Math.round(before / 1e6)} MB → ${Math.round(after / 1e6)} MB; statuses ${JSON.stringify([...statuses])}`);
  assert.equal(failures, []);
  assert.ok((statuses.get(200) ?? 0) > ITERATIONS / 10 && (statuses.get(400) ?? 0) > ITERATIONS / 20, 'both accepted and rejected bodies');
  assert.equal(crashes, []);
  assert.ok(after - before < 64 * 1024 * 1024, `heap grew by ${Math.round((after - before) / 1e6)} MB`);
});

test.run();
