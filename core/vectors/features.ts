/**
 * The features of a text for TF-IDF vectors (docs/analyses.md "Vectors and search"): lower-cased
 * word tokens without stopwords (stopwords.ts), adjacent pairs of them, and character 4-grams inside them (padded with a space at
 * both ends, so "cancel" gives " can", "canc", "ance", "ncel", "cel "). Character grams make
 * "cancellation", "cancelled" and "cancel" share most of their features without a stemmer and
 * survive typos; words and pairs keep the exact terms. Each feature is a 32-bit FNV-1a hash of its
 * kind and text, so a vocabulary is a set of integers (a collision of two features among the tens
 * of thousands kept is rare and only merges their weights).
 *
 * Shared by the stream role (building and assigning) and the query role (embedding a query): the
 * same text must give the same features on both sides.
 */

import { VECTOR_STOPWORDS } from './stopwords.js';

/** Feature blocks: words and word pairs, character grams. Weighted separately (model.ts). */
export const WORD_BLOCK = 0;
export const CHAR_BLOCK = 1;

const WORD = /[\p{L}\p{N}_]+(?:'[\p{L}]+)*/gu;
const CHAR_GRAM = 4;
/** Words longer than this are ids, hashes or paths: one word feature, no grams. */
const MAX_GRAM_WORD = 24;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over the UTF-16 code units of `s`, continuing from `h`. */
function fnv(h: number, s: string, from = 0, to = s.length): number {
  for (let i = from; i < to; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}

const WORD_SEED = fnv(FNV_OFFSET, 'w\u0000');
const PAIR_SEED = fnv(FNV_OFFSET, 'b\u0000');
const CHAR_SEED = fnv(FNV_OFFSET, 'c\u0000');

/** Hash of a word feature (exported for tests and for reading a model's terms). */
export const wordFeature = (w: string): number => fnv(WORD_SEED, w);

/** Term counts of a text, per block: feature hash → count. */
export interface TermCounts {
  words: Map<number, number>;
  chars: Map<number, number>;
}

const bump = (m: Map<number, number>, k: number) => m.set(k, (m.get(k) ?? 0) + 1);

/** Lower-cased word tokens with apostrophes kept inside words ("don't"), stopwords left out. */
export function featureWords(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().replace(/’/g, "'").matchAll(WORD)) {
    const w = m[0];
    // single characters and bare one- or two-digit numbers carry no topic
    if (w.length < 2 || /^\d{1,2}$/.test(w) || VECTOR_STOPWORDS.has(w)) continue;
    out.push(w);
  }
  return out;
}

/**
 * Counts the features of `text` (at most `maxChars` characters of it are read: long segments are
 * dominated by their first requests, and the cap bounds the cost per segment).
 */
export function termCounts(text: string, maxChars = 2000): TermCounts {
  const words = new Map<number, number>();
  const chars = new Map<number, number>();
  const tokens = featureWords(text.length > maxChars ? text.slice(0, maxChars) : text);
  let previous = '';
  for (const w of tokens) {
    bump(words, fnv(WORD_SEED, w));
    if (previous) bump(words, fnv(fnv(PAIR_SEED, previous), ' ' + w));
    previous = w;
    if (w.length > MAX_GRAM_WORD) continue;
    const padded = ' ' + w + ' ';
    for (let i = 0; i + CHAR_GRAM <= padded.length; i++) bump(chars, fnv(CHAR_SEED, padded, i, i + CHAR_GRAM));
  }
  return { words, chars };
}
