import { namedQuery, type Store } from '../../core/clickhouse.js';
import { isoTimestamp } from '../time.js';

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

/**
 * Typed reads behind GET /search (keyword mode): the hits, then the message index of each hit,
 * computed over the hits' conversations only (at most `limit` of them).
 */
export function createSearchRepo(store: Store) {
  return {
    async keyword(opts: {
      tenant: string;
      q: string;
      limit: number;
      conversationId: string;
      userId: string;
      environment: string;
      sinceMs: number;
    }): Promise<SearchHit[]> {
      const hits = await store.query<RawHit>(namedQuery('query-search-messages'), {
        tenant: opts.tenant,
        q: opts.q,
        limit: opts.limit,
        conversation_id: opts.conversationId,
        user_id: opts.userId,
        environment: opts.environment,
        since_ms: opts.sinceMs,
      });
      if (hits.length === 0) return [];
      const positions = await store.query<{ conversation_id: string; message_id: string; idx: number | string }>(namedQuery('query-search-positions'), {
        tenant: opts.tenant,
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
