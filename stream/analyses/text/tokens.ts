/**
 * Word-level text utilities shared by the text analyses (segments, summary, laziness,
 * hallucinations): tokenizing, stopwords, a light stemmer and content-word extraction. Pure and
 * allocation-light, because they run on every message of every analyzed conversation.
 */

/** Function words and conversational filler that say nothing about a topic (English). */
const STOPWORD_LIST = `a about above after again against all almost also although always am an and another any anyone anything
are aren't around as at be because been before being below between both but by can can't cannot could couldn't
did didn't do does doesn't doing don't done down during each either else enough etc even ever every
few for from further get gets getting go goes going gone got had hadn't has hasn't have haven't having he her here
hers herself him himself his how however i i'd i'll i'm i've if in into is isn't it it's its itself just
kind let let's like made make makes many may maybe me might mine more most much must my myself need needs
no nor not now of off often ok okay on once one only or other others our ours ourselves out over own
please quite rather really right said same say says see seem seems shall she should shouldn't since so some
something sometimes still such sure take than thank thanks that that's the their theirs them themselves then
there there's these they they're thing things think this those though through thus to too try under until
up upon us use used using very want wanted wants was wasn't way we we'd we'll we're we've well were weren't what
what's when where whether which while who whom whose why will with within without won't would wouldn't yeah yes
yet you you'd you'll you're you've your yours yourself yourselves hi hello hey dear great good nice sorry
able via per lot lots bit already actually just also anyway instead`;

export const STOPWORDS: ReadonlySet<string> = new Set(STOPWORD_LIST.split(/\s+/).filter(Boolean));

/**
 * Letters, digits, underscore; apostrophes inside words kept ("don't"). Non-ASCII letters are
 * taken by code point range (faster than Unicode property classes on this hot path).
 */
const WORD = /[A-Za-z0-9_\u00C0-\u024F\u0370-\u03FF\u0400-\u04FF\u0590-\u06FF\u0900-\u0DFF\u3040-\u30FF\u3400-\u9FFF\uAC00-\uD7AF]+(?:['’][A-Za-z\u00C0-\u024F]+)*/g;

/** Lower-cased word tokens of a text, in order. */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(WORD)) out.push(m[0].toLowerCase().replace(/’/g, "'"));
  return out;
}

/** Word tokens with their offsets in the original text. */
export function wordSpans(text: string): Array<{ word: string; start: number; end: number }> {
  const out: Array<{ word: string; start: number; end: number }> = [];
  for (const m of text.matchAll(WORD)) out.push({ word: m[0].toLowerCase().replace(/’/g, "'"), start: m.index!, end: m.index! + m[0].length });
  return out;
}

/**
 * A light suffix stripper (a few English inflections), enough to match "cancelled" with
 * "cancel", "bookings" with "booking" and "tests" with "test" without a dictionary.
 */
const stems = new Map<string, string>();
/** Memoized: the same words recur across messages; bounded so memory stays flat. */
export function stem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    if (stems.size > 50_000) stems.clear();
    stems.set(word, (s = stemWord(word)));
  }
  return s;
}

function stemWord(word: string): string {
  let w = word;
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith("'s")) w = w.slice(0, -2);
  if (w.endsWith('ies') && w.length > 4) return w.slice(0, -3) + 'y';
  if (w.endsWith('sses')) return w.slice(0, -2);
  for (const suffix of ['ingly', 'edly', 'ing', 'ed']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) {
      w = w.slice(0, -suffix.length);
      // "stopped" → "stopp" → "stop"; "cancelled" → "cancell" → "cancel" (British doubling
      // after e); "installed" keeps its "ll"
      if (/([b-df-hj-km-np-rtv-z])\1$/.test(w) || /ell$/.test(w)) w = w.slice(0, -1);
      return w;
    }
  }
  if (w.endsWith('es') && /(ch|sh|x|ss|zz)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) return w.slice(0, -1);
  return w;
}

/** Words that carry topic: not a stopword, at least 3 characters or containing a digit. */
export function isContentWord(w: string): boolean {
  return !STOPWORDS.has(w) && (w.length >= 3 || /\d/.test(w)) && !/^\d{1,2}$/.test(w);
}

/** Stemmed content words of a text, in order (duplicates kept). */
export function contentTerms(text: string, maxWords = Infinity): string[] {
  const out: string[] = [];
  let seen = 0;
  const n = text.length;
  let i = 0;
  // the tokens of WORD, found by character class instead of the regular expression (same tokens)
  while (i < n) {
    if (!isWordUnit(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    // the token's hash over its UTF-16 units, computed while scanning (see `termAt`)
    let h = 0;
    let digit = false;
    let c = text.charCodeAt(i);
    while (i < n && isWordUnit((c = text.charCodeAt(i)))) {
      h = Math.imul(h ^ c, 0x01000193);
      if (c >= 48 && c <= 57) digit = true;
      i++;
    }
    // apostrophe tails: "don't", "people’s"
    while (i + 1 < n && ((c = text.charCodeAt(i)) === 39 || c === 0x2019) && isTailUnit(text.charCodeAt(i + 1))) {
      h = Math.imul(h ^ c, 0x01000193);
      i++;
      while (i < n && isTailUnit((c = text.charCodeAt(i)))) {
        h = Math.imul(h ^ c, 0x01000193);
        i++;
      }
    }
    if (seen++ >= maxWords) break;
    // short tokens without a digit are never content words (see `termOnce`)
    if (i - start < 3 && !digit) continue;
    const t = termAt(text, start, i, h);
    if (t !== '') out.push(t);
  }
  return out;
}

/** A UTF-16 unit of WORD's main class. */
function isWordUnit(c: number): boolean {
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
  return (
    (c >= 0x00c0 && c <= 0x024f) ||
    (c >= 0x0370 && c <= 0x03ff) ||
    (c >= 0x0400 && c <= 0x04ff) ||
    (c >= 0x0590 && c <= 0x06ff) ||
    (c >= 0x0900 && c <= 0x0dff) ||
    (c >= 0x3040 && c <= 0x30ff) ||
    (c >= 0x3400 && c <= 0x9fff) ||
    (c >= 0xac00 && c <= 0xd7af)
  );
}

/** A UTF-16 unit of WORD's apostrophe tail class ([A-Za-z\u00C0-\u024F]). */
const isTailUnit = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 0x00c0 && c <= 0x024f);

/**
 * Token as matched → its stemmed content term ('' when it is not a content word), memoized like
 * `stem`: a conversation repeats its words, so most tokens are a lookup. The memo is an
 * open-addressing table keyed by the token's characters in place, so a known token costs neither
 * a substring nor a string hash. Bounded: cleared when half full, so memory stays flat.
 */
const TABLE_BITS = 16;
const TABLE_MASK = (1 << TABLE_BITS) - 1;
const rawTokens: Array<string | undefined> = new Array<string | undefined>(1 << TABLE_BITS).fill(undefined);
const tokenTerms: string[] = new Array<string>(1 << TABLE_BITS).fill('');
let tableFill = 0;

function termAt(text: string, start: number, end: number, hash: number): string {
  const len = end - start;
  let slot = (hash ^ (hash >>> TABLE_BITS)) & TABLE_MASK;
  for (;;) {
    const raw = rawTokens[slot];
    if (raw === undefined) break;
    if (raw.length === len) {
      let k = 0;
      while (k < len && raw.charCodeAt(k) === text.charCodeAt(start + k)) k++;
      if (k === len) return tokenTerms[slot]!;
    }
    slot = (slot + 1) & TABLE_MASK;
  }
  if (tableFill >= 1 << (TABLE_BITS - 1)) {
    rawTokens.fill(undefined);
    tableFill = 0;
    return termAt(text, start, end, hash);
  }
  const raw = text.slice(start, end);
  const t = termOnce(raw);
  rawTokens[slot] = raw;
  tokenTerms[slot] = t;
  tableFill++;
  return t;
}

function termOnce(raw: string): string {
  if (raw.length < 3 && !/\d/.test(raw)) return '';
  const w = raw.toLowerCase();
  const n = w.includes('’') ? w.replace(/’/g, "'") : w;
  return isContentWord(n) ? stem(n) : '';
}

/** Content terms plus bigrams of adjacent content terms ("book flight"), as a set. */
export function termSet(text: string, maxWords = Infinity): Set<string> {
  const terms = contentTerms(text, maxWords);
  const set = new Set<string>(terms);
  for (let i = 1; i < terms.length; i++) set.add(`${terms[i - 1]} ${terms[i]}`);
  return set;
}

/** Collapses runs of whitespace to one space and trims. */
export const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();
