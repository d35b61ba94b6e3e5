/**
 * Template matching and batch clustering in the manner of Drain (He et al., ICWS 2017): templates
 * are found through a fixed-depth tree keyed by family, leading token and token count; a statement
 * joins the most similar template of its leaf when the share of equal positions reaches the
 * threshold, and differing positions become wildcards. Drain only compares statements of equal
 * length; a second pass here merges templates of different lengths that share their leading token
 * when their longest common subsequence covers the threshold share of the longer one (a word or
 * a quoted phrase more or less must not split a cause in two).
 */
import { isCode, isPlaceholder, WILDCARD } from './masking.js';

/**
 * Weight of a position where two token lists agree: a word 1, a placeholder ½ (two statements
 * that share only "<Q>" and "<PATH>" share little), a wildcard 0 (Drain: a template's parameters
 * do not count towards similarity, so a template that generalized a lot stops attracting more).
 */
function weight(a: string, b: string): number {
  if (a !== b || a === WILDCARD) return 0;
  return isPlaceholder(a) ? 0.5 : 1;
}

/** Heaviest common subsequence of two token lists (statements are capped, so lists are short). */
function commonWeight(a: readonly string[], b: readonly string[]): number {
  const prev = new Array<number>(b.length + 1).fill(0);
  const cur = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const w = weight(a[i - 1]!, b[j - 1]!);
      cur[j] = Math.max(w > 0 ? prev[j - 1]! + w : 0, prev[j]!, cur[j - 1]!);
    }
    for (let j = 0; j <= b.length; j++) prev[j] = cur[j]!;
  }
  return prev[b.length]!;
}

/**
 * Similarity of two token lists in [0, 1]: the weight of equal positions over the length when the
 * lengths are equal (Drain's simSeq), else the heaviest common subsequence over the longer length.
 */
export function similarity(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return a.length === b.length ? 1 : 0;
  if (codesDiffer(a, b)) return 0;
  // short statements that differ share too little to be one cause on a single word ("invalid date"
  // vs "invalid token"): two agreeing words at least
  const needed = Math.min(2, a.length, b.length);
  if (a.length === b.length) {
    let same = 0;
    let words = 0;
    for (let i = 0; i < a.length; i++) {
      const w = weight(a[i]!, b[i]!);
      same += w;
      if (w === 1) words++;
    }
    return words >= needed || same === a.length ? same / a.length : 0;
  }
  const common = commonWeight(a, b);
  return common >= needed ? common / Math.max(a.length, b.length) : 0;
}

/** Both name a cause by code and the codes are not the same. */
function codesDiffer(a: readonly string[], b: readonly string[]): boolean {
  const ca = a.filter(isCode);
  if (ca.length === 0) return false;
  const cb = b.filter(isCode);
  return cb.length > 0 && ca.join(' ') !== cb.join(' ');
}

/** The leading-token gate of the tree: statements that start differently never share a template. */
export const gateOf = (keys: readonly string[]): string => keys[0] ?? '';
export const sameGate = (a: readonly string[], b: readonly string[]) => gateOf(a) === gateOf(b) || gateOf(a) === WILDCARD || gateOf(b) === WILDCARD;

/** A template of equal length with wildcards where the two disagree. */
export function generalize(template: readonly string[], keys: readonly string[], display: readonly string[]): { keys: string[]; display: string[] } {
  const k: string[] = [];
  const d: string[] = [];
  template.forEach((t, i) => {
    const same = t === keys[i];
    k.push(same ? t : WILDCARD);
    d.push(same ? display[i]! : WILDCARD);
  });
  return { keys: k, display: d };
}

/** A distinct statement of a batch, with how many failures share it. */
export interface BatchItem {
  family: string;
  /** Lower-cased tokens (what compares). */
  keys: string[];
  /** Tokens as written (what a label shows). */
  display: string[];
  count: number;
  /** Tool of the first failure with this statement. */
  tool: string;
}

export interface Cluster {
  family: string;
  keys: string[];
  display: string[];
  count: number;
  members: BatchItem[];
}

const byWeight = (a: { count: number; keys: string[] }, b: { count: number; keys: string[] }) =>
  b.count - a.count || (a.keys.join(' ') < b.keys.join(' ') ? -1 : a.keys.join(' ') > b.keys.join(' ') ? 1 : 0);

/**
 * Two-pass clustering of a batch, independent of the order the failures came in: items are
 * visited by weight (most frequent statement first, ties by text), pass 1 is Drain within
 * equal-length leaves, pass 2 merges clusters across lengths.
 */
export function clusterBatch(items: readonly BatchItem[], threshold: number): Cluster[] {
  const sorted = [...items].sort(byWeight);
  const leaves = new Map<string, Cluster[]>();
  const clusters: Cluster[] = [];
  for (const it of sorted) {
    const leafKey = `${it.family}\u0000${it.keys.length}\u0000${gateOf(it.keys)}`;
    const leaf = leaves.get(leafKey) ?? [];
    let best: Cluster | undefined;
    let bestSim = -1;
    for (const c of leaf) {
      const s = similarity(c.keys, it.keys);
      if (s > bestSim) [best, bestSim] = [c, s];
    }
    if (best && bestSim >= threshold) {
      const g = generalize(best.keys, it.keys, best.display);
      best.keys = g.keys;
      best.display = g.display;
      best.count += it.count;
      best.members.push(it);
      continue;
    }
    const c: Cluster = { family: it.family, keys: [...it.keys], display: [...it.display], count: it.count, members: [it] };
    leaf.push(c);
    leaves.set(leafKey, leaf);
    clusters.push(c);
  }
  // pass 2: the heaviest cluster absorbs lighter ones of its family and gate
  clusters.sort(byWeight);
  const kept: Cluster[] = [];
  for (const c of clusters) {
    const into = kept.find((k) => k.family === c.family && sameGate(k.keys, c.keys) && similarity(k.keys, c.keys) >= threshold);
    if (into) {
      into.count += c.count;
      into.members.push(...c.members);
    } else kept.push(c);
  }
  return kept;
}
