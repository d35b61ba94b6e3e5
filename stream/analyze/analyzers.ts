/**
 * Pluggable analyses run when conversations change. Each analyzer has a name and a version
 * (a change of version means its rows are recomputed) and a `run` that reads what it needs and
 * writes its rows. Runs are batch-shaped: one call with every conversation of the batch (of any
 * tenants), so an analyzer costs one query and one insert per batch rather than per conversation
 * or per tenant (the embedded engine has a fixed cost per query and is shared with inserts and
 * the data API; a batch of a busy system touches many tenants).
 * The list is ordered (see `defaultAnalyzers`); analyzers appended after the conversation rollup
 * can read exact `conversations` rows.
 */
import { TupleParam } from '@clickhouse/client';
import { namedQuery, type Store } from '../../core/clickhouse.js';
import type { Logger } from '../../core/log.js';
import { toolFailureRollup } from './tool-failures.js';
import { nextVersion } from './version.js';

export interface AnalyzerContext {
  store: Store;
  log: Logger;
  /** Monotonic version for rows written by this run (ms since epoch, made unique per process). */
  version: number;
}

export interface Analyzer {
  name: string;
  version: number;
  /** Analyzes `conversations` (distinct). Throws to have the whole batch retried. */
  run(ctx: AnalyzerContext, conversations: readonly ConversationKey[]): Promise<void>;
}

export interface ConversationKey {
  tenantId: string;
  conversationId: string;
}

interface RollupRow {
  tenant_id: string;
  conversation_id: string;
  events: string | number;
  environment: string;
  user_id: string;
  agent: string;
  message_count: string | number;
  first_ts: string;
  last_ts: string;
  input_tokens: string | number;
  output_tokens: string | number;
  cost_usd: number;
  api_request_count: string | number;
  api_error_count: string | number;
  tool_call_count: string | number;
  tool_failure_count: string | number;
  thread_count: string | number;
}

/** Conversations per rollup query: bounds the IN list and the memory of one query. */
export const ROLLUP_CHUNK = 1000;

/** Recomputes the `conversations` rows of the conversations, exactly, from the deduplicated tables. */
export const conversationRollup: Analyzer = {
  name: 'conversation-rollup',
  version: 1,
  async run(ctx, conversations) {
    for (let i = 0; i < conversations.length; i += ROLLUP_CHUNK) {
      const keys = conversations.slice(i, i + ROLLUP_CHUNK).map((k) => new TupleParam([k.tenantId, k.conversationId]));
      const found = await ctx.store.query<RollupRow>(namedQuery('stream-conversation-rollup'), { keys });
      const rows = found.filter((r) => Number(r.events) > 0).map((r) => rollupRow(ctx, r));
      if (rows.length) await ctx.store.insert('conversations', rows);
    }
  },
};

function rollupRow(ctx: AnalyzerContext, r: RollupRow) {
  return {
    tenant_id: r.tenant_id,
    conversation_id: r.conversation_id,
    version: ctx.version,
    environment: r.environment || 'production',
    user_id: r.user_id,
    agent: r.agent,
    message_count: Number(r.message_count),
    first_ts: r.first_ts,
    last_ts: r.last_ts,
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
    cost_usd: Number(r.cost_usd),
    tool_call_count: Number(r.tool_call_count),
    tool_failure_count: Number(r.tool_failure_count),
    api_request_count: Number(r.api_request_count),
    api_error_count: Number(r.api_error_count),
    thread_count: Number(r.thread_count),
    summary: '',
  };
}

/**
 * The default analyzer list; later analyses are appended here. The tool-failure rollup runs before
 * the conversation rollup: once a conversation's row shows a change, the rollup of its calls is
 * already written (tests and readers that wait for the conversation row see both).
 */
export const defaultAnalyzers: Analyzer[] = [toolFailureRollup, conversationRollup];

export { nextVersion };
