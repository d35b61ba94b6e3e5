import { TupleParam } from '@clickhouse/client';
import { namedQuery, type Store } from '../../core/clickhouse.js';
import { isoTimestamp } from '../time.js';
import { withFields } from '../../core/own.js';

export interface SearchHit {
  conversation_id: string;
  message_index: number;
  message_id: string;
  role: string;
  snippet: string;
  score: number;
  timestamp: string;
}

interface RawHit {
  conversation_id: string;
  message_id: string;
  role: string;
  ts: string;
  score: number | string;
  snippet: string;
  cut_start: number | boolean;
  cut_end: number | boolean;
}

/** Whitespace folded to single spaces; `…` where the snippet cuts the message. */
export function formatSnippet(text: string, cutStart: boolean, cutEnd: boolean): string {
  const body = text.replace(/\s+/g, ' ').trim();
  return `${cutStart ? '…' : ''}${body}${cutEnd ? '…' : ''}`;
}

export type SearchSort = 'recent' | 'relevance';

type KeywordOpts = {
  tenant: string;
  q: string;
  limit: number;
  conversationId: string;
  userId: string;
  environment: string;
  sinceMs: number;
  sort: SearchSort;
};

/**
 * Typed reads behind GET /search (keyword mode): the hits — newest first (`recent`: candidates from
 * narrow columns, then the newest version of each candidate) or by score (`relevance`: every match
 * is scored) — then the message index of each hit, computed over the hits' conversations only.
 */
export function createSearchRepo(store: Store) {
  const filters = (o: KeywordOpts) => ({
    tenant: o.tenant,
    q: o.q,
    conversation_id: o.conversationId,
    user_id: o.userId,
    environment: o.environment,
    since_ms: o.sinceMs,
  });

  /** Newest matching messages: grows the candidate pool until the page is full or the matches end. */
  async function recent(o: KeywordOpts): Promise<RawHit[]> {
    for (let candidates = o.limit * 2 + 8; ; candidates *= 4) {
      const rows = await store.query<{ conversation_id: string; message_id: string }>(namedQuery('query-search-recent-candidates'), withFields(filters(o), { candidates }));
      if (rows.length === 0) return [];
      const keys = [...new Map(rows.map((r) => [`${r.conversation_id}\u0000${r.message_id}`, r])).values()];
      const hits = await store.query<RawHit>(namedQuery('query-search-recent-hits'), withFields(filters(o), {
        limit: o.limit,
        conversations: [...new Set(keys.map((k) => k.conversation_id))],
        keys: keys.map((k) => new TupleParam([k.conversation_id, k.message_id])),
      }));
      // fewer candidate rows than asked for: every match was a candidate, so the page is exact
      if (hits.length >= o.limit || rows.length < candidates) return hits;
    }
  }

  return {
    async keyword(o: KeywordOpts): Promise<SearchHit[]> {
      const hits = o.sort === 'recent' ? await recent(o) : await store.query<RawHit>(namedQuery('query-search-messages'), withFields(filters(o), { limit: o.limit }));
      if (hits.length === 0) return [];
      const positions = await store.query<{ conversation_id: string; message_id: string; idx: number | string }>(namedQuery('query-search-positions'), {
        tenant: o.tenant,
        conversations: [...new Set(hits.map((h) => h.conversation_id))],
        ids: hits.map((h) => h.message_id),
      });
      const index = new Map(positions.map((p) => [`${p.conversation_id}\u0000${p.message_id}`, Number(p.idx)]));
      // a hit whose message has no position cannot exist within one snapshot; skip it defensively
      return hits.filter((r) => index.has(`${r.conversation_id}\u0000${r.message_id}`)).map((r) => ({
        conversation_id: r.conversation_id,
        message_index: index.get(`${r.conversation_id}\u0000${r.message_id}`)!,
        message_id: r.message_id,
        role: r.role,
        snippet: formatSnippet(r.snippet, Boolean(Number(r.cut_start)), Boolean(Number(r.cut_end))),
        score: Number(r.score),
        timestamp: isoTimestamp(r.ts),
      }));
    },
  };
}
