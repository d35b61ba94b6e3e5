/**
 * `npm run bench:analyses`: CPU cost of the conversation analyses (stream/analyses/pipeline.ts, all
 * analyzers, as one Piscina task runs them) per conversation, on real conversations cut to 30
 * messages and on one long conversation of 2,000 messages, beside the cost of only building the
 * snapshots in the same run (the floor every analysis pays). Linear cost shows as equal µs per
 * message at both sizes. Figures are process CPU time (user + system), medians of repeated rounds.
 */
import { readdirSync } from 'node:fs';
import { dataPath } from '../eval/lib/data.js';
import { snapshotsFromDirectEvents } from '../stream/analyses/direct-input.js';
import { analyzeSnapshot } from '../stream/analyses/pipeline.js';
import { createCategoryRegistry } from '../stream/analyses/tool-failure-categories.js';
import type { ConversationSnapshot } from '../stream/analyses/types.js';
import { convertFile } from '../stream/import/index.js';

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Every real conversation of ../shared/data as direct events (tau-bench, Claude Code logs, console transcripts). */
function realEvents(): unknown[] {
  const files = [
    dataPath('tau-bench', 'gpt-4o-airline.json'),
    ...readdirSync(dataPath('claude-code-viewer')).filter((f) => f.endsWith('.jsonl')).map((f) => dataPath('claude-code-viewer', f)),
    ...readdirSync(dataPath('bookminder-cc-console')).filter((f) => /^day-\d+\.md$/.test(f)).map((f) => dataPath('bookminder-cc-console', f)),
  ];
  return files.flatMap((f) => convertFile(f).events);
}

/** Windows of `size` consecutive messages of the real conversations (each its own conversation). */
function windows(events: unknown[], size: number): unknown[][] {
  const byConv = new Map<string, unknown[]>();
  for (const e of events) {
    const c = String((e as { conversation_id: string }).conversation_id);
    byConv.set(c, [...(byConv.get(c) ?? []), e]);
  }
  const out: unknown[][] = [];
  for (const [c, list] of byConv) {
    for (let i = 0; i + size <= list.length; i += size) out.push(list.slice(i, i + size).map((e) => ({ ...(e as object), conversation_id: `${c}@${i}` })));
    if (list.length < size && list.length >= 10) out.push(list);
  }
  return out;
}

function measure(label: string, snapshots: ConversationSnapshot[], build: () => ConversationSnapshot[], rounds: number) {
  const analyze = () => {
    for (const s of snapshots) analyzeSnapshot(s, { categories: createCategoryRegistry([], { tenantSeed: s.tenantId }) });
  };
  analyze(); // warm up
  const analysis: number[] = [];
  const floor: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let t = cpuUs();
    build();
    floor.push(cpuUs() - t);
    t = cpuUs();
    analyze();
    analysis.push(cpuUs() - t);
  }
  const messages = snapshots.reduce((a, s) => a + s.messages.length, 0);
  const perConv = median(analysis) / snapshots.length;
  return {
    label,
    conversations: snapshots.length,
    messages_per_conversation: Math.round(messages / snapshots.length),
    analyses_us_per_conversation: Math.round(perConv),
    analyses_us_per_message: Math.round((median(analysis) / messages) * 10) / 10,
    snapshot_build_us_per_conversation: Math.round(median(floor) / snapshots.length),
    ratio_to_snapshot_build: Math.round((median(analysis) / Math.max(1, median(floor))) * 10) / 10,
  };
}

const events = realEvents();
const short = windows(events, 30);
const shortBuild = () => snapshotsFromDirectEvents(short.flat()).snapshots;
const shortSnaps = shortBuild();
// the long one: real messages of every source, one after another, 2,000 of them in one conversation
const longEvents = events.slice(0, 2000).map((e) => ({ ...(e as object), conversation_id: 'long' }));
const longBuild = () => snapshotsFromDirectEvents(longEvents).snapshots;
const longSnaps = longBuild();

const rows = [measure('30-message windows of real conversations', shortSnaps, shortBuild, 7), measure('one 2,000-message conversation', longSnaps, longBuild, 5)];
process.stdout.write(JSON.stringify({ analyses: rows }, null, 2) + '\n');
const [a, b] = rows;
process.stdout.write(
  `\n30 messages: ${a!.analyses_us_per_conversation} µs CPU per conversation (${a!.analyses_us_per_message} µs/message; ${a!.ratio_to_snapshot_build}× building its snapshot)\n` +
    `2,000 messages: ${b!.analyses_us_per_conversation} µs (${b!.analyses_us_per_message} µs/message; ${b!.ratio_to_snapshot_build}× building its snapshot)\n` +
    `per-message cost at 2,000 vs 30: ${(b!.analyses_us_per_message / a!.analyses_us_per_message).toFixed(2)}× (1 = linear)\n`,
);


