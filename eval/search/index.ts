/**
 * Search evaluation on the query set of eval/search/queries.json (labeling rules in RULES.md):
 * recall@5 per mode of the conversation search (keyword, semantic, hybrid — the modes of
 * GET /conversations?search and GET /search) and of the task-cluster search (fuzzy, semantic,
 * hybrid — GET /task-clusters/search), over the workspace taxonomy of eval/taxonomy/corpus.ts.
 * Each mode is the data API's ranking run in memory: keyword as the SQL matches (every query term
 * as a whole word in the summary or one message, newest first), semantic by the best segment's
 * cosine similarity (floor and pool of query/routes/conversation-search.ts), hybrid by reciprocal
 * rank fusion of the two, the cluster search by query/cluster-search.ts itself.
 */
import { readFileSync } from 'node:fs';
import { dot, embedText } from '../../core/vectors/model.js';
import { reciprocalRankFusion } from '../../core/vectors/ranking.js';
import { rankNodes, type ClusterSearchMode } from '../../query/cluster-search.js';
import { CONVERSATION_SEMANTIC_FLOOR, HYBRID_POOL } from '../../query/routes/conversation-search.js';
import { evalPath } from '../lib/data.js';
import type { EvalModule, EvalSection, EvalTable } from '../lib/report.js';
import { loadCorpus, type EvalCorpus } from '../taxonomy/corpus.js';

interface LabeledQuery {
  query: string;
  /** `task:<id>` (every trial of a tau-bench task) or a conversation id. */
  expected: string[];
}

const K = 5;
/** ClickHouse `splitByNonAlpha` on lower-cased text: runs of ASCII letters and digits. */
const tokens = (s: string) => s.toLowerCase().match(/[a-z0-9]+/g) ?? [];

function expectedConversations(c: EvalCorpus, q: LabeledQuery): Set<string> {
  const out = new Set<string>();
  for (const e of q.expected) {
    if (e.startsWith('task:')) for (const [conv, task] of c.taskOf) if (task === e.slice(5)) out.add(conv);
    if (c.conversations.some((x) => x.id === e)) out.add(e);
  }
  return out;
}

/** Keyword mode: conversations whose summary or one message holds every term; newest first. */
function keywordRanking(c: EvalCorpus, q: string): string[] {
  const terms = [...new Set(tokens(q))];
  if (terms.length === 0) return [];
  const matches = c.conversations.filter((conv) => {
    const texts = [conv.analysis.summary, ...conv.snapshot.messages.map((m) => m.text)];
    return texts.some((t) => {
      const words = new Set(tokens(t));
      return terms.every((w) => words.has(w));
    });
  });
  return matches.sort((a, b) => b.lastTs - a.lastTs || (a.id < b.id ? 1 : -1)).map((x) => x.id);
}

/** Semantic mode: conversations by their best segment's cosine similarity (≥ the floor). */
function semanticRanking(c: EvalCorpus, vector: Float32Array | null): string[] {
  if (!vector) return [];
  const d = c.build.model.dims;
  const best = new Map<string, number>();
  c.segments.forEach((s, i) => {
    const sim = dot(vector, c.build.vectors.subarray(i * d, i * d + d));
    if (sim > (best.get(s.conversation_id) ?? -Infinity)) best.set(s.conversation_id, sim);
  });
  return [...best].filter(([, s]) => s >= CONVERSATION_SEMANTIC_FLOOR).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, HYBRID_POOL).map(([id]) => id);
}

const rankOf = (ranking: readonly string[], expected: ReadonlySet<string>) => {
  const i = ranking.findIndex((id) => expected.has(id));
  return i < 0 ? '–' : i + 1;
};
const hit = (r: number | string) => typeof r === 'number' && r <= K;

export const searchEval: EvalModule = {
  name: 'search',
  async run(): Promise<EvalSection> {
    const c = await loadCorpus();
    const { queries } = JSON.parse(readFileSync(evalPath('search', 'queries.json'), 'utf8')) as { queries: LabeledQuery[] };
    const nodes = c.build.nodes.map((n) => ({ ...n, centroid: n.centroid }));
    const perQuery: EvalTable['rows'] = [];
    const convHits = { keyword: 0, semantic: 0, hybrid: 0 };
    const nodeHits: Record<ClusterSearchMode, number> = { fuzzy: 0, semantic: 0, hybrid: 0 };
    let fallbacks = 0;
    let labeled = 0;
    for (const q of queries) {
      const expected = expectedConversations(c, q);
      if (expected.size === 0) continue;
      labeled++;
      const vector = embedText(c.build.model, q.query);
      if (!vector) fallbacks++;
      const keyword = keywordRanking(c, q.query);
      const semantic = semanticRanking(c, vector);
      // hybrid needs semantic search; without a query vector keyword mode serves (as the API does)
      const hybrid = vector ? reciprocalRankFusion([keyword.slice(0, HYBRID_POOL), semantic]).map((x) => x.id) : keyword;
      const ranks = { keyword: rankOf(keyword, expected), semantic: rankOf(semantic, expected), hybrid: rankOf(hybrid, expected) };
      for (const m of ['keyword', 'semantic', 'hybrid'] as const) if (hit(ranks[m])) convHits[m]++;
      // the expected node: the cluster of the expected conversations
      const targets = new Set([...expected].map((id) => c.primary.get(id)).filter((x): x is string => Boolean(x)));
      const nodeRanks: Record<ClusterSearchMode, number | string> = { fuzzy: '–', semantic: '–', hybrid: '–' };
      for (const mode of ['fuzzy', 'semantic', 'hybrid'] as const) {
        const r = rankNodes(q.query, vector, nodes, mode);
        nodeRanks[mode] = rankOf(r.ranked.map((x) => x.node_id), targets);
        if (hit(nodeRanks[mode])) nodeHits[mode]++;
      }
      perQuery.push([q.query, q.expected.join(' '), ranks.keyword, ranks.semantic, ranks.hybrid, nodeRanks.fuzzy, nodeRanks.semantic, nodeRanks.hybrid]);
    }
    const r = (n: number) => (labeled ? n / labeled : 0);
    const figures = {
      queries: labeled,
      conversation_recall5_keyword: Number(r(convHits.keyword).toFixed(3)),
      conversation_recall5_semantic: Number(r(convHits.semantic).toFixed(3)),
      conversation_recall5_hybrid: Number(r(convHits.hybrid).toFixed(3)),
      cluster_recall5_fuzzy: Number(r(nodeHits.fuzzy).toFixed(3)),
      cluster_recall5_semantic: Number(r(nodeHits.semantic).toFixed(3)),
      cluster_recall5_hybrid: Number(r(nodeHits.hybrid).toFixed(3)),
    };
    const summary: EvalTable = {
      title: `Recall@${K} per mode (${labeled} queries; a hit = an expected conversation, or the cluster holding the expected conversations, in the first ${K})`,
      columns: ['search', 'keyword / fuzzy', 'semantic', 'hybrid'],
      rows: [
        ['conversations (GET /conversations?search, GET /search)', r(convHits.keyword), r(convHits.semantic), r(convHits.hybrid)],
        ['task clusters (GET /task-clusters/search)', r(nodeHits.fuzzy), r(nodeHits.semantic), r(nodeHits.hybrid)],
      ],
    };
    const detail: EvalTable = {
      title: 'Rank of the first expected result per query and mode (– = not found)',
      columns: ['query', 'expected', 'keyword', 'semantic', 'hybrid', 'cluster fuzzy', 'cluster semantic', 'cluster hybrid'],
      rows: perQuery,
    };
    const notes = [
      `Keyword mode needs every query word in one message: paraphrased queries ("take Ethan off my booking") find nothing unless the person used those words; it wins on exact codes and names that the vectors dilute.`,
      `Semantic mode reads only the segments' goal texts (the person's requests), so a query about what the agent did, or about words only in tool output, is out of its reach.`,
      `Queries with no word in the taxonomy's vocabulary: ${fallbacks} (semantic unavailable; hybrid then serves keyword results, the cluster search fuzzy ones).`,
    ];
    if (figures.conversation_recall5_hybrid < Math.max(figures.conversation_recall5_keyword, figures.conversation_recall5_semantic)) notes.push('Conversation search: hybrid is below one of the single modes on this set.');
    if (figures.cluster_recall5_hybrid < Math.max(figures.cluster_recall5_fuzzy, figures.cluster_recall5_semantic)) notes.push('Task-cluster search: hybrid is below one of the single modes on this set.');
    return { name: 'search', title: 'Semantic and hybrid search', tables: [summary, detail], notes, figures };
  },
};
