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

/** The index of the row that carries the conversation's summary (query-context-window-rows.sql). */
const SUMMARY_ROW = -1;

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
 * Typed reads behind GET /conversations/:id/context, so that the cost follows the window, not the
 * conversation: one statement finds the window's positions over narrow columns, reads the wide
 * columns of the window's messages only (at most 2 × window + 1, by primary key) and the summary
 * beside them (a row of its own, index -1). One statement rather than two at once: on a busy engine
 * each statement waits for its turn, and between two reads the gate lets one other statement go (a
 * sink insert or background work; docs/data-api.md).
 */
export function createContextRepo(store: Store) {
  return {
    async window(tenant: string, id: string, msgIndex: number | undefined, window: number) {
      const all = await store.query<RawPosition & RawMessage>(namedQuery('query-context-window-rows'), {
        tenant,
        id,
        has_index: msgIndex === undefined ? 0 : 1,
        msg_index: msgIndex ?? 0,
        window,
      });
      let summary = '';
      const rows: typeof all = [];
      for (const r of all) {
        if (Number(r.idx) === SUMMARY_ROW) summary = r.content;
        else rows.push(r);
      }
      // the statement returns the window's rows unordered (≤ 2 × window + 1 of them)
      rows.sort((a, b) => Number(a.idx) - Number(b.idx));
      const total = rows.length ? Number(rows[0]!.total) : 0;
      const center = total === 0 ? null : msgIndex === undefined ? Math.floor((total - 1) / 2) : Math.min(msgIndex, total - 1);
      const messages: ContextMessage[] = rows.map((r) => ({ index: Number(r.idx), role: r.role, content: r.content, ...messageToolParts(r), timestamp: isoTimestamp(r.ts) }));
      return {
        total,
        summary,
        center,
        from: messages.length ? messages[0]!.index : null,
        to: messages.length ? messages[messages.length - 1]!.index : null,
        messages,
      };
    },
  };
}
