/**
 * Fitting a tenant's text model (core/vectors/model.ts) on its segment texts: vocabulary and idf
 * from a deterministic sample of at most MAX_FIT_DOCS texts, then the LSA projection by randomized
 * SVD of the sample's TF-IDF matrix. Every segment is then embedded with the model (one sparse
 * vector at a time), so memory is bounded by the sample, not by the corpus.
 */
import { createHash } from 'node:crypto';
import { CHAR_BLOCK, termCounts, WORD_BLOCK } from '../../../core/vectors/features.js';
import { featureIndex, project, tfidf, type TextModel } from '../../../core/vectors/model.js';
import { randomizedSvd, type Csr } from './svd.js';

/** Dimensions of the LSA space (fewer when the sample has fewer texts or features). */
export const MAX_DIMS = 96;
/** Texts the model is fitted on at most (a deterministic sample beyond). */
export const MAX_FIT_DOCS = 10_000;
/** Features kept at most, by document frequency. */
export const MAX_FEATURES = 40_000;
/** A feature in more than this share of the texts says nothing about any of them. */
export const MAX_DF_SHARE = 0.5;

export interface FitDoc {
  id: string;
  text: string;
}

const rank = (id: string) => createHash('sha1').update(id).digest().readUInt32BE(0);

/** The texts the model is fitted on: all of them, or the MAX_FIT_DOCS with the smallest id hash. */
export function fitSample(docs: readonly FitDoc[], max = MAX_FIT_DOCS): FitDoc[] {
  if (docs.length <= max) return [...docs];
  return docs
    .map((d) => ({ d, r: rank(d.id) }))
    .sort((a, b) => a.r - b.r || (a.d.id < b.d.id ? -1 : 1))
    .slice(0, max)
    .map((x) => x.d);
}

/** Vocabulary of the sample: features by document frequency, with their block. */
function vocabulary(sample: readonly FitDoc[]): { features: Uint32Array; blocks: Uint8Array; idf: Float32Array } {
  const df = new Map<number, number>();
  const block = new Map<number, number>();
  for (const d of sample) {
    const c = termCounts(d.text);
    for (const h of c.words.keys()) {
      df.set(h, (df.get(h) ?? 0) + 1);
      block.set(h, WORD_BLOCK);
    }
    for (const h of c.chars.keys()) {
      df.set(h, (df.get(h) ?? 0) + 1);
      block.set(h, CHAR_BLOCK);
    }
  }
  const n = sample.length;
  // a feature seen once cannot relate two texts; tiny corpora keep everything
  const minDf = n >= 10 ? 2 : 1;
  const maxDf = n >= 20 ? Math.floor(MAX_DF_SHARE * n) : n;
  const kept = [...df].filter(([, f]) => f >= minDf && f <= maxDf).sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, MAX_FEATURES);
  kept.sort((a, b) => a[0] - b[0]);
  return {
    features: Uint32Array.from(kept, ([h]) => h),
    blocks: Uint8Array.from(kept, ([h]) => block.get(h)!),
    idf: Float32Array.from(kept, ([, f]) => Math.log((1 + n) / (1 + f)) + 1),
  };
}

/** The sample's TF-IDF matrix over the vocabulary. */
function matrix(sample: readonly FitDoc[], lookup: (h: number) => number, idf: Float32Array, cols: number): Csr {
  const indptr = new Int32Array(sample.length + 1);
  const parts: Array<{ rows: Int32Array; values: Float32Array } | null> = [];
  let nnz = 0;
  sample.forEach((d, i) => {
    const x = tfidf(termCounts(d.text), lookup, idf);
    parts.push(x);
    nnz += x ? x.rows.length : 0;
    indptr[i + 1] = nnz;
  });
  const indices = new Int32Array(nnz);
  const values = new Float32Array(nnz);
  parts.forEach((x, i) => {
    if (!x) return;
    indices.set(x.rows, indptr[i]!);
    values.set(x.values, indptr[i]!);
  });
  return { rows: sample.length, cols, indptr, indices, values };
}

/** Fits the model on (a sample of) the texts. Deterministic for the same texts and ids. */
export function fitTextModel(docs: readonly FitDoc[], opts: { maxDims?: number; seed?: number } = {}): TextModel {
  const sample = fitSample(docs);
  const vocab = vocabulary(sample);
  const ix = new Map<number, number>();
  vocab.features.forEach((h, i) => ix.set(h, i));
  const x = matrix(sample, (h) => ix.get(h) ?? -1, vocab.idf, vocab.features.length);
  const k = Math.max(1, Math.min(opts.maxDims ?? MAX_DIMS, sample.length - 1, vocab.features.length - 1));
  const svd = randomizedSvd(x, k, { seed: opts.seed ?? 7 });
  return { dims: svd.k, features: vocab.features, blocks: vocab.blocks, idf: vocab.idf, components: svd.components };
}

/**
 * Unit vectors of every text (n × dims, row-major) and which texts have one (a text with no known
 * feature has none and stays all zeros).
 */
export function embedAll(model: TextModel, texts: readonly string[]): { vectors: Float32Array; ok: Uint8Array } {
  const k = model.dims;
  const ix = featureIndex(model);
  const lookup = (h: number) => ix.get(h) ?? -1;
  const vectors = new Float32Array(texts.length * k);
  const ok = new Uint8Array(texts.length);
  texts.forEach((t, i) => {
    const x = tfidf(termCounts(t), lookup, model.idf);
    if (x && project(model, x, vectors.subarray(i * k, (i + 1) * k))) ok[i] = 1;
  });
  return { vectors, ok };
}
