/**
 * Trace summary: an extractive one-liner of at most 300 characters for conversations with at
 * least two messages — the user's goal, what was done, how it ended:
 *
 *   Goal: <the first substantive request of each goal, verbatim>; … Done: <n> calls (<tool
 *   names>), <k> failed. Ended: <the last person turn, or the agent's last words>
 *
 * Every word outside the fixed template ("Goal:", "Goals:", "Done:", "calls", "failed",
 * "Ended:", "(last call failed)", counts) is copied from the conversation: text is only cut
 * (at word boundaries, with "…") and cleaned of whitespace runs, markup and control tokens.
 * Pure, so it is regenerated whenever the conversation grows.
 */
import type { ConversationSnapshot, Segment, SnapshotMessage, SnapshotToolCall } from './types.js';
import { cutAtWord, sentenceSpans } from './text/prose.js';
import { contentTerms } from './text/tokens.js';
import { isCommandTurn, isHumanTurn, requestText } from './text/turns.js';

export const SUMMARY_VERSION = 1;
export const MAX_SUMMARY_CHARS = 300;

/** Words of the template (they need not appear in the conversation). */
export const SUMMARY_TEMPLATE_WORDS: ReadonlySet<string> = new Set(['goal', 'goals', 'done', 'calls', 'call', 'failed', 'ended', 'last', 'more']);

const GREETING = /^\s*(?:(?:hi|hello|hey|hiya|greetings|good (?:morning|afternoon|evening)|dear [\w ]{1,30})(?: there| all| team| claude)?\s*[!,.:;—-]*\s*)+/i;
const GREETING_ONLY = /^\s*(?:hi|hello|hey|thanks?|thank you|good (?:morning|afternoon|evening))(?: there| all)?\s*[!,.]*\s*$/i;
/** Markup and control tokens that are not words of the speaker. */
const MARKUP = /<\/?[a-z][\w-]*(?:\s[^>]*)?>|#{2,}[A-Z_]+#{2,}|\*\*|__|`+|^#+\s/gim;

/** Fenced code blocks (pasted code and logs are not prose to quote). */
const FENCED = /(```|~~~)[^\n]*\n[\s\S]*?(?:\1|$)/g;

/** Text of a message cleaned for quoting: no code blocks, no markup, whitespace collapsed. */
export function cleanForQuote(text: string): string {
  return text.replace(FENCED, ' ').replace(MARKUP, ' ').replace(/\s+/g, ' ').trim();
}

/** A person turn this long is pasted material or a product-injected context summary, not a reaction. */
const MAX_REACTION_CHARS = 1200;
/** A goal statement with fewer specific words is vague ("I need to make some changes"). */
const SPECIFIC_TERMS = 6;
const REQUEST_CUE = /\b(?:i'?d like|i would like|i want|i need|can you|could you|would you|please|help me|let'?s)\b/i;

/**
 * The leading sentence(s) of a text carrying at least `minTerms` content words, after skipping
 * opening filler sentences ("I understand.", "Sure!") that carry fewer than two.
 */
function leadingSentences(text: string, minTerms: number): string {
  const spans = [...sentenceSpans(text)];
  while (spans.length > 1 && contentTerms(text.slice(spans[0]!.start, spans[0]!.end)).length < 2) spans.shift();
  let out = '';
  for (const sp of spans) {
    out = out ? `${out} ${text.slice(sp.start, sp.end)}` : text.slice(sp.start, sp.end);
    if (contentTerms(out).length >= minTerms || out.length > 160) break;
  }
  return out.trim();
}

const specificTerms = (text: string) => contentTerms(text).filter((t) => !/\d/.test(t)).length;

/**
 * The goal statement of a stretch of messages: its first substantive person turn (a command's
 * arguments count whatever their length), followed, when that turn is vague, by the next turn
 * that makes a specific request.
 */
function goalOf(messages: readonly SnapshotMessage[], from: number, to: number, anyThread = false): string {
  let fallback = '';
  let goal = '';
  let looked = 0;
  for (let i = from; i <= to && looked < 5; i++) {
    const m = messages[i]!;
    if (!(anyThread ? m.role === 'user' && m.text.trim() !== '' : isHumanTurn(m))) continue;
    const request = requestText(m);
    if (!request.trim() || GREETING_ONLY.test(request)) continue;
    const text = cleanForQuote(request).replace(GREETING, '');
    if (!text) continue;
    // pasted material or an injected context summary: only if nothing else states a goal
    if (request === m.text && text.length > MAX_REACTION_CHARS) {
      fallback ||= leadingSentences(text, 5);
      continue;
    }
    if (goal) {
      looked++;
      if (REQUEST_CUE.test(text) && specificTerms(text) >= 4) return `${goal} … ${leadingSentences(text, 5)}`;
      continue;
    }
    if (contentTerms(text).length >= 2 || request !== m.text) {
      goal = leadingSentences(text, 5);
      if (specificTerms(goal) >= SPECIFIC_TERMS) return goal;
      continue;
    }
    fallback ||= text;
  }
  return goal || fallback;
}

function goalsPart(s: ConversationSnapshot, segments: readonly Segment[]): string[] {
  const ranges = segments.length ? segments : [{ start_index: 0, end_index: s.messages.length - 1 }];
  const goals: string[] = [];
  for (const g of ranges) {
    const goal = goalOf(s.messages, g.start_index, Math.min(g.end_index, s.messages.length - 1));
    if (goal && !goals.includes(goal)) goals.push(goal);
  }
  // no person turn of the main thread (a sub-agent log): its prompt is the goal
  if (goals.length === 0) {
    const goal = goalOf(s.messages, 0, s.messages.length - 1, true);
    if (goal) goals.push(goal);
  }
  return goals;
}

/** "Done: 8 calls (book_reservation, search_direct_flight, calculate), 1 failed." or ''. */
function donePart(calls: readonly SnapshotToolCall[]): string {
  if (calls.length === 0) return '';
  const byName = new Map<string, { n: number; effect: number }>();
  // what changed the world first, then what was looked up; pure computation last
  const rank = { send: 0, write: 1, spawn: 2, read: 3, compute: 4 } as const;
  for (const c of calls) {
    if (!c.toolName) continue;
    const e = byName.get(c.toolName) ?? { n: 0, effect: rank[c.effectClass] };
    e.n++;
    byName.set(c.toolName, e);
  }
  const names = [...byName].sort((a, b) => a[1].effect - b[1].effect || b[1].n - a[1].n || (a[0] < b[0] ? -1 : 1)).map(([name]) => name);
  const shown = names.slice(0, 3).join(', ') + (names.length > 3 ? ` +${names.length - 3} more` : '');
  const failed = calls.filter((c) => c.success === false).length;
  return `Done: ${calls.length} ${calls.length === 1 ? 'call' : 'calls'} (${shown})${failed ? `, ${failed} failed` : ''}.`;
}

/** "Ended: <last person turn or agent's last words>", flagged when the last call failed. */
function endedPart(s: ConversationSnapshot): string {
  const messages = s.messages;
  let last: SnapshotMessage | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.threadId !== '' || !m.text.trim()) continue;
    const speaks = (m.role === 'user' && isHumanTurn(m) && !isCommandTurn(m.text) && m.text.length <= MAX_REACTION_CHARS) || m.role === 'assistant';
    if (speaks && cleanForQuote(m.text).replace(GREETING, '') !== '') {
      last = m;
      break;
    }
  }
  const lastCall = s.toolCalls[s.toolCalls.length - 1];
  const failedAtEnd = !!lastCall && lastCall.success === false && (!last || (lastCall.position >= last.index));
  const quote = last ? leadingSentences(cleanForQuote(last.text).replace(GREETING, ''), 4) : '';
  if (!quote && !failedAtEnd) return '';
  return `Ended${failedAtEnd ? ' (last call failed)' : ''}:${quote ? ' ' + quote : ''}`;
}

export function summarize(s: ConversationSnapshot, segments: readonly Segment[]): string {
  if (s.messages.length < 2) return '';
  const goals = goalsPart(s, segments);
  const done = donePart(s.toolCalls);
  let ended = endedPart(s);
  // budget: "Done" is short and fixed; the end gets up to 90 characters; goals share the rest
  const doneLen = done ? done.length + 1 : 0;
  if (ended.length > 90) ended = cutAtWord(ended, 90);
  const room = MAX_SUMMARY_CHARS - doneLen - (ended ? ended.length + 1 : 0);
  let goalText = '';
  if (goals.length === 1) goalText = cutAtWord(`Goal: ${goals[0]}`, room);
  else if (goals.length > 1) {
    const shown = goals.slice(0, 2);
    const extra = goals.length - shown.length;
    const tail = extra ? ` +${extra} more` : '';
    const each = Math.floor((room - 7 - tail.length - 2 * (shown.length - 1)) / shown.length);
    goalText = `Goals: ${shown.map((g) => cutAtWord(g, each)).join('; ')}${tail}`;
  }
  if (goalText && !/[.!?…]$/.test(goalText)) goalText += '.';
  const out = [goalText, done, ended].filter(Boolean).join(' ');
  return out.length <= MAX_SUMMARY_CHARS ? out : cutAtWord(out, MAX_SUMMARY_CHARS);
}
