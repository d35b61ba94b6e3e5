/**
 * Segments: contiguous stretches of a conversation that serve one user goal. Every message belongs
 * to exactly one segment (index 0 … last, no gaps, no overlap).
 *
 * A new segment starts at a person's turn (a user-role message of the main thread with text)
 * when the evidence for a new goal outweighs the evidence for a continuation (docs/analyses.md
 * "Segments" has the formula). Tool results, sub-agent prompts and system text never start one.
 *
 * Stability: the decision at message i reads only messages 0…i (no look-ahead), so appending
 * messages never moves or renumbers an earlier boundary; a segment's id is derived from the
 * conversation id and the id of its first message, so it survives growth too.
 */
import { createHash } from 'node:crypto';
import type { ConversationSnapshot, Segment, SnapshotMessage } from './types.js';
import { maskCode } from './text/prose.js';
import { contentTerms } from './text/tokens.js';
import { isCommandTurn, isHumanTurn, requestText } from './text/turns.js';
import { continuationCue, isContextReset, markerStrength, wrapUpCue } from './segments-cues.js';
import { withFields } from '../../core/own.js';

export const SEGMENTS_VERSION = 2;

/** A silence this long before a person's turn counts as evidence of a new goal. */
export const LONG_PAUSE_MS = 30 * 60_000;
/** Score at which a turn starts a new segment (docs/analyses.md "Segments" has the formula). */
const THRESHOLD = 1;
const NOVELTY_FLOOR = 0.5;
const NOVELTY_WEIGHT = 2.0;
const WRAP_UP_WEIGHT = 0.45;
const PAUSE_WEIGHT = 0.5;
const CONTINUATION_WEIGHT = 0.6;
/**
 * A stretch of agent work (tool calls) that ended in a report: up to this many calls it says
 * nothing, and the evidence grows linearly to its full weight at `WORK_FULL_CALLS`. Short lookups
 * before an answer are ordinary; a long run of edits and checks closed by a report is a finished
 * piece of work, after which people usually move on.
 */
const WORK_FLOOR_CALLS = 3;
const WORK_FULL_CALLS = 11;
const WORK_WEIGHT = 0.6;
/** A command that cleared or condensed the agent's context ("/clear", "/compact") since the last turn. */
const RESET_WEIGHT = 1;
/** A turn that mostly reuses the words of the agent message it answers is a reply to it. */
const ECHO_FLOOR = 0.5;
const ECHO_WEIGHT = 0.3;
/** Turns with fewer content terms are too short to judge topic by words alone. */
const MIN_TERMS_FOR_TOPIC = 4;
/** Words read from an agent message for the segment's vocabulary (long outputs add little). */
const AGENT_WORDS = 400;
/** Weight of an agent's words in the segment vocabulary (the person's own words count 1). */
const AGENT_WEIGHT = 0.5;

export function segmentId(conversationId: string, firstMessageId: string): string {
  return 'seg_' + createHash('sha1').update(conversationId).update('\u0000').update(firstMessageId).digest('hex').slice(0, 16);
}

/** What the current segment has said so far: its vocabulary, weighted by who said it. */
interface SegmentState {
  vocabulary: Map<string, number>;
  humanTurns: number;
  /** An agent message with text since the segment's first person turn. */
  agentReplied: boolean;
}

const fresh = (): SegmentState => ({ vocabulary: new Map(), humanTurns: 0, agentReplied: false });

function learn(state: SegmentState, terms: Iterable<string>, weight: number): void {
  for (const t of terms) state.vocabulary.set(t, Math.min(1, (state.vocabulary.get(t) ?? 0) + weight));
}

/** Share of the turn's terms the segment already used (weighted: the user's own words count fully). */
function familiarity(state: SegmentState, terms: ReadonlySet<string>): number {
  if (terms.size === 0) return 1;
  let sum = 0;
  for (const t of terms) sum += state.vocabulary.get(t) ?? 0;
  return sum / terms.size;
}

export interface BoundaryEvidence {
  score: number;
  marker: number;
  novelty: number;
  pause: boolean;
  wrapUp: boolean;
  continuation: boolean;
  echo: number;
  /** 0…1: how long the finished stretch of agent work before the turn was. */
  work: number;
  reset: boolean;
}

/** What the agent did between the previous person turn and this one. */
export interface AgentWork {
  /** Tool calls of the main thread. */
  calls: number;
  /** The last main-thread agent message is text with no tool call pending (a report, not an interruption). */
  reported: boolean;
  /** A context-reset command came in between. */
  reset: boolean;
}

/** 0 for short or interrupted work, rising to 1 for a long stretch closed by a report. */
function workEvidence(w: AgentWork): number {
  if (!w.reported) return 0;
  return Math.min(1, Math.max(0, (w.calls - WORK_FLOOR_CALLS) / (WORK_FULL_CALLS - WORK_FLOOR_CALLS)));
}

/**
 * The score of a person's turn as the start of a new goal, from the turn, the segment so far,
 * the previous agent text and the time since the previous message.
 */
/** Share of the turn's terms found in the agent message it answers. */
function echoOf(terms: ReadonlySet<string>, agentTerms: ReadonlySet<string>): number {
  let n = 0;
  for (const t of terms) if (agentTerms.has(t)) n++;
  return terms.size ? n / terms.size : 0;
}

export function boundaryEvidence(
  turn: string,
  terms: ReadonlySet<string>,
  state: SegmentState,
  previousAgentText: string,
  previousAgentTerms: ReadonlySet<string>,
  gapMs: number,
  agentWork: AgentWork = { calls: 0, reported: false, reset: false },
): BoundaryEvidence {
  const marker = markerStrength(turn);
  const continuation = continuationCue(turn);
  const wrapUp = previousAgentText !== '' && wrapUpCue(previousAgentText);
  const pause = gapMs >= LONG_PAUSE_MS;
  const topical = terms.size >= MIN_TERMS_FOR_TOPIC;
  const novelty = topical ? 1 - familiarity(state, terms) : 0;
  const echo = topical ? echoOf(terms, previousAgentTerms) : 0;
  const work = workEvidence(agentWork);
  const reset = agentWork.reset;
  let score = marker;
  score += topical ? NOVELTY_WEIGHT * Math.max(0, novelty - NOVELTY_FLOOR) : 0;
  if (wrapUp) score += WRAP_UP_WEIGHT;
  if (pause) score += PAUSE_WEIGHT;
  score += WORK_WEIGHT * work;
  if (reset) score += RESET_WEIGHT;
  if (continuation) score -= CONTINUATION_WEIGHT;
  if (echo >= ECHO_FLOOR) score -= ECHO_WEIGHT;
  return { score, marker, novelty, pause, wrapUp, continuation, echo, work, reset };
}

export interface TurnDecision extends BoundaryEvidence {
  index: number;
  boundary: boolean;
}

/** Walks the conversation once; `onTurn` sees the evidence of every decided person turn. */
function walk(s: ConversationSnapshot, onTurn?: (d: TurnDecision) => void): number[] {
  const messages = s.messages;
  const starts: number[] = [0];
  let state = fresh();
  let previousAgentText = '';
  let previousAgentTerms: ReadonlySet<string> = new Set();
  let work: AgentWork = { calls: 0, reported: false, reset: false };
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (isHumanTurn(m)) {
      const request = maskCode(requestText(m));
      const terms = new Set(contentTerms(request));
      const command = request.trim() === '' && isCommandTurn(m.text);
      if (command && isContextReset(m.text)) work.reset = true;
      if (!command && state.humanTurns > 0 && state.agentReplied) {
        const gap = i > 0 ? m.ts - messages[i - 1]!.ts : 0;
        const evidence = boundaryEvidence(request, terms, state, previousAgentText, previousAgentTerms, gap, work);
        const boundary = evidence.score >= THRESHOLD;
        onTurn?.(withFields(evidence, { index: i, boundary }));
        if (boundary) {
          starts.push(i);
          state = fresh();
        }
      }
      if (!command) {
        state.humanTurns++;
        learn(state, terms, 1);
        work = { calls: 0, reported: false, reset: false };
      }
    } else if (m.role === 'assistant') {
      if (m.threadId === '') {
        const calls = m.blocks.filter((b) => b.type === 'tool_use').length;
        work.calls += calls;
        if (calls > 0) work.reported = false;
        else if (m.text.trim() !== '') work.reported = true;
      }
      if (m.text.trim() === '') continue;
      const agentTerms = contentTerms(maskCode(m.text), AGENT_WORDS);
      learn(state, agentTerms, AGENT_WEIGHT);
      if (m.threadId === '') {
        previousAgentText = m.text;
        previousAgentTerms = new Set(agentTerms);
        if (state.humanTurns > 0) state.agentReplied = true;
      }
    }
  }
  return starts;
}

export function segmentConversation(s: ConversationSnapshot): Segment[] {
  const messages = s.messages;
  if (messages.length === 0) return [];
  const starts = walk(s);
  return starts.map((start, k) => ({
    segment_id: segmentId(s.conversationId, messages[start]!.messageId),
    start_index: start,
    end_index: k + 1 < starts.length ? starts[k + 1]! - 1 : messages.length - 1,
  }));
}

/** The evidence behind every decision, for evaluation and debugging. */
export function explainSegmentation(s: ConversationSnapshot): TurnDecision[] {
  const out: TurnDecision[] = [];
  walk(s, (d) => out.push(d));
  return out;
}

/** The person turns a segmentation decides on (for evaluation and tests). */
export function candidateTurns(messages: readonly SnapshotMessage[]): number[] {
  return messages.filter((m) => isHumanTurn(m) && !(requestText(m).trim() === '' && isCommandTurn(m.text))).map((m) => m.index);
}
