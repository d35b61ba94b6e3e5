/**
 * Ranking helpers of the search modes (docs/analyses.md "Vectors and search"): fuzzy text
 * similarity (character trigrams and per-word edit distance) and reciprocal rank fusion.
 * Pure; shared by the query role and the evaluation.
 */

/** RRF constant: 60, the value of the original paper, which damps the head of each list. */
export const RRF_K = 60;

/**
 * Reciprocal rank fusion of ranked lists of ids: score(id) = Σ 1 / (RRF_K + rank), rank from 1.
 * Ids found in more lists, and higher, come first; ties keep the order of first appearance.
 */
export function reciprocalRankFusion(lists: ReadonlyArray<readonly string[]>, k = RRF_K): Array<{ id: string; score: number }> {
  const scores = new Map<string, number>();
  for (const list of lists) list.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + i + 1)));
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}

const WORDS = /[\p{L}\p{N}]+/gu;
const wordsOf = (s: string) => (s.toLowerCase().match(WORDS) ?? []).filter((w) => w.length >= 2);

/** Levenshtein distance with an early exit once it exceeds `max` (returns max + 1 then). */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

/** Similarity of two words: 1 for equal, a prefix counts fully from 4 characters, else 1 − edits/length. */
function wordSimilarity(q: string, w: string): number {
  if (q === w) return 1;
  if (q.length >= 4 && w.startsWith(q)) return 0.95;
  // one edit per four characters at most: "reservaton" matches "reservation", "cat" does not match "car"
  const allowed = Math.floor(Math.max(q.length, w.length) / 4);
  if (allowed === 0) return 0;
  const d = editDistance(q, w, allowed);
  return d > allowed ? 0 : 1 - d / Math.max(q.length, w.length);
}

function trigrams(s: string): Set<string> {
  const out = new Set<string>();
  for (const w of wordsOf(s)) {
    const p = `  ${w} `;
    for (let i = 0; i + 3 <= p.length; i++) out.add(p.slice(i, i + 3));
  }
  return out;
}

/**
 * Fuzzy similarity of a query to a text, 0–1: the larger of (a) the mean over the query's words of
 * their best word match in the text (edit distance, prefixes) and (b) the share of the query's
 * character trigrams found in the text. Both read the query's side only, so a long text is not
 * punished for saying more.
 */
export function fuzzySimilarity(query: string, text: string): number {
  const qw = wordsOf(query);
  if (qw.length === 0 || text === '') return 0;
  const tw = [...new Set(wordsOf(text))];
  let sum = 0;
  for (const q of qw) {
    let best = 0;
    for (const w of tw) {
      const s = wordSimilarity(q, w);
      if (s > best) best = s;
      if (best === 1) break;
    }
    sum += best;
  }
  const byWords = sum / qw.length;
  const qt = trigrams(query);
  const tt = trigrams(text);
  let shared = 0;
  for (const t of qt) if (tt.has(t)) shared++;
  const byGrams = qt.size ? shared / qt.size : 0;
  return Math.max(byWords, byGrams * 0.9);
}
