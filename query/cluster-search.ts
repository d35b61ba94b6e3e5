/**
 * Ranking of GET /task-clusters/search, pure (data in, data out), shared with the evaluation:
 * `fuzzy` scores every node's label, keywords and summary against the query text; `semantic`
 * scores every node's centroid against the query vector; `hybrid` fuses both rankings by
 * reciprocal rank. docs/analyses.md "Vectors and search" has the thresholds.
 */
import { dot } from '../core/vectors/model.js';
import { fuzzySimilarity, reciprocalRankFusion } from '../core/vectors/ranking.js';

export type ClusterSearchMode = 'fuzzy' | 'semantic' | 'hybrid';

/** A fuzzy match needs this score (0–1). */
export const FUZZY_FLOOR = 0.5;
/** A semantic match needs this cosine similarity to the node's centroid. */
export const SEMANTIC_FLOOR = 0.1;
/** Ancestors listed at most in `ancestor_path` (deeper paths are cut, `path_truncated`). */
export const MAX_ANCESTORS = 5;

export interface SearchableNode {
  node_id: string;
  parent_id: string;
  depth: number;
  label: string;
  summary: string;
  keywords: readonly string[];
  centroid: ArrayLike<number>;
}

export interface RankedNode {
  node_id: string;
  /** Cosine similarity to the query (semantic and hybrid), else undefined. */
  similarity?: number;
}

/** Fuzzy score of a node: label counts fully, keywords 0.9, summary 0.8. */
export function fuzzyNodeScore(q: string, n: SearchableNode): number {
  return Math.max(fuzzySimilarity(q, n.label), 0.9 * fuzzySimilarity(q, n.keywords.join(' ')), 0.8 * fuzzySimilarity(q, n.summary));
}

const byScore = <T extends { score: number; node_id: string }>(a: T, b: T) => b.score - a.score || (a.node_id < b.node_id ? -1 : 1);

export function fuzzyRanking(q: string, nodes: readonly SearchableNode[]): Array<{ node_id: string; score: number }> {
  return nodes
    .map((n) => ({ node_id: n.node_id, score: fuzzyNodeScore(q, n) }))
    .filter((x) => x.score >= FUZZY_FLOOR)
    .sort(byScore);
}

export function semanticRanking(vector: ArrayLike<number>, nodes: readonly SearchableNode[]): Array<{ node_id: string; score: number }> {
  return nodes
    .map((n) => ({ node_id: n.node_id, score: dot(vector, n.centroid) }))
    .filter((x) => x.score >= SEMANTIC_FLOOR)
    .sort(byScore);
}

/**
 * The ranked nodes for a query and the mode that ran. Without a query vector (no model, or no
 * word of the query in its vocabulary) semantic and hybrid fall back to fuzzy.
 */
export function rankNodes(q: string, vector: ArrayLike<number> | null, nodes: readonly SearchableNode[], mode: ClusterSearchMode): { mode: ClusterSearchMode; ranked: RankedNode[] } {
  if (mode === 'fuzzy' || !vector) return { mode: 'fuzzy', ranked: fuzzyRanking(q, nodes).map((x) => ({ node_id: x.node_id })) };
  const semantic = semanticRanking(vector, nodes);
  const sim = new Map(semantic.map((x) => [x.node_id, x.score]));
  // every node has a similarity once a vector exists, also those below the floor (hybrid via fuzzy)
  const simOf = (id: string) => sim.get(id) ?? Math.max(0, dot(vector, nodes.find((n) => n.node_id === id)!.centroid));
  if (mode === 'semantic') return { mode, ranked: semantic.map((x) => ({ node_id: x.node_id, similarity: x.score })) };
  const fused = reciprocalRankFusion([fuzzyRanking(q, nodes).map((x) => x.node_id), semantic.map((x) => x.node_id)]);
  return { mode, ranked: fused.map((x) => ({ node_id: x.id, similarity: simOf(x.id) })) };
}

/** Ancestors of a node from the root down to its parent, cut to the last MAX_ANCESTORS. */
export function ancestorPath(nodeId: string, byId: ReadonlyMap<string, Pick<SearchableNode, 'node_id' | 'parent_id' | 'label' | 'depth'>>): { path: Array<{ nodeId: string; label: string; depth: number }>; truncated: boolean } {
  const path: Array<{ nodeId: string; label: string; depth: number }> = [];
  const seen = new Set<string>([nodeId]);
  let parent = byId.get(nodeId)?.parent_id ?? '';
  while (parent && !seen.has(parent)) {
    const p = byId.get(parent);
    if (!p) break;
    seen.add(parent);
    path.unshift({ nodeId: p.node_id, label: p.label, depth: p.depth });
    parent = p.parent_id;
  }
  return path.length > MAX_ANCESTORS ? { path: path.slice(-MAX_ANCESTORS), truncated: true } : { path, truncated: false };
}
