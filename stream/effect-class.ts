/**
 * Effect class of a tool call (spec/data-api.md "Tool-failure classification"): what the call does
 * to the world. Decided by the tool name, and for shell tools by the command. Rules and their order
 * are documented in docs/storage.md.
 */
export type EffectClass = 'read' | 'write' | 'send' | 'spawn' | 'compute';

const SPAWN_NAMES = /^(task|agent|subagent|dispatch_agent|spawn\w*|delegate\w*|run_agent|launch_agent)$/i;
const SEND = /(^|_|\b)(send|email|mail|notify|notification|post_message|publish|webhook|slack|sms|tweet|reply|transfer_to_human\w*|comment)(_|$|\b)/i;
const WRITE_NAMES = /^(write|edit|multiedit|notebookedit|apply_patch|str_replace\w*|create_file|write_file|delete_file|move_file|todowrite)$/i;
const WRITE_PREFIX = /^(create|update|delete|remove|insert|set|put|patch|write|edit|modify|book|cancel|add|upgrade|exchange|return|pay|purchase|save|upload|move|rename|commit|push|merge|deploy)(_|[A-Z]|$)/;
const READ_NAMES = /^(read|grep|glob|ls|webfetch|websearch|notebookread|todoread|view|cat|open|bashoutput)$/i;
const READ_PREFIX = /^(get|list|search|find|read|fetch|lookup|query|describe|show|view|check|browse|retrieve|count|select)(_|[A-Z]|$)/;
const SHELL_NAMES = /^(bash|shell|exec|execute|run_command|terminal|exec_command|local_shell|container\.exec|sh)$/i;
const COMPUTE_NAMES = /^(calculate|calculator|think|compute|eval|python|run_python|code_interpreter)$/i;

/** Shell commands that change files, state or remote systems. */
const SHELL_WRITE = /(^|[;&|]\s*)(rm|mv|cp|mkdir|rmdir|touch|chmod|chown|ln|tee|truncate|dd|sed\s+-i|git\s+(commit|push|add|checkout|reset|merge|rebase|apply|stash|tag|rm|mv)|npm\s+(install|i|publish|uninstall)|yarn\s+add|pnpm\s+add|pip\s+install|apt(-get)?\s+install|docker\s+(rm|run|build|push)|kubectl\s+(apply|delete|create))\b|>{1,2}\s*[^&\s]/;
const SHELL_SEND = /(^|[;&|]\s*)(curl\s+.*-X\s*(POST|PUT|PATCH|DELETE)|curl\s+.*(--data|-d\s)|sendmail|mail\s|scp|rsync\s+.*:|ssh\s)/;
const SHELL_READ = /^\s*(ls|cat|head|tail|less|more|grep|rg|ag|find|fd|wc|stat|file|pwd|echo|which|whoami|env|printenv|tree|du|df|ps|git\s+(status|log|diff|show|branch|remote|blame|rev-parse)|curl|wget)\b/;

function bareName(name: string): string {
  // MCP tools are named mcp__<server>__<tool>; classify by the tool part
  const parts = name.split('__');
  return parts.length >= 3 && parts[0] === 'mcp' ? parts.slice(2).join('__') : name;
}

/** Classifies a call from its tool name, its shell command (if any) and its input JSON text. */
export function effectClass(toolName: string, command = '', input = ''): EffectClass {
  const name = bareName(toolName.trim());
  if (SPAWN_NAMES.test(name)) return 'spawn';
  if (SHELL_NAMES.test(name)) return shellEffect(command || commandFromInput(input));
  if (WRITE_NAMES.test(name)) return 'write';
  if (READ_NAMES.test(name)) return 'read';
  if (SEND.test(name)) return 'send';
  if (COMPUTE_NAMES.test(name)) return 'compute';
  if (WRITE_PREFIX.test(name)) return 'write';
  if (READ_PREFIX.test(name)) return 'read';
  return 'compute';
}

function commandFromInput(input: string): string {
  if (!input) return '';
  try {
    const v = JSON.parse(input) as Record<string, unknown>;
    const c = v?.command ?? v?.cmd;
    return Array.isArray(c) ? c.join(' ') : typeof c === 'string' ? c : '';
  } catch {
    return '';
  }
}

function shellEffect(command: string): EffectClass {
  if (!command) return 'compute';
  if (SHELL_SEND.test(command)) return 'send';
  if (SHELL_WRITE.test(command)) return 'write';
  if (SHELL_READ.test(command)) return 'read';
  return 'compute';
}
