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
  idx: number | string;
}

/** Whitespace folded to single spaces; `…` where the snippet cuts the message. */
export function formatSnippet(text: string, cutStart: boolean, cutEnd: boolean): string {
  const body = text.replace(/\s+/g, ' ').trim();
  return `${cutStart ? '…' : ''}${body}${cutEnd ? '…' : ''}`;
}

/** Typed read behind GET /search (keyword mode). */
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
      const rows = await store.query<RawHit>(namedQuery('query-search-messages'), {
        tenant: opts.tenant,
        q: opts.q,
        limit: opts.limit,
        conversation_id: opts.conversationId,
        user_id: opts.userId,
        environment: opts.environment,
        since_ms: opts.sinceMs,
      });
      return rows.map((r) => ({
        conversation_id: r.conversation_id,
        message_index: Number(r.idx),
        message_id: r.message_id,
        role: r.role,
        snippet: formatSnippet(r.snippet, Boolean(Number(r.cut_start)), Boolean(Number(r.cut_end))),
        score: Number(r.score),
        timestamp: isoTimestamp(r.ts),
      }));
    },
  };
}
