/**
 * Rows of the step-score and world-state tables for one conversation (migration 0090), and the
 * user-memory pass of a batch: conversations of one user analyzed in time order, each warm-started
 * from the memory as it stands after the earlier ones, and one memory row per user whose document
 * changed. Pure, like the rest of work.ts.
 */
import { withFields } from '../../core/own.js';
import { applyEvent, cloneFoldState, emptyFoldState, sortedSlots, type StateEvent, type WorldState } from '../../schemas/world-state.js';
import type { ConversationSnapshot, StepScores, UserMemoryDocument } from '../analyses/types.js';
import { contributionOf, emptyMemory, mergeMemory, memorySlotCount, parseMemory } from '../analyses/user-memory.js';

type Row = Record<string, unknown> & { item_key: string };
export interface RowBase {
  tenant_id: string;
  conversation_id: string;
  version: number;
  is_deleted: number;
}

const iso = (ms: number) => new Date(ms).toISOString();
const lastTs = (s: ConversationSnapshot) => s.messages[s.messages.length - 1]?.ts ?? 0;

/** The text the `world_state` filter searches: every value a slot of a segment held, and what was carried in. */
function searchText(ws: WorldState): string {
  const terms = new Set<string>();
  for (const e of ws.events) if (e.newValue !== null && !e.eventType.startsWith('thread_')) terms.add(`${e.slotKey} ${e.newValue}`.toLowerCase());
  for (const g of ws.segments) for (const [k, v] of Object.entries(g.carryIn)) terms.add(`${k} ${v.value}`.toLowerCase());
  return [...terms].join('\n');
}

/** One row per segment (its object, keyframe and events) and one for the conversation. */
export function worldStateRows(s: ConversationSnapshot, ws: WorldState, base: RowBase, analyzerVersion: number): Row[] {
  const rows: Row[] = [];
  const state = emptyFoldState();
  let k = 0;
  for (const seg of ws.segments) {
    const start = cloneFoldState(state);
    const keyframe = { slots: sortedSlots(start.slots), openThreads: start.openThreads };
    const events: StateEvent[] = [];
    while (k < ws.events.length && ws.events[k]!.segmentIndex === seg.segmentIndex) {
      applyEvent(state, ws.events[k]!);
      events.push(ws.events[k++]!);
    }
    rows.push(withFields(base, {
      item_key: seg.segmentId,
      analyzer_version: analyzerVersion,
      kind: 'segment',
      segment_index: seg.segmentIndex,
      start_index: seg.startMsgIdx,
      end_index: seg.endMsgIdx,
      user_id: s.userId,
      message_count: s.messages.length,
      event_count: events.length,
      updated_at: events.length ? events[events.length - 1]!.at : iso(s.messages[seg.endMsgIdx]?.ts ?? 0),
      search_text: '',
      doc: JSON.stringify({ segment: seg, keyframe, events }),
    }));
  }
  rows.push(withFields(base, {
    item_key: 'conversation',
    analyzer_version: analyzerVersion,
    kind: 'conversation',
    segment_index: -1,
    start_index: 0,
    end_index: s.messages.length - 1,
    user_id: s.userId,
    message_count: s.messages.length,
    event_count: ws.events.length,
    updated_at: ws.summary.lastUpdatedAt ?? iso(lastTs(s)),
    search_text: searchText(ws),
    doc: JSON.stringify({ userId: ws.userId, userDurableProfile: ws.userDurableProfile, conversationWarmstart: ws.conversationWarmstart, summary: ws.summary }),
  }));
  return rows;
}

/** One row per scored segment and one for the rollup (none while no segment carries weight). */
export function stepScoreRows(s: ConversationSnapshot, scores: StepScores, base: RowBase, analyzerVersion: number): Row[] {
  const common = withFields(base, { analyzer_version: analyzerVersion, environment: s.environment, user_id: s.userId });
  const rows: Row[] = scores.segments.map((g, i) => withFields(common, {
    item_key: g.segment_id,
    kind: 'segment',
    segment_index: i,
    score: g.steps.length ? g.steps[g.steps.length - 1]!.progress_score : 0,
    failure_type: g.failure_type?.failure_type ?? '',
    blended_score: null,
    segment_count: 0,
    weighted_segment_count: 0,
    total_weight: 0,
    scored_at: g.scored_at,
    doc: JSON.stringify(g),
  }));
  const r = scores.rollup;
  if (r) {
    const head = withFields(common, { item_key: 'rollup', kind: 'rollup', segment_index: -1, score: r.blended_score, failure_type: '' });
    rows.push(withFields(withFields(head, r), { scored_at: iso(lastTs(s)), doc: JSON.stringify(r) }));
  }
  return rows;
}

/**
 * The order of a batch's conversations for the memory pass: by user key in the locale's collation
 * (users without an id, key '', first), then by start, then by conversation id. The same order as
 * sorting with `keys[a].localeCompare(keys[b]) || starts[a] - starts[b] || (ids[a] < ids[b] ? -1 : 1)`,
 * without building and collating two key strings per comparison: the distinct keys are collated once
 * into ranks (keys the collation holds equal share a rank), then indices sort by numbers.
 */
export function memoryOrder(keys: readonly string[], starts: readonly number[], ids: readonly string[]): number[] {
  const distinct = [...new Set(keys)].sort((a, b) => a.localeCompare(b));
  const rankOf = new Map<string, number>();
  let rank = 0;
  distinct.forEach((k, i) => {
    if (i > 0 && distinct[i - 1]!.localeCompare(k) !== 0) rank++;
    rankOf.set(k, rank);
  });
  const ranks = keys.map((k) => rankOf.get(k)!);
  return keys.map((_, i) => i).sort((a, b) => ranks[a]! - ranks[b]! || starts[a]! - starts[b]! || (ids[a]! < ids[b]! ? -1 : 1));
}

/** A stored memory document as the loader reads it. */
export interface MemoryRowIn {
  doc: string;
}

interface UserState {
  tenantId: string;
  userId: string;
  loaded: string;
  doc: UserMemoryDocument;
  lastConversation: string;
}

/**
 * The user-memory pass: `order` gives the items to analyze, a user's conversations in time order;
 * `memoryOf` the memory to warm-start each with; `remember` folds a conversation's durable slots in.
 */
export function createMemoryPass(items: ReadonlyArray<{ tenantId: string; conversationId: string; userMemory?: string }>, snapshots: readonly ConversationSnapshot[]) {
  const users = new Map<string, UserState>();
  // each conversation's user key, built once ('' without a user id)
  const keys = items.map((item, i) => (snapshots[i]!.userId ? `${item.tenantId}\u0000${snapshots[i]!.userId}` : ''));
  items.forEach((item, i) => {
    const key = keys[i]!;
    if (!key || users.has(key)) return;
    const doc = item.userMemory ? parseMemory(snapshots[i]!.userId, item.userMemory) : emptyMemory(snapshots[i]!.userId);
    users.set(key, { tenantId: item.tenantId, userId: snapshots[i]!.userId, loaded: JSON.stringify(doc), doc, lastConversation: '' });
  });
  const order = memoryOrder(
    keys,
    snapshots.map((s) => s.messages[0]?.ts ?? 0),
    items.map((item) => item.conversationId),
  );
  return {
    order,
    memoryOf: (i: number): UserMemoryDocument | undefined => users.get(keys[i]!)?.doc,
    remember(i: number, ws: WorldState): void {
      const u = users.get(keys[i]!);
      if (!u || !ws.userDurableProfile) return;
      u.doc = mergeMemory(u.doc, items[i]!.conversationId, contributionOf(items[i]!.conversationId, ws.userDurableProfile.slots));
      u.lastConversation = items[i]!.conversationId;
    },
    /** A row per user whose document changed. */
    rows(version: number, analyzerVersion: number): Record<string, unknown>[] {
      const out: Record<string, unknown>[] = [];
      for (const u of users.values()) {
        const doc = JSON.stringify(u.doc);
        if (doc === u.loaded) continue;
        out.push({ tenant_id: u.tenantId, user_id: u.userId, version, analyzer_version: analyzerVersion, slot_count: memorySlotCount(u.doc), updated_at: iso(u.doc.updatedAt), last_conversation_id: u.lastConversation, doc });
      }
      return out;
    },
  };
}
