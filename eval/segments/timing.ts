/**
 * Times the four text analyses (segments, summary, laziness, hallucinations) in this process:
 * mean microseconds per tau-bench conversation (about 30 messages) and on one 2,000-message
 * conversation built by chaining real tau-bench conversations (tool calls included), plus a
 * 1,000-message one to show how the cost grows. CPU time of this process (process.cpuUsage), so
 * other work on a shared machine inflates it less than wall time. Run: `node dist/eval/segments/timing.js`.
 */
import { convertFile } from '../../stream/import/index.js';
import type { DirectEvent } from '../../stream/import/types.js';
import { snapshotsFromDirectEvents } from '../../stream/analyses/direct-input.js';
import { detectHallucinations } from '../../stream/analyses/hallucinations.js';
import { detectLaziness } from '../../stream/analyses/laziness.js';
import { segmentConversation } from '../../stream/analyses/segments.js';
import { summarize } from '../../stream/analyses/summary.js';
import type { ConversationSnapshot } from '../../stream/analyses/types.js';
import { dataPath } from '../lib/data.js';

type Timings = Record<'segments' | 'summary' | 'laziness' | 'hallucinations', number>;

/** CPU microseconds (user + system) of this process spent in `fn` — not wall time, which other work on the machine inflates. */
function cpu(fn: () => void): number {
  const before = process.cpuUsage();
  fn();
  const d = process.cpuUsage(before);
  return d.user + d.system;
}

/** Mean CPU µs per conversation of each analysis, each timed over `rounds` passes on its own. */
function mean(snapshots: readonly ConversationSnapshot[], rounds: number): Timings {
  const segs = snapshots.map((s) => segmentConversation(s));
  const n = snapshots.length * rounds;
  const each = (fn: (s: ConversationSnapshot, i: number) => void) => cpu(() => {
    for (let r = 0; r < rounds; r++) snapshots.forEach(fn);
  }) / n;
  return {
    segments: each((s) => segmentConversation(s)),
    summary: each((s, i) => summarize(s, segs[i]!)),
    laziness: each((s) => detectLaziness(s)),
    hallucinations: each((s) => detectHallucinations(s)),
  };
}

/** One long conversation: real conversations chained, ids made unique, until `size` messages. */
function chained(events: readonly DirectEvent[], size: number): ConversationSnapshot {
  const out: DirectEvent[] = [];
  for (let round = 0; out.length < size; round++) {
    for (const e of events) {
      if (out.length >= size) break;
      const content = e.content?.map((b) => ('tool_use_id' in b ? { ...b, tool_use_id: `${b.tool_use_id}-${round}` } : b));
      out.push({ ...e, conversation_id: 'long', message_id: `${e.message_id}-${round}`, timestamp: new Date(Date.parse('2025-01-01T00:00:00Z') + out.length * 1000).toISOString(), ...(content ? { content } : {}) });
    }
  }
  return snapshotsFromDirectEvents(out).snapshots[0]!;
}

const fmt = (t: Timings) => {
  const total = t.segments + t.summary + t.laziness + t.hallucinations;
  return `segments ${t.segments.toFixed(0)} µs, summary ${t.summary.toFixed(0)} µs, laziness ${t.laziness.toFixed(0)} µs, hallucinations ${t.hallucinations.toFixed(0)} µs, total ${total.toFixed(0)} µs`;
};

const { events } = convertFile(dataPath('tau-bench', 'gpt-4o-airline.json'));
const { snapshots } = snapshotsFromDirectEvents(events);
mean(snapshots, 3); // warm-up (JIT)
const perConversation = mean(snapshots, 10);
const messages = snapshots.reduce((n, s) => n + s.messages.length, 0) / snapshots.length;
process.stdout.write(`tau-bench, mean over ${snapshots.length} conversations (${messages.toFixed(1)} messages each): ${fmt(perConversation)}\n`);
for (const size of [1000, 2000]) {
  const long = chained(events.filter((e) => e.role !== 'system'), size);
  mean([long], 2);
  process.stdout.write(`one ${long.messages.length}-message conversation (${long.toolCalls.length} calls): ${fmt(mean([long], 5))}\n`);
}
