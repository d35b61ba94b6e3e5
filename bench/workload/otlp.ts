import { ProtoWriter } from './protobuf.js';
import type { Conversation } from './conversation.js';
import { createRng, deriveSeed } from './rng.js';

/** An attribute value with the OTLP type it travels as (agents send numbers as strings too). */
export type AttrValue = { s: string } | { i: number } | { d: number } | { b: boolean };
export type Attr = [string, AttrValue];

export interface LogRecordSpec {
  timeMs: number;
  /** Body string (agent A puts the qualified event name there). */
  body?: string;
  attributes: Attr[];
}

export interface LogBatchSpec {
  resource: Attr[];
  scope: { name: string; version: string };
  records: LogRecordSpec[];
}

const s = (v: string): AttrValue => ({ s: v });
const i = (v: number): AttrValue => ({ i: v });
const d = (v: number): AttrValue => ({ d: v });

/** Agent A log records for one conversation (sizes and attribute mix per the telemetry fact sheet). */
export function agentARecords(c: Conversation): { resource: Attr[]; scope: LogBatchSpec['scope']; records: LogRecordSpec[] } {
  const rng = createRng(deriveSeed(c.index, 0xa));
  const org = `org-${c.tenant}`;
  const envelope = (name: string, seq: number, t: number, promptId: string): Attr[] => [
    ['event.name', s(name)],
    ['event.timestamp', s(new Date(t).toISOString())],
    ['event.sequence', i(seq)],
    ['session.id', s(c.id)],
    ['user.id', s(c.userId)],
    ['user.account_uuid', s(`acct-${c.userId}`)],
    ['organization.id', s(org)],
    ['terminal.type', s('vscode')],
    ['prompt.id', s(promptId)],
  ];
  const records: LogRecordSpec[] = [];
  let seq = 0;
  let promptId = '';
  for (const m of c.messages) {
    if (m.role === 'user') {
      promptId = `p-${rng.hex(8)}`;
      const redacted = rng.chance(0.5);
      records.push({
        timeMs: m.timeMs,
        body: 'claude_code.user_prompt',
        attributes: [...envelope('user_prompt', seq++, m.timeMs, promptId), ['prompt_length', s(String(m.text.length))], ['prompt', s(redacted ? '<REDACTED>' : m.text)]],
      });
      continue;
    }
    records.push({
      timeMs: m.timeMs,
      body: 'claude_code.api_request',
      attributes: [
        ...envelope('api_request', seq++, m.timeMs, promptId),
        ['model', s(m.model ?? '')],
        ['cost_usd', d(m.costUsd)],
        ['duration_ms', i(rng.int(800, 30_000))],
        ['input_tokens', i(m.inputTokens)],
        ['output_tokens', i(m.outputTokens)],
        ['cache_read_tokens', i(Math.floor(m.inputTokens * 0.6))],
        ['cache_creation_tokens', i(rng.int(0, 2000))],
        ['request_id', s(`req_011${rng.hex(10)}`)],
        ['speed', s('normal')],
        ['query_source', s('main')],
      ],
    });
    for (const tc of m.toolCalls) {
      records.push({
        timeMs: m.timeMs + 1,
        body: 'claude_code.tool_decision',
        attributes: [
          ...envelope('tool_decision', seq++, m.timeMs + 1, promptId),
          ['tool_name', s(tc.name)],
          ['tool_use_id', s(tc.id)],
          ['decision', s(tc.decision)],
          ['source', s(tc.decision === 'accept' ? 'config' : 'user_reject')],
          ['tool_source', s('builtin')],
        ],
      });
      const input = JSON.stringify(tc.input);
      const attrs: Attr[] = [
        ...envelope('tool_result', seq++, m.timeMs + 2 + tc.durationMs, promptId),
        ['tool_name', s(tc.name)],
        ['tool_use_id', s(tc.id)],
        ['success', s(String(tc.success))],
        ['duration_ms', i(tc.durationMs)],
        ['decision_type', s(tc.decision)],
        ['decision_source', s('config')],
        ['tool_input_size_bytes', i(input.length)],
        ['tool_result_size_bytes', i(rng.int(10, 20_000))],
        ['tool_parameters', s(JSON.stringify({ bash_command: tc.name === 'Bash' ? tc.input.command : undefined, description: 'tool call' }))],
        ['tool_input', s(input.slice(0, 4096))],
      ];
      if (!tc.success) attrs.push(['error', s(tc.error ?? '')], ['error_type', s('tool_error')]);
      records.push({ timeMs: m.timeMs + 2 + tc.durationMs, body: 'claude_code.tool_result', attributes: attrs });
    }
  }
  return {
    resource: [['service.name', s('claude-code')], ['service.version', s('2.1.294')], ['os.type', s('linux')], ['os.version', s('6.8.0')], ['host.arch', s('x64')]],
    scope: { name: 'com.anthropic.claude_code.events', version: '2.1.294' },
    records,
  };
}

/** Agent B log records: qualified `event.name`, numbers as Display strings, tokens on api_request. */
export function agentBRecords(c: Conversation): { resource: Attr[]; scope: LogBatchSpec['scope']; records: LogRecordSpec[] } {
  const rng = createRng(deriveSeed(c.index, 0xb));
  const common = (name: string, t: number, model: string): Attr[] => [
    ['event.name', s(name)],
    ['event.timestamp', s(new Date(t).toISOString())],
    ['conversation.id', s(c.id)],
    ['app.version', s('0.46.0')],
    ['originator', s('codex_cli_rs')],
    ['user.account_id', s(c.userId)],
    ['terminal.type', s('xterm-256color')],
    ['model', s(model)],
    ['slug', s(model)],
  ];
  const model = c.messages.find((m) => m.model)?.model ?? 'gpt-5-codex';
  const records: LogRecordSpec[] = [
    {
      timeMs: c.startMs,
      attributes: [
        ...common('codex.conversation_starts', c.startMs, model),
        ['provider_name', s('openai')],
        ['reasoning_effort', s('medium')],
        ['approval_policy', s('on-request')],
        ['sandbox_policy', s('workspace-write')],
        ['mcp_servers', s('')],
      ],
    },
  ];
  for (const m of c.messages) {
    if (m.role === 'user') {
      records.push({ timeMs: m.timeMs, attributes: [...common('codex.user_prompt', m.timeMs, model), ['prompt_length', s(String(m.text.length))], ['prompt', s('[REDACTED]')]] });
      continue;
    }
    records.push({
      timeMs: m.timeMs,
      attributes: [
        ...common('codex.api_request', m.timeMs, model),
        ['duration_ms', s(String(rng.int(500, 20_000)))],
        ['http.response.status_code', s('200')],
        ['attempt', s('1')],
        ['endpoint', s('/v1/responses')],
        ['gen_ai.usage.input_tokens', i(m.inputTokens)],
        ['gen_ai.usage.output_tokens', i(m.outputTokens)],
      ],
    });
    records.push({
      timeMs: m.timeMs,
      attributes: [
        ...common('codex.sse_event', m.timeMs, model),
        ['event.kind', s('response.completed')],
        ['duration_ms', s(String(rng.int(5, 200)))],
        ['input_token_count', s(String(m.inputTokens))],
        ['output_token_count', s(String(m.outputTokens))],
        ['cached_token_count', s(String(Math.floor(m.inputTokens / 2)))],
        ['tool_token_count', s('0')],
      ],
    });
    for (const tc of m.toolCalls) {
      records.push({
        timeMs: m.timeMs + 1,
        attributes: [...common('codex.tool_decision', m.timeMs + 1, model), ['tool_name', s(tc.name)], ['call_id', s(tc.id)], ['decision', s(tc.decision === 'accept' ? 'approved' : 'denied')], ['source', s('config')]],
      });
      records.push({
        timeMs: m.timeMs + 2 + tc.durationMs,
        attributes: [
          ...common('codex.tool_result', m.timeMs + 2 + tc.durationMs, model),
          ['tool_name', s(tc.name)],
          ['call_id', s(tc.id)],
          ['arguments', s(JSON.stringify(tc.input))],
          ['duration_ms', s(String(tc.durationMs))],
          ['success', s(String(tc.success))],
          ['output', s(tc.success ? 'ok' : tc.error ?? 'error')],
        ],
      });
    }
  }
  return {
    resource: [['service.name', s('codex_cli_rs')], ['service.version', s('0.46.0')], ['env', s(c.environment)], ['host.name', s('devbox')]],
    scope: { name: '', version: '' },
    records,
  };
}

const nanos = (ms: number) => `${ms}000000`;

function jsonValue(v: AttrValue): Record<string, unknown> {
  if ('s' in v) return { stringValue: v.s };
  // proto3 JSON: int64 as a decimal string
  if ('i' in v) return { intValue: String(v.i) };
  if ('d' in v) return { doubleValue: v.d };
  return { boolValue: v.b };
}

const jsonAttrs = (attrs: Attr[]) => attrs.map(([key, value]) => ({ key, value: jsonValue(value) }));

/** OTLP/HTTP JSON body (ExportLogsServiceRequest, lowerCamelCase keys). */
export function encodeLogsJson(batch: LogBatchSpec): string {
  return JSON.stringify({
    resourceLogs: [
      {
        resource: { attributes: jsonAttrs(batch.resource) },
        scopeLogs: [
          {
            scope: batch.scope.name ? { name: batch.scope.name, version: batch.scope.version } : {},
            logRecords: batch.records.map((r) => ({
              timeUnixNano: nanos(r.timeMs),
              observedTimeUnixNano: nanos(r.timeMs + 5),
              severityNumber: 9,
              severityText: 'INFO',
              ...(r.body ? { body: { stringValue: r.body } } : {}),
              attributes: jsonAttrs(r.attributes),
            })),
          },
        ],
      },
    ],
  });
}

function writeValue(w: ProtoWriter, v: AttrValue): void {
  if ('s' in v) w.string(1, v.s);
  else if ('i' in v) w.int64(3, v.i);
  else if ('d' in v) w.double(4, v.d);
  else w.bool(2, v.b);
}

function writeAttrs(w: ProtoWriter, field: number, attrs: Attr[]): void {
  for (const [key, value] of attrs) w.message(field, (kv) => kv.string(1, key).message(2, (av) => writeValue(av, value)));
}

/** OTLP/HTTP protobuf body (ExportLogsServiceRequest). */
export function encodeLogsProto(batch: LogBatchSpec): Uint8Array {
  const w = new ProtoWriter();
  w.message(1, (rl) => {
    rl.message(1, (res) => writeAttrs(res, 1, batch.resource));
    rl.message(2, (sl) => {
      if (batch.scope.name) sl.message(1, (sc) => sc.string(1, batch.scope.name).string(2, batch.scope.version));
      for (const r of batch.records) {
        sl.message(2, (lr) => {
          lr.fixed64(1, BigInt(r.timeMs) * 1_000_000n);
          lr.fixed64(11, BigInt(r.timeMs + 5) * 1_000_000n);
          lr.uint(2, 9);
          lr.string(3, 'INFO');
          if (r.body) lr.message(5, (b) => b.string(1, r.body!));
          writeAttrs(lr, 6, r.attributes);
        });
      }
    });
  });
  return w.finish();
}
