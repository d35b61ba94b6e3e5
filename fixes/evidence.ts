/**
 * Evidence reads of fix scoping (ClickHouse): replay scenarios (first user message per
 * conversation) and failed tool calls with their categories' action hints.
 */
import { namedQuery, type Store } from '../core/clickhouse.js';

export interface ToolFailureEvidence {
  conversationId: string;
  toolName: string;
  actionHint: string;
  failures: number;
}

export interface EvidenceReader {
  scenarios(tenant: string, conversationIds: string[]): Promise<Map<string, string>>;
  toolFailures(tenant: string, conversationIds: string[]): Promise<ToolFailureEvidence[]>;
}

export function createEvidenceReader(store: Store): EvidenceReader {
  return {
    async scenarios(tenant, ids) {
      if (!ids.length) return new Map();
      const rows = await store.query<{ conversation_id: string; scenario: string }>(namedQuery('fix-evidence-scenarios'), { tenant, ids });
      return new Map(rows.map((r) => [r.conversation_id, r.scenario]));
    },
    async toolFailures(tenant, ids) {
      if (!ids.length) return [];
      const rows = await store.query<{ conversation_id: string; tool_name: string; action_hint: string | null; failures: string | number }>(namedQuery('fix-evidence-tool-failures'), { tenant, ids });
      return rows.map((r) => ({ conversationId: r.conversation_id, toolName: r.tool_name, actionHint: r.action_hint ?? '', failures: Number(r.failures) }));
    },
  };
}
