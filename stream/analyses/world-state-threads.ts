/**
 * Threads of the world state: the tasks a person asks for. Each segment's first person turn opens
 * a thread (its goal); later requests in the segment are its subgoals; state-changing calls and
 * hand-offs go on its timeline. Status follows what the person says next (text/reactions.ts):
 * closure after an agent reply resolves it, withdrawal or deferral cancels it, a correction or a new
 * request after closure reopens it, and an acknowledgement opening the next segment ("Thanks! Now
 * …") resolves the thread left open. A thread nobody closed stays `open`. Causal: a decision at
 * message i reads only messages up to i, so status events are stable as the conversation grows.
 */
import { createHash } from 'node:crypto';
import type { Thread, ThreadStatus, ThreadTimelineEntry } from '../../schemas/world-state.js';
import { withoutAck } from './segments-cues.js';
import { capText, cutAtWord } from './text/prose.js';
import { closureCue, correctionCue, deferralCue, requestCue, withdrawalCue } from './text/reactions.js';
import type { SnapshotToolCall } from './types.js';

export const GOAL_CHARS = 160;
const SUBGOAL_CHARS = 120;

/** A status change to record as a state event. */
export interface ThreadChange {
  threadId: string;
  from: ThreadStatus | null;
  to: ThreadStatus;
  eventType: 'thread_open' | 'thread_resolve' | 'thread_cancel' | 'thread_reopen';
}

const HANDOFF = /(?:^|_|\b)(?:transfer_to_human\w*|handoff|hand_off|escalat\w*|human_agent|live_agent)(?:_|$|\b)/i;

/** A call that hands the conversation to a person. */
export const isHandoff = (c: SnapshotToolCall): boolean => HANDOFF.test(c.toolName);

export const threadIdOf = (segmentId: string): string => 'thr_' + createHash('sha1').update(segmentId).digest('hex').slice(0, 12);

/** At most `max` characters at a word boundary (long turns are clipped before whitespace is collapsed). */
const clip = (text: string, max: number) => cutAtWord(capText(text, 4 * max), max);

function goalText(turn: string): string {
  const t = turn.replace(/^\s*(?:hi|hello|hey|good (?:morning|afternoon|evening)|greetings)(?: there)?\b[!,.]*\s*/i, '');
  return clip(t || turn, GOAL_CHARS);
}

/** The threads of one conversation as the walk reaches each message. */
class ThreadBook {
  readonly threads: Thread[] = [];
  /** The thread of the current segment (null before its first person turn). */
  current: Thread | null = null;
  /** An agent text message since the last person turn. */
  private agentReplied = false;
  private actions = new Map<string, { done: string[]; failed: number }>();

  /** The segment changed: its first person turn will open a new thread. */
  startSegment(): void {
    this.current = null;
  }

  agentMessage(): void {
    this.agentReplied = true;
  }

  /** A person's turn at `msgIndex` of segment `segmentId`; returns the status changes it causes. */
  humanTurn(turn: string, msgIndex: number, segmentId: string): ThreadChange[] {
    const changes: ThreadChange[] = [];
    const replied = this.agentReplied;
    this.agentReplied = false;
    const asks = requestCue(turn);
    if (!this.current) {
      // "Thanks, that worked! Now …" or a plain "Thank you!": the acknowledgement closes the thread left open
      const previous = this.lastOpen();
      const closes = replied && !correctionCue(turn) && (withoutAck(turn) !== turn || closureCue(turn));
      if (previous && closes) changes.push(this.setStatus(previous, 'resolved', msgIndex, 'resolved'));
      // a turn that only closes (no request) opens no new thread
      if (closureCue(turn) && !asks) return changes;
      const goal = goalText(turn);
      const thread: Thread = { id: threadIdOf(segmentId), status: 'open', summary: '', goal, timeline: [{ msgIndex, kind: 'opened', text: goal }], subgoals: [] };
      this.threads.push(thread);
      this.current = thread;
      changes.push({ threadId: thread.id, from: null, to: 'open', eventType: 'thread_open' });
      return changes;
    }
    const t = this.current;
    if (withdrawalCue(turn)) {
      if (t.status !== 'cancelled') changes.push(this.setStatus(t, 'cancelled', msgIndex, 'cancelled'));
    } else if (deferralCue(turn) && !asks) {
      if (t.status !== 'cancelled') changes.push(this.setStatus(t, 'cancelled', msgIndex, 'deferred'));
    } else if (t.status !== 'open' && (correctionCue(turn) || asks)) {
      changes.push(this.setStatus(t, 'open', msgIndex, 'reopened'));
      if (asks) this.subgoal(t, turn, msgIndex);
    } else if (t.status === 'open' && replied && closureCue(turn) && !asks && !correctionCue(turn)) {
      changes.push(this.setStatus(t, 'resolved', msgIndex, 'resolved'));
    } else if (asks) {
      this.subgoal(t, turn, msgIndex);
    }
    return changes;
  }

  /** A state-changing call or a hand-off of the current thread. */
  action(c: SnapshotToolCall, msgIndex: number): void {
    const t = this.current;
    if (!t) return;
    const kind: ThreadTimelineEntry['kind'] = isHandoff(c) ? 'handoff' : c.success === false ? 'action_failed' : 'action';
    const outcome = c.success === null ? 'no result' : c.success ? 'succeeded' : 'failed';
    t.timeline.push({ msgIndex, kind, text: `${c.toolName || 'unknown tool'} ${outcome}` });
    const a = this.actions.get(t.id) ?? { done: [], failed: 0 };
    if (kind === 'action' && c.success === true && !a.done.includes(c.toolName)) a.done.push(c.toolName);
    if (kind === 'action_failed') a.failed++;
    this.actions.set(t.id, a);
  }

  /** Threads with their summaries, for the end of the walk. */
  finish(): Thread[] {
    for (const t of this.threads) {
      const a = this.actions.get(t.id);
      const parts = [`${t.goal} — ${t.status}`];
      if (a?.done.length) parts.push(`done: ${a.done.join(', ')}`);
      if (a?.failed) parts.push(`${a.failed} failed action${a.failed > 1 ? 's' : ''}`);
      if (t.timeline.some((e) => e.kind === 'handoff')) parts.push('handed off');
      t.summary = parts.join('; ');
    }
    return this.threads;
  }

  private lastOpen(): Thread | undefined {
    for (let i = this.threads.length - 1; i >= 0; i--) if (this.threads[i]!.status === 'open') return this.threads[i];
    return undefined;
  }

  private subgoal(t: Thread, turn: string, msgIndex: number): void {
    const text = clip(withoutAck(turn) || turn, SUBGOAL_CHARS);
    t.subgoals.push({ msgIndex, text });
    t.timeline.push({ msgIndex, kind: 'request', text });
  }

  private setStatus(t: Thread, to: ThreadStatus, msgIndex: number, kind: ThreadTimelineEntry['kind']): ThreadChange {
    const from = t.status;
    t.status = to;
    t.timeline.push({ msgIndex, kind, text: to });
    const eventType = to === 'open' ? 'thread_reopen' : to === 'resolved' ? 'thread_resolve' : 'thread_cancel';
    return { threadId: t.id, from, to, eventType };
  }
}

export type Threads = ThreadBook;

/** A fresh book of threads for one walk over a conversation. */
export const createThreadBook = (): Threads => new ThreadBook();
