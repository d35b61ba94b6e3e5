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
 * and those that need them — for the batch's conversations; the others' results stand. Rows the
 * engine refuses are found by halves (refused-rows.ts): they fail those analyzers for their own
 * conversations only. Only a failure to record the outcomes fails the whole batch (it is then
 * redelivered and recomputed).
 */
import { isTransientClickHouseError, type Store } from '../../core/clickhouse.js';
import type { Logger } from '../../core/log.js';
import { withRetry } from '../../core/retry.js';
import { nextVersion } from './version.js';
import { FRAMEWORK_ANALYZERS, analyzerByName } from './tables.js';
import type { WorkOutput } from './work.js';
import { outcomeFailures, stateRows, toolStateRows, type WriteFailureOf } from './work-bytes.js';
import { insertFindingRefused, lineRows, objectRows } from './refused-rows.js';
import { conversationKey } from '../conversation-key.js';
import { bufferOf } from '../../core/bytes.js';
import { describeError } from '../../core/errors.js';

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

export async function writeAnalysis(out: WorkOutput, opts: WriteOptions): Promise<AnalyzerFailure[]> {
  const { store, log } = opts;
  const retry = <T>(what: string, fn: () => Promise<T>) =>
    withRetry(fn, {
      isRetryable: isTransientClickHouseError,
      deadlineMs: opts.retryDeadlineMs,
      baseDelayMs: 100,
      maxDelayMs: 2000,
      onRetry: (err, attempt) => log.warn({ err: describeError(err), what, attempt }, 'transient analysis write error: retrying'),
    });
  /** Analyzers whose write failed in this batch, with the error. */
  const failedWrites = new Map<string, string>();
  /** Analyzers some of whose rows the engine refused: the conversations of those rows, with the error. */
  const failedRows = new Map<string, Map<string, string>>();
  const failureOf: WriteFailureOf = (analyzer, tenantId, conversationId) => failedWrites.get(analyzer) ?? failedRows.get(analyzer)?.get(conversationKey(tenantId, conversationId));
  /** The conversations whose rows the engine refused in the write under way (`insertTable`). */
  let refused = new Map<string, string>();
  const write = async (analyzer: string, what: string, fn: () => Promise<unknown>) => {
    const needs = analyzerByName.get(analyzer)?.needs ?? [];
    const blocked = needs.find((n) => failedWrites.has(n));
    if (blocked) {
      failedWrites.set(analyzer, `needs ${blocked}, whose write failed`);
      return;
    }
    // what a needed analyzer could not store for some conversations fails this one for them too
    const inherited = new Map<string, string>();
    for (const n of needs) for (const key of failedRows.get(n)?.keys() ?? []) inherited.set(key, `needs ${n}, whose write failed`);
    try {
      await retry(what, () => {
        refused = new Map();
        return fn();
      });
    } catch (err) {
      log.warn({ err: describeError(err), analyzer, what }, 'analysis write failed: the analyzer will be retried');
      failedWrites.set(analyzer, describeError(err));
      return;
    }
    if (refused.size) log.warn({ err: [...refused.values()][0], analyzer, what, conversations: refused.size }, 'the engine refused rows of some conversations: their analyzer will be retried');
    const failed = new Map([...inherited, ...refused]);
    if (failed.size) failedRows.set(analyzer, failed);
  };

  /** A table's bytes from the analysis thread, or its rows; nothing when it has no rows. */
  const insertTable = async (table: string, rows: readonly Record<string, unknown>[] | undefined) => {
    // a merged output (several analysis threads) may hold a table in bytes and in rows at once
    const parts = encodedOf(table).map((e) => lineRows(store, table, e.columns, bufferOf(e.body)));
    if (rows?.length) parts.push(objectRows(store, table, rows));
    for (const p of parts) for (const [key, error] of await insertFindingRefused(p)) refused.set(key, error);
  };
  const encodedOf = (table: string) => [out.encoded?.[table], ...(out.encodedMore?.[table] ?? [])].filter((e) => e !== undefined);
  const has = (table: string, rows: readonly unknown[] | undefined) => Boolean(encodedOf(table).length || rows?.length);

  if (opts.categoryRows?.length) await write('tool-calls', 'tool_failure_categories', () => store.insert('tool_failure_categories', opts.categoryRows!));
  for (const a of FRAMEWORK_ANALYZERS) {
    if (a.name === 'tool-failure-rollup' || a.name === 'conversation-rollup') continue;
    if (failedWrites.has(a.name)) continue;
    if (has(a.table, out.tables[a.table])) await write(a.name, a.table, () => insertTable(a.table, out.tables[a.table]));
  }
  await write('tool-failure-rollup', 'tool_call_facts', async () => {
    await insertTable('tool_call_facts', out.tables.tool_call_facts);
    if (out.toolGroups.length) {
      // taken after the facts were written: a pass that read an older mark of a group leaves this one
      const version = nextVersion();
      await store.insert('tool_rollup_dirty', out.toolGroups.map(([tenant_id, tool_name, day]) => ({ tenant_id, tool_name, day, version, is_deleted: 0 })));
    }
    await insertTable('tool_call_rollup_state', toolStateRows(out));
  });
  if (has('conversations', out.tables.conversations)) await write('conversation-rollup', 'conversations', () => insertTable('conversations', out.tables.conversations));

  // the one write whose failure redelivers the batch: without it the next run would not know what to
  // tombstone. The thread's bytes hold these rows as they are when every write succeeded.
  const pre = out.encodedState;
  const prebuilt = failedWrites.size === 0 && failedRows.size === 0 && pre?.version === opts.version && pre.maxAttempts === opts.maxAttempts ? pre.table : undefined;
  if (prebuilt) await retry('analysis_state', () => store.insertBytes('analysis_state', prebuilt.columns, bufferOf(prebuilt.body)));
  else {
    const rows = stateRows(out.items, opts.version, opts.maxAttempts, failureOf);
    if (rows.length) await retry('analysis_state', () => store.insert('analysis_state', rows));
  }
  return outcomeFailures(out.items, opts.maxAttempts, failureOf);
}
