import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AgentId } from '../../../schemas/events.js';
import type { OtlpLogRecord } from '../../../ingest/otlp/types.js';
import { normalizeLog } from '../../../ingest/normalize/logs.js';
import { normalizeHook } from '../../../ingest/normalize/hooks.js';
import { normalizeSpan } from '../../../ingest/normalize/spans.js';
import type { NormalizeContext } from '../../../ingest/normalize/event.js';
import { sanitizeAttributes, sanitizeAttributesInPlace } from '../../../ingest/normalize/sanitize.js';
import { coerceAttributes, coerceAttributesInPlace } from '../../../ingest/normalize/coerce.js';

const receiveTime = new Date('2026-01-02T03:04:05.678Z');
const ctx = (agent: AgentId, source: NormalizeContext['source'] = 'logs'): NormalizeContext => ({ tenant: 't1', agent, source, receiveTime });

function record(attributes: Record<string, unknown>, body: unknown = null, resource: Record<string, unknown> = {}): OtlpLogRecord {
  return {
    ctx: { resource, scope: { name: '', version: '', attributes: {} } },
    timeUnixNano: '1760000000000000000',
    observedTimeUnixNano: '',
    severityNumber: 9,
    severityText: '',
    body,
    attributes,
    traceId: '',
    spanId: '',
    eventName: '',
  };
}

// spec/ingestion.md "Normalization of logs: agent A" — with and without the optional prefix
const AGENT_A_ROWS: Array<[string, string]> = [
  ['user_prompt', 'prompt'],
  ['tool_use', 'tool_decision'],
  ['tool_decision', 'tool_decision'],
  ['tool_result', 'tool_result'],
  ['api_request', 'api_request'],
  ['api_error', 'api_error'],
  ['skill_activated', 'skill_activated'],
  ['mcp_server_connection', 'unknown'],
  ['something_new', 'unknown'],
];

for (const [name, type] of AGENT_A_ROWS) {
  test(`agent A log ${name} → ${type} (bare event.name, prefixed body, prefixed event.name)`, () => {
    const variants = [
      record({ 'event.name': name, 'session.id': 's' }),
      record({ 'session.id': 's' }, `claude_code.${name}`),
      record({ 'event.name': `claude_code.${name}`, 'session.id': 's' }),
    ];
    for (const r of variants) {
      const e = normalizeLog(ctx('agent-a'), r, 0);
      assert.is(e.type, type);
      assert.is(e.conversation_id, 's');
      assert.is(e.agent, 'agent-a');
    }
  });
}

// spec/ingestion.md "Normalization of logs: agents B and C"
const AGENT_B_ROWS: Array<[Record<string, unknown>, string]> = [
  [{ 'event.name': 'codex.conversation_starts' }, 'session_start'],
  [{ 'event.name': 'codex.user_prompt' }, 'prompt'],
  [{ 'event.name': 'codex.api_request' }, 'api_request'],
  [{ 'event.name': 'codex.sse_event' }, 'stream_event'],
  [{ 'event.name': 'codex.websocket_event' }, 'stream_event'],
  [{ 'event.name': 'codex.tool_decision' }, 'tool_decision'],
  [{ 'event.name': 'codex.tool_result' }, 'tool_result'],
  [{ 'event.name': 'codex.plugin_used', 'skill.activated': 'true' }, 'skill_activated'],
  [{ 'event.name': 'codex.plugin_used', 'skill.activated': true }, 'skill_activated'],
  [{ 'event.name': 'codex.sandbox_outcome' }, 'unknown'],
  [{ 'event.name': 'user_prompt' }, 'unknown'],
];

for (const agent of ['agent-b', 'agent-c'] as const) {
  for (const [attrs, type] of AGENT_B_ROWS) {
    test(`${agent} log ${String(attrs['event.name'])}${attrs['skill.activated'] !== undefined ? ' +skill.activated' : ''} → ${type}`, () => {
      const e = normalizeLog(ctx(agent), record({ ...attrs, 'conversation.id': 'c-1' }), 3);
      assert.is(e.type, type);
      assert.is(e.conversation_id, 'c-1');
      assert.is(e.name, attrs['event.name']);
      assert.equal(Object.keys(e.attributes).sort(), Object.keys({ ...attrs, 'conversation.id': 1, severity_number: 9 }).sort(), 'all attributes preserved (plus severity)');
    });
  }
}

test('agent B api_request reads tokens from gen_ai.usage.* with values coerced by key', () => {
  const e = normalizeLog(ctx('agent-b'), record({
    'event.name': 'codex.api_request', 'conversation.id': 'c', 'gen_ai.usage.input_tokens': '120', 'gen_ai.usage.output_tokens': 33,
    duration_ms: '250', 'http.response.status_code': '200', attempt: '1',
  }), 0);
  assert.equal(e.api, { input_tokens: 120, output_tokens: 33, duration_ms: 250, status_code: 200 });
  assert.is(e.attributes['attempt'], 1);
  assert.is(e.attributes['duration_ms'], 250);
});

test('agent A values are coerced by key, not by wire type; prompt text capped, redacted', () => {
  const e = normalizeLog(ctx('agent-a'), record({ 'event.name': 'api_request', cost_usd: '0.0123', input_tokens: '10', output_tokens: 5, model: 'claude', 'session.id': 7 }), 0);
  assert.equal(e.api, { model: 'claude', input_tokens: 10, output_tokens: 5, cost_usd: 0.0123 });
  assert.is(e.conversation_id, '7');
  const p = normalizeLog(ctx('agent-a'), record({ 'event.name': 'user_prompt', prompt: 'x'.repeat(9000) + ' TOKEN=abc123', prompt_length: '9013' }), 0);
  assert.is(p.prompt!.text.length, 8192);
  assert.ok(p.prompt!.truncated);
  assert.is(p.prompt!.length, 9013);
  const r = normalizeLog(ctx('agent-a'), record({ 'event.name': 'user_prompt', prompt: '<REDACTED>', prompt_length: '12' }), 0);
  assert.equal(r.prompt, { text: '', length: 12, truncated: false });
});

test('agent A tool_result: success string → boolean, command from tool_parameters redacted, output never stored', () => {
  const e = normalizeLog(ctx('agent-a'), record({
    'event.name': 'tool_result', tool_name: 'Bash', tool_use_id: 'toolu_1', success: 'false', duration_ms: '12',
    tool_parameters: JSON.stringify({ bash_command: 'export API_TOKEN=abc123def456 && make', full_command: 'export API_TOKEN=abc123def456 && make' }),
    error: 'exit 1: password=Sup3rSecret', output: 'huge output',
  }), 0);
  assert.is(e.tool!.success, false);
  assert.is(e.tool!.duration_ms, 12);
  assert.is(e.tool!.command, 'export API_TOKEN=[REDACTED] && make');
  assert.is(e.tool!.error, 'exit 1: password=[REDACTED]');
  assert.not.ok('output' in e.attributes);
  assert.not.ok(JSON.stringify(e).includes('abc123def456'));
  assert.not.ok(JSON.stringify(e).includes('Sup3rSecret'));
});

test('agent B tool_decision maps approved/denied/abort to accept/reject; call_id joins', () => {
  for (const [d, want] of [['approved', 'accept'], ['approved_for_session', 'accept'], ['denied', 'reject'], ['abort', 'reject']] as const) {
    const e = normalizeLog(ctx('agent-b'), record({ 'event.name': 'codex.tool_decision', tool_name: 'shell', call_id: 'call_9', decision: d, source: 'user' }), 0);
    assert.equal([e.tool!.decision, e.tool!.call_id, e.tool!.decision_source, e.attributes['decision']], [want, 'call_9', 'user', d]);
  }
});

test('generic OTLP route infers the agent from service.name and prefixes, else otlp', () => {
  assert.is(normalizeLog(ctx('otlp'), record({ 'event.name': 'user_prompt' }, null, { 'service.name': 'claude-code' }), 0).agent, 'agent-a');
  assert.is(normalizeLog(ctx('otlp'), record({}, 'claude_code.api_request'), 0).type, 'api_request');
  assert.is(normalizeLog(ctx('otlp'), record({ 'event.name': 'codex.user_prompt' }), 0).agent, 'agent-b');
  const g = normalizeLog(ctx('otlp'), record({ 'event.name': 'browser.page_view', x: 1 }, null, { 'service.name': 'web' }), 0);
  assert.equal([g.agent, g.type, g.attributes['x']], ['otlp', 'unknown', 1]);
});

test('event time: event.timestamp, else timeUnixNano; sequence from event.sequence', () => {
  const e = normalizeLog(ctx('agent-a'), record({ 'event.name': 'x', 'event.timestamp': '2026-03-01T10:00:00.123Z', 'event.sequence': '42' }), 5);
  assert.is(e.event_time, '2026-03-01T10:00:00.123Z');
  assert.is(e.sequence, 42);
  const f = normalizeLog(ctx('agent-a'), record({ 'event.name': 'x' }), 5);
  assert.is(f.event_time, new Date(1760000000000).toISOString());
  assert.is(f.sequence, 5);
  assert.is(f.receive_time, receiveTime.toISOString());
});

// spec/ingestion.md "Normalization of hooks"
const HOOK_ROWS: Array<[string, string, string]> = [
  ['SessionStart', 'session_start', 'session_start'],
  ['UserPromptSubmit', 'prompt', 'prompt'],
  ['PreToolUse', 'tool_decision', 'tool_decision'],
  ['PermissionRequest', 'permission_request', 'permission_request'],
  ['PostToolUse', 'tool_result', 'tool_result'],
  ['PostToolUseFailure', 'tool_result', 'hook'],
  ['Stop', 'session_end', 'session_end'],
  ['SessionEnd', 'session_end', 'hook'],
  ['FileChanged', 'file_changed', 'hook'],
  ['WorkspaceSnapshot', 'workspace_snapshot', 'workspace_snapshot'],
  ['SubagentStart', 'hook', 'hook'],
  ['SubagentStop', 'hook', 'hook'],
  ['PreCompact', 'hook', 'hook'],
  ['PostCompact', 'hook', 'hook'],
  ['Notification', 'hook', 'hook'],
  ['toString', 'hook', 'hook'],
];

for (const [name, a, bc] of HOOK_ROWS) {
  test(`hook ${name} → agent A ${a}, agents B/C ${bc}`, () => {
    const ea = normalizeHook(ctx('agent-a', 'hooks'), { hook: name, session_id: 's', custom_key: { nested: 1 } }, 0);
    assert.is(ea.kind, 'event');
    if (ea.kind !== 'event') return;
    assert.is(ea.event.type, a);
    assert.is(ea.event.event_time, receiveTime.toISOString(), 'agent A defaults to receive time');
    assert.equal(ea.event.attributes['custom_key'], { nested: 1 });
    if (name === 'PostToolUseFailure') assert.is(ea.event.tool!.success, false);
    for (const agent of ['agent-b', 'agent-c'] as const) {
      const eb = normalizeHook(ctx(agent, 'hooks'), { hook_event_name: name, timestamp: 1767323045, conversation_id: 'c', subagent: { id: 'a1', type: 'explorer' }, compaction: { input_tokens: 5, output_tokens: 2 } }, 0);
      assert.is(eb.kind, 'event');
      if (eb.kind !== 'event') return;
      assert.is(eb.event.type, bc);
      assert.is(eb.event.conversation_id, 'c');
      assert.equal(eb.event.attributes['subagent'], { id: 'a1', type: 'explorer' }, 'structured metadata preserved');
      assert.equal(eb.event.attributes['compaction'], { input_tokens: 5, output_tokens: 2 });
    }
  });
}

test('hook timestamps: ISO 8601, Unix seconds and Unix milliseconds; B/C without one are malformed', () => {
  const at = (ts: unknown) => normalizeHook(ctx('agent-b', 'hooks'), { hook: 'Stop', timestamp: ts }, 0);
  for (const ts of ['2026-01-01T00:00:00Z', 1767225600, 1767225600000, '1767225600', '1767225600000']) {
    const o = at(ts);
    assert.is(o.kind === 'event' && o.event.event_time, '2026-01-01T00:00:00.000Z', String(ts));
  }
  for (const ts of [undefined, 'yesterday', '', null]) assert.is(at(ts).kind, 'malformed', String(ts));
  assert.is(normalizeHook(ctx('agent-a', 'hooks'), { session_id: 'x' }, 0).kind, 'malformed', 'agent A needs a hook name');
});

test('hook name: required for agent A only; agents B and C store a nameless payload as hook, attributes kept', () => {
  const payload = { session_id: 's', turn_id: 't-1', timestamp: 1767225600, tool_name: 'shell', extra: { k: [1, 2] } };
  for (const agent of ['agent-b', 'agent-c'] as const) {
    const o = normalizeHook(ctx(agent, 'hooks'), payload, 0);
    assert.is(o.kind, 'event', agent);
    if (o.kind !== 'event') return;
    assert.equal([o.event.type, o.event.name, o.event.event_time], ['hook', '', '2026-01-01T00:00:00.000Z']);
    assert.equal([o.event.attributes['turn_id'], o.event.attributes['extra'], o.event.tool!.name], ['t-1', { k: [1, 2] }, 'shell']);
    assert.is(normalizeHook(ctx(agent, 'hooks'), { ...payload, hook: '' }, 0).kind, 'event', 'an empty name is no name');
    assert.is(normalizeHook(ctx(agent, 'hooks'), { session_id: 's' }, 0).kind, 'malformed', 'nor a timestamp: malformed');
  }
  assert.is(normalizeHook(ctx('agent-a', 'hooks'), payload, 0).kind, 'malformed');
});

test('agent A hook timestamp: unparseable or outside 1900-2299 → receive time, the value sent kept', () => {
  for (const ts of ['yesterday', '2026-13-45T99:00:00Z', '1800-01-01T00:00:00Z', -5]) {
    const o = normalizeHook(ctx('agent-a', 'hooks'), { hook: 'Stop', timestamp: ts }, 0);
    assert.is(o.kind, 'event', String(ts));
    if (o.kind !== 'event') return;
    assert.equal([o.event.event_time, o.event.attributes['timestamp']], [receiveTime.toISOString(), ts]);
  }
});

test('ISO 8601 date-times without an offset are UTC whatever the server time zone (hooks, direct events, OTLP event.timestamp)', () => {
  const script = `
    const { runPipeline } = await import(${JSON.stringify(new URL('../../../ingest/pipeline.js', import.meta.url).href)});
    const run = (route, agent, body) => runPipeline({ route, agent, encoding: 'json', body: new TextEncoder().encode(JSON.stringify(body)), tenant: 't', receiveTime: '2026-05-05T05:05:05.000Z' })
      .events.map((e) => JSON.parse(e.json).event_time);
    const log = (ts) => ({ attributes: [{ key: 'event.name', value: { stringValue: 'codex.user_prompt' } }, { key: 'event.timestamp', value: { stringValue: ts } }] });
    console.log(JSON.stringify({
      offsets: [new Date(2026, 0, 1).getTimezoneOffset(), new Date(2026, 6, 1).getTimezoneOffset()],
      hooks: run('hooks', 'agent-b', [{ hook: 'Stop', timestamp: '2026-01-01T00:00:00' }, { hook: 'Stop', timestamp: '2026-07-01 12:30:00.250' }, { hook: 'Stop', timestamp: '2026-07-01t12:30' }]),
      direct: run('ingest', 'direct', { events: [{ conversation_id: 'c', role: 'user', message: 'hi', timestamp: '2026-01-01T23:59:59.999' }] }),
      logs: run('logs', 'agent-b', { resourceLogs: [{ scopeLogs: [{ logRecords: [log('2026-03-08T02:30:00')] }] }] }),
      kept: run('hooks', 'agent-b', [{ hook: 'Stop', timestamp: '2026-01-01T00:00:00+02:00' }, { hook: 'Stop', timestamp: '2026-01-01' }]),
    }));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, TZ: 'America/New_York' }, encoding: 'utf8' });
  assert.is(child.status, 0, child.stderr);
  const out = JSON.parse(child.stdout);
  assert.equal(out.offsets, [300, 240], 'the child runs in New York time');
  assert.equal(out.hooks, ['2026-01-01T00:00:00.000Z', '2026-07-01T12:30:00.250Z', '2026-07-01T12:30:00.000Z']);
  assert.equal(out.direct, ['2026-01-01T23:59:59.999Z']);
  // 02:30 on 8 March 2026 does not exist in New York (clocks go forward): UTC has no such gap
  assert.equal(out.logs, ['2026-03-08T02:30:00.000Z']);
  assert.equal(out.kept, ['2025-12-31T22:00:00.000Z', '2026-01-01T00:00:00.000Z'], 'an explicit offset and a bare date are unchanged');
});

test('hook tool_output is never stored; command and error redacted and capped', () => {
  const o = normalizeHook(ctx('agent-a', 'hooks'), {
    hook: 'PostToolUse', tool_name: 'Bash', tool_use_id: 't1', command: 'curl -H "Authorization: Bearer abcDEF123456" ' + 'x'.repeat(5000),
    tool_output: 'SECRET OUTPUT', tool_response: { stdout: 'SECRET OUTPUT' }, error: { type: 'exit', message: 'e'.repeat(3000) }, success: 'true', duration_ms: '7',
    approval: { decision: 'deny', source: 'user' },
  }, 0);
  assert.is(o.kind, 'event');
  if (o.kind !== 'event') return;
  const s = JSON.stringify(o.event);
  assert.not.ok(s.includes('SECRET OUTPUT'));
  assert.not.ok(s.includes('abcDEF123456'));
  assert.is(Buffer.byteLength(o.event.tool!.command!), 4096);
  assert.ok(o.event.tool!.command_truncated);
  assert.is(Buffer.byteLength(o.event.tool!.error!), 2048);
  assert.ok(o.event.tool!.error_truncated);
  assert.equal([o.event.tool!.success, o.event.tool!.duration_ms, o.event.tool!.decision, o.event.tool!.error_type], [true, 7, 'reject', 'exit']);
});

test('agent A api_error: status_code and model in the api facet; the error redacted and capped to 2,048 bytes', () => {
  const error = `upstream overloaded: api_key=sk-live-abc123def456 ${'e'.repeat(5000)}`;
  const e = normalizeLog(ctx('agent-a'), record({ 'event.name': 'api_error', 'session.id': 's', model: 'claude-sonnet', status_code: '529', duration_ms: '1200', attempt: '3', error }), 0);
  assert.is(e.type, 'api_error');
  assert.equal([e.api!.model, e.api!.status_code, e.api!.duration_ms, e.api!.error_truncated], ['claude-sonnet', 529, 1200, true]);
  assert.is(Buffer.byteLength(e.api!.error!), 2048);
  assert.ok(e.api!.error!.startsWith('upstream overloaded: api_key=[REDACTED] eee'), e.api!.error!.slice(0, 60));
  assert.is(Buffer.byteLength(String(e.attributes['error'])), 2048, 'attributes.error capped too');
  assert.not.ok(JSON.stringify(e).includes('abc123def456'));
  // an api_request of agent A carries no error text in its facet
  const ok = normalizeLog(ctx('agent-a'), record({ 'event.name': 'api_request', 'session.id': 's', model: 'claude-sonnet', error: 'ignored' }), 0);
  assert.equal(ok.api, { model: 'claude-sonnet' });
});

test('hook user_prompt is the prompt text, redacted and capped to 8 KB', () => {
  const sent = `deploy with API_TOKEN=abc123def456ghi ${'x'.repeat(9000)}`;
  for (const agent of ['agent-a', 'agent-b'] as const) {
    const o = normalizeHook(ctx(agent, 'hooks'), { hook_event_name: 'UserPromptSubmit', session_id: 's', timestamp: 1767225600, user_prompt: sent }, 0);
    assert.is(o.kind, 'event', agent);
    if (o.kind !== 'event') return;
    assert.is(o.event.type, 'prompt');
    assert.equal([Buffer.byteLength(o.event.prompt!.text), o.event.prompt!.truncated, o.event.prompt!.length], [8192, true, sent.length], agent);
    assert.ok(o.event.prompt!.text.startsWith('deploy with API_TOKEN=[REDACTED] xxx'), agent);
    assert.is(Buffer.byteLength(String(o.event.attributes['user_prompt'])), 8192, 'attributes.user_prompt capped too');
    assert.not.ok(JSON.stringify(o.event).includes('abc123def456ghi'));
  }
  const short = normalizeHook(ctx('agent-a', 'hooks'), { hook: 'UserPromptSubmit', user_prompt: 'fix the flaky test' }, 0);
  assert.equal(short.kind === 'event' && short.event.prompt, { text: 'fix the flaky test', length: 18, truncated: false });
});

test('hook ids: agents B/C take conversation_id over session_id (agent A session_id); user_id, else user_email', () => {
  const payload = { hook: 'Stop', timestamp: 1767225600, conversation_id: 'conv-1', session_id: 'sess-1', user_email: 'dev@example.com' };
  for (const agent of ['agent-b', 'agent-c'] as const) {
    const o = normalizeHook(ctx(agent, 'hooks'), payload, 0);
    assert.equal(o.kind === 'event' && [o.event.conversation_id, o.event.user_id], ['conv-1', 'dev@example.com'], agent);
    const s = normalizeHook(ctx(agent, 'hooks'), { hook: 'Stop', timestamp: 1767225600, session_id: 'sess-1', user_id: 'u-42', user_email: 'dev@example.com' }, 0);
    assert.equal(s.kind === 'event' && [s.event.conversation_id, s.event.user_id], ['sess-1', 'u-42'], `${agent}: session_id when no conversation_id`);
  }
  const a = normalizeHook(ctx('agent-a', 'hooks'), payload, 0);
  assert.equal(a.kind === 'event' && [a.event.conversation_id, a.event.user_id], ['sess-1', 'dev@example.com']);
});

test('span error messages (status message, exception.message of a span event) are redacted and capped to 2,048 bytes', () => {
  const message = `request failed: password=Sup3rSecretPw ${'e'.repeat(5000)}`;
  const e = normalizeSpan(ctx('agent-a', 'traces'), {
    ctx: { resource: {}, scope: { name: '', version: '', attributes: {} } }, traceId: '01'.repeat(16), spanId: '02'.repeat(8), parentSpanId: '',
    name: 'claude_code.tool', kind: 1, startTimeUnixNano: '1760000000000000000', endTimeUnixNano: '1760000001000000000', attributes: {},
    events: [{ name: 'exception', timeUnixNano: '1760000000500000000', attributes: { 'exception.type': 'Error', 'exception.message': message } }],
    status: { code: 2, message },
  }, 0);
  const exception = e.span!.events![0]!.attributes['exception.message'] as string;
  for (const text of [e.span!.status_message, exception]) {
    assert.is(Buffer.byteLength(text), 2048);
    assert.ok(text.startsWith('request failed: password=[REDACTED] eee'), text.slice(0, 60));
  }
  assert.is(e.span!.events![0]!.attributes['exception.type'], 'Error');
});

test('in-place coercion and sanitizing store exactly what the copying versions store', () => {
  const maps: string[] = [
    JSON.stringify({ prompt: 'use TOKEN=abc123def456 now', output: 'big', tool_output: 'x', duration_ms: '12', success: 'true', model: 'm' }),
    JSON.stringify({ full_command: 'export PASSWORD=hunter22', error: 'exit 1: password=Sup3rSecret', attempt: '2', nested: { a: [1, 'b'] } }),
    '{"__proto__": {"polluted": true}, "constructor": "c", "input_tokens": "7"}',
    '{}',
  ];
  for (const json of maps) {
    const copied = sanitizeAttributes(coerceAttributes(JSON.parse(json)));
    const inPlace = sanitizeAttributesInPlace(coerceAttributesInPlace(JSON.parse(json)));
    assert.equal(JSON.stringify(inPlace), JSON.stringify(copied), json);
    assert.equal(Object.getPrototypeOf(inPlace), Object.prototype);
    assert.is(({} as Record<string, unknown>)['polluted'], undefined);
  }
});

test.run();
