/**
 * Claude Code terminal transcripts (a session copied from the console as text) to direct-ingest
 * events. The text has no ids or times, only markers at the start of a line:
 *
 *   > prompt            a user turn after a blank line (continuation lines indented)
 *   ⏺ text              an assistant reply
 *   ⏺ Tool(args)        a tool call; its result follows as "⎿  result" (continuation lines after it)
 *   ✻ Thinking…         the assistant's reasoning (kept as a thinking block)
 *   ╭─ … ─╮ box         the welcome banner: a new session starts
 *
 * A result "Waiting…" is a placeholder replaced by the next result of the same call. A call whose
 * result says the user declined or interrupted it ("No (tell Claude what to do differently)",
 * "User rejected …", "Interrupted by user") or that starts with "Error" is a failed call.
 * Messages are stamped one second apart from a fixed base, so a re-import is idempotent.
 */
import type { DirectBlock, DirectEvent } from './types.js';

const BASE_MS = Date.parse('2025-01-01T09:00:00.000Z');

/** Results that mean the call did not do its work. */
const FAILED_RESULT = /^(error\b|no \(tell claude what to do differently\)|user rejected\b|interrupted by user\b|\[request interrupted)/i;
const TOOL_LINE = /^([A-Za-z_][\w.:-]*)\((.*)\)(?:…)?\s*$/s;
const BARE_TOOL_LINE = /^(Update Todos|Read Todos)\s*$/;
const PLACEHOLDER = /^(Waiting…|Running…)\s*$/;

type Kind = 'user' | 'assistant' | 'tool' | 'thinking' | 'none';

interface Turn {
  kind: Kind;
  lines: string[];
  /** Tool calls: name, argument text and result lines (last result wins over a placeholder). */
  tool?: { name: string; args: string; result: string[] | undefined };
}

/** A session's turns, split on the lines that start a new block. */
function turnsOf(lines: readonly string[]): Turn[][] {
  const sessions: Turn[][] = [[]];
  let cur: Turn = { kind: 'none', lines: [] };
  const push = (t: Turn) => {
    cur = t;
    sessions[sessions.length - 1]!.push(t);
  };
  let blankBefore = true;
  for (const raw of lines) {
    const line = raw.replace(/\s+$/, '');
    const afterBlank = blankBefore;
    blankBefore = line === '';
    if (/^╭/.test(line)) {
      if (sessions[sessions.length - 1]!.length) sessions.push([]);
      cur = { kind: 'none', lines: [] };
      continue;
    }
    if (/^[│╰]/.test(line) || /^ ?[✔※]\s/.test(line)) continue;
    // a prompt follows a blank line; "> " right after text is a quotation inside output
    if (afterBlank && (line.startsWith('> ') || line === '>')) {
      push({ kind: 'user', lines: [line.slice(2)] });
      continue;
    }
    if (line.startsWith('⏺ ')) {
      const body = line.slice(2).trim();
      const m = TOOL_LINE.exec(body) ?? (BARE_TOOL_LINE.test(body) ? [body, body.trim(), ''] : null);
      if (m) push({ kind: 'tool', lines: [], tool: { name: m[1]!, args: m[2] ?? '', result: undefined } });
      else push({ kind: 'assistant', lines: [body] });
      continue;
    }
    if (line.startsWith('✻ ')) {
      push({ kind: 'thinking', lines: [] });
      continue;
    }
    const result = /^\s*⎿\s?(.*)$/.exec(line);
    if (result && cur.kind === 'tool' && cur.tool) {
      const text = result[1]!.trim();
      // a later result of the same call replaces "Waiting…" (and nested sub-agent progress lines)
      if (cur.tool.result === undefined || (cur.tool.result.length === 1 && PLACEHOLDER.test(cur.tool.result[0]!))) cur.tool.result = [text];
      else if (/^\s{0,3}⎿/.test(line)) cur.tool.result = [text];
      else cur.tool.result.push(text);
      continue;
    }
    if (cur.kind === 'tool' && cur.tool?.result) cur.tool.result.push(line.trim());
    else if (cur.kind === 'user' || cur.kind === 'assistant' || cur.kind === 'thinking') cur.lines.push(line.replace(/^ {2}/, ''));
  }
  return sessions.filter((s) => s.some((t) => t.kind === 'user' || t.kind === 'assistant' || t.kind === 'tool'));
}

const joined = (lines: readonly string[]) => lines.join('\n').replace(/\n{3,}/g, '\n\n').trim();

/** Converts one transcript; `label` names its conversations (`<label>`, `<label>#2`, … per session). */
export function convertConsoleTranscript(text: string, label: string): DirectEvent[] {
  const slug = label.replace(/\.[^.]+$/, '').replace(/[^A-Za-z0-9_.-]+/g, '-');
  const out: DirectEvent[] = [];
  let clock = 0;
  turnsOf(text.split('\n')).forEach((turns, s) => {
    const conversation = s === 0 ? slug : `${slug}#${s + 1}`;
    let calls = 0;
    let assistant: DirectEvent | undefined;
    const stamp = () => new Date(BASE_MS + clock++ * 1000).toISOString();
    const emit = (e: Omit<DirectEvent, 'conversation_id' | 'timestamp' | 'message_id'>) => {
      const ev = { conversation_id: conversation, timestamp: stamp(), message_id: `${conversation}:${out.length}`, ...e, metadata: { source: 'console-transcript' } } as DirectEvent;
      out.push(ev);
      return ev;
    };
    const reply = (): DirectEvent => (assistant ??= emit({ role: 'assistant', content: [] }));
    for (const t of turns) {
      if (t.kind === 'user') {
        assistant = undefined;
        const body = joined(t.lines);
        if (body) emit({ role: 'user', message: body });
      } else if (t.kind === 'assistant') {
        const body = joined(t.lines);
        if (body) reply().content!.push({ type: 'text', text: body });
      } else if (t.kind === 'thinking') {
        const body = joined(t.lines);
        if (body) reply().content!.push({ type: 'thinking', text: body });
      } else if (t.kind === 'tool' && t.tool) {
        const id = `${conversation}:call-${++calls}`;
        reply().content!.push({ type: 'tool_use', tool_name: t.tool.name, tool_use_id: id, input: { args: t.tool.args } });
        const result = t.tool.result ? joined(t.tool.result) : undefined;
        if (result !== undefined && !PLACEHOLDER.test(result)) {
          const block: DirectBlock = { type: 'tool_result', tool_use_id: id, content: result, is_error: FAILED_RESULT.test(result) };
          emit({ role: 'user', content: [block] });
          // the assistant's next words are a new message after the result
          assistant = undefined;
        }
      }
    }
  });
  return out;
}

/** True when the text looks like a console transcript (a prompt line and an assistant marker). */
export function isConsoleTranscript(text: string): boolean {
  return /^> \S/m.test(text) && /^⏺ /m.test(text);
}
