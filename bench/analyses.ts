/**
 * `npm run bench:analyses`: CPU cost of the conversation analyses (stream/analyses/pipeline.ts, all
 * analyzers, as one Piscina task runs them) per conversation, on real conversations cut to 30
 * messages and on one long conversation of 2,000 messages, beside the cost of only building the
 * snapshots in the same run (the floor every analysis pays). Linear cost shows as equal µs per
 * message at both sizes. Figures are process CPU time (user + system), medians of repeated rounds.
 * Beside the total, each analyzer's own share (`analyzer_us_per_conversation`), timed step by step.
 * The conversations are those of eval/perf/corpus.ts (also the golden outputs' datasets).
 */
import { realEvents, windows, longConversation } from '../eval/perf/corpus.js';
import { snapshotsFromDirectEvents } from '../stream/analyses/direct-input.js';
import { STEPS, analyzeSnapshot, emptyAnalysis } from '../stream/analyses/pipeline.js';
import { createCategoryRegistry } from '../stream/analyses/tool-failure-categories.js';
import type { ConversationSnapshot } from '../stream/analyses/types.js';

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * CPU µs of each analyzer per conversation: the pipeline's steps run one by one as
 * `analyzeSnapshot` runs them, each timed on its own (median over rounds of the per-round sum).
 */
function perAnalyzer(snapshots: ConversationSnapshot[], rounds: number): Record<string, number> {
  const sums: number[][] = STEPS.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const round = STEPS.map(() => 0);
    for (const s of snapshots) {
      const out = emptyAnalysis(s.conversationId);
      const env = { categories: createCategoryRegistry([], { tenantSeed: s.tenantId }) };
      STEPS.forEach((step, i) => {
        const t = cpuUs();
        try {
          step.run(s, out, env);
        } catch {
          // counted as the others: analyzeSnapshot reports it and goes on
        }
        round[i]! += cpuUs() - t;
      });
    }
    round.forEach((us, i) => sums[i]!.push(us));
  }
  return Object.fromEntries(STEPS.map((step, i) => [step.name, Math.round((median(sums[i]!) / snapshots.length) * 10) / 10]));
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
    analyzer_us_per_conversation: perAnalyzer(snapshots, rounds),
  };
}

const events = realEvents();
const short = windows(events, 30);
const shortBuild = () => snapshotsFromDirectEvents(short.flat()).snapshots;
const shortSnaps = shortBuild();
// the long one: 2,000 real messages one after another in one conversation
const longEvents = longConversation(events, 2000);
const longBuild = () => snapshotsFromDirectEvents(longEvents).snapshots;
const longSnaps = longBuild();

const rows = [measure('30-message windows of real conversations', shortSnaps, shortBuild, 7), measure('one 2,000-message conversation', longSnaps, longBuild, 5)];
process.stdout.write(JSON.stringify({ analyses: rows }, null, 2) + '\n');
const [a, b] = rows;
process.stdout.write(
  `\n30 messages: ${a!.analyses_us_per_conversation} µs CPU per conversation (${a!.analyses_us_per_message} µs/message; ${a!.ratio_to_snapshot_build}× building its snapshot)\n` +
    `2,000 messages: ${b!.analyses_us_per_conversation} µs (${b!.analyses_us_per_message} µs/message; ${b!.ratio_to_snapshot_build}× building its snapshot)\n` +
    `per-message cost at 2,000 vs 30: ${(b!.analyses_us_per_message / a!.analyses_us_per_message).toFixed(2)}× (1 = linear)\n\n` +
    `µs CPU per conversation by analyzer (30 messages | 2,000 messages):\n` +
    STEPS.map((st) => `  ${st.name.padEnd(16)} ${String(a!.analyzer_us_per_conversation[st.name]).padStart(8)} | ${String(b!.analyzer_us_per_conversation[st.name]).padStart(9)}\n`).join(''),
);


