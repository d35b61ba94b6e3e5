/**
 * A tenant's text model: the vocabulary of a taxonomy run (feature hashes with their inverse
 * document frequency) and the LSA projection fitted on that run's segments. `embedText` turns any
 * text into a unit vector of `dims` numbers in the same space as the run's segment vectors and node
 * centroids, so cosine similarity between a query and a node is a dot product.
 *
 * Weighting: sublinear term frequency (1 + ln tf) × idf per feature; the word block (words and word
 * pairs) and the character-gram block are each scaled to unit length and mixed with weights
 * WORD_WEIGHT and 1 − WORD_WEIGHT (character grams are many more per text and would otherwise
 * decide alone), then projected and scaled to unit length again.
 */
import { CHAR_BLOCK, termCounts, WORD_BLOCK, type TermCounts } from './features.js';

/** Share of the squared length that the word block gets. */
export const WORD_WEIGHT = 0.6;

export interface TextModel {
  dims: number;
  /** Feature hashes (features.ts). */
  features: Uint32Array;
  /** WORD_BLOCK or CHAR_BLOCK per feature. */
  blocks: Uint8Array;
  idf: Float32Array;
  /** features.length × dims, row-major: row f is the projection of feature f. */
  components: Float32Array;
}

const indexes = new WeakMap<TextModel, Map<number, number>>();

/** Feature hash → row of the model (built once per model). */
export function featureIndex(model: TextModel): Map<number, number> {
  let ix = indexes.get(model);
  if (!ix) {
    ix = new Map();
    for (let i = 0; i < model.features.length; i++) ix.set(model.features[i]!, i);
    indexes.set(model, ix);
  }
  return ix;
}

/** A sparse TF-IDF vector: model rows and weights, unit length per block mix (see top). */
export interface SparseVector {
  rows: Int32Array;
  values: Float32Array;
}

/**
 * The weighted TF-IDF vector of a text's term counts over a vocabulary, or null when no feature of
 * the text is in it. `idfOf(hash)` gives [row, idf, block] or undefined.
 */
export function tfidf(counts: TermCounts, lookup: (hash: number) => number, idf: Float32Array): SparseVector | null {
  const rows: number[] = [];
  const values: number[] = [];
  const norms = [0, 0];
  const starts = [0, 0];
  const blocks: Array<Map<number, number>> = [];
  blocks[WORD_BLOCK] = counts.words;
  blocks[CHAR_BLOCK] = counts.chars;
  for (const b of [WORD_BLOCK, CHAR_BLOCK]) {
    starts[b] = rows.length;
    for (const [h, tf] of blocks[b]!) {
      const r = lookup(h);
      if (r < 0) continue;
      const w = (1 + Math.log(tf)) * idf[r]!;
      rows.push(r);
      values.push(w);
      norms[b]! += w * w;
    }
  }
  if (rows.length === 0) return null;
  const present = (norms[WORD_BLOCK]! > 0 ? 1 : 0) + (norms[CHAR_BLOCK]! > 0 ? 1 : 0);
  for (const b of [WORD_BLOCK, CHAR_BLOCK]) {
    const end = b === WORD_BLOCK ? starts[CHAR_BLOCK]! : rows.length;
    if (norms[b] === 0) continue;
    // one block alone gets the whole length
    const share = present === 1 ? 1 : b === WORD_BLOCK ? WORD_WEIGHT : 1 - WORD_WEIGHT;
    const scale = Math.sqrt(share / norms[b]!);
    for (let i = starts[b]!; i < end; i++) values[i]! *= scale;
  }
  return { rows: Int32Array.from(rows), values: Float32Array.from(values) };
}

/** Scales `v` to unit length in place; false when it is all zeros. */
export function normalize(v: Float32Array): boolean {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  if (s === 0) return false;
  const k = 1 / Math.sqrt(s);
  for (let i = 0; i < v.length; i++) v[i]! *= k;
  return true;
}

/** Projects a sparse vector with the model's components into `out` (unit length); false if zero. */
export function project(model: TextModel, x: SparseVector, out: Float32Array): boolean {
  const k = model.dims;
  out.fill(0);
  const c = model.components;
  for (let i = 0; i < x.rows.length; i++) {
    const base = x.rows[i]! * k;
    const w = x.values[i]!;
    for (let j = 0; j < k; j++) out[j]! += w * c[base + j]!;
  }
  return normalize(out);
}

/** The unit vector of a text in the model's space, or null when no feature of it is known. */
export function embedText(model: TextModel, text: string): Float32Array | null {
  const ix = featureIndex(model);
  const x = tfidf(termCounts(text), (h) => ix.get(h) ?? -1, model.idf);
  if (!x) return null;
  const out = new Float32Array(model.dims);
  return project(model, x, out) ? out : null;
}

/** Dot product (cosine of two unit vectors). */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}
