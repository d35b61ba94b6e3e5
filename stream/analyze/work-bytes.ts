/**
 * An analysis batch's rows as insert-ready bytes, made on the analysis thread: each table's rows
 * become JSONCompactEachRow text there (core/row-text.ts), and the main thread receives one moved
 * buffer per table instead of a structured clone of every row object that it would then turn into
 * the same text (docs/stream.md "Analysis work on its own thread"). Rows that are not uniform (a
 * key omitted or undefined: the column's default) stay objects and are inserted as before.
 */
import { compactLines } from '../../core/row-text.js';
import { capText } from '../analyses/text/prose.js';
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

/** The error of an analyzer's write for one conversation of the batch; undefined when its rows were stored. */
export type WriteFailureOf = (analyzer: string, tenantId: string, conversationId: string) => string | undefined;

const noWriteFailures: WriteFailureOf = () => undefined;

/** An analyzer's outcome for one conversation after the batch's writes. */
function judge(item: ItemOutcome, o: ItemOutcome['outcomes'][number], maxAttempts: number, failureOf: WriteFailureOf) {
  const writeError = failureOf(o.name, item.tenantId, item.conversationId);
  const ok = o.ok && !writeError;
  const attempts = ok ? 0 : 1 + (item.previousAttempts[o.name] ?? 0);
  const error = ok ? '' : o.error ?? writeError ?? 'failed';
  return { ok, attempts, error, giveUp: !ok && attempts >= maxAttempts };
}

/** The analyzers that failed for a conversation of the batch (their own error or their table's write). */
export function outcomeFailures(items: readonly ItemOutcome[], maxAttempts: number, failureOf: WriteFailureOf): AnalyzerFailure[] {
  const failures: AnalyzerFailure[] = [];
  for (const item of items) {
    for (const o of item.outcomes) {
      const j = judge(item, o, maxAttempts, failureOf);
      if (j.ok) continue;
      failures.push({ tenantId: item.tenantId, conversationId: item.conversationId, analyzer: o.name, error: j.error, attempts: j.attempts, retry: !j.giveUp });
    }
  }
  return failures;
}

/** The outcome of every analyzer of every conversation: the `analysis_state` rows. */
export function stateRows(items: readonly ItemOutcome[], version: number, maxAttempts: number, failureOf: WriteFailureOf): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const item of items) {
    for (const o of item.outcomes) {
      const j = judge(item, o, maxAttempts, failureOf);
      rows.push({
        tenant_id: item.tenantId,
        conversation_id: item.conversationId,
        analyzer: o.name,
        version,
        analyzer_version: o.version,
        outcome: j.ok ? 'ok' : j.giveUp ? 'failed' : 'error',
        error: capText(j.error, 2000),
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
    const outcomes = stateRows(out.items, version, maxAttempts, noWriteFailures);
    const table = outcomes.length ? encode(outcomes) : undefined;
    if (table) {
      out.encodedState = { version, maxAttempts, table };
      buffers.push(table.body.buffer as ArrayBuffer);
    }
  }
  return buffers;
}

const sameColumns = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);

/** One table of JSONCompactEachRow lines from parts with the same columns: their bodies one after another. */
function concatTables(parts: readonly EncodedTable[]): EncodedTable {
  if (parts.length === 1) return parts[0]!;
  const body = new Uint8Array(parts.reduce((n, p) => n + p.body.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    body.set(p.body, at);
    at += p.body.byteLength;
  }
  return { columns: parts[0]!.columns, body };
}

/**
 * The outputs of one batch analyzed in parts on several threads (the parts hold distinct tenants,
 * analysis-consumer.ts), as one output for one write: each table's rows and bytes together
 * (parts whose columns differ from the first are kept beside it in `encodedMore`), the outcomes,
 * rollup plans and categories of every part. The `analysis_state` bytes are kept when every part
 * made them for the same version and attempt limit; otherwise the writer builds those rows.
 */
export function mergeWorkOutputs(outs: readonly WorkOutput[]): WorkOutput {
  if (outs.length === 1) return outs[0]!;
  const merged: WorkOutput = { tables: {}, toolGroups: [], toolState: [], items: [], createdCategories: {} };
  const encodedParts: Record<string, EncodedTable[]> = {};
  for (const out of outs) {
    for (const [table, rows] of Object.entries(out.tables)) (merged.tables[table] ??= []).push(...rows);
    merged.toolGroups.push(...out.toolGroups);
    merged.toolState.push(...out.toolState);
    merged.items.push(...out.items);
    for (const [tenant, created] of Object.entries(out.createdCategories)) (merged.createdCategories[tenant] ??= []).push(...created);
    for (const [table, e] of Object.entries(out.encoded ?? {})) (encodedParts[table] ??= []).push(e);
    for (const [table, more] of Object.entries(out.encodedMore ?? {})) (encodedParts[table] ??= []).push(...more);
  }
  merged.encoded = {};
  for (const [table, parts] of Object.entries(encodedParts)) {
    const first = parts[0]!;
    const same = parts.filter((p) => sameColumns(p.columns, first.columns));
    merged.encoded[table] = concatTables(same);
    const other = parts.filter((p) => !sameColumns(p.columns, first.columns));
    if (other.length) (merged.encodedMore ??= {})[table] = other;
  }
  const states = outs.map((o) => o.encodedState);
  const first = states[0];
  if (first && states.every((s) => s && s.version === first.version && s.maxAttempts === first.maxAttempts && sameColumns(s.table.columns, first.table.columns))) {
    merged.encodedState = { version: first.version, maxAttempts: first.maxAttempts, table: concatTables(states.map((s) => s!.table)) };
  }
  return merged;
}
