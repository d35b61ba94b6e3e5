import type { AgentId, ApiFacet, Attributes, PromptFacet, ToolFacet } from '../../schemas/events.js';
import { toBoolean, toCount, toNumber } from './coerce.js';
import { firstText, text } from './event.js';
import { command, errorText, jsonText, prompt } from './sanitize.js';

/** Texts the agents send instead of the prompt when prompt logging is off. */
const REDACTED_PROMPT = new Set(['<REDACTED>', '[REDACTED]', 'REDACTED', '<redacted>']);

export function promptFacet(raw: unknown, lengthAttr?: unknown): PromptFacet {
  const t = typeof raw === 'string' && !REDACTED_PROMPT.has(raw.trim()) ? raw : '';
  const capped = prompt(t);
  const length = toNumber(lengthAttr) ?? [...t].length;
  return { text: capped.text, length, truncated: capped.truncated };
}

/** Decisions: agent A accept/reject; agent B approved*, denied, abort; hooks allow/deny/ask. */
export function decisionOf(v: unknown): ToolFacet['decision'] {
  const s = text(v).toLowerCase();
  if (!s) return undefined;
  if (s === 'accept' || s.startsWith('approved') || s === 'allow' || s === 'approve' || s === 'yes') return 'accept';
  if (s === 'reject' || s === 'denied' || s === 'deny' || s === 'abort' || s === 'block' || s === 'no') return 'reject';
  return undefined;
}

function parseJson(v: unknown): Record<string, unknown> | undefined {
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  if (typeof v !== 'string' || !v.trim().startsWith('{')) return undefined;
  try {
    const o = JSON.parse(v);
    return o && typeof o === 'object' && !Array.isArray(o) ? o : undefined;
  } catch {
    return undefined;
  }
}

/** Shell command from a tool's parameters: agent A `bash_command`/`full_command`, agent B `command` (argv array). */
export function commandOf(params: Record<string, unknown> | undefined): string {
  if (!params) return '';
  const c = params['full_command'] ?? params['bash_command'] ?? params['command'] ?? params['cmd'];
  if (Array.isArray(c)) return c.map((x) => text(x)).join(' ');
  return text(c);
}

/** Tool facet from OTLP attributes (already coerced). */
export function toolFacet(agent: AgentId, attrs: Attributes): ToolFacet {
  const isA = agent === 'agent-a';
  const params = parseJson(isA ? attrs['tool_parameters'] ?? attrs['tool_input'] : attrs['arguments']);
  const facet: ToolFacet = {
    name: firstText(attrs, 'tool_name', 'name'),
    call_id: firstText(attrs, 'tool_use_id', 'call_id', 'gen_ai.tool.call.id'),
  };
  const decision = decisionOf(attrs['decision'] ?? attrs['decision_type']);
  if (decision) facet.decision = decision;
  const source = firstText(attrs, 'source', 'decision_source');
  if (source) facet.decision_source = source;
  const success = toBoolean(attrs['success']);
  if (success !== undefined) facet.success = success;
  const duration = toNumber(attrs['duration_ms']);
  if (duration !== undefined) facet.duration_ms = duration;
  const err = firstText(attrs, 'error', 'error.message');
  if (err) {
    const e = errorText(err);
    facet.error = e.text;
    if (e.truncated) facet.error_truncated = true;
  }
  const errType = firstText(attrs, 'error_type');
  if (errType) facet.error_type = errType;
  const input = attrs['tool_input'] ?? attrs['tool_parameters'] ?? attrs['arguments'];
  if (input !== undefined && input !== null && input !== '') facet.input = jsonText(input).text;
  const cmd = commandOf(params);
  if (cmd) {
    const c = command(cmd);
    facet.command = c.text;
    if (c.truncated) facet.command_truncated = true;
  }
  const mcp = firstText(attrs, 'mcp_server', 'mcp_server.name') || text(params?.['mcp_server_name']);
  if (mcp) facet.mcp_server = mcp;
  return facet;
}

const firstOf = (parse: (v: unknown) => number | undefined) => (attrs: Attributes, ...keys: string[]) => {
  for (const k of keys) {
    const n = parse(attrs[k]);
    if (n !== undefined) return n;
  }
  return undefined;
};
const num = firstOf(toNumber);
/** Token counts go to UInt64 columns: only non-negative integers (toCount). */
const count = firstOf(toCount);

/** API facet: agent A flat keys; agents B/C `gen_ai.usage.*` and the `*_token_count` keys of stream events. */
export function apiFacet(agent: AgentId, attrs: Attributes, isError: boolean): ApiFacet {
  const isA = agent === 'agent-a';
  const facet: ApiFacet = {};
  const set = <K extends keyof ApiFacet>(k: K, v: ApiFacet[K] | undefined) => {
    if (v !== undefined && v !== '') facet[k] = v;
  };
  set('model', firstText(attrs, 'model', 'gen_ai.request.model', 'gen_ai.response.model') || undefined);
  set('input_tokens', isA ? count(attrs, 'input_tokens') : count(attrs, 'gen_ai.usage.input_tokens', 'input_token_count', 'gen_ai.usage.prompt_tokens'));
  set('output_tokens', isA ? count(attrs, 'output_tokens') : count(attrs, 'gen_ai.usage.output_tokens', 'output_token_count', 'gen_ai.usage.completion_tokens'));
  set('cache_read_tokens', isA ? count(attrs, 'cache_read_tokens') : count(attrs, 'gen_ai.usage.cache_read.input_tokens', 'cached_token_count'));
  set('cache_creation_tokens', isA ? count(attrs, 'cache_creation_tokens') : count(attrs, 'gen_ai.usage.cache_creation.input_tokens'));
  set('reasoning_tokens', isA ? undefined : count(attrs, 'gen_ai.usage.reasoning.output_tokens', 'reasoning_token_count'));
  set('cost_usd', num(attrs, 'cost_usd'));
  set('duration_ms', num(attrs, 'duration_ms'));
  set('status_code', num(attrs, 'status_code', 'http.response.status_code'));
  const err = firstText(attrs, 'error', 'error.message');
  if (err && (isError || !isA)) {
    const e = errorText(err);
    facet.error = e.text;
    if (e.truncated) facet.error_truncated = true;
  }
  return facet;
}
