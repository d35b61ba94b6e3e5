import type Router from '@koa/router';
import type { RequestState } from '../../core/http.js';
import type { Infer } from '../../schemas/api/infer.js';
import { conversationWorldState, MAX_REPLAY_FRAMES, worldStateReplay, worldStateSnapshot } from '../../schemas/api/world-state.js';
import { applyEvent, atOrBefore, cloneFoldState, replayFrames, sortedSlots, type SlotMap, type StateEvent } from '../../schemas/world-state.js';
import { createWorldStateRepo, type StoredSegment, type StoredWorldState } from '../repo/world-state.js';
import { defineRoute } from './define.js';
import type { RouteDeps } from './deps.js';

type StateQuery = Infer<(typeof conversationWorldState)['query']>;
type StateResponse = Infer<(typeof conversationWorldState)['response']>;
type ReplayQuery = Infer<(typeof worldStateReplay)['query']>;
type ReplayResponse = Infer<(typeof worldStateReplay)['response']>;
type SnapshotQuery = Infer<(typeof worldStateSnapshot)['query']>;
type SnapshotResponse = Infer<(typeof worldStateSnapshot)['response']>;

const TOP_SLOTS = 5;

const allEvents = (w: StoredWorldState): StateEvent[] => w.segments.flatMap((s) => s.events);

/** The segment index of every message (segments cover the conversation in order). */
function segmentIndexer(w: StoredWorldState): (msgIndex: number) => number {
  return (i) => {
    let lo = 0;
    let hi = w.segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (w.segments[mid]!.segment.startMsgIdx <= i) lo = mid;
      else hi = mid - 1;
    }
    return w.segments[lo]?.segment.segmentIndex ?? 0;
  };
}

function segmentSummary(s: StoredSegment) {
  const slots = Object.entries(s.segment.slots).sort(([ka, a], [kb, b]) => (a.updatedAt === b.updatedAt ? (ka < kb ? -1 : 1) : a.updatedAt > b.updatedAt ? -1 : 1));
  return { segmentIndex: s.segment.segmentIndex, durableCount: s.segment.slotCounts.durable, topSlots: slots.slice(0, TOP_SLOTS).map(([key, v]) => ({ key, value: v.value })) };
}

const EMPTY_STATE: StateResponse = {
  hasData: false,
  userId: null,
  userDurableProfile: null,
  conversationWarmstart: null,
  segments: [],
  events: [],
  summary: { eventCount: 0, segmentCount: 0, lastUpdatedAt: null },
};

/** spec/data-api.md GET /conversations/:id/world-state, /replay and /snapshot. */
export function mountWorldState(router: Router<RequestState>, deps: RouteDeps): void {
  const repo = createWorldStateRepo(deps.store);

  defineRoute<StateQuery>(router, deps.keys, conversationWorldState, async ({ principal, query: q, params }): Promise<StateResponse> => {
    const w = await repo.load(principal.tenant, params.id ?? '');
    const summaryOnly = q.summary_only === '1' || q.summary_only === 'true';
    if (!w) return summaryOnly ? { ...EMPTY_STATE, segmentSummaries: [] } : EMPTY_STATE;
    const head = { hasData: true, userId: w.userId, userDurableProfile: w.userDurableProfile, conversationWarmstart: w.conversationWarmstart, summary: w.summary };
    if (summaryOnly) return { ...head, segments: [], events: [], segmentSummaries: w.segments.map(segmentSummary) };
    return { ...head, segments: w.segments.map((s) => s.segment), events: allEvents(w).slice(0, q.event_limit) };
  });

  defineRoute<ReplayQuery>(router, deps.keys, worldStateReplay, async ({ principal, query: q, params }): Promise<ReplayResponse> => {
    const w = await repo.load(principal.tenant, params.id ?? '');
    if (!w) return q.format === 'frames' ? { hasData: false, messageCount: 0, frames: [] } : { hasData: false, messageCount: 0, keyframes: [], events: [] };
    const n = q.message_count === 0 ? w.messageCount : Math.min(q.message_count, w.messageCount);
    const events = allEvents(w).filter((e) => e.msgIndex < n);
    if (q.format === 'frames') return { hasData: true, messageCount: n, frames: replayFrames(events, n, segmentIndexer(w), MAX_REPLAY_FRAMES) };
    // fold_inputs: the state at each segment start and every event after it, uncapped
    const keyframes: NonNullable<ReplayResponse['keyframes']> = [];
    let before = 0;
    for (const s of w.segments) {
      if (s.segment.startMsgIdx >= n) break;
      keyframes.push({ segmentIndex: s.segment.segmentIndex, msgIndex: s.segment.startMsgIdx, eventIndex: before, slots: s.keyframe.slots, openThreads: s.keyframe.openThreads });
      before += s.events.length;
    }
    return { hasData: true, messageCount: n, keyframes, events };
  });

  defineRoute<SnapshotQuery>(router, deps.keys, worldStateSnapshot, async ({ principal, query: q, params }): Promise<SnapshotResponse> => {
    const w = await repo.load(principal.tenant, params.id ?? '');
    const notFound = (msgIndex: number): SnapshotResponse => ({ found: false, segmentIndex: q.segment_index ?? null, msgIndex, blockIndex: q.block_index, slots: {} });
    if (!w || w.messageCount === 0 || w.segments.length === 0) return notFound(q.msg_index);
    // spec/data-api.md Errors rule 2: out of range is clamped (past the last message: the last)
    const msgIndex = Math.min(q.msg_index, w.messageCount - 1);
    const at = segmentIndexer(w)(msgIndex);
    const segment = w.segments.find((s) => s.segment.segmentIndex === at)!;
    if (q.segment_index !== undefined && q.segment_index !== segment.segment.segmentIndex) return notFound(msgIndex);
    const state = cloneFoldState(segment.keyframe);
    for (const e of segment.events) {
      if (!atOrBefore(e, msgIndex, q.block_index)) break;
      applyEvent(state, e);
    }
    const slots: SlotMap = sortedSlots(state.slots);
    return { found: true, segmentIndex: segment.segment.segmentIndex, msgIndex, blockIndex: q.block_index, slots };
  });
}
