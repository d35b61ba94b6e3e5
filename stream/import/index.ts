/** File → direct-ingest events, by format. Pure apart from reading the given files. */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { convertClaudeCode } from './claude-code.js';
import { convertTrajectory, trajectoriesOf } from './openai-chat.js';
import { convertConsoleTranscript, isConsoleTranscript } from './console-transcript.js';
import type { DirectEvent } from './types.js';

export * from './types.js';
export { convertClaudeCode } from './claude-code.js';
export { convertTrajectory, trajectoriesOf, isToolError } from './openai-chat.js';
export { convertConsoleTranscript, isConsoleTranscript } from './console-transcript.js';

/**
 * Every importable file under the given paths: `*.jsonl` (session logs), `*.json` (trajectories) and
 * `*.md` / `*.txt` (console transcripts, recognised by content).
 */
export function findImportFiles(paths: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const st = statSync(p);
    if (st.isDirectory()) for (const name of readdirSync(p).sort()) walk(join(p, name));
    else if (/\.(jsonl?|md|txt)$/.test(p)) out.push(p);
  };
  for (const p of paths) walk(p);
  return out;
}

export interface ConvertedFile {
  file: string;
  format: 'claude-code' | 'openai-chat' | 'console-transcript' | 'unknown';
  events: DirectEvent[];
  skipped: number;
}

export function convertFile(file: string): ConvertedFile {
  const text = readFileSync(file, 'utf8');
  if (file.endsWith('.jsonl')) {
    const r = convertClaudeCode(text, basename(file));
    return { file, format: 'claude-code', events: r.events, skipped: r.skipped };
  }
  if (/\.(md|txt)$/.test(file)) {
    if (!isConsoleTranscript(text)) return { file, format: 'unknown', events: [], skipped: 1 };
    return { file, format: 'console-transcript', events: convertConsoleTranscript(text, basename(file)), skipped: 0 };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { file, format: 'unknown', events: [], skipped: 1 };
  }
  const trajectories = trajectoriesOf(json, basename(file));
  if (trajectories.length === 0) return { file, format: 'unknown', events: [], skipped: 1 };
  return { file, format: 'openai-chat', events: trajectories.flatMap(convertTrajectory), skipped: 0 };
}
