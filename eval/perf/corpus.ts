/**
 * The conversations the analysis cost is measured on (bench/analyses.ts) and the golden outputs
 * are recorded over (eval/perf/golden.ts): every real conversation of ../shared/data as direct
 * events, cut into windows of 30 messages, and one long conversation of 2,000 real messages.
 */
import { readdirSync } from 'node:fs';
import { convertFile } from '../../stream/import/index.js';
import { dataPath } from '../lib/data.js';

/** Every real conversation of tau-bench, the Claude Code logs and the console transcripts, as direct events. */
export function realEvents(): unknown[] {
  const files = [
    dataPath('tau-bench', 'gpt-4o-airline.json'),
    ...readdirSync(dataPath('claude-code-viewer')).filter((f) => f.endsWith('.jsonl')).sort().map((f) => dataPath('claude-code-viewer', f)),
    ...readdirSync(dataPath('bookminder-cc-console')).filter((f) => /^day-\d+\.md$/.test(f)).sort().map((f) => dataPath('bookminder-cc-console', f)),
  ];
  return files.flatMap((f) => convertFile(f).events);
}

/** Windows of `size` consecutive messages of the real conversations (each its own conversation). */
export function windows(events: readonly unknown[], size: number): unknown[][] {
  const byConv = new Map<string, unknown[]>();
  for (const e of events) {
    const c = String((e as { conversation_id: string }).conversation_id);
    let list = byConv.get(c);
    if (!list) byConv.set(c, (list = []));
    list.push(e);
  }
  const out: unknown[][] = [];
  for (const [c, list] of byConv) {
    for (let i = 0; i + size <= list.length; i += size) out.push(list.slice(i, i + size).map((e) => ({ ...(e as object), conversation_id: `${c}@${i}` })));
    if (list.length < size && list.length >= 10) out.push(list);
  }
  return out;
}

/** The long conversation: real messages of every source, one after another, `size` of them. */
export function longConversation(events: readonly unknown[], size = 2000): unknown[] {
  return events.slice(0, size).map((e) => ({ ...(e as object), conversation_id: 'long' }));
}
