import { namedQuery, type Store } from '../../core/clickhouse.js';
import type { DurableProfile, FoldState, StateEvent, WorldSegment, WorldStateSummary } from '../../schemas/world-state.js';
import { withFields } from '../../core/own.js';

/** A segment row: the segment object, the state before its first event, its events in fold order. */
export interface StoredSegment {
  segment: WorldSegment;
  keyframe: FoldState;
  events: StateEvent[];
}

export interface StoredWorldState {
  userId: string | null;
  userDurableProfile: DurableProfile | null;
  conversationWarmstart: DurableProfile | null;
  summary: WorldStateSummary;
  messageCount: number;
  /** In segment order. */
  segments: StoredSegment[];
}

interface RawRow {
  kind: string;
  segment_index: number | string;
  message_count: number | string;
  doc: string;
}

/** Typed read behind the world-state endpoints: one primary-key range of `world_state`. */
export function createWorldStateRepo(store: Store) {
  return {
    /** The world state of a conversation, or null when none was built. */
    async load(tenant: string, id: string): Promise<StoredWorldState | null> {
      const rows = await store.query<RawRow>(namedQuery('query-world-state'), { tenant, id });
      const conversation = rows.find((r) => r.kind === 'conversation');
      if (!conversation) return null;
      const doc = JSON.parse(conversation.doc) as Omit<StoredWorldState, 'messageCount' | 'segments'>;
      const segments = rows
        .filter((r) => r.kind === 'segment')
        .sort((a, b) => Number(a.segment_index) - Number(b.segment_index))
        .map((r) => JSON.parse(r.doc) as StoredSegment);
      return withFields(doc, { messageCount: Number(conversation.message_count), segments });
    },
  };
}
