/**
 * Claude Code session logs (`~/.claude/projects/<project>/<session>.jsonl`, and `agent-*.jsonl`
 * sub-agent files) to direct-ingest events. One line is one entry; assistant replies are streamed
 * as several lines sharing one `message.id` and are merged into one message. Sub-agent sidechains
 * (`isSidechain: true`) become their own threads: thread id = uuid of the sidechain's first entry.
 */
import type { DirectBlock, DirectEvent } from './types.js';

interface Entry {
  type?: string;
  uuid?: string;
  parentUuid?: string | null;
  sessionId?: string;
  isSidechain?: boolean;
  isMeta?: boolean;
  timestamp?: string;
  cwd?: string;
  gitBranch?: string;
  version?: string;
  message?: { id?: string; role?: string; model?: string; content?: unknown; usage?: Record<string, number> };
}

export interface ClaudeCodeResult {
  events: DirectEvent[];
  skipped: number;
}

function blocksOf(content: unknown): DirectBlock[] {
  if (!Array.isArray(content)) return [];
  const out: DirectBlock[] = [];
  for (const raw of content) {
    const b = raw as Record<string, unknown>;
    if (!b || typeof b !== 'object') continue;
    if (b.type === 'text' && typeof b.text === 'string') out.push({ type: 'text', text: b.text });
    else if (b.type === 'thinking') out.push({ type: 'thinking', text: String(b.thinking ?? b.text ?? '') });
    else if (b.type === 'tool_use') out.push({ type: 'tool_use', tool_name: String(b.name ?? 'unknown'), tool_use_id: String(b.id ?? ''), input: b.input ?? {} });
    else if (b.type === 'tool_result') out.push({ type: 'tool_result', tool_use_id: String(b.tool_use_id ?? ''), content: b.content ?? '', is_error: b.is_error === true });
    else if (b.type === 'image') out.push({ type: 'image', source: b.source ?? '' });
  }
  // tool blocks without an id cannot be joined to their result: kept out
  return out.filter((b) => (b.type !== 'tool_use' && b.type !== 'tool_result') || b.tool_use_id !== '');
}

/** Converts the lines of one session file. Unparseable lines and non-message entries are skipped (counted). */
export function convertClaudeCode(text: string, fileLabel = ''): ClaudeCodeResult {
  const entries: Entry[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line) as Entry);
    } catch {
      skipped++;
    }
  }
  const byUuid = new Map<string, Entry>();
  for (const e of entries) if (e.uuid) byUuid.set(e.uuid, e);
  // the message id of each entry: assistant lines share their API message id
  const messageIdOf = (e: Entry) => (e.type === 'assistant' && e.message?.id ? e.message.id : e.uuid ?? '');
  const threadCache = new Map<string, string>();
  const threadOf = (e: Entry): string => {
    if (!e.isSidechain || !e.uuid) return '';
    const cached = threadCache.get(e.uuid);
    if (cached !== undefined) return cached;
    let cur = e;
    const seen = new Set<string>();
    while (cur.parentUuid && !seen.has(cur.parentUuid)) {
      seen.add(cur.parentUuid);
      const p = byUuid.get(cur.parentUuid);
      if (!p || !p.isSidechain) break;
      cur = p;
    }
    const t = cur.uuid ?? '';
    threadCache.set(e.uuid, t);
    return t;
  };

  const out: DirectEvent[] = [];
  const assistant = new Map<string, DirectEvent>();
  for (const e of entries) {
    if ((e.type !== 'user' && e.type !== 'assistant') || !e.message || !e.sessionId || !e.timestamp) {
      if (e.type !== 'summary') skipped += e.type === 'user' || e.type === 'assistant' ? 1 : 0;
      continue;
    }
    const id = messageIdOf(e);
    if (!id) {
      skipped++;
      continue;
    }
    const blocks = blocksOf(e.message.content);
    const usage = e.message.usage;
    const existing = e.type === 'assistant' ? assistant.get(`${e.sessionId}\u0000${id}`) : undefined;
    if (existing) {
      // a streamed continuation of the same reply: append its blocks, keep the latest usage
      existing.content = [...(existing.content ?? []), ...blocks];
      if (usage) {
        existing.input_tokens = Math.max(existing.input_tokens ?? 0, usage.input_tokens ?? 0);
        existing.output_tokens = Math.max(existing.output_tokens ?? 0, usage.output_tokens ?? 0);
      }
      continue;
    }
    const parent = e.parentUuid ? byUuid.get(e.parentUuid) : undefined;
    const ev: DirectEvent = {
      conversation_id: e.sessionId,
      role: e.type === 'assistant' ? 'assistant' : 'user',
      timestamp: e.timestamp,
      message_id: id,
      metadata: {
        source: 'claude-code',
        uuid: e.uuid,
        ...(fileLabel ? { file: fileLabel } : {}),
        ...(e.cwd ? { cwd: e.cwd } : {}),
        ...(e.gitBranch ? { git_branch: e.gitBranch } : {}),
        ...(e.version ? { version: e.version } : {}),
        ...(e.isSidechain ? { sidechain: true } : {}),
        ...(e.isMeta ? { meta: true } : {}),
      },
    };
    const thread = threadOf(e);
    if (thread) ev.thread_id = thread;
    if (parent) ev.parent_message_id = messageIdOf(parent);
    if (typeof e.message.content === 'string') ev.message = e.message.content;
    else if (Array.isArray(e.message.content)) ev.content = blocks;
    else ev.message = '';
    if (e.message.model) ev.model = e.message.model;
    if (usage) {
      ev.input_tokens = usage.input_tokens ?? 0;
      ev.output_tokens = usage.output_tokens ?? 0;
    }
    if (e.type === 'assistant') assistant.set(`${e.sessionId}\u0000${id}`, ev);
    out.push(ev);
  }
  // a message whose blocks were all unknown still needs a body
  for (const ev of out) if (ev.content && ev.content.length === 0 && ev.message === undefined) {
    delete ev.content;
    ev.message = '';
  }
  return { events: out, skipped };
}
