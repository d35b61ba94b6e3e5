/**
 * Finding cues and intensity markers in the masked text of one user turn, sentence by sentence.
 * Everything here works on offsets of the original text (masking keeps them), so a hit can be
 * quoted verbatim.
 */
import { LiteralGates } from '../text/gate.js';
import { ACRONYMS, CUES, INTENSIFIER, NEGATOR, SHOUT_WORDS, type Cue } from './lexicon.js';

export interface Span {
  start: number;
  end: number;
}

export interface CueHit {
  cue: Cue;
  start: number;
  end: number;
  /** Index into the turn's sentences. */
  sentence: number;
  /** An intensifier ("really", "so") right next to the cue. */
  intensified: boolean;
}

export interface SentenceMarks {
  /** `?!`, `!?`, `?!?`: incredulous outrage. */
  interrobang: boolean;
  /** Two or more `!` in a row. */
  multiBang: boolean;
  /** At least one `!`. */
  bang: boolean;
  /** A capitalised refusal or outburst ("NO!", "STOP", "WHY"). */
  shout: boolean;
  /** Other capitalised words of emphasis (not acronyms). */
  capsWords: number;
}

/**
 * The masked text with soft line breaks turned into spaces (same length). Terminals and mail
 * clients wrap long lines: a break after a long line that does not end a sentence continues it.
 */
export function unwrap(masked: string): string {
  const lines = masked.split('\n');
  let out = lines[0]!;
  for (let i = 1; i < lines.length; i++) {
    const prev = lines[i - 1]!;
    const soft = prev.length >= 60 && lines[i] !== '' && prev.trim() !== '' && !/[.!?:;]\s*$/.test(prev);
    out += (soft ? ' ' : '\n') + lines[i];
  }
  return out;
}

/**
 * Sentences of the (unwrapped) masked text: split after . ! ? runs and at line breaks; blank ones
 * dropped.
 */
export function sentencesOf(masked: string): Span[] {
  const out: Span[] = [];
  const re = /[^\n.!?]*(?:[.!?]+|\n|$)/g;
  for (let m = re.exec(masked); m && m[0].length > 0; m = re.exec(masked)) {
    const start = m.index;
    const end = m.index + m[0].length;
    if (masked.slice(start, end).trim() !== '') out.push({ start, end });
    if (end >= masked.length) break;
  }
  return out;
}

function sentenceAt(sentences: readonly Span[], offset: number): number {
  let lo = 0;
  let hi = sentences.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = sentences[mid]!;
    if (offset < s.start) hi = mid - 1;
    else if (offset >= s.end) lo = mid + 1;
    else return mid;
  }
  return Math.max(0, Math.min(sentences.length - 1, lo));
}

function negated(masked: string, sentence: Span, start: number): boolean {
  const before = masked.slice(Math.max(sentence.start, start - 40), start);
  return NEGATOR.test(before);
}

function intensifiedAt(masked: string, start: number, end: number): boolean {
  const around = masked.slice(Math.max(0, start - 14), start) + ' ' + masked.slice(end, end + 12);
  return INTENSIFIER.test(around);
}

function hitAt(masked: string, sentences: readonly Span[], cue: Cue, start: number, end: number, sentence: number): CueHit | undefined {
  if (cue.negatable && negated(masked, sentences[sentence]!, start)) return undefined;
  return { cue, start, end, sentence, intensified: intensifiedAt(masked, start, end) };
}

/** Most cues need words a turn does not contain: one pass finds which cues can match at all. */
const CUE_GATES = new LiteralGates(CUES.map((c) => c.re));

export function findCues(masked: string, sentences: readonly Span[]): CueHit[] {
  const hits: CueHit[] = [];
  if (sentences.length === 0) return hits;
  const may = CUE_GATES.scan(masked);
  for (let k = 0; k < CUES.length; k++) {
    if (!may[k]) continue;
    const cue = CUES[k]!;
    if (cue.atStart) {
      // anchored cues are tried once per sentence, not at every position of the turn
      sentences.forEach((s, i) => {
        const m = cue.re.exec(masked.slice(s.start, s.end));
        if (!m) return;
        const lead = m[0].length - m[0].replace(/^[^A-Za-z]+/, '').length;
        const hit = hitAt(masked, sentences, cue, s.start + lead, s.start + m[0].length, i);
        if (hit) hits.push(hit);
      });
      continue;
    }
    cue.re.lastIndex = 0;
    for (let m = cue.re.exec(masked); m; m = cue.re.exec(masked)) {
      if (m[0].length === 0) {
        cue.re.lastIndex++;
        continue;
      }
      const hit = hitAt(masked, sentences, cue, m.index, m.index + m[0].length, sentenceAt(sentences, m.index));
      if (hit) hits.push(hit);
    }
  }
  return hits;
}

/** Punctuation and capitals of one sentence. */
export function marksOf(text: string): SentenceMarks {
  let shout = false;
  let capsWords = 0;
  // most sentences have no two capitals in a row: skip the word scan for them
  if (/[A-Z]{2}/.test(text)) {
    const re = /\b[A-Z][A-Z']+\b/g;
    const firstWord = /^[^A-Za-z]*([A-Za-z']+)/.exec(text)?.[1];
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const w = m[0];
      if (ACRONYMS.has(w)) continue;
      // "NO!" or a sentence opening "STOP …" shouts; "so NO on #3" answers a list
      const after = text.slice(m.index + w.length, m.index + w.length + 2);
      if (SHOUT_WORDS.has(w) && (w === firstWord || /^\s*[!?.,]/.test(after))) shout = true;
      else if (w.length >= 3) capsWords++;
    }
    // a line written entirely in capitals is shouting, whatever the words
    const letters = text.replace(/[^A-Za-z]/g, '');
    const words = text.match(/[A-Za-z]{2,}/g) ?? [];
    if (words.length >= 2 && letters.length >= 8 && letters === letters.toUpperCase()) shout = true;
  }
  const bang = text.includes('!');
  return {
    interrobang: (bang && text.includes('?')) ? /\?+\s*!|!+\s*\?/.test(text) : false,
    multiBang: bang && /!\s*!/.test(text),
    bang,
    shout,
    capsWords,
  };
}
