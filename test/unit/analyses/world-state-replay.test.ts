/**
 * Property tests of the world state on seeded random conversations (ids, e-mails, options, calls
 * with several tool_use blocks and results per message, errors, new goals, withdrawals): replay
 * frames equal the snapshot folded from the stored segment keyframes at every message and block;
 * a segment's end slots equal the frame at its last message; the events of a prefix of the
 * conversation are the full conversation's events before it (nothing emitted changes as it grows).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEvent, atOrBefore, cloneFoldState, replayFrames, sortedSlots, type FoldState, type StateEvent } from '../../../schemas/world-state.js';
import { snapshotsFromDirectEvents } from '../../../stream/analyses/direct-input.js';
import { analyzeSnapshot } from '../../../stream/analyses/pipeline.js';
import type { ConversationSnapshot } from '../../../stream/analyses/types.js';
import { worldStateRows } from '../../../stream/analyze/state-rows.js';
import { rng, type Rng } from '../../../eval/segments/random.js';

const T0 = Date.parse('2025-04-01T08:00:00.000Z');

function randomConversation(r: Rng, id: string, length: number): ConversationSnapshot {
  const events: Record<string, unknown>[] = [];
  const ids = () => `${r.pick(['K', 'Q', 'Z'])}${r.int(10, 99)}${r.pick(['AB', 'XY'])}${r.int(1, 9)}`;
  const user = (): string =>
    r.pick([
      () => `my user id is user_${r.int(1, 3)}`,
      () => `please cancel reservation ${ids()}`,
      () => `my email is p${r.int(1, 3)}@example.org`,
      () => `Another question: what about order #W${r.int(100, 999)}?`,
      () => `I'll go with option ${r.int(1, 3)}`,
      () => 'Thanks, that is all.',
      () => 'Never mind, forget it.',
      () => 'No, that is not what I asked.',
      () => 'Yes, please proceed.',
    ])();
  let k = 0;
  let pending: string[] = [];
  const at = () => new Date(T0 + 1000 * events.length).toISOString();
  while (events.length < length) {
    const kind = pending.length ? 'result' : r.pick(['user', 'user', 'agent', 'calls']);
    if (kind === 'user') events.push({ conversation_id: id, role: 'user', message: user(), timestamp: at() });
    else if (kind === 'agent') events.push({ conversation_id: id, role: 'assistant', message: r.pick(['Done.', 'Could you give me your user ID?', 'Shall I proceed?']), timestamp: at() });
    else if (kind === 'calls') {
      const n = r.int(1, 3);
      const content = Array.from({ length: n }, () => {
        const callId = `c${k++}`;
        pending.push(callId);
        return r.chance(0.5)
          ? { type: 'tool_use', tool_use_id: callId, tool_name: 'get_order_details', input: { order_id: `#W${r.int(100, 999)}` } }
          : { type: 'tool_use', tool_use_id: callId, tool_name: 'update_order', input: { order_id: `#W${r.int(100, 999)}`, size: r.pick(['S', 'M', 'L']), items: [{ item_id: `it_${r.int(1, 9)}`, qty: r.int(1, 3) }] } };
      });
      events.push({ conversation_id: id, role: 'assistant', content, timestamp: at() });
    } else {
      const content = pending.map((callId) => (r.chance(0.2) ? { type: 'tool_result', tool_use_id: callId, content: 'Error: not allowed', is_error: true } : { type: 'tool_result', tool_use_id: callId, content: JSON.stringify({ order_id: `#W${r.int(100, 999)}`, confirmation_id: ids() }) }));
      pending = [];
      events.push({ conversation_id: id, role: 'user', content, timestamp: at() });
    }
  }
  return snapshotsFromDirectEvents(events).snapshots[0]!;
}

interface StoredSegment {
  segment: { segmentIndex: number; startMsgIdx: number; endMsgIdx: number; slots: Record<string, unknown> };
  keyframe: FoldState;
  events: StateEvent[];
}

/** The snapshot as the query role computes it: from the segment keyframe through its events. */
function snapshotAt(segments: StoredSegment[], msgIndex: number, blockIndex: number) {
  const g = [...segments].reverse().find((x) => x.segment.startMsgIdx <= msgIndex)!;
  const state = cloneFoldState(g.keyframe);
  for (const e of g.events) {
    if (!atOrBefore(e, msgIndex, blockIndex)) break;
    applyEvent(state, e);
  }
  return { segmentIndex: g.segment.segmentIndex, slots: sortedSlots(state.slots), openThreads: state.openThreads };
}

test('replay frames equal the snapshots at every message and block, and each segment ends on its frame', () => {
  const r = rng(11);
  for (let c = 0; c < 40; c++) {
    const s = randomConversation(r, `p-${c}`, r.int(5, 60));
    const ws = analyzeSnapshot(s).analysis.world_state!;
    const rows = worldStateRows(s, ws, { tenant_id: 't', conversation_id: s.conversationId, version: 1, is_deleted: 0 }, 1);
    const segments = rows.filter((x) => x.kind === 'segment').map((x) => JSON.parse(x.doc as string) as StoredSegment);
    const segOf = (i: number) => [...segments].reverse().find((x) => x.segment.startMsgIdx <= i)!.segment.segmentIndex;
    const frames = replayFrames(ws.events, s.messages.length, segOf, 5000);
    assert.is(frames.length, s.messages.length);
    for (const f of frames) {
      const snap = snapshotAt(segments, f.msgIndex, Number.MAX_SAFE_INTEGER);
      assert.equal([snap.segmentIndex, snap.slots, snap.openThreads], [f.segmentIndex, f.slots, f.openThreads], `${s.conversationId} message ${f.msgIndex}`);
      assert.is(f.hasSnapshot, ws.events.some((e) => e.msgIndex === f.msgIndex));
      // every block of the message: the fold of the events up to it
      for (const e of ws.events.filter((x) => x.msgIndex === f.msgIndex)) {
        const expected = cloneFoldState({ slots: {}, openThreads: [] });
        // written out here, not through atOrBefore: the reference must not share the code under test
        for (const x of ws.events) if (x.msgIndex < e.msgIndex || (x.msgIndex === e.msgIndex && x.blockIndex <= e.blockIndex)) applyEvent(expected, x);
        assert.equal(snapshotAt(segments, e.msgIndex, e.blockIndex).slots, sortedSlots(expected.slots));
      }
    }
    for (const g of ws.segments) assert.equal(g.slots, frames[g.endMsgIdx]!.slots, `${s.conversationId} segment ${g.segmentIndex}`);
  }
});

test('growth: the events of every prefix are the full conversation\'s events before it', () => {
  const r = rng(23);
  for (let c = 0; c < 15; c++) {
    const s = randomConversation(r, `g-${c}`, r.int(10, 50));
    const full = analyzeSnapshot(s).analysis.world_state!.events;
    for (let p = 1; p < s.messages.length; p += r.int(1, 4)) {
      const prefix: ConversationSnapshot = { ...s, messages: s.messages.slice(0, p), toolCalls: prefixCalls(s, p) };
      const events = analyzeSnapshot(prefix).analysis.world_state!.events;
      assert.equal(events, full.filter((e) => e.msgIndex < p), `${s.conversationId} prefix ${p}`);
    }
  }
});

/** The calls as a snapshot of the first p messages pairs them (results after p not yet known). */
function prefixCalls(s: ConversationSnapshot, p: number) {
  return s.toolCalls
    .filter((c) => (c.messageIndex ?? c.position) < p)
    .map((c) => (c.resultIndex !== null && c.resultIndex >= p ? { ...c, resultIndex: null, success: null, resultText: '' } : c));
}

test.run();
