/**
 * What the sink remembers about each message it holds: which tables already have its rows, and —
 * once an insert holding it was refused — its events one by one, which tables each has in and which
 * the store refused. The memory outlives a redelivery in this process, so a batch handed back after
 * a failed flush never inserts the same rows twice, whatever batch its messages land in next.
 */
import { createHash } from 'node:crypto';
import type { SplitMessage } from './batch.js';
import { PARTITION_COLUMN, type TableName } from './rows.js';
import type { RowChunk, TableBytes } from './row-bytes.js';

/** A message's memory; `split` is set once the message had to be narrowed down to its events. */
export interface Progress {
  tables: Set<TableName>;
  split?: { parts: SplitMessage; tables: Array<Set<TableName>>; refused: Map<number, string> };
  /** Set when the message as a whole cannot be stored (its body no longer splits). */
  refusedWhole?: string;
  touchedAtMs: number;
}

/** One insertable piece: a whole message, or one event of a split message. */
export interface Unit {
  /** Stable across redeliveries: the message id, `<message id>#<event index>` for an event. */
  key: string;
  progress: Progress;
  rows: TableBytes;
  /** Event index within its message when the unit is one event. */
  event?: number;
}

/** Memory of the messages of this process, forgotten after `ttlMs` without news (another replica may own them). */
export function createProgressMemory(ttlMs = 10 * 60_000) {
  const map = new Map<string, Progress>();
  return {
    get(id: string): Progress {
      let p = map.get(id);
      if (!p) map.set(id, (p = { tables: new Set(), touchedAtMs: 0 }));
      p.touchedAtMs = Date.now();
      return p;
    },
    forget(id: string): void {
      map.delete(id);
    },
    sweep(now = Date.now()): void {
      for (const [id, p] of map) if (now - p.touchedAtMs > ttlMs) map.delete(id);
    },
    get size() {
      return map.size;
    },
  };
}

/** The units of a message still to be stored: itself, or its events not refused. */
export function unitsOf(id: string, rows: TableBytes, p: Progress): Unit[] {
  if (p.refusedWhole !== undefined) return [];
  if (!p.split) return [{ key: id, progress: p, rows }];
  const out: Unit[] = [];
  for (const e of p.split.parts.events) {
    if (!p.split.refused.has(e.index)) out.push({ key: `${id}#${e.index}`, progress: p, rows: e.rows, event: e.index });
  }
  return out;
}

export function isDone(u: Unit, table: TableName): boolean {
  if (u.progress.tables.has(table)) return true;
  return u.event !== undefined && u.progress.split!.tables[u.event]!.has(table);
}

export function markDone(u: Unit, table: TableName): void {
  if (u.event === undefined) u.progress.tables.add(table);
  else u.progress.split!.tables[u.event]!.add(table);
}

/** Narrows a message down to its events (their rows, none stored yet beyond the message's tables). */
export function splitInto(p: Progress, parts: SplitMessage): void {
  p.split = { parts, tables: parts.events.map(() => new Set<TableName>()), refused: new Map() };
}

/**
 * Units split by the format of their rows in `table` (a message's rows of one table are all Native
 * or all JSON lines: stream/row-bytes.ts): Native first, then JSON; one group in the usual case.
 */
export function byFormat(table: TableName, units: readonly Unit[]): Unit[][] {
  const native = units.filter((u) => u.rows[table]![0]!.lens);
  if (native.length === units.length || native.length === 0) return [[...units]];
  return [native, units.filter((u) => !u.rows[table]![0]!.lens)];
}

/** Token for one table's insert of a set of units: same units, same table → same token. */
export function dedupToken(table: string, keys: readonly string[]): string {
  const h = createHash('sha256').update(table);
  for (const k of [...keys].sort()) h.update('\n').update(k);
  return h.digest('hex');
}

/** ClickHouse refuses an insert that touches more partitions (`max_partitions_per_insert_block`, default 100). */
export const MAX_PARTITIONS_PER_INSERT = 100;

/**
 * Chunks split so that no insert touches more than MAX_PARTITIONS_PER_INSERT months: one request
 * may carry years of history. Deterministic for the same chunks (months in order), so a retried
 * insert of the same units gets the same pieces and tokens. One piece in the usual case.
 */
export function partitionChunks(table: TableName, chunks: readonly RowChunk[]): RowChunk[][] {
  if (!PARTITION_COLUMN[table]) return [[...chunks]];
  const byMonth = new Map<string, RowChunk[]>();
  for (const c of chunks) {
    let list = byMonth.get(c.month);
    if (!list) byMonth.set(c.month, (list = []));
    list.push(c);
  }
  if (byMonth.size <= MAX_PARTITIONS_PER_INSERT) return [[...chunks]];
  const months = [...byMonth.keys()].sort();
  const out: RowChunk[][] = [];
  for (let i = 0; i < months.length; i += MAX_PARTITIONS_PER_INSERT) {
    out.push(months.slice(i, i + MAX_PARTITIONS_PER_INSERT).flatMap((m) => byMonth.get(m)!));
  }
  return out;
}
