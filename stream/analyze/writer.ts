/**
 * Writes what the workers computed for an analysis batch, in an order that makes a crash at any
 * point harmless (every write replaces, none increments; a retry recomputes the same rows):
 *   1. each analyzer's own table (rows and tombstones), one insert per table for the batch — the
 *      failure categories the batch issued before the calls that use them;
 *   2. the tool-failure rollup: facts, then the marks of the touched groups (their daily rows are
 *      recomputed by paced passes, tool-rollup-flusher.ts), then its state;
 *   3. the conversation rows (last: a reader that sees a new row sees everything else of the run, but
 *      the tool-failure daily rows, which the next paced pass recomputes);
 *   4. the outcome of every analyzer of every conversation (`analysis_state`).
 * A table that cannot be written (after transient retries) fails only the analyzers that own it —
 * and those that need them — for the batch's conversations; the others' results stand. Only a
 * failure to record the outcomes fails the whole batch (it is then redelivered and recomputed).
 */
import { isTransientClickHouseError, type Store } from '../../core/clickhouse.js';
import type { Logger } from '../../core/log.js';
import { withRetry } from '../../core/retry.js';
import { nextVersion } from './version.js';
import { FRAMEWORK_ANALYZERS, analyzerByName } from './tables.js';
import type { WorkOutput } from './work.js';

export interface WriteOptions {
  store: Store;
  log: Logger;
  /** Time transient errors of one write are retried. */
  retryDeadlineMs: number;
  /** The run's version (the same as the rows'). */
  version: number;
  /** Outcome `failed` (no more retries) once an analyzer failed this many times in a row. */
  maxAttempts: number;
  /** Rows of the failure categories this batch issued (written before the calls that use them). */
  categoryRows?: Record<string, unknown>[];
}

export interface AnalyzerFailure {
  tenantId: string;
  conversationId: string;
  analyzer: string;
  error: string;
  attempts: number;
  /** False once `maxAttempts` is reached: the analyzer stays failed until its version changes. */
  retry: boolean;
}

const describe = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

export async function writeAnalysis(out: WorkOutput, opts: WriteOptions): Promise<AnalyzerFailure[]> {
  const { store, log } = opts;
  const retry = <T>(what: string, fn: () => Promise<T>) =>
    withRetry(fn, {
      isRetryable: isTransientClickHouseError,
      deadlineMs: opts.retryDeadlineMs,
      baseDelayMs: 100,
      maxDelayMs: 2000,
      onRetry: (err, attempt) => log.warn({ err: describe(err), what, attempt }, 'transient analysis write error: retrying'),
    });
  /** Analyzers whose write failed in this batch, with the error. */
  const failedWrites = new Map<string, string>();
  const write = async (analyzer: string, what: string, fn: () => Promise<unknown>) => {
    const needs = analyzerByName.get(analyzer)?.needs ?? [];
    const blocked = needs.find((n) => failedWrites.has(n));
    if (blocked) {
      failedWrites.set(analyzer, `needs ${blocked}, whose write failed`);
      return;
    }
    try {
      await retry(what, fn);
    } catch (err) {
      log.warn({ err: describe(err), analyzer, what }, 'analysis write failed: the analyzer will be retried');
      failedWrites.set(analyzer, describe(err));
    }
  };

  if (opts.categoryRows?.length) await write('tool-calls', 'tool_failure_categories', () => store.insert('tool_failure_categories', opts.categoryRows!));
  for (const a of FRAMEWORK_ANALYZERS) {
    if (a.name === 'tool-failure-rollup' || a.name === 'conversation-rollup') continue;
    if (failedWrites.has(a.name)) continue;
    const rows = out.tables[a.table];
    if (rows?.length) await write(a.name, a.table, () => store.insert(a.table, rows));
  }
  await write('tool-failure-rollup', 'tool_call_facts', async () => {
    if (out.tables.tool_call_facts?.length) await store.insert('tool_call_facts', out.tables.tool_call_facts);
    if (out.toolGroups.length) {
      // taken after the facts were written: a pass that read an older mark of a group leaves this one
      const version = nextVersion();
      await store.insert('tool_rollup_dirty', out.toolGroups.map(([tenant_id, tool_name, day]) => ({ tenant_id, tool_name, day, version, is_deleted: 0 })));
    }
    if (out.toolState.length) {
      await store.insert('tool_call_rollup_state', out.toolState.map(({ is_deleted: _d, ...r }) => r));
    }
  });
  if (out.tables.conversations?.length) await write('conversation-rollup', 'conversations', () => store.insert('conversations', out.tables.conversations!));

  const failures: AnalyzerFailure[] = [];
  const state: Record<string, unknown>[] = [];
  for (const item of out.items) {
    for (const o of item.outcomes) {
      const writeError = failedWrites.get(o.name);
      const ok = o.ok && !writeError;
      const attempts = ok ? 0 : 1 + (item.previousAttempts[o.name] ?? 0);
      const error = ok ? '' : o.error ?? writeError ?? 'failed';
      const giveUp = !ok && attempts >= opts.maxAttempts;
      if (!ok) failures.push({ tenantId: item.tenantId, conversationId: item.conversationId, analyzer: o.name, error, attempts, retry: !giveUp });
      state.push({
        tenant_id: item.tenantId,
        conversation_id: item.conversationId,
        analyzer: o.name,
        version: opts.version,
        analyzer_version: o.version,
        outcome: ok ? 'ok' : giveUp ? 'failed' : 'error',
        error: error.slice(0, 2000),
        attempts,
        item_keys: (ok ? item.keys[o.name] : item.previousKeys[o.name]) ?? [],
        message_count: item.messageCount,
      });
    }
  }
  // the one write whose failure redelivers the batch: without it the next run would not know what to tombstone
  if (state.length) await retry('analysis_state', () => store.insert('analysis_state', state));
  return failures;
}
