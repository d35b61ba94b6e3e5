/**
 * The evaluation corpus of the taxonomy and search evaluations: every real conversation of
 * ../shared/data (tau-bench, the Claude Code session logs, the mini-swe-agent trajectory, the
 * BookMinder console transcripts) analyzed by the same pipeline as the stream role, and one
 * workspace taxonomy built over all of their segments, as `tracehouse analyze` and the leased job
 * build it. Cached: both evaluations read it.
 */
import { analyzeSnapshot } from '../../stream/analyses/pipeline.js';
import { buildTaxonomy, type TaxonomyBuild, type TaxonomySegment } from '../../stream/analyses/taxonomy/build.js';
import type { ConversationAnalysis, ConversationSnapshot } from '../../stream/analyses/types.js';
import { convertFile } from '../../stream/import/index.js';
import { dataPath } from '../lib/data.js';
import { allRealSnapshots } from '../segments/load.js';

export interface CorpusConversation {
  id: string;
  dataset: 'tau-bench' | 'claude-code' | 'bookminder' | 'other';
  snapshot: ConversationSnapshot;
  analysis: ConversationAnalysis;
  /** Last message time (ms): keyword mode lists newest first. */
  lastTs: number;
}

export interface EvalCorpus {
  conversations: CorpusConversation[];
  segments: TaxonomySegment[];
  build: TaxonomyBuild;
  buildMs: number;
  /** Conversation → its cluster (the rule of the data API: most segments, then mean similarity, then id). */
  primary: Map<string, string>;
  /** tau-bench conversation → task id (first message metadata `task_id`). */
  taskOf: Map<string, string>;
  missing: string[];
}

function datasetOf(id: string): CorpusConversation['dataset'] {
  if (id.startsWith('gpt-4o-airline')) return 'tau-bench';
  if (/^day-\d+/.test(id)) return 'bookminder';
  if (/^[0-9a-f]{8}-|^agent-test/.test(id)) return 'claude-code';
  return 'other';
}

/** The data API's cluster of a conversation from its segments' assignments. */
export function primaryClusters(assignments: TaxonomyBuild['assignments']): Map<string, string> {
  const stats = new Map<string, Map<string, { n: number; sim: number }>>();
  for (const a of assignments) {
    if (!a.node_id) continue;
    const m = stats.get(a.conversation_id) ?? new Map<string, { n: number; sim: number }>();
    const s = m.get(a.node_id) ?? { n: 0, sim: 0 };
    s.n++;
    s.sim += a.similarity;
    m.set(a.node_id, s);
    stats.set(a.conversation_id, m);
  }
  const out = new Map<string, string>();
  for (const [conv, m] of stats) {
    const best = [...m].sort((x, y) => y[1].n - x[1].n || y[1].sim / y[1].n - x[1].sim / x[1].n || (x[0] < y[0] ? 1 : -1))[0]!;
    out.set(conv, best[0]);
  }
  return out;
}

function tauTasks(): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of convertFile(dataPath('tau-bench', 'gpt-4o-airline.json')).events as Array<{ conversation_id: string; metadata?: { task_id?: unknown } }>) {
    if (!out.has(e.conversation_id) && e.metadata?.task_id !== undefined) out.set(e.conversation_id, String(e.metadata.task_id));
  }
  return out;
}

let cached: Promise<EvalCorpus> | undefined;

export function loadCorpus(): Promise<EvalCorpus> {
  cached ??= (async () => {
    const { snapshots, missing } = await allRealSnapshots();
    const conversations = snapshots.map((s) => ({
      id: s.conversationId,
      dataset: datasetOf(s.conversationId),
      snapshot: s,
      analysis: analyzeSnapshot(s).analysis,
      lastTs: Math.max(0, ...s.messages.map((m) => m.ts)),
    }));
    const segments = conversations.flatMap((c) => (c.analysis.segment_goals ?? []).filter((g) => g.text).map((g) => ({ segment_id: g.segment_id, conversation_id: c.id, text: g.text, goal: g.goal })));
    const started = Date.now();
    const build = buildTaxonomy(segments);
    const buildMs = Date.now() - started;
    return { conversations, segments, build, buildMs, primary: primaryClusters(build.assignments), taskOf: missing.includes('tau-bench/gpt-4o-airline.json') ? new Map() : tauTasks(), missing };
  })();
  return cached;
}
