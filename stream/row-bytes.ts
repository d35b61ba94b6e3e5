/**
 * The stream's rows as insert-ready bytes: serialized once, in the decode worker that made them,
 * as Native chunks or JSONCompactEachRow lines (stream/native.ts says which and why).
 */
import { decodeNativeBlock, encodeNativeChunk, nativeBlock, nativeBlockParts, nativeColumns, type NativeColumn } from './native.js';
import { COLUMNS, PARTITION_COLUMN, stringMap, TABLES, type TableName, type TableRows } from './rows.js';
import type { InsertFormat } from '../core/clickhouse.js';
import { bufferOf, joined, type ByteParts } from '../core/bytes.js';
import { rowRefs } from '../schemas/attribute-refs.js';

/**
 * Insert-ready bytes of one table's rows of one partition month (`''` for unpartitioned tables):
 * a Native chunk (every column's streams, `lens` their byte lengths; stream/native.ts), or, when a
 * value has no exact Native form, JSONCompactEachRow lines (one JSON array per row in COLUMNS
 * order, each ending with a newline; no `lens`).
 */
export interface RowChunk {
  month: string;
  rows: number;
  data: Uint8Array;
  lens?: Uint32Array;
}
/** The rows of a message (or of one event) as bytes, per table. */
export type TableBytes = Partial<Record<TableName, RowChunk[]>>;

const utf8 = new TextEncoder();
const NATIVE = Object.fromEntries(TABLES.map((t) => [t, nativeColumns(t, COLUMNS[t])])) as Record<TableName, NativeColumn[]>;

/** The Native columns of a table, in COLUMNS order. */
export const nativeColumnsOf = (table: TableName): readonly NativeColumn[] => NATIVE[table];
/** Per table, in COLUMNS order: whether the column is a map (its values written by `stringMap`'s rule). */
const MAP_COLUMN = Object.fromEntries(TABLES.map((t) => [t, NATIVE[t].map((c) => c.kind === 'map')])) as unknown as Record<TableName, readonly boolean[]>;
/** Per table, in COLUMNS order: whether the column is a map stored by reference (`isReferenced`). */
const REFS_COLUMN = Object.fromEntries(TABLES.map((t) => [t, NATIVE[t].map((c) => c.refs)])) as unknown as Record<TableName, readonly boolean[]>;

/**
 * JSONCompactEachRow lines of `rows`: an absent value is null, which inserts the column default; a
 * map column's values that are not strings are written as their JSON text (`stringMap`).
 */
export function jsonLines(table: TableName, rows: readonly Record<string, unknown>[]): Uint8Array {
  const cols = COLUMNS[table];
  const maps = MAP_COLUMN[table];
  const referenced = REFS_COLUMN[table];
  let text = '';
  for (const r of rows) {
    const a = new Array(cols.length);
    for (let c = 0; c < cols.length; c++) {
      const v = r[cols[c]!] ?? null;
      a[c] = maps[c] && v !== null && typeof v === 'object' ? stringMap(v as Record<string, unknown>, referenced[c] ? rowRefs(r) : undefined) : v;
    }
    text += JSON.stringify(a) + '\n';
  }
  return utf8.encode(text);
}

type WellFormed = { isWellFormed(): boolean; toWellFormed(): string };

/**
 * The store refuses a string holding half of a surrogate pair. The edge repairs what it receives
 * (docs/ingestion.md), but a transform that cuts text by UTF-16 units can split a pair it was given
 * whole; such a value becomes U+FFFD rather than failing the insert of the batch. A Native chunk
 * needs no pass of its own: its UTF-8 writer writes a lone surrogate as U+FFFD. Only top-level
 * string columns are repaired: map keys and values come from the edge unchanged.
 */
function repairStrings(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  for (const row of rows) {
    for (const k in row) {
      const v = row[k];
      if (typeof v === 'string' && !(v as unknown as WellFormed).isWellFormed()) row[k] = (v as unknown as WellFormed).toWellFormed();
    }
  }
  return rows;
}

/**
 * Serializes rows once, where they are produced (a worker): what travels to the sink and into the
 * store is these bytes, never the row objects.
 */
export function encodeTables(rows: TableRows): { tables: TableBytes; bytes: number } {
  const tables: TableBytes = {};
  let bytes = 0;
  for (const t of TABLES) {
    const list = rows[t];
    if (!list || list.length === 0) continue;
    const part = PARTITION_COLUMN[t];
    let byMonth: Map<string, Record<string, unknown>[]>;
    if (!part) byMonth = new Map([['', list]]);
    else {
      byMonth = new Map();
      for (const r of list) {
        const month = String(r[part] ?? '').slice(0, 7);
        const acc = byMonth.get(month);
        if (acc) acc.push(r);
        else byMonth.set(month, [r]);
      }
    }
    // all Native or all JSON lines: the sink inserts a message's rows of one table in one format
    const native: RowChunk[] = [];
    for (const [month, group] of byMonth) {
      const n = encodeNativeChunk(NATIVE[t], group);
      if (!n) break;
      native.push({ month, rows: group.length, data: n.data, lens: n.lens });
    }
    const chunks = native.length === byMonth.size ? native : [...byMonth].map(([month, group]) => ({ month, rows: group.length, data: jsonLines(t, repairStrings(group)) }));
    for (const c of chunks) bytes += c.data.byteLength;
    tables[t] = chunks;
  }
  return { tables, bytes };
}

/** Rows of one table's chunks as objects again (tests, diagnostics; never on the insert path). */
export function decodeTable(table: TableName, chunks: readonly RowChunk[] | undefined): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const ch of chunks ?? []) {
    const rows = ch.lens
      ? decodeNativeBlock(nativeBlock(NATIVE[table], [ch as Required<RowChunk>]))
      : decodeLines(COLUMNS[table], bufferOf(ch.data).toString('utf8'));
    out.push(...rows);
  }
  return out;
}

/** JSONCompactEachRow text back to objects keyed by `columns`. */
export function decodeLines(columns: readonly string[], text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const a = JSON.parse(line) as unknown[];
    const o: Record<string, unknown> = {};
    for (let c = 0; c < columns.length; c++) if (a[c] !== null && a[c] !== undefined) o[columns[c]!] = a[c];
    out.push(o);
  }
  return out;
}

/** One insert: a Native block, or JSONCompactEachRow lines in `columns` order, of the decode workers' chunks. */
export interface RowBlock {
  columns: readonly string[];
  /** The block's bytes as parts in order, views into the chunks (`nativeBlockParts`). */
  body: ByteParts;
  rows: number;
  format: InsertFormat;
}

/** A block's rows as objects again (fault seams and tests; never on the insert path). */
export function blockRows(block: RowBlock): Record<string, unknown>[] {
  const body = joined(block.body);
  return block.format === 'Native' ? decodeNativeBlock(body) : decodeLines(block.columns, body.toString('utf8'));
}

/**
 * The block of a list of chunks of one format (the sink never mixes them: byFormat): Native chunks
 * become one Native block, JSON lines follow one another; either way as parts, nothing copied.
 */
export function blockOf(table: TableName, chunks: readonly RowChunk[]): RowBlock {
  let rows = 0;
  let native = 0;
  for (const c of chunks) {
    rows += c.rows;
    if (c.lens) native++;
  }
  if (native && native !== chunks.length) throw new Error(`${table}: Native and JSON chunks in one block`);
  if (native) {
    return { columns: COLUMNS[table], body: nativeBlockParts(nativeColumnsOf(table), chunks as ReadonlyArray<Required<RowChunk>>), rows, format: 'Native' };
  }
  return { columns: COLUMNS[table], body: chunks.map((c) => c.data), rows, format: 'JSONCompactEachRow' };
}
