/**
 * Readable names for taxonomy nodes, drawn from their members: the label is the members' most
 * representative verb–object phrase ("Change flight reservation"), the keywords their most
 * distinctive words (class-based TF-IDF: share of members using a word × its rarity in the corpus),
 * the summary a sentence built from both plus the most central member's request.
 */
import { cutAtWord, sentenceSpans } from '../text/prose.js';
import { contentWords, verbObjectPhrases } from './phrases.js';

export interface LabelMember {
  goal: string;
  /** Similarity to the node centroid: central members weigh more. */
  weight: number;
}

/** Per-corpus counts the labels compare a node's members with. */
export interface CorpusStats {
  segments: number;
  /** Segments using each phrase key / word stem. */
  phraseDf: Map<string, number>;
  wordDf: Map<string, number>;
}

interface MemberTerms {
  phrases: Map<string, string>;
  words: Map<string, string>;
}

export function memberTerms(goal: string): MemberTerms {
  const phrases = new Map<string, string>();
  for (const p of verbObjectPhrases(goal)) if (!phrases.has(p.key)) phrases.set(p.key, p.surface);
  const words = new Map<string, string>();
  for (const w of contentWords(goal)) if (!words.has(w.stem)) words.set(w.stem, w.surface);
  return { phrases, words };
}

export function corpusStats(terms: readonly MemberTerms[]): CorpusStats {
  const phraseDf = new Map<string, number>();
  const wordDf = new Map<string, number>();
  for (const t of terms) {
    for (const k of t.phrases.keys()) phraseDf.set(k, (phraseDf.get(k) ?? 0) + 1);
    for (const k of t.words.keys()) wordDf.set(k, (wordDf.get(k) ?? 0) + 1);
  }
  return { segments: terms.length, phraseDf, wordDf };
}

/** Weighted coverage of each key among members, and its most frequent surface form. */
function tally(members: ReadonlyArray<{ terms: MemberTerms; weight: number }>, pick: (t: MemberTerms) => Map<string, string>) {
  const cover = new Map<string, number>();
  /** Members using the key (unweighted). */
  const users = new Map<string, number>();
  const surfaces = new Map<string, Map<string, number>>();
  let total = 0;
  for (const m of members) {
    total += m.weight;
    for (const [key, surface] of pick(m.terms)) {
      cover.set(key, (cover.get(key) ?? 0) + m.weight);
      users.set(key, (users.get(key) ?? 0) + 1);
      const s = surfaces.get(key) ?? new Map<string, number>();
      s.set(surface, (s.get(surface) ?? 0) + 1);
      surfaces.set(key, s);
    }
  }
  const surfaceOf = (key: string) => [...surfaces.get(key)!].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
  return { cover, users, total, surfaceOf };
}

/** Verbs that say little on their own ("make changes", "get help"): a phrase with one scores less. */
const LIGHT_VERBS = new Set(['make', 'get', 'do', 'have', 'use', 'find', 'know', 'check', 'double', 'see', 'help', 'take', 'give', 'go', 'tell', 'look']);

const capitalize = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/**
 * The label: the phrase with the best coverage × specificity (share of its corpus uses inside the
 * node), a longer phrase preferred when it keeps most of its prefix's coverage. Without a phrase
 * used by a quarter of the members, the most central member's first sentence names the node
 * (a quotation reads better than a list of words).
 */
export function chooseLabel(members: ReadonlyArray<{ terms: MemberTerms; weight: number }>, corpus: CorpusStats, centralGoal: string, opts: { broad?: boolean } = {}): string {
  const { cover, users, total, surfaceOf } = tally(members, (t) => t.phrases);
  // a category is broad: a phrase used by a tenth of its members names it, and short phrases win
  const minShare = opts.broad ? 0.1 : 0.25;
  let best: { key: string; score: number } | undefined;
  for (const [key, c] of cover) {
    const share = c / total;
    if (share < minShare && !(members.length <= 3 && c > 0)) continue;
    if (opts.broad && key.split(' ').length > 3) continue;
    const inside = users.get(key)!;
    const specificity = inside / Math.max(inside, corpus.phraseDf.get(key) ?? inside);
    const words = key.split(' ').length;
    // a longer phrase wins over its prefix only when it keeps most of the prefix's members
    const prefix = key.split(' ').slice(0, -1).join(' ');
    const kept = words > 2 && cover.has(prefix) ? c / cover.get(prefix)! : 1;
    const light = LIGHT_VERBS.has(key.split(' ')[0]!) ? 0.7 : 1;
    const score = share * (0.5 + 0.5 * specificity) * light * (words > 2 ? (kept >= 0.7 ? 1.05 : 0.6) : 1);
    if (!best || score > best.score + 1e-9 || (Math.abs(score - best.score) <= 1e-9 && key < best.key)) best = { key, score };
  }
  if (best) return capitalize(surfaceOf(best.key));
  // the first sentence that says something (greetings and thanks are short)
  const sentences = sentenceSpans(centralGoal).map((sp) => centralGoal.slice(sp.start, sp.end));
  const sentence = sentences.find((x) => x.split(/\s+/).length >= 4) ?? sentences[0] ?? '';
  return sentence ? capitalize(cutAtWord(sentence, 48)) : 'Other requests';
}

/** The node's most distinctive words (at most `n`). */
export function chooseKeywords(members: ReadonlyArray<{ terms: MemberTerms; weight: number }>, corpus: CorpusStats, n = 6): string[] {
  const { cover, total, surfaceOf } = tally(members, (t) => t.words);
  return [...cover]
    .filter(([, c]) => c / total >= 0.1 || members.length <= 3)
    .map(([key, c]) => ({ key, score: (c / total) * Math.log(1 + corpus.segments / (corpus.wordDf.get(key) ?? 1)) }))
    .sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : 1))
    .slice(0, n)
    .map((x) => surfaceOf(x.key));
}

/** A one-paragraph summary: size, label, keywords, and the most central member's request. */
export function summarize(label: string, keywords: readonly string[], size: number, centralGoal: string): string {
  const about = keywords.length ? ` about ${keywords.slice(0, 3).join(', ')}` : '';
  const example = centralGoal ? ` Typical request: "${cutAtWord(centralGoal, 160)}"` : '';
  return `${size} segment${size === 1 ? '' : 's'}: ${label.toLowerCase()}${about}.${example}`;
}
