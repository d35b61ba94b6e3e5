/**
 * Pluggable analyses run when a conversation changes. Each analyzer has a name and a version
 * (a change of version means its rows are recomputed) and a `run` that reads what it needs and
 * writes its rows. The list is ordered: the conversation rollup comes first so later analyzers
 * can read an exact `conversations` row.
 */
import { namedQuery, type Store } from '../../core/clickhouse.js';
import type { Logger } from '../../core/log.js';

export interface AnalyzerContext {
  store: Store;
  log: Logger;
  tenantId: string;
  conversationId: string;
  /** Monotonic version for rows written by this run (ms since epoch, made unique per process). */
  version: number;
}

export interface Analyzer {
  name: string;
  version: number;
  run(ctx: AnalyzerContext): Promise<void>;
}

interface RollupRow {
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

/** Recomputes the one `conversations` row of the conversation, exactly, from the deduplicated tables. */
export const conversationRollup: Analyzer = {
  name: 'conversation-rollup',
  version: 1,
  async run(ctx) {
    const [r] = await ctx.store.query<RollupRow>(namedQuery('stream-conversation-rollup'), {
      tenant: ctx.tenantId,
      conversation: ctx.conversationId,
    });
    if (!r || Number(r.events) === 0) return;
    await ctx.store.insert('conversations', [
      {
        tenant_id: ctx.tenantId,
        conversation_id: ctx.conversationId,
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
      },
    ]);
  },
};

/** The default analyzer list; later analyses are appended here. */
export const defaultAnalyzers: Analyzer[] = [conversationRollup];

let lastVersion = 0;
/** Wall-clock based, strictly increasing within the process. */
export function nextVersion(now = Date.now()): number {
  lastVersion = Math.max(now * 1000, lastVersion + 1);
  return lastVersion;
}
