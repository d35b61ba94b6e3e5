/**
 * One taxonomy build, as a pure function of a tenant's segments (and the previous run's tree, for
 * stable ids): fit the text model, embed every segment, cluster into leaves (use cases) and group
 * the leaves into categories, name every node from its members, keep the ids of nodes that
 * continue a previous node. Segments in no leaf of at least MIN_CLUSTER_SIZE are held aside.
 * docs/analyses.md "Use-case taxonomy" has the method and its constants.
 */
import type { TextModel } from '../../../core/vectors/model.js';
import { averageLinkage, bestCut, nearest, normalizeRows, rowDot, similarityMatrix, sphericalKMeans } from './cluster.js';
import { embedAll, fitSample, fitTextModel } from './fit.js';
import { chooseKeywords, chooseLabel, corpusStats, memberTerms, summarize, type CorpusStats } from './labels.js';
import { matchNodeIds } from './match.js';

/** Bumped when a build gives different nodes for the same segments (a rebuild follows). */
export const TAXONOMY_VERSION = 1;
/** spec/data-api.md Limits: the first taxonomy needs 50 analyzed segments. */
export const MIN_SEGMENTS = 50;
/** Up to this many segments are clustered directly; more are first compressed by k-means. */
export const MAX_DIRECT = 2000;
/** Micro-clusters of the k-means step for larger corpora, fitted on at most KMEANS_SAMPLE segments. */
export const MICRO_CLUSTERS = 256;
export const KMEANS_SAMPLE = 8000;
/** A leaf needs this many segments; smaller groups are held aside. */
export const MIN_CLUSTER_SIZE = 2;
/**
 * Cuts tried for leaves: cosine similarity of the average linkage. The coarsest cut whose
 * silhouette is within CUT_TOLERANCE of the best wins (cluster.ts `bestCut`).
 */
export const LEAF_CUTS = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8];
/** Lowest similarity to a leaf's centroid at which a new segment joins it. */
export const ASSIGN_FLOOR = 0.3;

export interface TaxonomySegment {
  segment_id: string;
  conversation_id: string;
  /** What the vector is computed from (goal + summary). */
  text: string;
  /** The person's requests (labels are read from these). */
  goal: string;
}

export interface PreviousTree {
  /** Segment → leaf id, and segment → category id, of the previous run. */
  leafOf: ReadonlyMap<string, string>;
  categoryOf: ReadonlyMap<string, string>;
}

export interface TaxonomyNode {
  node_id: string;
  /** '' for a category (root level). */
  parent_id: string;
  depth: number;
  node_type: 'category' | 'cluster';
  label: string;
  summary: string;
  keywords: string[];
  segment_count: number;
  has_children: boolean;
  /** Unit vector in the run's space. */
  centroid: Float32Array;
  /** Leaves: the similarity a new segment needs to join (categories: 0). */
  threshold: number;
}

export interface TaxonomyAssignment {
  segment_id: string;
  conversation_id: string;
  /** Leaf id, or '' when held aside. */
  node_id: string;
  category_id: string;
  similarity: number;
}

export interface TaxonomyBuild {
  model: TextModel;
  /** Row i is the vector of segments[i] (zeros when its text has no known feature). */
  vectors: Float32Array;
  nodes: TaxonomyNode[];
  assignments: TaxonomyAssignment[];
  stats: { leafCut: number; leafSilhouette: number; categoryCut: number; heldAside: number; dims: number };
}

/** Items the linkage clusters: segments themselves, or k-means micro-clusters of them. */
function linkageItems(vectors: Float32Array, rows: number[], ids: readonly string[], d: number) {
  if (rows.length <= MAX_DIRECT) return { centroids: Float32Array.from(rows.flatMap((r) => [...vectors.subarray(r * d, r * d + d)])), members: rows.map((r) => [r]) };
  const sample = new Set(fitSample(rows.map((r) => ({ id: ids[r]!, text: '' })), KMEANS_SAMPLE).map((x) => x.id));
  const fitRows = rows.filter((r) => sample.has(ids[r]!));
  const k = Math.min(MICRO_CLUSTERS, fitRows.length);
  const seeds = sphericalKMeans(vectors, fitRows, d, k);
  const picked = new Float32Array(rows.length * d);
  rows.forEach((r, i) => picked.set(vectors.subarray(r * d, r * d + d), i * d));
  const { label } = nearest(picked, rows.length, seeds, k, d);
  const members: number[][] = Array.from({ length: k }, () => []);
  rows.forEach((r, i) => members[label[i]!]!.push(r));
  const kept = members.filter((m) => m.length > 0);
  return { centroids: centroidsOf(vectors, kept, d), members: kept };
}

function centroidsOf(vectors: Float32Array, groups: readonly number[][], d: number): Float32Array {
  const c = new Float32Array(groups.length * d);
  groups.forEach((g, i) => {
    for (const r of g) for (let t = 0; t < d; t++) c[i * d + t]! += vectors[r * d + t]!;
  });
  normalizeRows(c, d);
  return c;
}

/** Agglomerates items (weighted) and cuts at the best-silhouette similarity among `cuts`. */
function agglomerate(centroids: Float32Array, weights: number[], d: number, cuts: readonly number[]) {
  const n = weights.length;
  if (n < 3) return { labels: Int32Array.from({ length: n }, (_, i) => i), threshold: cuts[cuts.length - 1]!, silhouette: 0 };
  const sim = similarityMatrix(centroids, n, d);
  const merges = averageLinkage(Float32Array.from(sim), n, weights);
  return bestCut(sim, merges, n, weights, cuts);
}

const groupBy = (labels: Int32Array, members: readonly number[][]): number[][] => {
  const groups: number[][] = [];
  labels.forEach((l, i) => (groups[l] ??= []).push(...members[i]!));
  return groups.filter(Boolean);
};

export function buildTaxonomy(segments: readonly TaxonomySegment[], previous?: PreviousTree): TaxonomyBuild {
  const ids = segments.map((s) => s.segment_id);
  const model = fitTextModel(segments.map((s) => ({ id: s.segment_id, text: s.text })));
  const d = model.dims;
  const { vectors, ok } = embedAll(model, segments.map((s) => s.text));
  const rows = segments.map((_, i) => i).filter((i) => ok[i]);
  const items = linkageItems(vectors, rows, ids, d);
  const leafCut = agglomerate(items.centroids, items.members.map((m) => m.length), d, LEAF_CUTS);
  const groups = groupBy(leafCut.labels, items.members);
  const leaves = groups.filter((g) => g.length >= MIN_CLUSTER_SIZE).sort((a, b) => b.length - a.length || ids[a[0]!]!.localeCompare(ids[b[0]!]!));
  const leafCentroids = centroidsOf(vectors, leaves, d);
  // categories: the leaves agglomerated at a lower similarity than the leaf cut
  const categoryCuts = [0.02, ...LEAF_CUTS].filter((c) => c <= leafCut.threshold - 0.05);
  const cat = agglomerate(leafCentroids, leaves.map((l) => l.length), d, categoryCuts.length ? categoryCuts : [0.02]);
  const categories = groupBy(cat.labels, leaves.map((_, i) => [i]));
  const terms = segments.map((s) => memberTerms(s.goal || s.text));
  const corpus = corpusStats(terms);
  const leafIds = matchNodeIds(leaves.map((l) => l.map((r) => ids[r]!)), previous && { nodeOf: previous.leafOf }, 'cl');
  const categoryIds = matchNodeIds(categories.map((c) => c.flatMap((li) => leaves[li]!.map((r) => ids[r]!))), previous && { nodeOf: previous.categoryOf }, 'cat');
  const nodes: TaxonomyNode[] = [];
  const assignments = new Map<number, TaxonomyAssignment>();
  categories.forEach((leafIdx, ci) => {
    const members = leafIdx.flatMap((li) => leaves[li]!);
    const centroid = centroidsOf(vectors, [members], d);
    nodes.push(describe({ id: categoryIds[ci]!, parent: '', depth: 0, type: 'category', members, centroid, hasChildren: true }, segments, vectors, terms, corpus, d));
    for (const li of leafIdx) {
      const c = leafCentroids.subarray(li * d, li * d + d);
      const node = describe({ id: leafIds[li]!, parent: categoryIds[ci]!, depth: 1, type: 'cluster', members: leaves[li]!, centroid: c, hasChildren: false }, segments, vectors, terms, corpus, d);
      nodes.push(node);
      for (const r of leaves[li]!) assignments.set(r, { segment_id: ids[r]!, conversation_id: segments[r]!.conversation_id, node_id: node.node_id, category_id: categoryIds[ci]!, similarity: rowDot(vectors, r, leafCentroids, li, d) });
    }
  });
  disambiguate(nodes);
  const out = segments.map((s, r) => assignments.get(r) ?? { segment_id: s.segment_id, conversation_id: s.conversation_id, node_id: '', category_id: '', similarity: 0 });
  return {
    model,
    vectors,
    nodes,
    assignments: out,
    stats: { leafCut: leafCut.threshold, leafSilhouette: leafCut.silhouette, categoryCut: cat.threshold, heldAside: out.filter((a) => !a.node_id).length, dims: d },
  };
}

interface NodeDraft {
  id: string;
  parent: string;
  depth: number;
  type: 'category' | 'cluster';
  members: number[];
  centroid: Float32Array;
  hasChildren: boolean;
}

function describe(n: NodeDraft, segments: readonly TaxonomySegment[], vectors: Float32Array, terms: ReturnType<typeof memberTerms>[], corpus: CorpusStats, d: number): TaxonomyNode {
  const sims = n.members.map((r) => rowDot(vectors, r, n.centroid, 0, d));
  const weighted = n.members.map((r, i) => ({ terms: terms[r]!, weight: Math.max(0.05, sims[i]!) }));
  const keywords = chooseKeywords(weighted, corpus);
  const central = n.members[sims.indexOf(Math.max(...sims))]!;
  const label = chooseLabel(weighted, corpus, segments[central]!.goal || segments[central]!.text, { broad: n.type === 'category' });
  const sorted = [...sims].sort((a, b) => a - b);
  // the 10th percentile of the members' similarity: a newcomer must be as close as most members
  const threshold = n.type === 'cluster' ? Math.max(ASSIGN_FLOOR, sorted[Math.floor(sorted.length * 0.1)]!) : 0;
  return {
    node_id: n.id,
    parent_id: n.parent,
    depth: n.depth,
    node_type: n.type,
    label,
    summary: summarize(label, keywords, n.members.length, segments[central]!.goal || segments[central]!.text),
    keywords,
    segment_count: n.members.length,
    has_children: n.hasChildren,
    centroid: Float32Array.from(n.centroid),
    threshold,
  };
}

/** Leaves with the same label get their first keyword that is not in the label. */
function disambiguate(nodes: TaxonomyNode[]): void {
  const byLabel = new Map<string, TaxonomyNode[]>();
  for (const n of nodes) if (n.node_type === 'cluster') byLabel.set(n.label, [...(byLabel.get(n.label) ?? []), n]);
  for (const same of byLabel.values()) {
    if (same.length < 2) continue;
    for (const n of same) {
      const extra = n.keywords.find((k) => !n.label.toLowerCase().includes(k));
      if (extra) n.label = `${n.label} (${extra})`;
    }
  }
}
