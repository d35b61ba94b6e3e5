/**
 * The world state of a conversation on the wire (spec/data-api.md "World-state objects"; camelCase
 * as the spec writes it) and the one fold that gives its meaning: the state at any point is the
 * state events folded in order. The analysis (stream/analyses/world-state.ts) emits the events and
 * uses this fold for its segment keyframes; the query role uses it for replay frames and snapshots,
 * so both sides agree by construction (a property test checks frames against the stored keyframes).
 */

/** Where a slot's value was established. */
export interface SlotProvenance {
  /** `user_text`: the person said it; `tool_input`: a call used it; `tool_result`: a call returned it; `carry_in`: loaded from the user's memory. */
  source: 'user_text' | 'tool_input' | 'tool_result' | 'carry_in';
  /** Message and block of the statement; for `carry_in`, in the conversation named by `conversationId`. */
  msgIndex: number;
  /** 0 is the message's text; its tool_use blocks follow (1, 2, …), then its tool_result blocks. */
  blockIndex: number;
  /** The tool, for `tool_input` and `tool_result`. */
  tool?: string;
  /** The conversation the value came from, for `carry_in`. */
  conversationId?: string;
}

export interface SlotValue {
  value: string;
  source: SlotProvenance;
  /** About the user (carried to later conversations) rather than to the current segment. */
  durable: boolean;
  /** ISO time of the message that set the value. */
  updatedAt: string;
}

export type SlotMap = Record<string, SlotValue>;

export const STATE_EVENT_TYPES = ['carry_in', 'slot_set', 'slot_update', 'slot_expire', 'thread_open', 'thread_resolve', 'thread_cancel', 'thread_reopen'] as const;
export type StateEventType = (typeof STATE_EVENT_TYPES)[number];

/**
 * One change of state. Slot events name the slot in `slotKey`; thread events name the thread id
 * there, with the statuses as old and new values. Events are in fold order: by message, then
 * block, then emission.
 */
export interface StateEvent {
  eventId: string;
  segmentIndex: number;
  segmentId: string;
  msgIndex: number;
  blockIndex: number;
  eventType: StateEventType;
  slotKey: string;
  oldValue: string | null;
  newValue: string | null;
  provenance: SlotProvenance;
  durable: boolean;
  /** ISO time of the message. */
  at: string;
}

export const THREAD_STATUSES = ['open', 'resolved', 'cancelled'] as const;
export type ThreadStatus = (typeof THREAD_STATUSES)[number];

export interface ThreadTimelineEntry {
  msgIndex: number;
  /** `opened`, `request` (a further request: a subgoal), `action` / `action_failed` (a state-changing call), `handoff`, `resolved`, `cancelled`, `deferred`, `reopened`. */
  kind: 'opened' | 'request' | 'action' | 'action_failed' | 'handoff' | 'resolved' | 'cancelled' | 'deferred' | 'reopened';
  text: string;
}

/** A task the user asked for (spec "Thread"). */
export interface Thread {
  id: string;
  status: ThreadStatus;
  summary: string;
  goal: string;
  timeline: ThreadTimelineEntry[];
  subgoals: Array<{ msgIndex: number; text: string }>;
}

/** spec "Segment" of the world state. `openThreads`: the threads open at some point of the segment, with their status at its end. */
export interface WorldSegment {
  segmentIndex: number;
  segmentId: string;
  startMsgIdx: number;
  endMsgIdx: number;
  /** Every slot at the end of the segment (durable and segment-local). */
  slots: SlotMap;
  /** Durable slots carried into the segment (from earlier segments, or the user's memory for the first). */
  carryIn: SlotMap;
  openThreads: Thread[];
  slotCounts: { durable: number; segmentLocal: number; total: number };
}

/** spec "User durable profile"; also the shape of `conversationWarmstart`. */
export interface DurableProfile {
  slots: SlotMap;
  updatedAt: string | null;
  slotCount: number;
}

export interface WorldStateSummary {
  eventCount: number;
  segmentCount: number;
  lastUpdatedAt: string | null;
}

/** The body of GET /conversations/:id/world-state (without limits) and `world_state` of `tracehouse analyze`. */
export interface WorldState {
  hasData: boolean;
  userId: string | null;
  userDurableProfile: DurableProfile | null;
  conversationWarmstart: DurableProfile | null;
  segments: WorldSegment[];
  events: StateEvent[];
  summary: WorldStateSummary;
}

/** What a fold yields: current slots and the ids of the open threads (in opening order). */
export interface FoldState {
  slots: SlotMap;
  openThreads: string[];
}

export const emptyFoldState = (): FoldState => ({ slots: {}, openThreads: [] });

export function cloneFoldState(s: FoldState): FoldState {
  return { slots: { ...s.slots }, openThreads: [...s.openThreads] };
}

/** Applies one event to a state, in place. */
export function applyEvent(state: FoldState, e: StateEvent): void {
  switch (e.eventType) {
    case 'carry_in':
    case 'slot_set':
    case 'slot_update':
      state.slots[e.slotKey] = { value: e.newValue ?? '', source: e.provenance, durable: e.durable, updatedAt: e.at };
      return;
    case 'slot_expire':
      delete state.slots[e.slotKey];
      return;
    case 'thread_open':
    case 'thread_reopen':
      if (!state.openThreads.includes(e.slotKey)) state.openThreads.push(e.slotKey);
      return;
    case 'thread_resolve':
    case 'thread_cancel':
      state.openThreads = state.openThreads.filter((t) => t !== e.slotKey);
      return;
  }
}

/** A slot map with sorted keys, so equal states serialize equally (`slotsJson`). */
export function sortedSlots(slots: SlotMap): SlotMap {
  const out: SlotMap = {};
  for (const k of Object.keys(slots).sort()) out[k] = slots[k]!;
  return out;
}

/** Position of an event in fold order, compared with a (message, block) point. */
export const atOrBefore = (e: Pick<StateEvent, 'msgIndex' | 'blockIndex'>, msgIndex: number, blockIndex: number): boolean =>
  e.msgIndex < msgIndex || (e.msgIndex === msgIndex && e.blockIndex <= blockIndex);

/** The state after folding every event at or before (msgIndex, blockIndex), starting from `from`. */
export function foldUntil(from: FoldState, events: readonly StateEvent[], msgIndex: number, blockIndex: number): FoldState {
  const state = cloneFoldState(from);
  for (const e of events) {
    if (!atOrBefore(e, msgIndex, blockIndex)) break;
    applyEvent(state, e);
  }
  return state;
}

/** One folded frame per message (spec "Replay frame"). */
export interface ReplayFrame {
  msgIndex: number;
  segmentIndex: number;
  blockIndex: number;
  slots: SlotMap;
  slotsJson: string;
  openThreads: string[];
  hasSnapshot: boolean;
}

/**
 * Frames for messages 0 … messageCount − 1 (at most `maxFrames`), folding `events` (in fold
 * order) from the empty state. `segmentOf(i)` gives the segment index of message i. A frame's
 * `blockIndex` is the last block at which its message changed the state (0 when it did not).
 */
export function replayFrames(events: readonly StateEvent[], messageCount: number, segmentOf: (msgIndex: number) => number, maxFrames: number): ReplayFrame[] {
  const frames: ReplayFrame[] = [];
  const state = emptyFoldState();
  let k = 0;
  const n = Math.min(messageCount, maxFrames);
  for (let i = 0; i < n; i++) {
    let changed = false;
    let block = 0;
    while (k < events.length && events[k]!.msgIndex <= i) {
      const e = events[k++]!;
      applyEvent(state, e);
      if (e.msgIndex === i) {
        changed = true;
        block = Math.max(block, e.blockIndex);
      }
    }
    const slots = sortedSlots(state.slots);
    frames.push({ msgIndex: i, segmentIndex: segmentOf(i), blockIndex: block, slots, slotsJson: JSON.stringify(slots), openThreads: [...state.openThreads], hasSnapshot: changed });
  }
  return frames;
}
