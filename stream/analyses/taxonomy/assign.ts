/**
 * Continuous assignment between rebuilds: a new segment joins the leaf whose centroid is most
 * similar to its vector when that similarity reaches the leaf's threshold (build.ts); otherwise
 * it is held aside until the next rebuild groups it.
 */
import { dot } from '../../../core/vectors/model.js';

export interface AssignableLeaf {
  node_id: string;
  parent_id: string;
  centroid: ArrayLike<number>;
  threshold: number;
}

export interface Assigned {
  /** '' when held aside. */
  node_id: string;
  category_id: string;
  /** Similarity to the nearest leaf (also when held aside). */
  similarity: number;
}

export function assignVector(vector: ArrayLike<number> | null, leaves: readonly AssignableLeaf[]): Assigned {
  if (!vector) return { node_id: '', category_id: '', similarity: 0 };
  let best: AssignableLeaf | undefined;
  let bestSim = -Infinity;
  for (const leaf of leaves) {
    const s = dot(vector, leaf.centroid);
    if (s > bestSim) {
      bestSim = s;
      best = leaf;
    }
  }
  if (!best) return { node_id: '', category_id: '', similarity: 0 };
  const similarity = Math.max(0, bestSim);
  return bestSim >= best.threshold ? { node_id: best.node_id, category_id: best.parent_id, similarity } : { node_id: '', category_id: '', similarity };
}
