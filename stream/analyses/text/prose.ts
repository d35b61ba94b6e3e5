/**
 * Prose-level text utilities shared by the text analyses: masking code, quotations and pasted
 * logs (so patterns match what a speaker says, not what they quote), splitting sentences with
 * their offsets (so quotes stay verbatim substrings), and cutting text at word boundaries.
 * Masking replaces characters with spaces and keeps every offset, so a match in the masked text
 * is a match at the same place in the original.
 */

/** Fenced code blocks (``` or ~~~), closed or running to the end of the text. */
const FENCE = /(```|~~~)[^\n]*\n[\s\S]*?(?:\1|$)/g;
/** Inline code spans. */
const INLINE_CODE = /`[^`\n]+`/g;
/** Double-quoted and typographic-quoted spans on one line (single quotes are too often apostrophes). */
const QUOTED = /"[^"\n]{1,400}"|“[^”\n]{1,400}”/g;
/** Markdown block quotes and e-mail style quoted lines. */
const QUOTE_LINE = /^[ \t]*>[^\n]*$/gm;

const blank = (s: string) => s.replace(/[^\n]/g, ' ');

/** The text with fenced and inline code replaced by spaces (offsets kept). */
export function maskCode(text: string): string {
  if (!text.includes('`') && !text.includes('~~~')) return text;
  return text.replace(FENCE, blank).replace(INLINE_CODE, blank);
}

/**
 * A small bounded memo for per-text results: several analyses of one conversation mask and split
 * the same messages, one after the other in the same worker.
 */
function memo<T>(fn: (text: string) => T, max = 4000): (text: string) => T {
  const cache = new Map<string, T>();
  return (text: string) => {
    let v = cache.get(text);
    if (v === undefined) {
      if (cache.size >= max) cache.clear();
      cache.set(text, (v = fn(text)));
    }
    return v;
  };
}

/** The text with code, quoted spans and quoted lines replaced by spaces (offsets kept). */
export const maskQuoted = memo(maskQuotedOnce);

function maskQuotedOnce(text: string): string {
  let out = maskCode(text);
  if (out.includes('"') || out.includes('“')) out = out.replace(QUOTED, blank);
  if (out.includes('>')) out = out.replace(QUOTE_LINE, blank);
  return out;
}

/** Code blocks of a text: fenced blocks' bodies with their offsets. */
export function codeBlocks(text: string): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  if (!text.includes('```') && !text.includes('~~~')) return out;
  for (const m of text.matchAll(FENCE)) out.push({ start: m.index!, end: m.index! + m[0].length });
  return out;
}

export interface Span {
  start: number;
  /** Exclusive. */
  end: number;
}

/**
 * Sentence spans of a text: split after `.`, `!`, `?` (followed by space or end) and at line
 * breaks, so list items and headings are their own sentences. Decimal points and abbreviations
 * like "e.g." do not split. Leading list markers and whitespace are excluded from the span.
 */
export const sentenceSpans: (text: string) => readonly Span[] = memo(sentenceSpansOnce);

function sentenceSpansOnce(text: string): Span[] {
  const out: Span[] = [];
  const n = text.length;
  let start = 0;
  const push = (end: number) => {
    let s = start;
    let e = end;
    while (s < e && isLeadUnit(text.charCodeAt(s))) s++;
    // numbered list markers ("1. ", "2) ") within the next 5 characters
    s += listMarkerLength(text, s, Math.min(e, s + 5));
    while (e > s && isSpaceUnit(text.charCodeAt(e - 1))) e--;
    if (e > s) out.push({ start: s, end: e });
  };
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      push(i);
      start = i + 1;
    } else if ((c === 46 || c === 33 || c === 63) && (i + 1 === n || isSpaceUnit(text.charCodeAt(i + 1)))) {
      // not after a single letter ("e.g.", "i.e.") or a digit-dot list marker at line start
      if (c === 46 && (singleLetterBefore(text, Math.max(start, i - 3), i) || onlyListNumber(text, start, i))) continue;
      push(i + 1);
      start = i + 1;
    }
  }
  push(n);
  return out;
}

/** A UTF-16 unit matched by `\s`. */
function isSpaceUnit(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** Whitespace, quote marks and list bullets before a sentence: `[\s>*\-•#|]`. */
const isLeadUnit = (c: number) => isSpaceUnit(c) || c === 62 || c === 42 || c === 45 || c === 0x2022 || c === 35 || c === 124;

const isDigitUnit = (c: number) => c >= 48 && c <= 57;

/** Length of `^\d{1,2}[.)]\s+` at `s` within [s, w), 0 when there is none. */
function listMarkerLength(text: string, s: number, w: number): number {
  let j = s;
  while (j < w && j - s < 2 && isDigitUnit(text.charCodeAt(j))) j++;
  if (j === s || j >= w) return 0;
  const p = text.charCodeAt(j);
  if (p !== 46 && p !== 41) return 0;
  j++;
  const spaces = j;
  while (j < w && isSpaceUnit(text.charCodeAt(j))) j++;
  return j === spaces ? 0 : j - s;
}

/** `(^|[\s.])[a-zA-Z]$` on text[from, i). */
function singleLetterBefore(text: string, from: number, i: number): boolean {
  if (i <= from) return false;
  const c = text.charCodeAt(i - 1);
  if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90))) return false;
  if (i - 1 === from) return true;
  const b = text.charCodeAt(i - 2);
  return b === 46 || isSpaceUnit(b);
}

/** `^\s*\d{1,2}$` on text[start, i). */
function onlyListNumber(text: string, start: number, i: number): boolean {
  let j = start;
  while (j < i && isSpaceUnit(text.charCodeAt(j))) j++;
  const d = i - j;
  if (d < 1 || d > 2) return false;
  for (let k = j; k < i; k++) if (!isDigitUnit(text.charCodeAt(k))) return false;
  return true;
}

/**
 * `s.slice(start, end)` without cutting a surrogate pair (an emoji, an astral letter) in half: an
 * end inside a pair moves before it, a start inside one after it. The store refuses half a pair.
 */
export function sliceText(s: string, start: number, end = s.length): string {
  const from = start > 0 && start < s.length && isLowSurrogate(s.charCodeAt(start)) && isHighSurrogate(s.charCodeAt(start - 1)) ? start + 1 : start;
  const to = end > 0 && end < s.length && isHighSurrogate(s.charCodeAt(end - 1)) && isLowSurrogate(s.charCodeAt(end)) ? end - 1 : end;
  return s.slice(from, Math.max(from, to));
}

/** At most `max` UTF-16 units, never ending in half of a surrogate pair. */
export const capText = (s: string, max: number): string => (s.length <= max ? s : sliceText(s, 0, max));

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * Cuts a text to at most `max` characters at a word boundary, adding "…" when it was cut.
 * Whitespace is collapsed first. Never between the halves of a surrogate pair (an emoji, an
 * astral letter): the store refuses half of one.
 */
export function cutAtWord(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  if (max <= 1) return '';
  // the last word boundary that leaves room for the ellipsis; never inside a word
  let cut = max - 1;
  while (cut > 0 && isWordChar(t[cut - 1]!) && isWordChar(t[cut]!)) cut--;
  const head = sliceText(t, 0, cut).replace(/[\s,;:.\-–—(]+$/, '');
  return head ? head + '…' : '';
}

const isWordChar = (c: string) => /[\p{L}\p{N}_'’]/u.test(c);
