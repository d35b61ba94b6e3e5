/**
 * End to end with every role in one process: the OpenTelemetry JS SDK (logs over OTLP/protobuf and
 * OTLP/JSON, a GenAI span over OTLP/JSON) and a real shell hook script (bash + curl) send a
 * Claude-Code-shaped session and a Codex-shaped conversation; the suite waits until the stream role
 * stored them and checks ClickHouse (events, messages, tool_calls, spans, conversations) and the
 * data API of the query role against values computed from what was sent.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { startTestSystem, eventually, toolRollupSettled, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { tempDir } from '../../helpers/tmp.js';

const S1 = 'e2e-sess-S1';
const C1 = 'e2e-conv-C1';

// secrets the agents leak into prompts and errors: none may reach storage
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const BEARER = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIn0.c2lnbmF0dXJlLXRlc3Q';
const NPM_TOKEN = 'npm_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78';
const SECRETS = [AWS_SECRET, BEARER, NPM_TOKEN];

const PROMPT_1 = `deploy the service: export AWS_SECRET_ACCESS_KEY=${AWS_SECRET} then run ./deploy.sh`;
const PROMPT_1_STORED = 'deploy the service: export AWS_SECRET_ACCESS_KEY=[REDACTED] then run ./deploy.sh';
const PROMPT_2 = 'why did the deploy fail?';
// long enough that the 2,048-byte error cap applies after redaction
const T1_ERROR = `Exit code 22: curl -H "Authorization: Bearer ${BEARER}" https://deploy.example.com/v1/release returned 401\n${'retrying… '.repeat(300)}`;
const T1_ERROR_PREFIX = 'Exit code 22: curl -H "Authorization: Bearer [REDACTED]" https://deploy.example.com/v1/release returned 401';
const T2_ERROR = `npm ERR! 403 Forbidden - GET https://registry.npmjs.org/private-pkg (token ${NPM_TOKEN})`;
const CODEX_PROMPT = 'list the files in src and explain them';

const API_REQUESTS = [
  { model: 'claude-sonnet-4-5', input: 1200, output: 340, cost: 0.0123, duration: 2200 },
  { model: 'claude-sonnet-4-5', input: 800, output: 60, cost: 0.004, duration: 900 },
];
const CODEX_TOKENS = { input: 900, output: 45 };

let ts: TestSystem;
let base: number; // ms: the Claude Code session starts here, the Codex conversation a minute later
let codexHookSeconds: number;

test.before(async () => {
  ts = await startTestSystem({ env: { JOB_INTERVAL_MS: '1000' } });
  base = Math.floor(Date.now() / 1000) * 1000 - 10 * 60_000;
  codexHookSeconds = Math.floor((base + 60_000) / 1000) + 30;
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

const iso = (ms: number) => new Date(ms).toISOString();
const authHeaders = () => ({ Authorization: `Bearer ${ts.adminKey}` });

async function sendClaudeCodeLogs() {
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'claude-code', 'service.version': '2.1.3' }),
    processors: [new SimpleLogRecordProcessor({ exporter: new ProtoLogExporter({ url: `${ts.ingestUrl}/v1/otel/agent-a/logs`, headers: authHeaders() }) })],
  });
  const logger = provider.getLogger('com.anthropic.claude_code.events', '2.1.3');
  const common = { 'session.id': S1, 'user.account_uuid': 'acct-e2e', 'organization.id': 'org-1', 'terminal.type': 'iTerm.app' };
  let seq = 0;
  const emit = (name: string, offsetMs: number, attrs: Record<string, string | number>) =>
    logger.emit({ body: `claude_code.${name}`, attributes: { ...common, 'event.name': name, 'event.timestamp': iso(base + offsetMs), 'event.sequence': ++seq, ...attrs } });
  emit('user_prompt', 0, { prompt_length: String(PROMPT_1.length), prompt: PROMPT_1 });
  const [a, b] = API_REQUESTS as [(typeof API_REQUESTS)[0], (typeof API_REQUESTS)[0]];
  emit('api_request', 1000, { model: a.model, input_tokens: String(a.input), output_tokens: String(a.output), cache_read_tokens: '0', cost_usd: a.cost, duration_ms: String(a.duration) });
  emit('tool_decision', 2000, { tool_name: 'Bash', tool_use_id: 'T1', decision: 'accept', source: 'config' });
  emit('tool_result', 3000, {
    tool_name: 'Bash', tool_use_id: 'T1', success: 'false', duration_ms: '1500', error: T1_ERROR,
    tool_parameters: JSON.stringify({ bash_command: 'curl -sf https://deploy.example.com/v1/release' }),
  });
  emit('user_prompt', 4000, { prompt_length: String(PROMPT_2.length), prompt: PROMPT_2 });
  emit('api_request', 5000, { model: b.model, input_tokens: String(b.input), output_tokens: String(b.output), cost_usd: b.cost, duration_ms: String(b.duration) });
  await provider.forceFlush();
  await provider.shutdown();
}

async function sendCodexLogs() {
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'codex_cli_rs', 'service.version': '0.50.0' }),
    processors: [new SimpleLogRecordProcessor({ exporter: new JsonLogExporter({ url: `${ts.ingestUrl}/v1/logs`, headers: authHeaders() }) })],
  });
  const logger = provider.getLogger('codex_otel');
  const common = { 'conversation.id': C1, 'user.account_id': 'user-codex', originator: 'codex_cli_rs', model: 'gpt-5-codex' };
  const start = base + 60_000;
  const emit = (name: string, offsetMs: number, attrs: Record<string, string | number>) =>
    logger.emit({ timestamp: new Date(start + offsetMs), attributes: { ...common, 'event.name': name, ...attrs } });
  emit('codex.conversation_starts', 0, { approval_policy: 'on-request', sandbox_policy: 'workspace-write' });
  emit('codex.user_prompt', 1000, { prompt_length: String(CODEX_PROMPT.length), prompt: CODEX_PROMPT });
  emit('codex.api_request', 2000, { duration_ms: '812', attempt: '1', 'http.response.status_code': '200' });
  emit('codex.tool_decision', 3000, { tool_name: 'shell', call_id: 'K1', decision: 'approved', source: 'config' });
  emit('codex.tool_result', 4000, { tool_name: 'shell', call_id: 'K1', success: 'true', duration_ms: '45', arguments: JSON.stringify({ command: ['bash', '-lc', 'ls src'] }), output: 'a.ts\nb.ts' });
  emit('codex.sse_event', 5000, { 'event.kind': 'response.completed', input_token_count: String(CODEX_TOKENS.input), output_token_count: String(CODEX_TOKENS.output), cached_token_count: '100', duration_ms: '3' });
  await provider.forceFlush();
  await provider.shutdown();
}

async function sendGenAiSpan() {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'claude-code' }),
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${ts.ingestUrl}/v1/otel/agent-a/traces`, headers: authHeaders() }))],
  });
  const tracer = provider.getTracer('com.anthropic.claude_code');
  const span = tracer.startSpan('chat claude-sonnet-4-5', {
    startTime: new Date(base + 500),
    attributes: {
      'session.id': S1, 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'anthropic', 'gen_ai.request.model': 'claude-sonnet-4-5',
      'gen_ai.usage.input_tokens': 1200, 'gen_ai.usage.output_tokens': 340,
    },
  });
  span.end(new Date(base + 2700));
  await provider.forceFlush();
  await provider.shutdown();
}

/** The command hook a user would configure: forwards the hook JSON on stdin to Tracehouse. */
const HOOK_SCRIPT = `#!/usr/bin/env bash
set -euo pipefail
endpoint="$1"
response=$(mktemp)
trap 'rm -f "$response"' EXIT
status=$(curl -sS -o "$response" -w '%{http_code}' -X POST \\
  -H "Authorization: Bearer $TRACEHOUSE_KEY" -H 'Content-Type: application/json' \\
  --data-binary @- "$TRACEHOUSE_URL/v1/otel/$endpoint/hooks")
cat "$response"
[ "$status" = 200 ] || { echo "tracehouse answered $status" >&2; exit 1; }
`;

function runHook(script: string, endpoint: string, payload: unknown): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // asynchronous on purpose: the ingest role answering the hook runs in this process
    const child = spawn('bash', [script, endpoint], { env: { ...process.env, TRACEHOUSE_URL: ts.ingestUrl, TRACEHOUSE_KEY: ts.adminKey } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(JSON.stringify(payload));
  });
}

async function sendHooks() {
  const dir = tempDir('th-hook-');
  const script = join(dir, 'tracehouse-hook.sh');
  writeFileSync(script, HOOK_SCRIPT);
  chmodSync(script, 0o755);
  const common = { session_id: S1, transcript_path: '/home/dev/.claude/projects/app/s1.jsonl', cwd: '/home/dev/app', permission_mode: 'default' };
  const calls: [string, unknown][] = [
    ['agent-a', { ...common, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'T2', tool_input: { command: 'npm test', description: 'Run tests' } }],
    ['agent-a', { ...common, hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_use_id: 'T2', tool_input: { command: 'npm test' }, error: T2_ERROR, is_interrupt: false }],
    ['agent-b', { hook_event_name: 'Stop', conversation_id: C1, timestamp: codexHookSeconds, cwd: '/home/dev/app', stop_hook_active: false }],
  ];
  for (const [endpoint, payload] of calls) {
    const r = await runHook(script, endpoint, payload);
    assert.is(r.code, 0, `hook script failed: ${r.stderr} ${r.stdout}`);
    const body = JSON.parse(r.stdout);
    assert.equal([body.success, body.count, body.malformed], [true, 1, 0], r.stdout);
  }
}

async function rows<T = Record<string, any>>(sql: string, params: Record<string, unknown> = {}): Promise<T[]> {
  return ts.system.rt.store.query<T>(sql, params);
}

async function conversationRow(id: string) {
  const [r] = await rows(`SELECT * FROM {{db}}.conversations FINAL WHERE tenant_id = 'default' AND conversation_id = {id:String}`, { id });
  return r;
}

test('SDK logs, a GenAI span and hook scripts are sent and accepted', async () => {
  await sendClaudeCodeLogs();
  await sendCodexLogs();
  await sendGenAiSpan();
  await sendHooks();
});

const EXPECTED_TYPES: Record<string, Record<string, number>> = {
  [S1]: { prompt: 2, api_request: 2, tool_decision: 2, tool_result: 2, span: 1 },
  [C1]: { session_start: 1, prompt: 1, api_request: 1, tool_decision: 1, tool_result: 1, stream_event: 1, session_end: 1 },
};
const total = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);

test('the stream role stored every event, and the conversation rollups caught up', async () => {
  const done = await eventually(
    async () => {
      const [s1, c1] = [await conversationRow(S1), await conversationRow(C1)];
      // the last things sent: the PostToolUseFailure hook of S1 and the Stop hook of C1
      return s1 && c1 && Number(s1.tool_failure_count) === 2 && c1.last_ts === iso(codexHookSeconds * 1000) ? [s1, c1] : undefined;
    },
    { timeoutMs: 25_000, intervalMs: 200 },
  );
  assert.ok(done, `conversation rollups did not arrive: ${JSON.stringify([await conversationRow(S1), await conversationRow(C1)])}`);
  assert.ok(await toolRollupSettled(ts.system.rt.store), 'the tool-failure rollup caught up');
  const got = await rows<{ conversation_id: string; type: string; n: string }>(
    `SELECT conversation_id, type, count() AS n FROM {{db}}.events FINAL WHERE tenant_id = 'default' GROUP BY conversation_id, type`,
  );
  const byConv: Record<string, Record<string, number>> = {};
  for (const r of got) (byConv[r.conversation_id] ??= {})[r.type] = Number(r.n);
  assert.equal(byConv, EXPECTED_TYPES);
});

test('events: coerced numbers, agents, times and redaction', async () => {
  const ev = await rows(
    `SELECT conversation_id, type, name, agent, source, event_time, user_id, environment, model, input_tokens, output_tokens, cost_usd, tool_name, tool_call_id, success, duration_ms, attributes
     FROM {{db}}.events FINAL WHERE tenant_id = 'default' ORDER BY event_time, sequence`,
  );
  const s1 = ev.filter((e) => e.conversation_id === S1);
  const c1 = ev.filter((e) => e.conversation_id === C1);
  assert.ok(s1.every((e) => e.agent === 'agent-a'), 'S1 is agent-a');
  assert.ok(c1.every((e) => e.agent === 'agent-b'), 'C1 is agent-b (inferred from service.name on /v1/logs)');
  assert.ok(s1.filter((e) => e.type !== 'span' && e.source === 'logs').every((e) => e.user_id === 'acct-e2e'));
  assert.ok(c1.filter((e) => e.source === 'logs').every((e) => e.user_id === 'user-codex' && e.environment === 'production'));

  const api = s1.filter((e) => e.type === 'api_request');
  assert.equal(
    api.map((e) => [e.model, Number(e.input_tokens), Number(e.output_tokens), Number(e.cost_usd), Number(e.duration_ms), e.event_time.slice(0, 19)]),
    API_REQUESTS.map((a, i) => [a.model, a.input, a.output, a.cost, a.duration, iso(base + (i === 0 ? 1000 : 5000)).slice(0, 19)]),
  );
  const t1 = s1.find((e) => e.type === 'tool_result' && e.tool_call_id === 'T1')!;
  assert.equal([t1.tool_name, Number(t1.success), Number(t1.duration_ms)], ['Bash', 0, 1500]);
  const t2 = s1.find((e) => e.type === 'tool_result' && e.tool_call_id === 'T2')!;
  assert.equal([t2.name, t2.source, Number(t2.success)], ['PostToolUseFailure', 'hooks', 0]);
  const k1 = c1.find((e) => e.type === 'tool_result')!;
  assert.equal([k1.tool_call_id, Number(k1.success), Number(k1.duration_ms)], ['K1', 1, 45]);
  assert.not.ok('output' in k1.attributes, 'tool output is never stored');
  const sse = c1.find((e) => e.type === 'stream_event')!;
  assert.equal([Number(sse.input_tokens), Number(sse.output_tokens)], [CODEX_TOKENS.input, CODEX_TOKENS.output]);
  const stop = c1.find((e) => e.type === 'session_end')!;
  assert.equal([stop.name, stop.source, stop.event_time], ['Stop', 'hooks', iso(codexHookSeconds * 1000)]);
  assert.is(c1[0]!.type, 'session_start');
  assert.is(c1[0]!.event_time, iso(base + 60_000));

  const [span] = await rows(`SELECT conversation_id, agent, gen_ai_operation, gen_ai_provider, gen_ai_request_model, gen_ai_input_tokens, gen_ai_output_tokens, duration_ms FROM {{db}}.spans FINAL WHERE tenant_id = 'default'`);
  assert.equal(
    [span!.conversation_id, span!.agent, span!.gen_ai_operation, span!.gen_ai_provider, span!.gen_ai_request_model, Number(span!.gen_ai_input_tokens), Number(span!.gen_ai_output_tokens), Number(span!.duration_ms)],
    [S1, 'agent-a', 'chat', 'anthropic', 'claude-sonnet-4-5', 1200, 340, 2200],
  );
});

test('no secret reaches any stored text column', async () => {
  for (const table of ['events', 'spans', 'messages', 'tool_calls', 'conversations']) {
    const all = JSON.stringify(await rows(`SELECT * FROM {{db}}.${table} WHERE tenant_id = 'default'`));
    assert.ok(all.length > 100, `${table} holds rows`);
    for (const s of SECRETS) assert.not.ok(all.includes(s), `${table} contains ${s.slice(0, 8)}…`);
  }
  const [p] = await rows(`SELECT attributes['prompt'] AS prompt FROM {{db}}.events FINAL WHERE tenant_id = 'default' AND conversation_id = {c:String} AND type = 'prompt' ORDER BY event_time LIMIT 1`, { c: S1 });
  assert.is(p!.prompt, PROMPT_1_STORED);
});

test('messages: one user message per prompt, redacted, in order', async () => {
  const msgs = await rows(
    `SELECT conversation_id, role, content, format, agent, row_number() OVER (PARTITION BY conversation_id ORDER BY ts, seq, message_id) - 1 AS idx
     FROM {{db}}.messages FINAL WHERE tenant_id = 'default' ORDER BY conversation_id, idx`,
  );
  assert.equal(
    msgs.map((m) => [m.conversation_id, Number(m.idx), m.role, m.content, m.agent]),
    [
      [C1, 0, 'user', CODEX_PROMPT, 'agent-b'],
      [S1, 0, 'user', PROMPT_1_STORED, 'agent-a'],
      [S1, 1, 'user', PROMPT_2, 'agent-a'],
    ],
  );
});

test('tool_calls: decision and result folded into one row per call', async () => {
  const calls = await rows(
    `SELECT conversation_id, call_id, max(tool_name) AS tool, max(decision) AS decision, max(decision_source) AS source, max(success) AS success,
            max(error) AS error, max(duration_ms) AS duration, max(command) AS command, max(input) AS input, max(agent) AS agent, count() AS parts
     FROM {{db}}.tool_calls WHERE tenant_id = 'default' GROUP BY conversation_id, call_id ORDER BY call_id`,
  );
  assert.equal(calls.map((c) => c.call_id), ['K1', 'T1', 'T2']);
  const [k1, t1, t2] = calls as [Record<string, any>, Record<string, any>, Record<string, any>];
  assert.equal([t1.conversation_id, t1.tool, t1.decision, t1.source, Number(t1.success), Number(t1.duration), t1.agent], [S1, 'Bash', 'accept', 'config', 0, 1500, 'agent-a']);
  assert.ok(t1.error.startsWith(T1_ERROR_PREFIX), t1.error.slice(0, 200));
  assert.ok(Buffer.byteLength(t1.error) <= 2048 && Buffer.byteLength(t1.error) > 1900, `error capped at 2,048 bytes (${Buffer.byteLength(t1.error)})`);
  assert.is(t1.command, 'curl -sf https://deploy.example.com/v1/release');
  assert.equal([t2.conversation_id, t2.tool, Number(t2.success), t2.command], [S1, 'Bash', 0, 'npm test']);
  assert.is(t2.error, `npm ERR! 403 Forbidden - GET https://registry.npmjs.org/private-pkg (token [REDACTED])`);
  assert.is(JSON.parse(t2.input).command, 'npm test');
  assert.equal([k1.conversation_id, k1.tool, k1.decision, Number(k1.success), Number(k1.duration), k1.command, k1.error, k1.agent], [C1, 'shell', 'accept', 1, 45, 'bash -lc ls src', '', 'agent-b']);
});

test('conversations: exact rollups of both conversations', async () => {
  const s1 = (await conversationRow(S1))!;
  assert.equal(
    [s1.agent, s1.user_id, Number(s1.message_count), Number(s1.input_tokens), Number(s1.output_tokens), Number(s1.tool_call_count), Number(s1.tool_failure_count), Number(s1.api_request_count)],
    ['agent-a', 'acct-e2e', 2, 1200 + 800, 340 + 60, 2, 2, 2],
  );
  assert.ok(Math.abs(Number(s1.cost_usd) - (0.0123 + 0.004)) < 1e-9, String(s1.cost_usd));
  assert.is(s1.first_ts, iso(base));
  const c1 = (await conversationRow(C1))!;
  assert.equal(
    [c1.agent, c1.user_id, Number(c1.message_count), Number(c1.input_tokens), Number(c1.output_tokens), Number(c1.cost_usd), Number(c1.tool_call_count), Number(c1.tool_failure_count)],
    ['agent-b', 'user-codex', 1, CODEX_TOKENS.input, CODEX_TOKENS.output, 0, 1, 0],
  );
  assert.is(c1.first_ts, iso(base + 60_000));
  assert.is(c1.last_ts, iso(codexHookSeconds * 1000));
});

const api = async (path: string) => {
  const r = await http(`${ts.queryUrl}/api/v1/data${path}`, { headers: { 'x-api-key': ts.adminKey } });
  assert.is(r.status, 200, `${path}: ${r.text}`);
  return r.body;
};

test('data API: conversations, context, overview and tool failures', async () => {
  const list = await api('/conversations?time_range=24h');
  const byId = Object.fromEntries(list.conversations.map((c: any) => [c.conversation_id, c]));
  assert.equal(Object.keys(byId).sort(), [C1, S1].sort());
  assert.equal([byId[S1].message_count, byId[C1].message_count], [2, 1]);
  assert.is(byId[C1].first_timestamp, iso(base + 60_000));
  assert.is(byId[S1].environment, 'production');

  const ctx = await api(`/conversations/${S1}/context?msg_index=0&window=1`);
  assert.is(ctx.total_messages, 2);
  assert.equal(ctx.context.messages.map((m: any) => [m.index, m.role, m.content]), [[0, 'user', PROMPT_1_STORED], [1, 'user', PROMPT_2]]);
  assert.is(ctx.context.messages[0].timestamp, iso(base));

  const overview = await api('/overview?days_back=7');
  assert.is(overview.conversations.total, 2);
  assert.equal(overview.tool_failures, { total: 2, conversations: 1, tools: 1 });

  const tf = await api('/tool-failures?days_back=7');
  assert.equal([tf.totals.calls, tf.totals.failures, tf.totals.conversations, tf.totals.tools], [3, 2, 1, 1]);
  const bash = tf.tools.find((t: any) => t.tool_name === 'Bash');
  assert.ok(bash, JSON.stringify(tf.tools));
  assert.equal([bash.calls, bash.failures, bash.conversations], [2, 2, 1]);
  assert.ok(bash.example_errors.some((e: string) => e.startsWith(T1_ERROR_PREFIX)), JSON.stringify(bash.example_errors).slice(0, 300));
  assert.ok(bash.example_errors.includes('npm ERR! 403 Forbidden - GET https://registry.npmjs.org/private-pkg (token [REDACTED])'));
  const shell = tf.tools.find((t: any) => t.tool_name === 'shell');
  assert.equal([shell?.calls, shell?.failures], [1, 0]);
  const all = JSON.stringify([list, ctx, overview, tf]);
  for (const s of SECRETS) assert.not.ok(all.includes(s));
});

test.run();
