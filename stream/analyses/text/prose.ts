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
  let start = 0;
  const push = (end: number) => {
    let s = start;
    let e = end;
    while (s < e && /[\s>*\-•#|]/.test(text[s]!)) s++;
    // numbered list markers ("1. ", "2) ")
    const marker = /^\d{1,2}[.)]\s+/.exec(text.slice(s, Math.min(e, s + 5)));
    if (marker) s += marker[0].length;
    while (e > s && /\s/.test(text[e - 1]!)) e--;
    if (e > s) out.push({ start: s, end: e });
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n') {
      push(i);
      start = i + 1;
    } else if ((c === '.' || c === '!' || c === '?') && (i + 1 === text.length || /\s/.test(text[i + 1]!))) {
      // not after a single letter ("e.g.", "i.e.") or a digit-dot list marker at line start
      const prev = text.slice(Math.max(start, i - 3), i);
      if (c === '.' && (/(^|[\s.])[a-zA-Z]$/.test(prev) || /^\s*\d{1,2}$/.test(text.slice(start, i)))) continue;
      push(i + 1);
      start = i + 1;
    }
  }
  push(text.length);
  return out;
}

/**
 * Cuts a text to at most `max` characters at a word boundary, adding "…" when it was cut.
 * Whitespace is collapsed first.
 */
export function cutAtWord(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  if (max <= 1) return '';
  // the last word boundary that leaves room for the ellipsis; never inside a word
  let cut = max - 1;
  while (cut > 0 && isWordChar(t[cut - 1]!) && isWordChar(t[cut]!)) cut--;
  const head = t.slice(0, cut).replace(/[\s,;:.\-–—(]+$/, '');
  return head ? head + '…' : '';
}

const isWordChar = (c: string) => /[\p{L}\p{N}_'’]/u.test(c);
