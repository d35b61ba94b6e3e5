import type { Attributes, EventType, StoredType, ToolFacet } from '../../schemas/events.js';
import { coerceAttributes, storedTimestamp, toBoolean, toNumber } from './coerce.js';
import { draft, iso, text, type EventDraft, type NormalizeContext } from './event.js';
import { commandOf, decisionOf, promptFacet } from './facets.js';
import { command, errorText, sanitizeAttributes, storedJsonText } from './sanitize.js';

/** spec/ingestion.md "Normalization of hooks", agent A column. */
const AGENT_A_HOOKS: Record<string, StoredType> = {
  SessionStart: 'session_start',
  UserPromptSubmit: 'prompt',
  PreToolUse: 'tool_decision',
  PermissionRequest: 'permission_request',
  PostToolUse: 'tool_result',
  PostToolUseFailure: 'tool_result',
  Stop: 'session_end',
  SessionEnd: 'session_end',
  FileChanged: 'file_changed',
  WorkspaceSnapshot: 'workspace_snapshot',
};

/** Agents B and C: PostToolUseFailure, SessionEnd and FileChanged are not recognized (→ hook). */
const AGENT_B_HOOKS: Record<string, StoredType> = {
  SessionStart: 'session_start',
  UserPromptSubmit: 'prompt',
  PreToolUse: 'tool_decision',
  PermissionRequest: 'permission_request',
  PostToolUse: 'tool_result',
  Stop: 'session_end',
  WorkspaceSnapshot: 'workspace_snapshot',
};

export type HookOutcome = { kind: 'event'; event: EventDraft } | { kind: 'malformed'; reason: string };

export function hookType(agent: NormalizeContext['agent'], name: string): StoredType {
  const table = agent === 'agent-a' ? AGENT_A_HOOKS : AGENT_B_HOOKS;
  return Object.hasOwn(table, name) ? table[name]! : 'hook';
}

/**
 * One hook payload to one stored event, or `malformed` (counted, skipped): not an object; agent A
 * without a hook name (`hook`, or `hook_event_name` as real hook payloads send it); agents B and C
 * without a parseable timestamp. Agents B and C without a hook name are the "anything else" row
 * (type `hook`, name ''). Agent A without a parseable timestamp is stamped at receive time, the
 * value sent staying in the attributes.
 */
export function normalizeHook(ctx: NormalizeContext, payload: unknown, position: number): HookOutcome {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return { kind: 'malformed', reason: 'hook payload must be an object' };
  const p = payload as Record<string, unknown>;
  const name = text(p['hook']) || text(p['hook_event_name']);
  const isA = ctx.agent === 'agent-a';
  if (!name && isA) return { kind: 'malformed', reason: 'hook name missing (hook or hook_event_name)' };
  const sent = p['timestamp'] !== undefined && p['timestamp'] !== null && p['timestamp'] !== '';
  const ts = sent ? storedTimestamp(p['timestamp']) : undefined;
  if (!isA && !ts) return { kind: 'malformed', reason: sent ? 'timestamp is not parseable (or outside 1900-2299)' : 'timestamp is required' };
  const attrs = coerceAttributes(p as Attributes);
  const type: EventType = hookType(ctx.agent, name);
  const ev = draft(ctx, {
    type,
    name,
    event_time: ts ?? iso(ctx.receiveTime),
    conversation_id: isA ? text(p['session_id']) : text(p['conversation_id']) || text(p['session_id']),
    user_id: text(p['user_id']) || text(p['user_email']),
    sequence: position,
    attributes: sanitizeAttributes(attrs),
  });
  if (type === 'prompt') ev.prompt = promptFacet(p['user_prompt'] ?? p['prompt']);
  if (type === 'tool_decision' || type === 'tool_result' || type === 'permission_request' || p['tool_name'] !== undefined) {
    ev.tool = hookTool(attrs, ev.attributes, name === 'PostToolUseFailure' && isA);
  }
  const model = text(p['model']);
  if (model) ev.api = { model };
  return { kind: 'event', event: ev };
}

/** The tool facet from the coerced payload `p`; the input's JSON text from its stored (sanitized) copy. */
function hookTool(p: Attributes, stored: Attributes, failed: boolean): ToolFacet {
  const facet: ToolFacet = { name: text(p['tool_name']) || text(p['mcp_tool']), call_id: text(p['tool_use_id']) };
  const input = p['tool_input'];
  const cmd = text(p['command']) || commandOf(input && typeof input === 'object' ? (input as Record<string, unknown>) : undefined);
  if (cmd) {
    const c = command(cmd);
    facet.command = c.text;
    if (c.truncated) facet.command_truncated = true;
  }
  if (input !== undefined && input !== null) facet.input = storedJsonText(stored['tool_input']).text;
  const success = failed ? false : toBoolean(p['success']);
  if (success !== undefined) facet.success = success;
  const duration = toNumber(p['duration_ms']);
  if (duration !== undefined) facet.duration_ms = duration;
  const err = p['error'];
  const msg = err && typeof err === 'object' ? text((err as Record<string, unknown>)['message']) : text(err);
  if (msg) {
    const e = errorText(msg);
    facet.error = e.text;
    if (e.truncated) facet.error_truncated = true;
  }
  const errType = err && typeof err === 'object' ? text((err as Record<string, unknown>)['type']) : '';
  if (errType) facet.error_type = errType;
  const approval = p['approval'];
  if (approval && typeof approval === 'object') {
    const a = approval as Record<string, unknown>;
    const d = decisionOf(a['decision']);
    if (d) facet.decision = d;
    if (text(a['source'])) facet.decision_source = text(a['source']);
  }
  if (text(p['mcp_server'])) facet.mcp_server = text(p['mcp_server']);
  return facet;
}
