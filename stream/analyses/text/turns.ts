/**
 * Which messages are turns a person wrote. Producers put tool results in user-role messages
 * (the standard event form does), sub-agent prompts in user-role messages of a sidechain thread,
 * and slash commands or their expansions in user-role text; none of these is the user speaking.
 */
import type { SnapshotMessage } from '../types.js';

/** A user-role message whose only content is tool results. */
export function isToolResultOnly(m: SnapshotMessage): boolean {
  return m.text.trim() === '' && m.blocks.some((b) => b.type === 'tool_result');
}

/** A user-role message of the main thread with text: what the person typed (or a command). */
export function isHumanTurn(m: SnapshotMessage): boolean {
  return m.role === 'user' && m.threadId === '' && m.text.trim() !== '';
}

/** The argument text of a slash command recorded as `<command-args>…</command-args>`. */
export function commandArgs(text: string): string {
  const m = /<command-args>([\s\S]*?)<\/command-args>/.exec(text);
  return m ? m[1]!.trim() : '';
}

/**
 * A turn that is a command rather than a request: a slash command line ("/cost", "/model Opus")
 * or markup only (tags without prose). Command arguments, when present, are the request.
 */
export function isCommandTurn(text: string): boolean {
  const t = text.trim();
  if (/^\/[a-z][\w:-]*(\s|$)/i.test(t)) return true;
  if (/^<[a-z-]+>/i.test(t)) return t.replace(/<([a-z-]+)>[\s\S]*?<\/\1>/gi, '').trim() === '' && commandArgs(t) === '';
  return false;
}

/** The request a human turn carries: the command's arguments for a command, else the text. */
export function requestText(m: SnapshotMessage): string {
  const args = commandArgs(m.text);
  if (args) return args;
  return isCommandTurn(m.text) ? '' : m.text;
}
