import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { startTestSystem, eventually, type TestSystem } from '../../helpers/system.js';
import { readEvents } from './lib.js';

/**
 * The OpenTelemetry JS SDK, configured only by its standard options (url + headers), exports
 * Claude-Code-shaped and Codex-shaped records to a running ingest role; the normalized events are
 * read back from the INGEST stream (no stream role runs, so nothing consumes them).
 */
let ts: TestSystem;
test.before(async () => {
  ts = await startTestSystem({ roles: ['ingest'] });
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

const headers = () => ({ Authorization: `Bearer ${ts.adminKey}` });

test('Claude-Code-shaped logs over OTLP/protobuf to /v1/otel/agent-a/logs', async () => {
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'claude-code', 'service.version': '2.1.294' }),
    processors: [new SimpleLogRecordProcessor({ exporter: new ProtoLogExporter({ url: `${ts.ingestUrl}/v1/otel/agent-a/logs`, headers: headers() }) })],
  });
  const logger = provider.getLogger('com.anthropic.claude_code.events', '2.1.294');
  const common = { 'session.id': 'sess-cc-1', 'user.account_uuid': 'acct-1', 'terminal.type': 'vscode' };
  logger.emit({ body: 'claude_code.user_prompt', attributes: { ...common, 'event.name': 'user_prompt', 'event.timestamp': '2026-02-01T10:00:00.000Z', 'event.sequence': 1, prompt_length: '31', prompt: 'deploy with PASSWORD=hunter22 now' } });
  logger.emit({ body: 'claude_code.tool_result', attributes: { ...common, 'event.name': 'tool_result', 'event.sequence': 2, tool_name: 'Bash', tool_use_id: 'toolu_01', success: 'false', duration_ms: '1500', error: 'Exit code 1: token=tkn_abc123def', tool_parameters: JSON.stringify({ bash_command: 'export GITHUB_TOKEN=ghp_1234567890abcdefghijklmnopqrstuvwxyzAB && gh pr list' }) } });
  logger.emit({ body: 'claude_code.api_request', attributes: { ...common, 'event.name': 'api_request', 'event.sequence': 3, model: 'claude-sonnet', input_tokens: 1200, output_tokens: '340', cost_usd: 0.0123, duration_ms: 2200 } });
  logger.emit({ body: 'claude_code.hook_registered', attributes: { ...common, 'event.name': 'hook_registered', 'event.sequence': 4, hook_event: 'PreToolUse' } });
  await provider.forceFlush();
  await provider.shutdown();
  const events = await eventually(async () => {
    const all = (await readEvents(ts)).filter((e) => e.conversation_id === 'sess-cc-1');
    return all.length === 4 ? all : undefined;
  });
  assert.ok(events, 'four events stored');
  const by = Object.fromEntries(events!.map((e) => [e.type, e]));
  assert.equal(Object.keys(by).sort(), ['api_request', 'prompt', 'tool_result', 'unknown']);
  for (const e of events!) {
    assert.equal([e.agent, e.source, e.user_id, e.scope.name, e.resource['service.name']], ['agent-a', 'logs', 'acct-1', 'com.anthropic.claude_code.events', 'claude-code']);
    assert.match(e.event_id, /^[0-9a-f]{32}$/);
  }
  assert.equal([by.prompt!.name, by.prompt!.event_time, by.prompt!.sequence], ['claude_code.user_prompt', '2026-02-01T10:00:00.000Z', 1]);
  assert.equal(by.prompt!.prompt, { text: 'deploy with PASSWORD=[REDACTED] now', length: 31, truncated: false });
  const tool = by.tool_result!.tool!;
  assert.equal([tool.name, tool.call_id, tool.success, tool.duration_ms], ['Bash', 'toolu_01', false, 1500]);
  assert.is(tool.command, 'export GITHUB_TOKEN=[REDACTED] && gh pr list');
  assert.is(tool.error, 'Exit code 1: token=[REDACTED]');
  assert.equal(by.api_request!.api, { model: 'claude-sonnet', input_tokens: 1200, output_tokens: 340, cost_usd: 0.0123, duration_ms: 2200 });
  assert.is(by.unknown!.attributes['hook_event'], 'PreToolUse');
  const all = JSON.stringify(events);
  for (const secret of ['hunter22', 'tkn_abc123def', 'ghp_1234567890abcdefghijklmnopqrstuvwxyzAB']) assert.not.ok(all.includes(secret), secret);
});

test('Codex-shaped logs over OTLP/JSON to the generic /v1/logs (agent inferred from service.name)', async () => {
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'codex_cli_rs', 'service.version': '0.50.0', env: 'dev' }),
    processors: [new SimpleLogRecordProcessor({ exporter: new JsonLogExporter({ url: `${ts.ingestUrl}/v1/logs`, headers: headers() }) })],
  });
  const logger = provider.getLogger('codex');
  const common = { 'conversation.id': 'conv-cx-1', 'user.account_id': 'user_9', originator: 'codex_cli_rs' };
  logger.emit({ attributes: { ...common, 'event.name': 'codex.conversation_starts', 'event.timestamp': '2026-02-01T11:00:00.000Z', approval_policy: 'on-request' } });
  logger.emit({ attributes: { ...common, 'event.name': 'codex.api_request', 'gen_ai.usage.input_tokens': '900', 'gen_ai.usage.output_tokens': '45', duration_ms: '812', attempt: '1', 'http.response.status_code': '200' } });
  logger.emit({ attributes: { ...common, 'event.name': 'codex.tool_decision', tool_name: 'shell', call_id: 'call_7', decision: 'approved_for_session', source: 'user' } });
  logger.emit({ attributes: { ...common, 'event.name': 'codex.tool_result', tool_name: 'shell', call_id: 'call_7', success: 'true', duration_ms: '33', arguments: JSON.stringify({ command: ['bash', '-lc', 'curl -H "Authorization: Bearer sk-proj-4fGh7Jk9Lm2Np5Qr8St1Uv4Wx7Yz0Ab3" x'] }), output: 'secret tool output' } });
  logger.emit({ attributes: { ...common, 'event.name': 'codex.sse_event', 'event.kind': 'response.completed', input_token_count: '900', output_token_count: '45' } });
  await provider.forceFlush();
  await provider.shutdown();
  const events = await eventually(async () => {
    const all = (await readEvents(ts)).filter((e) => e.conversation_id === 'conv-cx-1');
    return all.length === 5 ? all : undefined;
  });
  assert.ok(events, 'five events stored');
  const by = Object.fromEntries(events!.map((e) => [e.type, e]));
  assert.equal(Object.keys(by).sort(), ['api_request', 'session_start', 'stream_event', 'tool_decision', 'tool_result']);
  for (const e of events!) assert.equal([e.agent, e.user_id, e.environment], ['agent-b', 'user_9', 'development']);
  assert.is(by.session_start!.event_time, '2026-02-01T11:00:00.000Z');
  assert.equal(by.api_request!.api, { input_tokens: 900, output_tokens: 45, duration_ms: 812, status_code: 200 });
  assert.is(by.api_request!.attributes['attempt'], 1);
  assert.equal([by.tool_decision!.tool!.decision, by.tool_decision!.tool!.call_id], ['accept', 'call_7']);
  assert.equal([by.tool_result!.tool!.success, by.tool_result!.tool!.duration_ms, by.tool_result!.tool!.call_id], [true, 33, 'call_7']);
  assert.is(by.tool_result!.tool!.command, 'bash -lc curl -H "Authorization: Bearer [REDACTED]" x');
  assert.not.ok('output' in by.tool_result!.attributes);
  assert.equal([by.stream_event!.api!.input_tokens, by.stream_event!.api!.output_tokens], [900, 45]);
  const all = JSON.stringify(events);
  assert.not.ok(all.includes('sk-proj-4fGh7Jk9Lm2Np5Qr8St1Uv4Wx7Yz0Ab3'));
  assert.not.ok(all.includes('secret tool output'));
});

test('spans over OTLP/JSON to /v1/otel/agent-a/traces and OTLP/protobuf to /v1/traces', async () => {
  for (const [exporter, conv] of [
    [new OTLPTraceExporter({ url: `${ts.ingestUrl}/v1/otel/agent-a/traces`, headers: headers() }), 'sess-span-json'],
    [new ProtoTraceExporter({ url: `${ts.ingestUrl}/v1/traces`, headers: headers() }), 'sess-span-proto'],
  ] as const) {
    const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'claude-code' }), spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const tracer = provider.getTracer('com.anthropic.claude_code');
    const parent = tracer.startSpan('claude_code.interaction', { attributes: { 'session.id': conv } });
    const span = tracer.startSpan('claude_code.llm_request', { attributes: { 'session.id': conv, 'gen_ai.system': 'anthropic', 'gen_ai.request.model': 'claude-sonnet', input_tokens: 10 } });
    span.end();
    parent.end();
    await provider.forceFlush();
    await provider.shutdown();
    const spans = await eventually(async () => {
      const all = (await readEvents(ts)).filter((e) => e.conversation_id === conv);
      return all.length === 2 ? all : undefined;
    });
    assert.ok(spans, conv);
    const llm = spans!.find((s) => s.name === 'claude_code.llm_request')!;
    assert.equal([llm.type, llm.agent, llm.span!.gen_ai!.provider, llm.span!.gen_ai!.request_model], ['span', 'agent-a', 'anthropic', 'claude-sonnet']);
    assert.match(llm.trace_id, /^[0-9a-f]{32}$/);
    assert.match(llm.span_id, /^[0-9a-f]{16}$/);
  }
});

test.run();
