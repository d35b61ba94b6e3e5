/**
 * Real conversations for the text evaluations, as snapshots: Claude Code session logs and
 * OpenAI-chat trajectories through the importers, console transcripts (BookMinder) through the
 * console-transcript converter when the build has it. Files are named relative to
 * `../shared/data`. Cached per file: several evaluations read the same data.
 */
import { readFileSync, existsSync } from 'node:fs';
import { basename } from 'node:path';
import { convertFile } from '../../stream/import/index.js';
import { snapshotsFromDirectEvents } from '../../stream/analyses/direct-input.js';
import type { ConversationSnapshot } from '../../stream/analyses/types.js';
import { dataPath } from '../lib/data.js';

const cache = new Map<string, ConversationSnapshot[] | null>();

type ConsoleConverter = (text: string, label: string) => unknown[];
let consoleConverter: ConsoleConverter | null | undefined;

/** The console-transcript converter, or null when this build does not include it. */
async function consoleTranscriptConverter(): Promise<ConsoleConverter | null> {
  if (consoleConverter !== undefined) return consoleConverter;
  // a variable specifier: the module is optional at compile time
  const specifier = '../../stream/import/console-transcript.js';
  try {
    const mod = (await import(specifier)) as { convertConsoleTranscript?: ConsoleConverter };
    consoleConverter = mod.convertConsoleTranscript ?? null;
  } catch (err) {
    if ((err as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    consoleConverter = null;
  }
  return consoleConverter;
}

/** Snapshots of one data file; null when the file or its converter is missing. */
export async function loadSnapshots(file: string): Promise<ConversationSnapshot[] | null> {
  if (cache.has(file)) return cache.get(file)!;
  const path = dataPath(file);
  let result: ConversationSnapshot[] | null = null;
  if (existsSync(path)) {
    if (file.endsWith('.md')) {
      const convert = await consoleTranscriptConverter();
      if (convert) result = snapshotsFromDirectEvents(convert(readFileSync(path, 'utf8'), basename(file))).snapshots;
    } else {
      result = snapshotsFromDirectEvents(convertFile(path).events).snapshots;
    }
  }
  cache.set(file, result);
  return result;
}

/** One conversation of a file by id, or null. */
export async function loadConversation(file: string, conversationId: string): Promise<ConversationSnapshot | null> {
  return (await loadSnapshots(file))?.find((s) => s.conversationId === conversationId) ?? null;
}

/** Every real conversation the evaluations use (files that cannot be read are skipped). */
export async function allRealSnapshots(): Promise<{ snapshots: ConversationSnapshot[]; missing: string[] }> {
  const files = [
    'tau-bench/gpt-4o-airline.json',
    'claude-code-viewer/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl',
    'claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl',
    'claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl',
    'claude-code-viewer/agent-test-hash-123.jsonl',
    'claude-code-viewer/agent-test-hash-456.jsonl',
    'agent-trajectories-small/mini-swe-agent_github_issue.traj.json',
    ...['002', '003', '004', '005', '006', '007', '008', '009', '010', '017', '018', '019', '020', '021'].map((d) => `bookminder-cc-console/day-${d}.md`),
  ];
  const snapshots: ConversationSnapshot[] = [];
  const missing: string[] = [];
  for (const f of files) {
    const s = await loadSnapshots(f);
    if (s) snapshots.push(...s);
    else missing.push(f);
  }
  return { snapshots, missing };
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Index of the message whose normalized text starts with the quote (nth occurrence, 1-based), or −1. */
export function findByQuote(s: ConversationSnapshot, quote: string, occurrence = 1, role?: string): number {
  let seen = 0;
  for (const m of s.messages) {
    if (role && m.role !== role) continue;
    if (norm(m.text).startsWith(quote) && ++seen === occurrence) return m.index;
  }
  return -1;
}
