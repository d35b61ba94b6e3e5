/**
 * Which of the paths given to `tracehouse import` can be imported, and why the others cannot: a
 * file named on the command line that is not `.json`/`.jsonl`, a `.json` that is not a list of
 * chat messages, a `.jsonl` with no session entry. Skipped files are reported with the reason,
 * never counted as an empty import.
 */
import { statSync } from 'node:fs';
import { convertFile, findImportFiles, type ConvertedFile, type DirectEvent } from '../stream/import/index.js';

export interface SkippedFile {
  file: string;
  reason: string;
}

export interface ImportPlan {
  converted: ConvertedFile[];
  skippedFiles: SkippedFile[];
}

/** Reads and converts every importable file under `paths`; explicit paths of another kind are skipped with a reason. */
export function planImport(paths: readonly string[]): ImportPlan {
  const skippedFiles: SkippedFile[] = [];
  const walkable: string[] = [];
  for (const p of paths) {
    const st = statSync(p);
    if (st.isFile() && !/\.jsonl?$/.test(p)) skippedFiles.push({ file: p, reason: 'not a .json (OpenAI-chat trajectories) or .jsonl (Claude Code session log) file' });
    else walkable.push(p);
  }
  const converted: ConvertedFile[] = [];
  for (const file of findImportFiles(walkable)) {
    const c = convertFile(file);
    const reason = unrecognised(c);
    if (reason) skippedFiles.push({ file, reason });
    else converted.push(c);
  }
  return { converted, skippedFiles };
}

function unrecognised(c: ConvertedFile): string | undefined {
  if (c.events.length > 0) return undefined;
  if (c.format === 'unknown') return c.file.endsWith('.json') ? 'not OpenAI-chat trajectories: no list of {role, content} messages (or not valid JSON)' : 'unrecognised format';
  return `no Claude Code session entry${c.skipped ? ` (${c.skipped} line${c.skipped === 1 ? '' : 's'} unreadable or of another kind)` : ''}`;
}

/** Events whose time is before `cutoffMs`, and the conversations with no event after it. */
export function olderThan(events: readonly DirectEvent[], cutoffMs: number): { events: number; conversations: number; total: number } {
  const newest = new Map<string, number>();
  let old = 0;
  for (const e of events) {
    const t = Date.parse(e.timestamp);
    if (t < cutoffMs) old++;
    newest.set(e.conversation_id, Math.max(newest.get(e.conversation_id) ?? -Infinity, t));
  }
  let conversations = 0;
  for (const t of newest.values()) if (t < cutoffMs) conversations++;
  return { events: old, conversations, total: newest.size };
}
