import type { Rng } from './rng.js';

/** A small vocabulary of coding-session words: enough variety for search and compression to be realistic. */
const WORDS = (
  'the a to of and in is for that with on this it be file function test error build run fix add update ' +
  'change refactor module import export class type interface return value config request response server ' +
  'client query table column index cache retry timeout stream batch insert select user message tool call ' +
  'result failed passed check lint format compile deploy branch commit merge review diff patch line code ' +
  'please can you why does not work expected actual output input path directory package version install ' +
  'dependency schema migration handler route endpoint payload json parse string number array object null'
).split(' ');

export const TOOL_NAMES = ['Bash', 'Read', 'Edit', 'Write', 'Grep', 'Glob', 'TodoWrite', 'WebFetch', 'mcp_tool'] as const;
export const TOOL_WEIGHTS = [30, 25, 15, 6, 10, 5, 4, 2, 3];

export const ERROR_TEXTS = [
  'Command failed with exit code 1: npm test',
  'ENOENT: no such file or directory, open \'src/index.ts\'',
  'String to replace not found in file',
  'Permission denied: user rejected the tool call',
  'Request timed out after 120000ms',
  'TypeError: Cannot read properties of undefined (reading \'map\')',
  'error TS2345: Argument of type \'string\' is not assignable to parameter of type \'number\'',
  'fatal: not a git repository (or any of the parent directories): .git',
];

/** `approxChars` characters of word salad, deterministic for the rng state. */
export function words(rng: Rng, approxChars: number): string {
  const parts: string[] = [];
  let len = 0;
  while (len < approxChars) {
    const w = WORDS[Math.floor(rng.next() * WORDS.length)]!;
    parts.push(w);
    len += w.length + 1;
  }
  return parts.join(' ');
}

/** Tool input shaped like the agent's real inputs for that tool. */
export function toolInput(rng: Rng, tool: string): Record<string, unknown> {
  switch (tool) {
    case 'Bash':
      return { command: rng.pick(['npm test', 'git status', 'ls -la src', 'npx tsc -p .', 'grep -rn TODO src']), description: words(rng, 30) };
    case 'Read':
      return { file_path: `/repo/src/${words(rng, 8).replace(/ /g, '-')}.ts` };
    case 'Edit':
      return { file_path: `/repo/src/${words(rng, 8).replace(/ /g, '-')}.ts`, old_string: words(rng, 120), new_string: words(rng, 140) };
    case 'Write':
      return { file_path: `/repo/src/${words(rng, 8).replace(/ /g, '-')}.ts`, content: words(rng, 600) };
    case 'Grep':
      return { pattern: words(rng, 10), path: '/repo' };
    default:
      return { query: words(rng, 40) };
  }
}
