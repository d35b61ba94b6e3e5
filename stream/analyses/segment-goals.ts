/**
 * Segment goals: the text a segment's user goal is read from, for the use-case taxonomy and
 * semantic search (docs/analyses.md "Use-case taxonomy"). It is what the person asked in the
 * segment — their turns' request text with code, quoted logs and pasted output removed — followed
 * by the conversation summary when one exists. Tool results, sub-agent prompts and the agent's
 * words are not in it: the use case is what people ask for, not how the agent went about it.
 */
import { createHash } from 'node:crypto';
import type { ConversationSnapshot, Segment, SegmentGoal } from './types.js';
import { capText, maskCode } from './text/prose.js';
import { squash } from './text/tokens.js';
import { isCommandTurn, isHumanTurn, requestText } from './text/turns.js';

export const SEGMENT_GOALS_VERSION = 1;

/** Characters of goal text kept per segment: the first requests say what the goal is. */
export const MAX_GOAL_CHARS = 1500;
/** Characters of the conversation summary appended. */
const MAX_SUMMARY_CHARS = 400;

/** A line of pasted output rather than prose: stack frames, log stamps, shell prompts, mostly symbols. */
function isOutputLine(line: string): boolean {
  const t = line.trim();
  if (t === '') return false;
  // stack frames, prompts, tree drawings, and terminal echo of tool output ("⎿ …", "⏺ …")
  if (/^(at\s+\S+\s*\(|File "|Traceback|\$ |> |#\d+\s|[│├└┌─⎿⏺✻]+)/.test(t)) return true;
  // a slash command echoed on its own line ("/hi is running…", "/model Opus")
  if (/^\/[a-z][\w:-]*(\s|$)/i.test(t)) return true;
  if (/^\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d/.test(t)) return true;
  if (/^\s*(ERROR|WARN|INFO|DEBUG)\b[:\]]/.test(t)) return true;
  const { letters, visible } = letterCount(t);
  // paths, hashes, JSON and tables: few letters among the characters, or one very long token
  return letters < visible * 0.5 || /\S{80,}/.test(t);
}

const LETTER = /\p{L}/u;
const SPACE = /\s/;

/** Letters (code points of category L) and non-whitespace UTF-16 units of a line, in one pass. */
function letterCount(t: string): { letters: number; visible: number } {
  let letters = 0;
  let visible = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c < 128) {
      if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) letters++;
      if (!(c === 32 || (c >= 9 && c <= 13))) visible++;
      continue;
    }
    if (!SPACE.test(t[i]!)) visible++;
    const cp = t.codePointAt(i)!;
    if (cp > 0xffff) {
      // a pair is one code point and two visible units (no whitespace lies outside the BMP)
      visible++;
      if (LETTER.test(String.fromCodePoint(cp))) letters++;
      i++;
    } else if (LETTER.test(t[i]!)) letters++;
  }
  return { letters, visible };
}

/** A request's prose: code masked, output lines dropped, whitespace folded. */
export function cleanRequest(text: string): string {
  const masked = maskCode(text);
  return squash(
    masked
      .split('\n')
      .filter((l) => !isOutputLine(l))
      .join('\n'),
  );
}

export const textHash = (text: string): string => createHash('sha1').update(text).digest('hex').slice(0, 16);

/** The goal text of every segment, in segment order. */
export function segmentGoals(s: ConversationSnapshot, segments: readonly Segment[], summary: string): SegmentGoal[] {
  const tail = summary ? capText(squash(summary), MAX_SUMMARY_CHARS) : '';
  return segments.map((g) => {
    const parts: string[] = [];
    let length = 0;
    for (let i = g.start_index; i <= g.end_index && length < MAX_GOAL_CHARS; i++) {
      const m = s.messages[i];
      if (!m || !isHumanTurn(m)) continue;
      const request = requestText(m);
      if (!request.trim() || (request === m.text && isCommandTurn(m.text))) continue;
      const clean = cleanRequest(request);
      if (!clean) continue;
      parts.push(clean);
      length += clean.length + 1;
    }
    const goal = parts.join('\n').slice(0, MAX_GOAL_CHARS);
    const text = tail ? (goal ? `${goal}\n${tail}` : tail) : goal;
    return { segment_id: g.segment_id, goal, text, text_hash: textHash(text) };
  });
}
