import { namedQuery, type Store } from '../../core/clickhouse.js';
import { messageToolParts, type ToolCallOut, type ToolResultOut } from '../message-parts.js';
import { isoTimestamp } from '../time.js';

export interface ContextMessage {
  index: number;
  role: string;
  content: string;
  tool_calls: ToolCallOut[];
  tool_results: ToolResultOut[];
  timestamp: string;
}

interface RawPosition {
  message_id: string;
  idx: number | string;
  total: number | string;
}

interface RawMessage {
  message_id: string;
  role: string;
  content: string;
  content_blocks: string;
  tool_calls: string;
  tool_results: string;
  ts: string;
}

/**
 * Typed reads behind GET /conversations/:id/context. Two steps so that the cost follows the window,
 * not the conversation: positions over narrow columns (with the summary, in parallel), then the
 * wide columns of the window's messages only (at most 2 × window + 1, by primary key).
 */
export function createContextRepo(store: Store) {
  return {
    async window(tenant: string, id: string, msgIndex: number | undefined, window: number) {
      const [positions, summary] = await Promise.all([
        store.query<RawPosition>(namedQuery('query-context-positions'), {
          tenant,
          id,
          has_index: msgIndex === undefined ? 0 : 1,
          msg_index: msgIndex ?? 0,
          window,
        }),
        store.query<{ summary: string }>(namedQuery('query-conversation-summary'), { tenant, id }),
      ]);
      const ids = positions.map((p) => p.message_id);
      const wide = ids.length ? await store.query<RawMessage>(namedQuery('query-context-messages'), { tenant, id, ids }) : [];
      const byId = new Map(wide.map((r) => [r.message_id, r]));
      const total = positions.length ? Number(positions[0]!.total) : 0;
      const center = total === 0 ? null : msgIndex === undefined ? Math.floor((total - 1) / 2) : Math.min(msgIndex, total - 1);
      const messages: ContextMessage[] = [];
      for (const p of positions) {
        const r = byId.get(p.message_id);
        if (!r) continue; // not possible within one snapshot; a concurrent delete would drop it
        messages.push({ index: Number(p.idx), role: r.role, content: r.content, ...messageToolParts(r), timestamp: isoTimestamp(r.ts) });
      }
      return {
        total,
        summary: summary[0]?.summary ?? '',
        center,
        from: messages.length ? messages[0]!.index : null,
        to: messages.length ? messages[messages.length - 1]!.index : null,
        messages,
      };
    },
  };
}
