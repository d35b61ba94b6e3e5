/**
 * From cue hits and intensity marks to one intensity per family of a user turn, its signal and
 * its verbatim quotes.
 *
 * Combination: the strongest evidence counts fully, the second a quarter, the third a tenth
 * (several weak cues do not add up to a strong one). Corrections alone are capped below 0.5: a
 * plain correction, however firm, is not frustration. Intensity (?!, !!, capitalised refusals) is
 * evidence on its own; a `!` or an intensifier next to a cue strengthens it a little.
 */
import type { EmotionFamily } from '../types.js';
import { marksOf, type CueHit, type SentenceMarks, type Span } from './cues.js';
import { ADDRESSES_AGENT, SARCASTIC_PRAISE, SELF_AIMED } from './lexicon.js';

/** Evidence for one family: a weight, the signal it points to, the span to quote. */
export interface Evidence {
  family: EmotionFamily;
  signal: string;
  weight: number;
  start: number;
  end: number;
  correction: boolean;
}

export interface FamilyScore {
  family: EmotionFamily;
  signal: string;
  score: number;
  evidence: Evidence[];
}

export interface ContextBoost {
  /** A call failed or was declined since the previous turn (praise then reads as sarcasm). */
  agentFailed: boolean;
  /** The agent repeated an identical failing call since the previous turn. */
  repeated: boolean;
}

const NEGATIVE_FAMILIES = new Set<EmotionFamily>(['frustration', 'distrust', 'impatience', 'disappointment']);
const CORRECTION_CAP = 0.45;
const round = (x: number) => Math.round(Math.min(0.99, Math.max(0, x)) * 1000) / 1000;

/** Adjusted weight of a frustration cue by whom its sentence is aimed at. */
function aimedWeight(hit: CueHit, masked: string, span: Span, marks: SentenceMarks): number {
  let w = hit.cue.weight;
  const sentence = masked.slice(span.start, span.end);
  // the sentence without the cue itself: does the speaker aim it at the agent?
  const around = masked.slice(span.start, hit.start) + ' ' + masked.slice(hit.end, span.end);
  const atAgent = ADDRESSES_AGENT.test(around);
  if (hit.cue.kind === 'profanity') {
    // "me performing some shit", "we have talked some BS": the speaker's own doing
    const lead = masked.slice(Math.max(0, hit.start - 40), hit.start).split(/\s+/).slice(-6).join(' ');
    if (SELF_AIMED.test(lead) && !ADDRESSES_AGENT.test(lead)) w *= 0.5;
  }
  if (hit.cue.kind === 'evaluation' && !atAgent && !/\b(this|that|these|those|it|here)\b/i.test(sentence)) w *= 0.8;
  if (hit.cue.kind !== 'correction') {
    if (atAgent) w += 0.05;
    if (hit.intensified) w += 0.05;
    if (marks.bang) w += 0.05;
  }
  return w;
}

/** Evidence from punctuation and capitals of one sentence, when nothing positive explains it. */
function intensityEvidence(s: Span, marks: SentenceMarks, hits: readonly CueHit[]): Evidence[] {
  const positive = hits.some((h) => h.cue.family === 'satisfaction');
  const negative = hits.some((h) => h.cue.family !== 'satisfaction' && h.cue.family !== 'confusion');
  if (positive && !negative) return [];
  const repeat = hits.some((h) => h.cue.signal === 'exasperation');
  const out: Evidence[] = [];
  const ev = (signal: string, weight: number) => out.push({ family: 'frustration', signal, weight, start: s.start, end: s.end, correction: false });
  if (marks.interrobang) ev(repeat ? 'exasperation' : 'annoyance', 0.6);
  if (marks.multiBang) ev('exasperation', 0.55);
  if (marks.shout) ev('anger', 0.6);
  return out;
}

function combine(weights: readonly number[]): number {
  const w = [...weights].sort((a, b) => b - a);
  return (w[0] ?? 0) + 0.25 * (w[1] ?? 0) + 0.1 * (w[2] ?? 0);
}

/**
 * Scores of every family present in a turn. `masked` is the turn with non-speech blanked,
 * `sentences` its sentences, `hits` its cue hits.
 */
export function scoreFamilies(masked: string, sentences: readonly Span[], hits: readonly CueHit[], boost: ContextBoost): FamilyScore[] {
  const evidence: Evidence[] = [];
  // praise of what the agent just did, after it failed: the whole turn is sarcastic
  const ironic = boost.agentFailed && sentences.some((s) => SARCASTIC_PRAISE.test(masked.slice(s.start, s.end)));
  let sarcasm = ironic;
  let caps = 0;
  sentences.forEach((s, i) => {
    const text = masked.slice(s.start, s.end);
    const marks = marksOf(text);
    const here = hits.filter((h) => h.sentence === i);
    const frustrationHere = ironic || here.some((h) => h.cue.family === 'frustration' && h.cue.kind !== 'correction') || marks.interrobang;
    if (ironic && SARCASTIC_PRAISE.test(text)) evidence.push({ family: 'frustration', signal: 'hostility', weight: 0.5, start: s.start, end: s.end, correction: false });
    // capitals of emphasis strengthen a complaint in the same sentence, not a distant one
    if (frustrationHere || marks.multiBang) caps += marks.capsWords;
    for (const h of here) {
      // praise next to a complaint is sarcasm ("great, you deleted everything"): not satisfaction
      if (h.cue.family === 'satisfaction' && frustrationHere) {
        sarcasm = true;
        continue;
      }
      // "is the type checker happy with this?" asks; it does not praise (thanks stay thanks)
      if (h.cue.family === 'satisfaction' && h.cue.signal !== 'gratitude' && /\?\s*$/.test(text)) continue;
      const weight = h.cue.family === 'frustration' ? aimedWeight(h, masked, s, marks) : h.cue.weight + (h.intensified ? 0.05 : 0);
      evidence.push({ family: h.cue.family, signal: h.cue.signal, weight, start: h.start, end: h.end, correction: h.cue.kind === 'correction' });
    }
    evidence.push(...intensityEvidence(s, marks, here));
  });
  const byFamily = new Map<EmotionFamily, Evidence[]>();
  for (const e of evidence) byFamily.set(e.family, [...(byFamily.get(e.family) ?? []), e]);
  const out: FamilyScore[] = [];
  for (const [family, ev] of byFamily) {
    ev.sort((a, b) => b.weight - a.weight || a.start - b.start);
    let score = combine(ev.map((e) => e.weight));
    if (family === 'frustration') {
      if (sarcasm) score += 0.1;
      if (caps > 0 && ev.some((e) => !e.correction)) score += Math.min(0.1, 0.05 * caps);
      if (boost.repeated) score += 0.05;
      if (ev.every((e) => e.correction)) score = Math.min(score, CORRECTION_CAP);
    }
    const top = ev[0]!;
    const signal = family === 'frustration' && sarcasm && top.signal === 'annoyance' ? 'hostility' : top.signal;
    out.push({ family, signal, score: round(score), evidence: ev });
  }
  return out;
}

export const isNegativeFamily = (f: EmotionFamily): boolean => NEGATIVE_FAMILIES.has(f);

/**
 * Up to three verbatim quotes: the sentences holding the strongest evidence, trimmed, each at most
 * 200 characters around its cue (cut at word boundaries).
 */
export function quotesOf(text: string, sentences: readonly Span[], ev: readonly Evidence[]): string[] {
  const out: string[] = [];
  for (const e of ev) {
    if (out.length >= 3) break;
    const s = sentences.find((x) => e.start >= x.start && e.start < x.end) ?? { start: e.start, end: e.end };
    let from = s.start;
    let to = s.end;
    if (to - from > 200) {
      from = Math.max(s.start, e.start - 80);
      to = Math.min(s.end, Math.max(e.end, from + 200));
      while (from > s.start && /\S/.test(text[from - 1]!)) from--;
      while (to < s.end && /\S/.test(text[to]!)) to++;
    }
    const raw = text.slice(from, to);
    const quote = raw.trim();
    if (quote && !out.includes(quote)) out.push(quote);
  }
  return out;
}
