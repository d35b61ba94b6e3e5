/**
 * An analysis batch's rows as insert-ready bytes, made on the analysis thread: each table's rows
 * become JSONCompactEachRow text there (core/row-text.ts), and the main thread receives one moved
 * buffer per table instead of a structured clone of every row object that it would then turn into
 * the same text (docs/stream.md "Analysis work on its own thread"). Rows that are not uniform (a
 * key omitted or undefined: the column's default) stay objects and are inserted as before.
 */
import { compactLines } from '../../core/row-text.js';
import type { AnalyzerFailure } from './writer.js';
import type { ItemOutcome, WorkOutput } from './work.js';

export interface EncodedTable {
  columns: string[];
  /** JSONCompactEachRow lines, a buffer of its own (moved between threads). */
  body: Uint8Array;
}

const encoder = new TextEncoder();

function encode(rows: readonly object[]): EncodedTable | undefined {
  const compact = compactLines(rows);
  // TextEncoder's output owns its buffer: a Buffer of a short text shares Node's pool slab
  return compact && { columns: compact.columns, body: encoder.encode(compact.text) };
}

/** The `tool_call_rollup_state` rows of a batch (its facts without the deletion mark). */
export const toolStateRows = (out: Pick<WorkOutput, 'toolState'>) => out.toolState.map(({ is_deleted: _d, ...r }) => r);

/** An analyzer's outcome for one conversation after the batch's writes (`failedWrites`: analyzers whose table could not be written). */
function judge(item: ItemOutcome, o: ItemOutcome['outcomes'][number], maxAttempts: number, failedWrites: ReadonlyMap<string, string>) {
  const writeError = failedWrites.get(o.name);
  const ok = o.ok && !writeError;
  const attempts = ok ? 0 : 1 + (item.previousAttempts[o.name] ?? 0);
  const error = ok ? '' : o.error ?? writeError ?? 'failed';
  return { ok, attempts, error, giveUp: !ok && attempts >= maxAttempts };
}

/** The analyzers that failed for a conversation of the batch (their own error or their table's write). */
export function outcomeFailures(items: readonly ItemOutcome[], maxAttempts: number, failedWrites: ReadonlyMap<string, string>): AnalyzerFailure[] {
  const failures: AnalyzerFailure[] = [];
  for (const item of items) {
    for (const o of item.outcomes) {
      if (o.ok && !failedWrites.has(o.name)) continue;
      const j = judge(item, o, maxAttempts, failedWrites);
      failures.push({ tenantId: item.tenantId, conversationId: item.conversationId, analyzer: o.name, error: j.error, attempts: j.attempts, retry: !j.giveUp });
    }
  }
  return failures;
}

/** The outcome of every analyzer of every conversation: the `analysis_state` rows. */
export function stateRows(items: readonly ItemOutcome[], version: number, maxAttempts: number, failedWrites: ReadonlyMap<string, string>): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const item of items) {
    for (const o of item.outcomes) {
      const j = judge(item, o, maxAttempts, failedWrites);
      rows.push({
        tenant_id: item.tenantId,
        conversation_id: item.conversationId,
        analyzer: o.name,
        version,
        analyzer_version: o.version,
        outcome: j.ok ? 'ok' : j.giveUp ? 'failed' : 'error',
        error: j.error.slice(0, 2000),
        attempts: j.attempts,
        item_keys: (j.ok ? item.keys[o.name] : item.previousKeys[o.name]) ?? [],
        message_count: item.messageCount,
      });
    }
  }
  return rows;
}

/**
 * Moves the output's uniform tables into `out.encoded` (their rows leave `out.tables`), with the
 * rollup state; when `maxAttempts` is known, also the `analysis_state` rows as they are when every
 * write succeeds (`out.encodedState`: the writer builds them again after a failed write). Returns
 * the buffers to move to the main thread.
 */
export function encodeWorkOutput(out: WorkOutput, version: number, maxAttempts?: number): ArrayBuffer[] {
  const encoded: Record<string, EncodedTable> = {};
  for (const [table, rows] of Object.entries(out.tables)) {
    const e = rows.length ? encode(rows) : undefined;
    if (!e) continue;
    encoded[table] = e;
    delete out.tables[table];
  }
  const state = out.toolState.length ? encode(toolStateRows(out)) : undefined;
  if (state) {
    encoded.tool_call_rollup_state = state;
    out.toolState = [];
  }
  const buffers = Object.values(encoded).map((e) => e.body.buffer as ArrayBuffer);
  out.encoded = encoded;
  if (maxAttempts !== undefined) {
    const outcomes = stateRows(out.items, version, maxAttempts, new Map());
    const table = outcomes.length ? encode(outcomes) : undefined;
    if (table) {
      out.encodedState = { version, maxAttempts, table };
      buffers.push(table.body.buffer as ArrayBuffer);
    }
  }
  return buffers;
}
