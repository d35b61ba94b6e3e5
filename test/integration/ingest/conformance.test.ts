/**
 * spec/ingestion.md where structure meets the rules, through the routes and the published events:
 * redaction at every depth a body can nest, the caps on commands and error messages held in
 * structured values, hooks of agents B and C without a hook name, and partial success for broken
 * OTLP elements (with data points counted as data points).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IngestEvent } from '../../../schemas/events.js';
import { startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { decodeProtoResponse, encodeProtoRequest } from '../../../ingest/otlp/decode-proto.js';
import { auth, kv, logsEnvelope, purge, readEvents } from './lib.js';

let ts: TestSystem;
test.before(async () => {
  ts = await startTestSystem({ roles: ['ingest'] });
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});
test.before.each(async () => {
  await purge(ts);
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  http(`${ts.ingestUrl}${path}`, { method: 'POST', headers: { ...auth(ts.adminKey), ...headers }, body });

const SECRET = 'abc123def456ghi789';
const bytes = (s: unknown) => Buffer.byteLength(String(s));

/** `leaf` under `depth` single-key objects. */
function nest(depth: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = depth; i > 0; i--) v = { [`level${i}`]: v };
  return v;
}

/** The value at the end of a chain of single-key objects. */
function bottom(v: unknown): unknown {
  let depth = 0;
  while (v && typeof v === 'object' && !Array.isArray(v)) {
    v = Object.values(v)[0];
    depth++;
  }
  return [depth, v];
}

test('Limits: a secret nested 60 levels deep is redacted in a hook tool_input and in a direct event', async () => {
  const leaf = `export API_TOKEN=${SECRET} && ./deploy.sh`;
  const redacted = 'export API_TOKEN=[REDACTED] && ./deploy.sh';
  const h = await post('/v1/otel/agent-a/hooks', {
    hook_event_name: 'PreToolUse', session_id: 'deep-1', cwd: '/home/dev/app', tool_name: 'mcp__deploy__run', tool_use_id: 'toolu_01Deep',
    tool_input: { target: 'prod', options: nest(60, leaf) },
  });
  assert.equal([h.status, h.body.count, h.body.malformed], [200, 1, 0]);
  const d = await post('/v1/ingest', { events: [{ conversation_id: 'deep-1', role: 'user', message: 'ship it', metadata: nest(60, leaf), context: nest(60, leaf) }] });
  assert.equal([d.status, d.body.count], [200, 1]);
  const events = await readEvents(ts);
  assert.is(events.length, 2);
  assert.not.ok(JSON.stringify(events).includes(SECRET), 'the secret was published');
  const hook = events.find((e) => e.source === 'hooks')!;
  assert.equal(bottom((hook.attributes['tool_input'] as Record<string, unknown>)['options']), [60, redacted]);
  assert.ok(hook.tool!.input!.includes(redacted), 'tool.input holds the redacted text');
  const direct = events.find((e) => e.source === 'ingest')!;
  assert.equal(bottom(direct.message!.metadata), [60, redacted]);
  assert.equal(bottom(direct.attributes['context']), [60, redacted]);
});

test('Limits: a real PreToolUse tool_input.command of 10,000 bytes and an error message of 5,000 bytes are stored capped and redacted', async () => {
  const head = `export API_TOKEN=${SECRET} && `;
  const command = head + 'make release && '.repeat(700).slice(0, 10_000 - head.length);
  const message = `connection refused: password=Sup3rSecretPw ${'e'.repeat(5_000)}`.slice(0, 5_000);
  assert.equal([bytes(command), bytes(message)], [10_000, 5_000]);
  const common = { session_id: 'cap-1', transcript_path: '/home/dev/.claude/projects/-home-dev-app/cap-1.jsonl', cwd: '/home/dev/app', permission_mode: 'default' };
  const toolInput = { command, description: 'Release the app', timeout: 120000 };
  const r = await post('/v1/otel/agent-a/hooks', [
    { ...common, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: toolInput, tool_use_id: 'toolu_01Cap' },
    { ...common, hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: toolInput, tool_use_id: 'toolu_01Cap', error: { type: 'exit_code', message }, duration_ms: 812 },
  ]);
  assert.equal([r.status, r.body.count, r.body.malformed], [200, 2, 0]);
  const events = await readEvents(ts);
  const published = JSON.stringify(events);
  assert.not.ok(published.includes(SECRET), 'command secret published');
  assert.not.ok(published.includes('Sup3rSecretPw'), 'error secret published');
  const pre = events.find((e) => e.name === 'PreToolUse')!;
  const input = pre.attributes['tool_input'] as Record<string, unknown>;
  assert.is(bytes(input['command']), 4096, 'attributes.tool_input.command capped to 4,096 bytes');
  assert.ok(String(input['command']).startsWith('export API_TOKEN=[REDACTED] && make release'));
  assert.equal([input['description'], input['timeout']], ['Release the app', 120000]);
  assert.equal([bytes(pre.tool!.command), pre.tool!.command_truncated], [4096, true]);
  assert.ok(bytes(pre.tool!.input) <= 4096);
  const failed = events.find((e) => e.name === 'PostToolUseFailure')!;
  const error = failed.attributes['error'] as Record<string, unknown>;
  assert.is(bytes(error['message']), 2048, 'attributes.error.message capped to 2,048 bytes');
  assert.ok(String(error['message']).startsWith('connection refused: password=[REDACTED] eee'));
  assert.is(error['type'], 'exit_code');
  assert.is(bytes((failed.attributes['tool_input'] as Record<string, unknown>)['command']), 4096);
  assert.equal([bytes(failed.tool!.error), failed.tool!.error_truncated, failed.tool!.error_type, failed.tool!.success], [2048, true, 'exit_code', false]);
});

test('hooks: agents B and C without a hook name are stored as hook with their attributes; agent A without one is malformed', async () => {
  const payload = { session_id: 'nameless-1', turn_id: 'turn-3', cwd: '/repo', model: 'gpt-5-codex', timestamp: '2026-03-01T10:00:00Z', sandbox: { mode: 'workspace-write' } };
  for (const agent of ['agent-b', 'agent-c']) {
    const r = await post(`/v1/otel/${agent}/hooks`, [payload, { ...payload, timestamp: undefined }]);
    assert.equal([r.status, r.body.count, r.body.malformed], [200, 1, 1], `${agent}: the one without a timestamp stays malformed`);
  }
  const a = await post('/v1/otel/agent-a/hooks', payload);
  assert.equal([a.body.count, a.body.malformed], [0, 1]);
  const events = await readEvents(ts);
  assert.equal(events.map((e) => e.agent).sort(), ['agent-b', 'agent-c']);
  for (const e of events) {
    assert.equal([e.type, e.name, e.event_time, e.conversation_id], ['hook', '', '2026-03-01T10:00:00.000Z', 'nameless-1']);
    assert.equal([e.attributes['turn_id'], e.attributes['cwd'], e.attributes['sandbox']], ['turn-3', '/repo', { mode: 'workspace-write' }]);
  }
});

test('hooks: an agent A timestamp that does not parse is stamped at receive time, the value sent kept in attributes', async () => {
  const before = Date.now();
  const r = await post('/v1/otel/agent-a/hooks', [
    { hook_event_name: 'Stop', session_id: 'ts-a', timestamp: 'Tue Mar 3 2026 10:00' },
    { hook_event_name: 'Stop', session_id: 'ts-a', timestamp: '1800-01-01T00:00:00Z' },
  ]);
  assert.equal([r.status, r.body.count, r.body.malformed], [200, 2, 0]);
  const events = await readEvents(ts);
  assert.is(events.length, 2);
  for (const e of events) {
    assert.is(e.type, 'session_end');
    assert.ok(Date.parse(e.event_time) >= before - 1000 && Date.parse(e.event_time) <= Date.now() + 1000, e.event_time);
  }
  assert.equal(events.map((e) => e.attributes['timestamp']).sort(), ['1800-01-01T00:00:00Z', 'Tue Mar 3 2026 10:00']);
  const b = await post('/v1/otel/agent-b/hooks', { hook_event_name: 'Stop', session_id: 'ts-b', timestamp: 'Tue Mar 3 2026 10:00' });
  assert.equal([b.body.count, b.body.malformed], [0, 1], 'agents B and C still need a parseable timestamp');
});

const record = (name: string, session = 'partial-1') => ({ timeUnixNano: '1767225600000000000', body: { stringValue: `claude_code.${name}` }, attributes: kv({ 'session.id': session }) });

test('OTLP logs: a broken resourceLogs, scopeLogs or logRecords element is rejected alone, the valid records beside it stored', async () => {
  const body = (session: string) => ({
    resourceLogs: [
      logsEnvelope([record('user_prompt', session), record('api_request', session)]).resourceLogs[0]!,
      'not a resource',
      { resource: {}, scopeLogs: { logRecords: [record('tool_result', session)] } },
      { scopeLogs: [7, { scope: { name: 's' }, logRecords: { body: { stringValue: 'claude_code.tool_decision' } } }, { logRecords: [record('api_error', session)] }] },
    ],
  });
  for (const path of ['/v1/otel/agent-a/logs', '/v1/logs']) {
    await purge(ts);
    const r = await post(path, body(path));
    assert.is(r.status, 200, `${path}: ${r.text}`);
    assert.is(r.body.partialSuccess.rejectedLogRecords, 4);
    const msg = r.body.partialSuccess.errorMessage as string;
    assert.match(msg, /^4 log records rejected: /);
    for (const reason of ['resourceLogs[1] must be an object', 'resourceLogs[2].scopeLogs must be an array', 'resourceLogs[3].scopeLogs[0] must be an object', 'resourceLogs[3].scopeLogs[1].logRecords must be an array']) {
      assert.ok(msg.includes(reason), `${msg} lacks ${reason}`);
    }
    const events = await readEvents(ts);
    assert.equal(events.map((e) => e.type).sort(), ['api_error', 'api_request', 'prompt']);
  }
  // the envelope itself stays a 400
  for (const broken of ['[1]', '{"resourceLogs": {}}']) assert.is((await post('/v1/logs', broken, { 'content-type': 'application/json' })).status, 400, broken);
});

test('OTLP traces: a broken resourceSpans or scopeSpans element is rejected alone, the valid spans beside it stored', async () => {
  const span = (n: number) => ({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: `b7ad6b716920333${n}`, name: 'claude_code.tool', startTimeUnixNano: '1767225600000000000', endTimeUnixNano: '1767225601000000000' });
  const r = await post('/v1/otel/agent-a/traces', {
    resourceSpans: [null, { scopeSpans: [{ spans: [span(1)] }, { spans: 'broken' }] }, { scopeSpans: 'broken' }, { scopeSpans: [{ spans: [span(2)] }] }],
  });
  assert.is(r.status, 200, r.text);
  assert.is(r.body.partialSuccess.rejectedSpans, 3);
  assert.match(r.body.partialSuccess.errorMessage, /^3 spans rejected: .*resourceSpans\[0\] must be an object/);
  const events: IngestEvent[] = await readEvents(ts);
  assert.equal(events.map((e) => e.span_id).sort(), ['b7ad6b7169203331', 'b7ad6b7169203332']);
});

test('OTLP traces: a span that fails decoding is rejected alone (rejectedSpans, errorMessage), the valid spans beside it stored', async () => {
  const span = (id: string, extra: object = {}) => ({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: id, name: 'claude_code.tool', startTimeUnixNano: '1767225600000000000', endTimeUnixNano: '1767225601000000000', ...extra });
  for (const [n, path] of ['/v1/otel/agent-a/traces', '/v1/traces'].entries()) {
    await purge(ts);
    // span ids differ per route: the same content twice would be deduplicated
    const spans = [
      span(`c7ad6b716920${n}331`),
      span(''), // no spanId
      span(`c7ad6b716920${n}332`, { attributes: [{ key: 'map', value: { kvlistValue: [] } }] }),
      span(`c7ad6b716920${n}333`),
    ];
    const r = await post(path, { resourceSpans: [{ resource: { attributes: kv({ 'service.name': 'claude-code' }) }, scopeSpans: [{ spans }] }] });
    assert.is(r.status, 200, `${path}: ${r.text}`);
    assert.is(r.body.partialSuccess.rejectedSpans, 2, path);
    const msg = r.body.partialSuccess.errorMessage as string;
    assert.match(msg, /^2 spans rejected: /);
    assert.ok(msg.includes('span traceId and spanId are required'), msg);
    assert.ok(msg.includes('kvlistValue'), msg);
    const events = await readEvents(ts);
    assert.equal(events.map((e) => e.span_id).sort(), [`c7ad6b716920${n}331`, `c7ad6b716920${n}333`], path);
  }
});

test('Events: an agent A hook without a timestamp posted twice is two events; one retried with the same timestamp is one', async () => {
  const stop = { hook_event_name: 'Stop', session_id: 'retry-1', cwd: '/home/dev/app' };
  for (let i = 0; i < 2; i++) {
    if (i) await new Promise((r) => setTimeout(r, 5)); // a later receive time
    const r = await post('/v1/otel/agent-a/hooks', stop);
    assert.equal([r.status, r.body.count], [200, 1]);
  }
  const unstamped = await readEvents(ts);
  assert.is(unstamped.length, 2, 'redelivery without a timestamp creates a separate event');
  assert.is.not(unstamped[0]!.event_time, unstamped[1]!.event_time);
  await purge(ts);
  const stamped = { ...stop, timestamp: '2026-03-01T10:00:00.250Z' };
  for (let i = 0; i < 2; i++) {
    if (i) await new Promise((r) => setTimeout(r, 5));
    const r = await post('/v1/otel/agent-a/hooks', stamped);
    assert.equal([r.status, r.body.count], [200, 1]);
  }
  const events = await readEvents(ts);
  assert.is(events.length, 1, 'a retry with the same timestamp is deduplicated');
  assert.equal([events[0]!.type, events[0]!.event_time, events[0]!.conversation_id], ['session_end', '2026-03-01T10:00:00.250Z', 'retry-1']);
});

test('OTLP logs and traces: environment from resource deployment.environment.name or deployment.environment, else production', async () => {
  const resources: Array<[Record<string, unknown>, string]> = [
    [{ 'service.name': 'claude-code', 'deployment.environment': 'staging' }, 'staging'],
    [{ 'service.name': 'claude-code', 'deployment.environment.name': 'development' }, 'development'],
    [{ 'service.name': 'claude-code', 'deployment.environment.name': 'prod', 'deployment.environment': 'staging' }, 'production'],
    [{ 'service.name': 'claude-code' }, 'production'],
  ];
  const logs = await post('/v1/otel/agent-a/logs', {
    resourceLogs: resources.map(([attrs], i) => ({ resource: { attributes: kv(attrs) }, scopeLogs: [{ logRecords: [record('user_prompt', `env-log-${i}`)] }] })),
  });
  assert.equal([logs.status, logs.body], [200, { partialSuccess: {} }]);
  const traces = await post('/v1/otel/agent-a/traces', {
    resourceSpans: resources.map(([attrs], i) => ({
      resource: { attributes: kv(attrs) },
      scopeSpans: [{ spans: [{ traceId: '1af7651916cd43dd8448eb211c80319c', spanId: `d7ad6b716920333${i}`, name: 'claude_code.tool', startTimeUnixNano: '1767225600000000000', endTimeUnixNano: '1767225601000000000', attributes: kv({ 'session.id': `env-span-${i}` }) }] }],
    })),
  });
  assert.equal([traces.status, traces.body], [200, { partialSuccess: {} }]);
  const events = await readEvents(ts);
  const envs = (kind: string) => resources.map((_, i) => events.find((e) => e.conversation_id === `env-${kind}-${i}`)?.environment);
  const want = resources.map(([, env]) => env);
  assert.equal(envs('log'), want);
  assert.equal(envs('span'), want);
});

test('hooks: agents B and C store conversation_id over session_id, agent A session_id; user_email when no user_id', async () => {
  const payload = { hook_event_name: 'UserPromptSubmit', timestamp: '2026-03-01T10:00:00Z', conversation_id: 'conv-9', session_id: 'sess-9', user_email: 'dev@example.com', user_prompt: 'run the release checklist' };
  for (const agent of ['agent-a', 'agent-b', 'agent-c']) {
    const r = await post(`/v1/otel/${agent}/hooks`, payload);
    assert.equal([r.status, r.body.count, r.body.malformed], [200, 1, 0], agent);
  }
  const events = await readEvents(ts);
  const by = (agent: string) => events.find((e) => e.agent === agent)!;
  assert.equal([by('agent-a').conversation_id, by('agent-b').conversation_id, by('agent-c').conversation_id], ['sess-9', 'conv-9', 'conv-9']);
  for (const e of events) {
    assert.is(e.user_id, 'dev@example.com', e.agent);
    assert.equal([e.type, e.prompt!.text], ['prompt', 'run the release checklist'], e.agent);
  }
});

test('OTLP metrics: rejectedDataPoints counts the data points of rejected metrics, JSON and protobuf', async () => {
  const points = (n: number) => Array.from({ length: n }, (_, i) => ({ asDouble: i + 0.5, timeUnixNano: '1767225600000000000' }));
  const metrics = [
    { name: 'claude_code.cost.usage', sum: { dataPoints: points(4), aggregationTemporality: 1 } },
    { sum: { dataPoints: points(3) } }, // no name: 3 data points rejected
    { name: 'claude_code.token.usage', gauge: { dataPoints: [...points(1), { asDouble: { nested: true } }] } }, // one bad point: the metric's 2
  ];
  const json = await post('/v1/otel/agent-a/metrics', {
    resourceMetrics: [
      { scopeMetrics: [{ metrics }] },
      { resource: 'broken', scopeMetrics: [{ metrics: [{ name: 'claude_code.session.count', sum: { dataPoints: points(6) } }] }] }, // 6
      { scopeMetrics: [{ metrics: [{ name: 'claude_code.commit.count' }, 'not a metric'] }] }, // none countable: 1
      { scopeMetrics: 'broken' }, // 1
    ],
  });
  assert.is(json.status, 200, json.text);
  assert.is(json.body.partialSuccess.rejectedDataPoints, 3 + 2 + 6 + 1 + 1);
  assert.match(json.body.partialSuccess.errorMessage, /^13 data points rejected: /);
  const proto = encodeProtoRequest('metrics', { resourceMetrics: [{ scopeMetrics: [{ metrics: [metrics[0], metrics[1]] }] }] });
  const res = await fetch(`${ts.ingestUrl}/v1/otel/agent-a/metrics`, { method: 'POST', headers: { ...auth(ts.adminKey), 'content-type': 'application/x-protobuf' }, body: new Uint8Array(proto) });
  assert.is(res.status, 200);
  const partial = decodeProtoResponse('metrics', Buffer.from(await res.arrayBuffer())).partialSuccess as Record<string, unknown>;
  assert.is(partial.rejectedDataPoints, 3);
  assert.match(String(partial.errorMessage), /3 data points rejected: metric name is required/);
});

test.run();
