/**
 * The taxonomy of an offline workspace (`tracehouse analyze`): with at least MIN_SEGMENTS segments
 * that have goal text in the input, the input builds its own taxonomy (the same build as the
 * stream role's) and every segment gets its `cluster` (null when held aside or without text).
 * Below that, segments get no `cluster` field, as the data API has no taxonomy before 50 segments.
 */
import type { ConversationAnalysis } from '../types.js';
import { buildTaxonomy, MIN_SEGMENTS, type TaxonomyBuild, type TaxonomySegment } from './build.js';

/** Adds `cluster` to every segment when the input is large enough; returns the build, if any. */
export function clusterSegments(results: ConversationAnalysis[]): TaxonomyBuild | undefined {
  const input: TaxonomySegment[] = [];
  for (const r of results) {
    for (const g of r.segment_goals ?? []) if (g.text) input.push({ segment_id: g.segment_id, conversation_id: r.conversation_id, text: g.text, goal: g.goal });
  }
  if (input.length < MIN_SEGMENTS) return undefined;
  const build = buildTaxonomy(input);
  const nodes = new Map(build.nodes.map((n) => [n.node_id, n]));
  const bySegment = new Map(build.assignments.map((a) => [a.segment_id, a]));
  for (const r of results) {
    for (const s of r.segments) {
      const a = bySegment.get(s.segment_id);
      const leaf = a?.node_id ? nodes.get(a.node_id) : undefined;
      s.cluster = leaf && a ? { node_id: leaf.node_id, label: leaf.label, category_id: a.category_id, category_label: nodes.get(a.category_id)?.label ?? '', similarity: Math.round(a.similarity * 1000) / 1000 } : null;
    }
  }
  return build;
}
