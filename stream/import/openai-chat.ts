/**
 * OpenAI-chat-format trajectories (a list of `{role, content, tool_calls?, tool_call_id?}`
 * messages, as in tau-bench's historical trajectories) to direct-ingest events. The format has
 * no timestamps: messages are stamped one second apart from a fixed base so a re-import produces
 * the same ids and times. `tool` messages become user messages carrying a tool_result block
 * (error when the content starts with "Error"), the convention of the standard event form.
 */
import type { DirectBlock, DirectEvent } from './types.js';
import { withFields } from '../../core/own.js';

interface ChatMessage {
  role?: string;
  content?: unknown;
  name?: string;
  tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: string } }>;
  tool_call_id?: string;
}

export interface Trajectory {
  id: string;
  messages: ChatMessage[];
  metadata?: Record<string, unknown>;
  /** ISO time of the first message. */
  startTime?: string;
}

const BASE_MS = Date.parse('2024-05-15T19:00:00.000Z');

export const isToolError = (content: string) => /^\s*error\b/i.test(content);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('\n');
  return '';
}

function parseArgs(args: string | undefined): unknown {
  if (!args) return {};
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

export function convertTrajectory(t: Trajectory): DirectEvent[] {
  const start = t.startTime ? Date.parse(t.startTime) : BASE_MS;
  const out: DirectEvent[] = [];
  // some producers reuse a call id within one trajectory (tau-bench does): each call gets its own
  // id (`id#2`, ...) and a tool message answers the latest call with that id
  const seen = new Map<string, number>();
  const current = new Map<string, string>();
  const callId = (id: string) => {
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    const unique = n === 1 ? id : `${id}#${n}`;
    current.set(id, unique);
    return unique;
  };
  t.messages.forEach((m, i) => {
    const base = { conversation_id: t.id, timestamp: new Date(start + i * 1000).toISOString(), message_id: `${t.id}:${i}`, ...(i > 0 ? { parent_message_id: `${t.id}:${i - 1}` } : {}) };
    const meta = { source: 'openai-chat', ...(i === 0 && t.metadata ? t.metadata : {}) };
    const text = textOf(m.content);
    if (m.role === 'tool') {
      out.push(withFields(base, { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: current.get(m.tool_call_id ?? '') ?? m.tool_call_id ?? '', content: text, is_error: isToolError(text) }], metadata: withFields(meta, { original_role: 'tool', tool_name: m.name }) }));
    } else if (m.role === 'assistant' && m.tool_calls?.length) {
      const blocks: DirectBlock[] = text ? [{ type: 'text', text }] : [];
      for (const c of m.tool_calls) blocks.push({ type: 'tool_use', tool_name: c.function?.name ?? 'unknown', tool_use_id: callId(c.id ?? `${t.id}:${i}`), input: parseArgs(c.function?.arguments) });
      out.push(withFields(base, { role: 'assistant' as const, content: blocks, metadata: meta }));
    } else {
      const role = m.role === 'assistant' || m.role === 'system' ? m.role : 'user';
      out.push(withFields(base, { role, message: text, metadata: m.role && m.role !== role ? withFields(meta, { original_role: m.role }) : meta }));
    }
  });
  return out;
}

/**
 * A parsed JSON file: an array of tau-bench results (`{task_id, trial, reward, traj}`), an array of
 * `{messages}` objects, one `{messages}` object, or one bare message list.
 */
export function trajectoriesOf(json: unknown, label: string): Trajectory[] {
  const slug = label.replace(/\.[^.]+$/, '').replace(/[^A-Za-z0-9_.-]+/g, '-');
  const one = (v: unknown, i: number): Trajectory | undefined => {
    if (Array.isArray(v)) return { id: `${slug}:${i}`, messages: v as ChatMessage[] };
    if (!v || typeof v !== 'object') return undefined;
    const o = v as Record<string, unknown>;
    const messages = (o.traj ?? o.messages ?? o.trajectory) as ChatMessage[] | undefined;
    if (!Array.isArray(messages)) return undefined;
    const hasTask = o.task_id !== undefined;
    const id = hasTask ? `${slug}:task-${String(o.task_id)}:trial-${String(o.trial ?? 0)}` : String(o.id ?? `${slug}:${i}`);
    const metadata: Record<string, unknown> = {};
    for (const k of ['task_id', 'trial', 'reward']) if (o[k] !== undefined) metadata[k] = o[k];
    return { id, messages, metadata, startTime: new Date(BASE_MS + i * 3_600_000).toISOString() };
  };
  if (Array.isArray(json)) {
    if (json.length && json.every((m) => m && typeof m === 'object' && 'role' in (m as object))) return [one(json, 0)!];
    return json.map(one).filter((t): t is Trajectory => !!t);
  }
  const t = one(json, 0);
  return t ? [t] : [];
}
