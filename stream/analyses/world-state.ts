/**
 * World state: what a conversation established, message by message. One causal walk over the
 * messages (a decision at message i reads only messages up to i, so events already emitted never
 * change as the conversation grows) emits state events — slots set or changed with their
 * provenance (world-state-slots.ts), segment-local slots expiring at a segment boundary, durable
 * slots carried in from the user's memory, threads opened, resolved, cancelled or reopened
 * (world-state-threads.ts). The state at any point is these events folded in order
 * (schemas/world-state.ts); segments record their end state and what was carried into them.
 */
import { applyEvent, emptyFoldState, sortedSlots, type DurableProfile, type SlotMap, type SlotProvenance, type StateEvent, type StateEventType, type Thread, type WorldSegment, type WorldState } from '../../schemas/world-state.js';
import { factsFromCallInput, factsFromCallResult, isAction, type Fact } from './world-state-slots.js';
import { factsFromUserText, statedTokens } from './world-state-speech.js';
import { createThreadBook, isHandoff, type ThreadChange } from './world-state-threads.js';
import { isHumanTurn, requestText } from './text/turns.js';
import type { ConversationSnapshot, Segment, SnapshotMessage, SnapshotToolCall } from './types.js';
import { warmstart } from './user-memory.js';

export const WORLD_STATE_VERSION = 1;

const iso = (ms: number) => new Date(ms).toISOString();

/** Canonical blocks of a message: 0 is its text, then its calls (tool_use), then the calls it answers. */
interface MessageBlocks {
  uses: Array<{ call: SnapshotToolCall; block: number }>;
  results: Array<{ call: SnapshotToolCall; block: number }>;
  /** Telemetry calls placed at this message (after its own blocks). */
  telemetry: Array<{ call: SnapshotToolCall; block: number }>;
}

function blocksByMessage(s: ConversationSnapshot): MessageBlocks[] {
  const out: MessageBlocks[] = s.messages.map(() => ({ uses: [], results: [], telemetry: [] }));
  const resultsAt = new Map<number, SnapshotToolCall[]>();
  const telemetryAt = new Map<number, SnapshotToolCall[]>();
  for (const c of s.toolCalls) {
    if (c.messageIndex !== null) out[c.messageIndex]!.uses.push({ call: c, block: out[c.messageIndex]!.uses.length + 1 });
    else if (c.resultIndex === null && s.messages.length) push(telemetryAt, Math.max(0, c.position), c);
    if (c.resultIndex !== null) push(resultsAt, c.resultIndex, c);
  }
  for (const [i, calls] of resultsAt) {
    // order of the tool_result blocks in the message
    const order = new Map<string, number>();
    s.messages[i]!.blocks.forEach((b, k) => b.type === 'tool_result' && b.tool_use_id && !order.has(b.tool_use_id) && order.set(b.tool_use_id, k));
    calls.sort((a, b) => (order.get(a.toolUseId) ?? 0) - (order.get(b.toolUseId) ?? 0));
    const base = out[i]!.uses.length + 1;
    out[i]!.results = calls.map((call, r) => ({ call, block: base + r }));
  }
  for (const [i, calls] of telemetryAt) {
    const base = out[i]!.uses.length + out[i]!.results.length + 1;
    out[i]!.telemetry = calls.map((call, t) => ({ call, block: base + t }));
  }
  return out;
}

function push<T>(map: Map<number, T[]>, key: number, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function countSlots(slots: SlotMap) {
  let durable = 0;
  for (const v of Object.values(slots)) if (v.durable) durable++;
  const total = Object.keys(slots).length;
  return { durable, segmentLocal: total - durable, total };
}

const durableOnly = (slots: SlotMap): SlotMap => Object.fromEntries(Object.entries(slots).filter(([, v]) => v.durable));

/** The walk's emitter: numbers events by position and applies them to the running state. */
function createEmitter(s: ConversationSnapshot) {
  const state = emptyFoldState();
  const times = new Map<number, string>();
  const timeOf = (i: number) => {
    let t = times.get(i);
    if (t === undefined) times.set(i, (t = iso(s.messages[i]?.ts ?? 0)));
    return t;
  };
  const events: StateEvent[] = [];
  let lastPos = '';
  let n = 0;
  let segment = { index: 0, id: '' };
  type Change = Pick<StateEvent, 'eventType' | 'slotKey' | 'oldValue' | 'newValue' | 'provenance' | 'durable'> & { at?: string };
  const emit = (msgIndex: number, blockIndex: number, e: Change) => {
    const pos = `${msgIndex}_${blockIndex}`;
    n = pos === lastPos ? n + 1 : 0;
    lastPos = pos;
    const event: StateEvent = { eventId: `ev_${pos}_${n}`, segmentIndex: segment.index, segmentId: segment.id, msgIndex, blockIndex, ...e, at: e.at ?? timeOf(msgIndex) };
    events.push(event);
    applyEvent(state, event);
  };
  /** Id-like values the person said, with where they first said them. */
  const stated = new Map<string, SlotProvenance>();
  const heard = (text: string, msgIndex: number) => {
    if (!/[\d_#]|[A-Z]{5}/.test(text)) return; // no id-like token possible
    for (const v of statedTokens(text)) if (!stated.has(v)) stated.set(v, { source: 'user_text', msgIndex, blockIndex: 0 });
  };
  const setFact = (f: Fact) => {
    const current = state.slots[f.key];
    if (current?.value === f.value) return; // restated: the first statement stays the provenance
    const eventType: StateEventType = current ? 'slot_update' : 'slot_set';
    // a call using a value the person said got it from them: the person's turn is the provenance
    const provenance = f.provenance.source === 'user_text' ? f.provenance : stated.get(f.value) ?? f.provenance;
    emit(f.provenance.msgIndex, f.provenance.blockIndex, { eventType, slotKey: f.key, oldValue: current?.value ?? null, newValue: f.value, provenance, durable: f.durable });
  };
  const threadChange = (msgIndex: number, c: ThreadChange) =>
    emit(msgIndex, 0, { eventType: c.eventType, slotKey: c.threadId, oldValue: c.from, newValue: c.to, provenance: { source: 'user_text', msgIndex, blockIndex: 0 }, durable: false });
  return { state, events, emit, setFact, heard, threadChange, setSegment: (index: number, id: string) => (segment = { index, id }) };
}

/** What each message contributes, in block order: the person's words, then calls, then results. */
function walkMessage(m: SnapshotMessage, blocks: MessageBlocks, previousAgentText: string, em: ReturnType<typeof createEmitter>, book: ReturnType<typeof createThreadBook>, segmentId: string): void {
  if (isHumanTurn(m)) {
    const request = requestText(m);
    if (request.trim()) {
      em.heard(request, m.index);
      for (const f of factsFromUserText(request, m.index, previousAgentText)) em.setFact(f);
      for (const c of book.humanTurn(request, m.index, segmentId)) em.threadChange(m.index, c);
    }
  } else if (m.role === 'assistant' && m.text.trim() && m.threadId === '') book.agentMessage();
  // in block order (fold order): the message's calls, the results it carries, then telemetry calls
  const callFacts = ({ call, block }: { call: SnapshotToolCall; block: number }) => {
    for (const f of factsFromCallInput(call, m.index, block)) em.setFact(f);
    if (isAction(call) || isHandoff(call)) book.action(call, m.index);
  };
  blocks.uses.forEach(callFacts);
  for (const { call, block } of blocks.results) for (const f of factsFromCallResult(call, m.index, block)) em.setFact(f);
  for (const t of blocks.telemetry) {
    callFacts(t);
    for (const f of factsFromCallResult(t.call, m.index, t.block)) em.setFact(f);
  }
}

/** Builds the world state of a snapshot over its segments (in order, covering every message). */
export function buildWorldState(s: ConversationSnapshot, segments: readonly Segment[]): WorldState {
  const warm = warmstart(s.userMemory, s.conversationId, s.messages[0]?.ts ?? 0);
  const em = createEmitter(s);
  const book = createThreadBook();
  const blocks = blocksByMessage(s);
  const out: WorldSegment[] = [];
  const threadsSeen: Array<Set<string>> = [];
  let previousAgentText = '';
  segments.forEach((g, k) => {
    em.setSegment(k, g.segment_id);
    if (k === 0 && warm) {
      for (const [key, slot] of Object.entries(warm.slots)) em.emit(0, 0, { eventType: 'carry_in', slotKey: key, oldValue: null, newValue: slot.value, provenance: slot.source, durable: true, at: slot.updatedAt });
    }
    if (k > 0) {
      book.startSegment();
      for (const key of Object.keys(em.state.slots).sort()) {
        const slot = em.state.slots[key]!;
        if (!slot.durable) em.emit(g.start_index, 0, { eventType: 'slot_expire', slotKey: key, oldValue: slot.value, newValue: null, provenance: slot.source, durable: false });
      }
    }
    const carryIn = sortedSlots(durableOnly(em.state.slots));
    const seen = new Set(em.state.openThreads);
    for (let i = g.start_index; i <= g.end_index; i++) {
      const m = s.messages[i]!;
      const before = em.events.length;
      walkMessage(m, blocks[i]!, previousAgentText, em, book, g.segment_id);
      for (let k = before; k < em.events.length; k++) {
        const e = em.events[k]!;
        if (e.eventType === 'thread_open' || e.eventType === 'thread_reopen') seen.add(e.slotKey);
      }
      if (m.role === 'assistant' && m.threadId === '' && m.text.trim()) previousAgentText = m.text;
    }
    threadsSeen.push(seen);
    const slots = sortedSlots(em.state.slots);
    out.push({ segmentIndex: k, segmentId: g.segment_id, startMsgIdx: g.start_index, endMsgIdx: g.end_index, slots, carryIn, openThreads: [], slotCounts: countSlots(slots) });
  });
  const threads = book.finish();
  const byId = new Map<string, Thread>(threads.map((t) => [t.id, t]));
  // a thread appears in every segment where it was open at some point, with its final status
  out.forEach((seg, k) => (seg.openThreads = [...threadsSeen[k]!].map((id) => byId.get(id)!).filter(Boolean)));
  return {
    hasData: s.messages.length > 0,
    userId: s.userId || null,
    userDurableProfile: profileOf(s.userId, em.state.slots),
    conversationWarmstart: warm,
    segments: out,
    events: em.events,
    summary: { eventCount: em.events.length, segmentCount: out.length, lastUpdatedAt: em.events.length ? em.events[em.events.length - 1]!.at : null },
  };
}

/** The user's durable slots after this conversation (what was carried in, overlaid by what it stated). */
function profileOf(userId: string, slots: SlotMap): DurableProfile | null {
  const durable = sortedSlots(durableOnly(slots));
  const values = Object.values(durable);
  if (!userId && values.length === 0) return null;
  const updated = values.reduce((a, v) => (v.updatedAt > a ? v.updatedAt : a), '');
  return { slots: durable, updatedAt: updated || null, slotCount: values.length };
}
