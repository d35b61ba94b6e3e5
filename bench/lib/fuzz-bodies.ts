/**
 * Seeded hostile request bodies for the whole-pipeline fuzz (bench/lib/pipeline-fuzz.ts): each is a
 * realistic base body of its route, mutated in structure and filled with what stores and parsers
 * choke on — lone surrogates and invalid UTF-8, deep nesting, huge numbers, odd timestamps, NUL
 * bytes — then sometimes damaged as bytes. Deterministic for a seed.
 */
import { encodeProtoRequest, type Signal } from '../../ingest/otlp/decode-proto.js';

export type Rng = () => number;

/** mulberry32: small, fast, good enough for test data. */
export function prng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rnd: Rng, list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;

/** The fuzzed routes: every route that stores events, and metrics. */
export const FUZZ_ROUTES = ['ingest', 'hooks', 'logs', 'traces', 'metrics'] as const;
export type FuzzRoute = (typeof FUZZ_ROUTES)[number];

export interface FuzzRequest {
  route: FuzzRoute;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

const HUGE_NUMBERS: unknown[] = [1e308, -1e308, 2 ** 64, -(2 ** 63), 9007199254740993, 5e-324, -0, 1.5, -1, 123456789012345678901234567890];
const ODD_TIMES: unknown[] = [
  '0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '2300-01-01T00:00:00Z', '1899-12-31T23:59:59Z', '1900-01-01T00:00:00Z',
  '2299-12-31T23:59:59.999Z', '1970-01-01T00:00:00Z', '2024-02-30T00:00:00Z', '2025-06-01T10:00:00+14:00', '2025-06-01 10:00',
  'yesterday', '', 1e20, -5, 0, 1767225600, 1767225600000, '1767225600', '17672256000000000', 'NaN',
];
const ODD_NANOS: unknown[] = ['0', '18446744073709551615', '99999999999999999999', '-1', 'abc', 1e30, '1767225600000000000', 1767225600000000000, '4102444800000000000', '7258118400000000000'];
/** Text the store refuses or parsers mishandle; `\u{...}` pairs are fine and must stay. */
const ODD_TEXT: string[] = [
  'lone \ud800 high', 'lone \udfff low', 'reversed \udc00\ud800', 'pair \u{1F600} ok', 'NUL \u0000 inside', '\u0000', 'bom \ufeff',
  'rtl \u202e text', 'x'.repeat(9000), '"quotes" and \\backslashes\\', 'AKIAIOSFODNN7EXAMPLE', 'TOKEN=abc123secret ls', '{"json":"in a string"}',
];
/** Raw bytes put inside a JSON string: overlong, encoded surrogate, truncated, lone continuation, raw NUL. */
const RAW_BYTES: Buffer[] = [Buffer.from([0xc0, 0xaf]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xe2, 0x82]), Buffer.from([0x80, 0xbf]), Buffer.from([0xff]), Buffer.from([0x00])];

/** Stands for a value nested thousands deep until the body is serialized. */
const DEEP_MARK = '\u0001deep\u0001';
const DEEP_TEXT = /"\\u0001deep\\u0001(\d+)\\u0001deep\\u0001"/g;
const deepText = (json: string) => json.replace(DEEP_TEXT, (_m, n: string) => `${'[{"k":'.repeat(Number(n))}0${'}]'.repeat(Number(n))}`);

function nested(depth: number, rnd: Rng): unknown {
  let v: unknown = pick(rnd, ['leaf', 1, null, true]);
  for (let i = 0; i < depth; i++) v = rnd() < 0.5 ? [v] : { k: v };
  return v;
}

/** A hostile value: strings, numbers, times, nesting (sometimes past the limit), structures. */
function oddValue(rnd: Rng): unknown {
  const r = rnd();
  if (r < 0.3) return pick(rnd, ODD_TEXT);
  if (r < 0.5) return pick(rnd, HUGE_NUMBERS);
  if (r < 0.65) return pick(rnd, ODD_TIMES);
  // mostly around the limit (128 levels); now and then thousands deep, where recursion overflows
  // (written into the text after serializing: JSON.stringify of this client would overflow too)
  if (r < 0.75) return rnd() < 0.1 ? `${DEEP_MARK}${Math.floor(2000 + rnd() * 8000)}${DEEP_MARK}` : nested(Math.floor(rnd() * rnd() * 300), rnd);
  return pick(rnd, [null, true, [], {}, '', [[[]]], { __proto__: { polluted: 1 } }, 'claude_code.user_prompt']);
}

function mutate(v: unknown, rnd: Rng, depth = 0): unknown {
  if (rnd() < 0.06 || depth > 10) return oddValue(rnd);
  if (Array.isArray(v)) {
    const out = v.map((x) => (rnd() < 0.5 ? mutate(x, rnd, depth + 1) : x));
    if (rnd() < 0.1) out.push(oddValue(rnd));
    if (rnd() < 0.05) out.splice(0, 1);
    if (rnd() < 0.04) for (let i = 0; i < 30; i++) out.push(out[0]);
    return out;
  }
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (rnd() < 0.04) continue;
      out[rnd() < 0.02 ? `${k}\ud800` : k] = rnd() < 0.5 ? mutate(x, rnd, depth + 1) : x;
    }
    if (rnd() < 0.08) out[pick(rnd, ['metadata', 'extra', 'timestamp', 'input_tokens', 'tool_input', 'x'])] = oddValue(rnd);
    return out;
  }
  return rnd() < 0.25 ? oddValue(rnd) : v;
}

const kv = (attrs: Record<string, unknown>) =>
  Object.entries(attrs).map(([key, v]) => ({
    key,
    value: typeof v === 'string' ? { stringValue: v } : typeof v === 'boolean' ? { boolValue: v } : Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v },
  }));

const conv = (rnd: Rng) => `fz-${Math.floor(rnd() * 1e9).toString(36)}`;

function directBody(rnd: Rng): unknown {
  const c = conv(rnd);
  const n = 1 + Math.floor(rnd() * 5);
  return {
    ...(rnd() < 0.3 ? { environment: pick(rnd, ['staging', 'development', 'production']) } : {}),
    events: Array.from({ length: n }, (_, i) =>
      i % 3 === 2
        ? { messageType: 'tool_call', id: `${c}-t${i}`, conversationId: c, name: 'lookup', toolCallRequest: { q: 'x' }, toolCallResponse: { ok: true } }
        : {
            conversation_id: c, role: i % 2 ? 'assistant' : 'user', message_id: `${c}-${i}`, timestamp: new Date(Date.UTC(2025, 5, 1, 10, 0, i)).toISOString(),
            ...(rnd() < 0.5 ? { message: `message ${i} of ${c}` } : { content: [{ type: 'text', text: `text ${i}` }, { type: 'tool_use', tool_name: 'Bash', tool_use_id: `${c}-u${i}`, input: { command: 'ls' } }] }),
            input_tokens: 10 + i, output_tokens: 5, metadata: { n: i },
          },
    ),
  };
}

function hooksBody(rnd: Rng, agent: string): unknown {
  const c = conv(rnd);
  const one = (i: number) => ({
    hook: pick(rnd, ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop', 'SubagentStart', 'Custom']), session_id: c, conversation_id: c,
    timestamp: agent === 'agent-a' && rnd() < 0.5 ? undefined : new Date(Date.UTC(2025, 5, 1, 10, 0, i)).toISOString(),
    tool_name: 'Bash', tool_use_id: `${c}-${i}`, tool_input: { command: 'npm test' }, tool_output: 'x', user_prompt: 'fix it', duration_ms: 12, success: i % 2 === 0,
  });
  return rnd() < 0.5 ? one(0) : Array.from({ length: 1 + Math.floor(rnd() * 4) }, (_, i) => one(i));
}

function logsBody(rnd: Rng): unknown {
  const c = conv(rnd);
  const rec = (i: number) => ({
    timeUnixNano: String(1760000000000000000n + BigInt(i)), observedTimeUnixNano: rnd() < 0.2 ? pick(rnd, ODD_NANOS) : undefined,
    body: { stringValue: pick(rnd, ['claude_code.tool_result', 'claude_code.api_request', 'claude_code.user_prompt', 'codex.tool_decision']) },
    traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174',
    attributes: kv({ 'session.id': c, 'event.timestamp': new Date(Date.UTC(2025, 5, 1, 10, 0, i)).toISOString(), tool_name: 'Bash', success: 'true', duration_ms: '5', input_tokens: 100, output_tokens: 20, cost_usd: 0.01, prompt: 'hi', tool_parameters: '{"bash_command":"TOKEN=abc123 ls"}' }),
  });
  return { resourceLogs: [{ resource: { attributes: kv({ 'service.name': pick(rnd, ['claude-code', 'codex_cli_rs', 'other']) }) }, scopeLogs: [{ scope: { name: 'com.anthropic.claude_code.events', version: '2.1' }, logRecords: Array.from({ length: 1 + Math.floor(rnd() * 4) }, (_, i) => rec(i)) }] }] };
}

function tracesBody(rnd: Rng, proto: boolean): unknown {
  const c = conv(rnd);
  const id = (bytes: number) => (proto ? Buffer.alloc(bytes, 1 + Math.floor(rnd() * 200)).toString('base64') : Array.from({ length: bytes }, () => Math.floor(rnd() * 256).toString(16).padStart(2, '0')).join(''));
  const span = (i: number) => ({
    traceId: id(16), spanId: id(8), name: `claude_code.tool.${i}`, kind: 1, startTimeUnixNano: String(1760000000000000000n + BigInt(i)), endTimeUnixNano: String(1760000000500000000n + BigInt(i)),
    status: { code: 2, message: 'failed' }, events: [{ name: 'e', timeUnixNano: '1760000000100000000' }],
    attributes: kv({ 'session.id': c, 'gen_ai.usage.input_tokens': 10, 'gen_ai.tool.name': 'Bash', 'gen_ai.tool.call.id': `${c}-${i}` }),
  });
  return { resourceSpans: [{ resource: { attributes: kv({ 'service.name': 'claude-code' }) }, scopeSpans: [{ spans: Array.from({ length: 1 + Math.floor(rnd() * 3) }, (_, i) => span(i)) }] }] };
}

function metricsBody(rnd: Rng): unknown {
  return { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'claude_code.token.usage', sum: { dataPoints: [{ asDouble: rnd() * 100, timeUnixNano: '1760000000000000000', attributes: kv({ type: 'input' }) }] } }] }] }] };
}

/** JSON text with raw bytes put inside one string literal (invalid UTF-8 or a raw NUL). */
function withRawBytes(json: string, rnd: Rng): Buffer {
  const quotes: number[] = [];
  for (let i = json.indexOf('":"'); i >= 0 && quotes.length < 50; i = json.indexOf('":"', i + 3)) quotes.push(i + 3);
  if (!quotes.length) return Buffer.from(json);
  const at = pick(rnd, quotes);
  return Buffer.concat([Buffer.from(json.slice(0, at)), pick(rnd, RAW_BYTES), Buffer.from(json.slice(at))]);
}

function damage(buf: Buffer, rnd: Rng): Buffer {
  const b = Buffer.from(buf);
  if (b.length === 0) return b;
  const op = rnd();
  if (op < 0.3) return b.subarray(0, Math.floor(rnd() * b.length));
  if (op < 0.7) {
    for (let i = 0; i < 1 + rnd() * 6; i++) b[Math.floor(rnd() * b.length)] = Math.floor(rnd() * 256);
    return b;
  }
  const at = Math.floor(rnd() * b.length);
  return Buffer.concat([b.subarray(0, at), Buffer.from(Array.from({ length: 1 + Math.floor(rnd() * 12) }, () => Math.floor(rnd() * 256))), b.subarray(at)]);
}

function encodeProto(signal: Signal, body: unknown, fallback: unknown): Buffer {
  try {
    return encodeProtoRequest(signal, body as object);
  } catch {
    // the mutation made it unencodable (a string where a message goes): encode the base instead
    return encodeProtoRequest(signal, fallback as object);
  }
}

/** One request of `route`, mutated and sometimes damaged; `auth` is the Authorization header value. */
export function makeRequest(route: FuzzRoute, rnd: Rng, auth: string): FuzzRequest {
  const agent = pick(rnd, ['agent-a', 'agent-b', 'agent-c']);
  const proto = (route === 'logs' || route === 'traces' || route === 'metrics') && rnd() < 0.4;
  const base =
    route === 'ingest' ? directBody(rnd) : route === 'hooks' ? hooksBody(rnd, agent) : route === 'logs' ? logsBody(rnd) : route === 'traces' ? tracesBody(rnd, proto) : metricsBody(rnd);
  const body = rnd() < 0.85 ? mutate(base, rnd) : base;
  const path =
    route === 'ingest' ? '/v1/ingest' : route === 'hooks' ? `/v1/otel/${agent}/hooks` : proto && route === 'traces' ? '/v1/traces' : rnd() < 0.5 ? `/v1/${route}` : `/v1/otel/${agent}/${route}`;
  let bytes: Buffer;
  if (proto) bytes = encodeProto(route as Signal, body, base);
  else {
    const json = deepText(JSON.stringify(body) ?? 'null');
    bytes = rnd() < 0.08 ? withRawBytes(json, rnd) : Buffer.from(json);
  }
  if (rnd() < 0.1) bytes = damage(bytes, rnd);
  const headers: Record<string, string> = { authorization: auth, 'content-type': proto ? 'application/x-protobuf' : rnd() < 0.1 ? 'application/json; charset=utf-8' : 'application/json' };
  return { route, path, headers, body: bytes };
}
