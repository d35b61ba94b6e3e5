/**
 * The one list of what the analysis framework writes: every analyzer the stream role runs on a
 * changed conversation (the pure analyses of stream/analyses/pipeline.ts plus the two rollups),
 * its version, and the table it owns. An analyzer whose table could not be written is recorded as
 * failed and retried on its own; a version change recomputes every conversation (backfill.ts).
 */
import { ANALYZERS } from '../analyses/pipeline.js';
import { USER_MEMORY_VERSION } from '../analyses/user-memory.js';

export interface FrameworkAnalyzer {
  name: string;
  version: number;
  /** Table holding its rows, replaced per conversation. */
  table: string;
  /** Analyzers whose output it needs: a failure of one of them fails it too. */
  needs: readonly string[];
}

/** Table of each pure analysis (stream/analyses/pipeline.ts). */
const PURE_TABLES: Readonly<Record<string, string>> = {
  'tool-calls': 'conversation_tool_calls',
  segments: 'conversation_segments',
  summary: 'conversation_summaries',
  emotions: 'emotion_detections',
  laziness: 'laziness_detections',
  hallucinations: 'hallucination_findings',
  'world-state': 'world_state',
  'step-scores': 'step_scores',
  'segment-goals': 'segment_texts',
};

export const FRAMEWORK_ANALYZERS: readonly FrameworkAnalyzer[] = [
  ...ANALYZERS.map((a) => {
    const table = PURE_TABLES[a.name];
    if (!table) throw new Error(`analyzer ${a.name} has no table in stream/analyze/tables.ts`);
    return { name: a.name, version: a.version, table, needs: [] };
  }),
  // the conversation's headline signals (frustrated / at risk, laziness, claim counts) from the analyses
  { name: 'signals', version: 1, table: 'conversation_signals', needs: ['emotions', 'laziness', 'hallucinations'] },
  // the memory of each user of the batch, from the durable slots of their conversations (work.ts)
  { name: 'user-memory', version: USER_MEMORY_VERSION, table: 'user_memory', needs: ['world-state'] },
  // the daily tool-failure rollup from the paired, categorized calls (stream/analyze/tool-failures.ts)
  { name: 'tool-failure-rollup', version: 2, table: 'tool_call_facts', needs: ['tool-calls'] },
  // the conversation row: counts and times, tool counts from the paired calls, the latest summary;
  // written last, so a reader that sees a new row sees every other table of the run (the tool-failure
  // daily rows excepted: paced passes recompute them from the facts about a second later)
  { name: 'conversation-rollup', version: 2, table: 'conversations', needs: [] },
];

export const analyzerByName = new Map(FRAMEWORK_ANALYZERS.map((a) => [a.name, a]));
