import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { createIngestApp } from '../../../ingest/app.js';
import { decodeProtoResponse, encodeProtoRequest } from '../../../ingest/otlp/decode-proto.js';
import { auth, kv, logsEnvelope, purge, readBatches, readEvents, streamCount } from './lib.js';
import { dataPath } from '../../helpers/shared.js';
import { wholeEvents } from '../../../stream/batch.js';

let ts: TestSystem;
let base: string;
let readKey: string;
const EXAMPLES = dataPath('otlp-examples');
const example = (name: string) => JSON.parse(readFileSync(`${EXAMPLES}/${name}`, 'utf8'));

test.before(async () => {
  ts = await startTestSystem({ roles: ['ingest'] });
  base = ts.ingestUrl;
  readKey = (await ts.system.rt.keys.create({ tenant: 'default', role: 'member', scopes: ['read'] })).key;
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});
test.before.each(async () => {
  await purge(ts);
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  http(`${base}${path}`, { method: 'POST', headers: { ...auth(ts.adminKey), ...headers }, body });

// spec/ingestion.md Errors table, row by row
test('Errors: unparseable OTLP envelope → 400 {error} on logs, traces, metrics (agent and generic routes)', async () => {
  for (const path of ['/v1/otel/agent-a/logs', '/v1/otel/agent-b/traces', '/v1/otel/agent-c/metrics', '/v1/logs', '/v1/traces', '/v1/metrics']) {
    for (const body of ['{not json', '[1,2]', '{"resourceLogs": 5, "resourceSpans": 5, "resourceMetrics": 5}']) {
      const r = await post(path, body, { 'content-type': 'application/json' });
      assert.is(r.status, 400, `${path} ${body}`);
      assert.match(r.body.error, /invalid OTLP envelope/);
    }
    const p = await post(path, Buffer.from([0xff, 0xff, 0xff, 0x01]), { 'content-type': 'application/x-protobuf' });
    if (!(path === '/v1/otel/agent-b/traces')) assert.match(p.body.error, /invalid OTLP envelope/, path);
    assert.is(p.status, 400);
  }
});

test('Errors: protobuf body on /v1/otel/{agent}/traces → 400 saying protobuf traces are unsupported; /v1/traces takes it', async () => {
  const body = encodeProtoRequest('traces', { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: Buffer.alloc(16, 1).toString('base64'), spanId: Buffer.alloc(8, 2).toString('base64'), name: 'claude_code.tool' }] }] }] });
  const r = await post('/v1/otel/agent-a/traces', body, { 'content-type': 'application/x-protobuf' });
  assert.is(r.status, 400);
  assert.match(r.body.error, /protobuf traces are unsupported/);
  const g = await fetch(`${base}/v1/traces`, { method: 'POST', headers: { ...auth(ts.adminKey), 'content-type': 'application/x-protobuf' }, body: new Uint8Array(body) });
  assert.is(g.status, 200);
  assert.is(g.headers.get('content-type'), 'application/x-protobuf');
  assert.equal(decodeProtoResponse('traces', Buffer.from(await g.arrayBuffer())), {});
  const [span] = await readEvents(ts);
  assert.equal([span!.type, span!.agent, span!.trace_id, span!.span_id], ['span', 'agent-a', '01'.repeat(16), '02'.repeat(8)]);
});

test('Errors: hooks with invalid JSON → 400 {error} stating invalid JSON body', async () => {
  const r = await post('/v1/otel/agent-a/hooks', '{"hook": ', { 'content-type': 'application/json' });
  assert.is(r.status, 400);
  assert.match(r.body.error, /invalid JSON body/);
});

test('Errors: 401 {success:false, count:0, message, requestId} on every route; 403 for a key without ingest scope', async () => {
  const paths = ['/v1/otel/agent-a/logs', '/v1/otel/agent-a/traces', '/v1/otel/agent-a/metrics', '/v1/otel/agent-a/hooks', '/v1/ingest', '/v1/logs', '/v1/traces', '/v1/metrics'];
  for (const path of paths) {
    for (const headers of [{}, { authorization: 'Bearer nope-nope-nope' }, { authorization: ts.adminKey }] as Array<Record<string, string>>) {
      const r = await http(`${base}${path}`, { method: 'POST', headers, body: {} });
      assert.is(r.status, 401, path);
      assert.is(r.body.success, false);
      assert.is(r.body.count, 0);
      assert.type(r.body.message, 'string');
      assert.is(r.body.requestId, r.headers.get('x-request-id'));
    }
    const f = await http(`${base}${path}`, { method: 'POST', headers: auth(readKey), body: {} });
    assert.is(f.status, 403, path);
    assert.match(f.body.error, /ingest/);
  }
});

test('unknown {agent} → 404 naming the agents, once the key is valid; without a valid key 401 first', async () => {
  const r = await post('/v1/otel/agent-x/logs', {});
  assert.is(r.status, 404);
  assert.match(r.body.error, /unknown agent "agent-x".*agent-a, agent-b or agent-c/);
  for (const path of ['/v1/otel/agent-x/logs', '/v1/otel/agent-x/traces', '/v1/otel/agent-x/metrics', '/v1/otel/agent-x/hooks']) {
    const anonymous = await http(`${base}${path}`, { method: 'POST', body: {} });
    assert.is(anonymous.status, 401, path);
    assert.is(anonymous.body.success, false);
    const wrong = await http(`${base}${path}`, { method: 'POST', headers: auth('not-a-key-0123456789'), body: {} });
    assert.is(wrong.status, 401, path);
  }
});

test('Errors/Limits: 413 over 5 MB from Content-Length, from a streamed body, and after gzip inflation', async () => {
  const big = Buffer.alloc(5 * 1024 * 1024 + 10, 0x20);
  const a = await post('/v1/otel/agent-a/hooks', big, { 'content-type': 'application/json' });
  assert.is(a.status, 413);
  assert.match(a.body.error, /5 MB/);
  for (const path of ['/v1/otel/agent-a/traces', '/v1/traces']) {
    const t = await post(path, big, { 'content-type': 'application/json' });
    assert.equal([t.status, /5 MB/.test(t.body.error)], [413, true], path);
  }
  // chunked: no Content-Length, the byte counter decides
  const stream = new ReadableStream({
    start(c) {
      for (let i = 0; i < 6; i++) c.enqueue(new Uint8Array(1024 * 1024).fill(0x20));
      c.close();
    },
  });
  const b = await fetch(`${base}/v1/ingest`, { method: 'POST', headers: { ...auth(ts.adminKey), 'content-type': 'application/json' }, body: stream, duplex: 'half' } as unknown as RequestInit);
  assert.is(b.status, 413);
  // a ~6 KB gzip body that inflates to 6 MB
  const bomb = gzipSync(Buffer.alloc(6 * 1024 * 1024, 0x20));
  assert.ok(bomb.length < 64 * 1024);
  for (const path of ['/v1/otel/agent-a/logs', '/v1/otel/agent-a/hooks', '/v1/ingest', '/v1/metrics', '/v1/otel/agent-b/traces', '/v1/traces']) {
    const c = await post(path, bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    assert.is(c.status, 413, path);
  }
  // just under the limit is fine
  const ok = await post('/v1/otel/agent-a/hooks', Buffer.from(`[${' '.repeat(5 * 1024 * 1024 - 100)}]`), { 'content-type': 'application/json' });
  assert.is(ok.status, 200);
});

test('OTLP examples: logs.json and trace.json accepted; events.json malformed record rejected alone', async () => {
  const logs = await post('/v1/logs', example('logs.json'));
  assert.equal([logs.status, logs.body], [200, { partialSuccess: {} }]);
  const trace = await post('/v1/otel/agent-a/traces', example('trace.json'));
  assert.equal([trace.status, trace.body], [200, { partialSuccess: {} }]);
  const events = await post('/v1/otel/agent-b/logs', example('events.json'));
  assert.is(events.status, 200);
  assert.is(events.body.partialSuccess.rejectedLogRecords, 1);
  assert.match(events.body.partialSuccess.errorMessage, /kvlistValue/);
  // the malformed record mixed into a good batch: only it is rejected
  const mixed = example('logs.json');
  mixed.resourceLogs.push(...example('events.json').resourceLogs);
  const m = await post('/v1/logs', mixed);
  assert.is(m.body.partialSuccess.rejectedLogRecords, 1);
  const stored = await readEvents(ts);
  // the mixed request holds the same good record as the first one: deduplicated by content
  const log = stored.filter((e) => e.source === 'logs');
  assert.is(log.length, 1);
  assert.equal(log[0]!.attributes['map.attribute'], { 'some.map.key': 'some value' });
  assert.equal([log[0]!.trace_id, log[0]!.span_id, log[0]!.agent], ['5b8efff798038103d269b633813fc60c', 'eee19b7ec3c1b174', 'otlp']);
  assert.is(log[0]!.event_time, '2018-12-13T14:51:00.300Z');
  const span = stored.find((e) => e.type === 'span')!;
  assert.equal([span.span!.parent_span_id, span.span!.kind, span.span!.duration_ms], ['eee19b7ec3c1b173', 2, 1000]);
});

test('an empty envelope and an empty body are accepted', async () => {
  for (const path of ['/v1/otel/agent-a/logs', '/v1/traces', '/v1/metrics']) {
    assert.equal((await post(path, {})).body, { partialSuccess: {} });
    assert.is((await post(path, '', { 'content-type': 'application/json' })).status, 200);
  }
  assert.is(await streamCount(ts), 0);
});

test('protobuf logs: Export response in protobuf; gzip and charset accepted; partial success encoded', async () => {
  const good = { timeUnixNano: '1760000000000000000', body: { stringValue: 'claude_code.api_request' }, attributes: kv({ 'session.id': 's', input_tokens: '7', cost_usd: 0.5 }) };
  const body = encodeProtoRequest('logs', logsEnvelope([good]));
  const res = await fetch(`${base}/v1/otel/agent-a/logs`, { method: 'POST', headers: { ...auth(ts.adminKey), 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' }, body: new Uint8Array(gzipSync(body)) });
  assert.is(res.status, 200);
  assert.equal(decodeProtoResponse('logs', Buffer.from(await res.arrayBuffer())), {});
  const [e] = await readEvents(ts);
  assert.equal([e!.type, e!.api!.input_tokens, e!.api!.cost_usd], ['api_request', 7, 0.5]);
  const j = await post('/v1/otel/agent-a/logs', logsEnvelope([good, { attributes: 'bad' }]), { 'content-type': 'application/json; charset=utf-8' });
  assert.equal(j.body.partialSuccess.rejectedLogRecords, 1);
  const metrics = encodeProtoRequest('metrics', { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'claude_code.cost.usage', sum: { dataPoints: [{ asDouble: 0.1 }] } }, { sum: { dataPoints: [{ asDouble: 1 }] } }] }] }] });
  const mr = await fetch(`${base}/v1/otel/agent-a/metrics`, { method: 'POST', headers: { ...auth(ts.adminKey), 'content-type': 'application/x-protobuf' }, body: new Uint8Array(metrics) });
  const decoded = decodeProtoResponse('metrics', Buffer.from(await mr.arrayBuffer()));
  assert.equal((decoded.partialSuccess as Record<string, unknown>).rejectedDataPoints, 1);
});

test('metrics are validated and accepted but never published', async () => {
  const r = await post('/v1/otel/agent-a/metrics', { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'claude_code.token.usage', sum: { dataPoints: [{ asDouble: 3, attributes: kv({ type: 'input' }) }] } }] }] }] });
  assert.equal(r.body, { partialSuccess: {} });
  assert.is(await streamCount(ts), 0);
});

test('duplicate request: the same body twice stores one set of events (Nats-Msg-Id dedup, stable event ids)', async () => {
  const body = logsEnvelope(Array.from({ length: 3 }, (_, i) => ({ timeUnixNano: String(1760000000000000000n + BigInt(i)), body: { stringValue: 'claude_code.user_prompt' }, attributes: kv({ 'session.id': 'dup', prompt: `p${i}` }) })));
  await post('/v1/otel/agent-a/logs', body);
  const first = await readBatches(ts);
  await post('/v1/otel/agent-a/logs', body);
  const second = await readBatches(ts);
  assert.is(second.length, 1);
  assert.is(await streamCount(ts), 1);
  assert.equal(second.map((b) => b.msgId), first.map((b) => b.msgId));
  assert.match(first[0]!.msgId, /^[0-9a-f]{64}$/);
  assert.is(first[0]!.subject, 'ingest.default.logs');
});

test('a large request is published in batches of publishBatchEvents events', async () => {
  const n = ts.config.ingest.publishBatchEvents * 2 + 5;
  const hooks = Array.from({ length: n }, (_, i) => ({ hook: 'PreToolUse', session_id: 's', tool_name: 'Bash', timestamp: 1767225600 + i }));
  const r = await post('/v1/otel/agent-a/hooks', hooks);
  assert.equal([r.body.success, r.body.count, r.body.malformed], [true, n, 0]);
  const batches = await readBatches(ts);
  assert.equal(batches.map((b) => b.batch.events.length), [ts.config.ingest.publishBatchEvents, ts.config.ingest.publishBatchEvents, 5]);
  const ids = new Set(batches.flatMap((b) => wholeEvents(b.batch).map((e) => e.event_id)));
  assert.is(ids.size, n);
});

test('a body over the offload threshold is decoded on a worker thread with the same result', async () => {
  const n = 4000;
  const hooks = Array.from({ length: n }, (_, i) => ({ hook: 'PreToolUse', session_id: 'big', tool_name: 'Bash', command: `echo ${'x'.repeat(200)} PASSWORD=hunter22`, timestamp: 1767225600 + i }));
  const body = JSON.stringify(hooks);
  assert.ok(body.length > 512 * 1024);
  const r = await post('/v1/otel/agent-a/hooks', body, { 'content-type': 'application/json' });
  assert.equal([r.body.count, r.body.malformed], [n, 0]);
  const events = await readEvents(ts);
  assert.is(events.length, n);
  assert.is(events[0]!.tool!.command, `echo ${'x'.repeat(200)} PASSWORD=[REDACTED]`);
  // the worker's events come back sharing their group: each message writes it once
  for (const { batch } of await readBatches(ts)) {
    assert.equal([batch.v, batch.groups!.length], [3, 1]);
    assert.ok((batch.events as Array<{ group?: number }>).every((e) => e.group === 0));
  }
});

test('hooks: object or array; B/C timestamps required and parseable, counted in malformed; hook_event_name accepted', async () => {
  const a = await post('/v1/otel/agent-a/hooks', { hook_event_name: 'UserPromptSubmit', session_id: 's', prompt: 'hi', cwd: '/x', extra: 1 });
  assert.equal([a.body.success, a.body.count, a.body.malformed], [true, 1, 0]);
  assert.type(a.body.requestId, 'string');
  const b = await post('/v1/otel/agent-c/hooks', [{ hook: 'Stop', timestamp: '2026-01-01T00:00:00Z' }, { hook: 'Stop' }, { hook: 'Stop', timestamp: 'soon' }, 7]);
  assert.equal([b.body.count, b.body.malformed], [1, 3]);
  const stored = await readEvents(ts);
  const c = stored.find((e) => e.agent === 'agent-c')!;
  assert.equal([c.type, c.event_time, c.source], ['session_end', '2026-01-01T00:00:00.000Z', 'hooks']);
  const p = stored.find((e) => e.type === 'prompt')!;
  assert.equal([p.prompt!.text, p.attributes['extra'], p.conversation_id], ['hi', 1, 's']);
});

test('direct ingest: standard, channel and tool_call events mixed; per-event results with indexes and reasons', async () => {
  const r = await post('/v1/ingest', {
    environment: 'staging',
    events: [
      { conversation_id: 'c1', role: 'user', message: 'hello', content: 'ignored', timestamp: '2026-01-01T00:00:00Z', message_id: 'm-1', thread_id: 't', parent_message_id: 'm-0', metadata: { a: 1 } },
      { conversation_id: 'c1', role: 'assistant', content: [{ type: 'thinking', text: 'hmm' }, { type: 'text', text: 'part one' }, { type: 'tool_use', tool_name: 'Bash', tool_use_id: 'tu1', input: { command: 'ls' } }, { type: 'text', text: 'part two' }], input_tokens: 5, environment: 'development' },
      { conversation_id: 'c1', role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'ok', is_error: false }, { type: 'image', source: 'https://x/y.png' }] },
      { messageType: 'channel', id: 'ch-1', conversationId: 'thread-9', message: 'hi team', role: 'user', userId: 'u1', metadata: { channel: 'general' } },
      { messageType: 'tool_call', id: 'call-1', conversationId: 'c1', name: 'search', toolCallRequest: { q: 'x' }, toolCallResponse: { hits: 3 } },
      { conversation_id: 'c1', role: 'tool', message: 'x' },
      { conversation_id: 'c1', role: 'user' },
      { messageType: 'channel', id: 'ch-2', conversationId: 'thread-9', role: 'user' },
      { conversation_id: 'c1', role: 'user', message: 'x', timestamp: 'last tuesday' },
      { conversation_id: 'c1', role: 'user', content: [{ type: 'video', url: 'x' }] },
      'nope',
    ],
  });
  assert.is(r.status, 200);
  assert.equal([r.body.success, r.body.count, r.body.rejected], [true, 5, 6]);
  assert.equal(r.body.results.slice(0, 5).map((x: { accepted: boolean }) => x.accepted), [true, true, true, true, true]);
  const reasons = r.body.results.slice(5).map((x: { index: number; reason: string }) => `${x.index}: ${x.reason}`);
  assert.equal(reasons, [
    '5: role must be one of user, assistant, system',
    '6: either message or content is required',
    '7: message is required',
    '8: timestamp must be an ISO 8601 date-time between 1900-01-01 and 2299-12-31',
    '9: content[0].type must be one of text, thinking, tool_use, tool_result, image',
    '10: event must be an object',
  ]);
  const stored = await readEvents(ts);
  assert.is(stored.length, 5);
  const [m1, m2, m3, ch, tc] = stored;
  assert.equal([m1!.message!.content, m1!.message!.message_id, m1!.environment, m1!.trace_id, m1!.message!.thread_id, m1!.message!.parent_message_id], ['hello', 'm-1', 'staging', 'c1', 't', 'm-0']);
  assert.equal([m2!.message!.content, m2!.environment, m2!.message!.input_tokens, m2!.message!.content_blocks.length], ['part one\npart two', 'development', 5, 4]);
  assert.match(m2!.message!.message_id, /^msg_[0-9a-f]{32}$/);
  assert.is(m3!.message!.content_blocks[0]!.type, 'tool_result');
  assert.equal([ch!.type, ch!.message!.format, ch!.message!.message_id, ch!.conversation_id, ch!.user_id, ch!.environment], ['message', 'channel', 'ch-1', 'thread-9', 'u1', 'staging']);
  assert.equal([tc!.type, tc!.name, tc!.tool!.call_id, tc!.tool!.success], ['tool_call', 'search', 'call-1', true]);
  assert.is(r.body.results[0].eventId, m1!.event_id);
  // defaults: timestamp now, environment production
  const d = await post('/v1/ingest', { events: [{ conversation_id: 'c2', role: 'user', message: 'x' }] });
  const e = (await readEvents(ts)).find((x) => x.conversation_id === 'c2')!;
  assert.equal([e.environment, e.trace_id], ['production', 'c2']);
  assert.ok(Math.abs(Date.parse(e.event_time) - Date.now()) < 60_000);
  assert.is(d.body.results[0].messageId, e.message!.message_id);
});

test('direct ingest: invalid JSON and invalid envelopes are 400 {error}', async () => {
  assert.is((await post('/v1/ingest', '{', { 'content-type': 'application/json' })).status, 400);
  for (const body of [{}, { events: {} }, { events: [], environment: 'qa' }, []]) {
    const r = await post('/v1/ingest', body);
    assert.is(r.status, 400, JSON.stringify(body));
    assert.type(r.body.error, 'string');
  }
});

async function serve(app: ReturnType<typeof createIngestApp>): Promise<{ url: string; server: Server }> {
  const server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

test('Errors: 503 {error} with Retry-After when the INGEST backlog is over the limit; recovers when it drains', async () => {
  const rt = ts.system.rt;
  const config = { ...rt.config, ingest: { ...rt.config.ingest, maxBacklogMessages: 1 } };
  const { url, server } = await serve(createIngestApp({ config, log: rt.log, metrics: rt.metrics, bus: rt.bus, keys: rt.keys }));
  try {
    const hook = (i: number) => http(`${url}/v1/otel/agent-b/hooks`, { headers: auth(ts.adminKey), body: { hook: 'Stop', timestamp: 1767225600 + i } });
    assert.is((await hook(1)).status, 200);
    assert.is((await hook(2)).status, 200);
    await new Promise((r) => setTimeout(r, 300));
    const r = await hook(3);
    assert.is(r.status, 503);
    assert.match(r.body.error, /temporarily unavailable/);
    assert.is(r.headers.get('retry-after'), String(config.ingest.retryAfterSeconds));
    await purge(ts);
    await new Promise((res) => setTimeout(res, 300));
    assert.is((await hook(4)).status, 200);
    const m = rt.metrics.value('ingest_unavailable_total', { reason: 'backlog' });
    assert.ok(m >= 1);
  } finally {
    server.close();
  }
});

test('Errors: 503 when JetStream is unavailable, never 200 for data that was not stored', async () => {
  const rt = ts.system.rt;
  const config = { ...rt.config, ingest: { ...rt.config.ingest, publishTimeoutMs: 500 } };
  const { url, server } = await serve(createIngestApp({ config, log: rt.log, metrics: rt.metrics, bus: rt.bus, keys: rt.keys }));
  try {
    // the key is read before NATS goes away
    await ts.nats.stop();
    const r = await http(`${url}/v1/otel/agent-a/logs`, { headers: auth(ts.adminKey), body: logsEnvelope([{ body: { stringValue: 'claude_code.user_prompt' } }]) }).catch((e) => ({ status: 0, body: String(e), headers: new Headers() }));
    assert.is(r.status, 503);
    assert.match(String(r.body.error), /temporarily unavailable/);
    assert.ok(r.headers.get('retry-after'));
  } finally {
    await ts.nats.restart();
    server.close();
  }
  let status = 0;
  for (let i = 0; i < 100 && status !== 200; i++) {
    await new Promise((res) => setTimeout(res, 100));
    status = (await post('/v1/otel/agent-a/hooks', { hook: 'Stop' }).catch(() => ({ status: 0 }))).status;
  }
  assert.is(status, 200);
});

test('counters: a request of interleaved types adds each event to its own series exactly once', async () => {
  const m = ts.system.rt.metrics;
  const series = (type: string) => ({ agent: 'direct', source: 'ingest', type });
  const before = { message: m.value('ingest_events_accepted_total', series('message')), tool_call: m.value('ingest_events_accepted_total', series('tool_call')) };
  const msg = (text: string) => ({ conversation_id: 'cnt', role: 'user', message: text });
  const call = (id: string) => ({ messageType: 'tool_call', id, conversationId: 'cnt', name: 'search', toolCallRequest: {}, toolCallResponse: {} });
  const r = await post('/v1/ingest', { events: [msg('a'), msg('b'), call('k1'), msg('c'), call('k2'), call('k3'), { conversation_id: 'cnt', role: 'tool', message: 'refused' }, msg('d')] });
  assert.equal([r.status, r.body.count, r.body.rejected], [200, 7, 1]);
  assert.is(m.value('ingest_events_accepted_total', series('message')) - before.message, 4);
  assert.is(m.value('ingest_events_accepted_total', series('tool_call')) - before.tool_call, 3);
  // the same series whatever the order of the label names
  assert.is(m.value('ingest_events_accepted_total', { type: 'tool_call', source: 'ingest', agent: 'direct' }), m.value('ingest_events_accepted_total', series('tool_call')));
});

test('counters: events accepted/rejected by agent, source and type', async () => {
  await post('/v1/otel/agent-a/hooks', [{ hook: 'Stop' }, 5]);
  const m = ts.system.rt.metrics;
  assert.ok(m.value('ingest_events_accepted_total', { agent: 'agent-a', source: 'hooks', type: 'session_end' }) >= 1);
  assert.ok(m.value('ingest_events_rejected_total', { agent: 'agent-a', source: 'hooks', type: 'malformed' }) >= 1);
  const text = await m.render();
  assert.match(text, /tracehouse_ingest_publish_duration_seconds_bucket/);
});

test.run();
