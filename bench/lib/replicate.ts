/**
 * Scales a loaded dataset up inside ClickHouse: every row of the given tables is copied `copies - 1`
 * times by `INSERT … SELECT` (one statement per table and copy), each copy under its own
 * conversation ids (`<id>~r<k>`)
 * and shifted back in time by a fraction of the conversation spacing, so the copies interleave with
 * the originals instead of stacking on the same instants. Tenant skew, conversation lengths, tool
 * and error mixes and message texts keep the generator's distributions; only the ids are new.
 *
 * Generating and inserting 10M events row by row through the client runs at a few thousand events/s
 * on 2 cores (JSON parsing in the engine); the copy runs inside the engine at several hundred
 * thousand rows/s, which is what makes the 10M-event query dataset practical.
 */
import type { Store } from '../../core/clickhouse.js';

export interface ReplicateResult {
  table: string;
  rows_before: number;
  rows_after: number;
  seconds: number;
}

interface Column {
  name: string;
  type: string;
  default_kind: string;
}

/** The SELECT expression that produces column `c` of copy `k` (a constant named `k` in the statement). */
export function copyExpression(c: Column, shiftMsPerCopy: number): string {
  const q = `\`${c.name}\``;
  if (c.name === 'conversation_id') return `concat(${q}, '~r', toString(k))`;
  if (c.name === 'parent_conversation_id') return `if(${q} = '', '', concat(${q}, '~r', toString(k)))`;
  if (/DateTime64/.test(c.type)) {
    const inner = c.type.match(/DateTime64\(\d+(?:, *'[^']*')?\)/)?.[0] ?? 'DateTime64(3)';
    return `CAST(${q} - toIntervalMillisecond(k * ${Math.max(0, Math.floor(shiftMsPerCopy))}) AS ${inner})`;
  }
  return q;
}

/**
 * Copies the rows of `tables` in `store`'s database so each table holds `copies` times its rows.
 * `shiftMsPerCopy` moves copy k back by k × that many milliseconds.
 */
export async function replicateTables(
  store: Store,
  tables: readonly string[],
  copies: number,
  shiftMsPerCopy: number,
  log: (s: string) => void,
): Promise<ReplicateResult[]> {
  const out: ReplicateResult[] = [];
  if (copies < 2) return out;
  for (const table of tables) {
    const columns = await store.query<Column>(
      `SELECT name, type, default_kind FROM system.columns WHERE database = {db:String} AND table = {t:String} ORDER BY position`,
      { db: store.database, t: table },
    );
    const writable = columns.filter((c) => c.default_kind !== 'MATERIALIZED' && c.default_kind !== 'ALIAS');
    const before = await countRows(store, table);
    const t0 = performance.now();
    log(`dataset: copying ${table} ×${copies - 1} (${before} rows each)`);
    const names = writable.map((c) => `\`${c.name}\``).join(', ');
    const exprs = writable.map((c) => copyExpression(c, shiftMsPerCopy)).join(', ');
    // one copy per statement, read from the originals only: an ARRAY JOIN making every copy in one
    // pass multiplies each block by the number of copies (blocks of ~600k wide rows, GBs in memory)
    for (let k = 1; k < copies; k++) {
      await store.command(
        `INSERT INTO {{db}}.${table} (${names}) WITH ${k} AS k SELECT ${exprs} FROM {{db}}.${table} WHERE position(conversation_id, '~r') = 0`,
        undefined,
        { insert_deduplicate: 0, max_insert_threads: '2', max_threads: 2 },
      );
    }
    const after = await countRows(store, table);
    out.push({ table, rows_before: before, rows_after: after, seconds: Math.round((performance.now() - t0) / 100) / 10 });
  }
  return out;
}

/** Rows of `table`; with `final`, as the table's engine deduplicates them (what a reader sees). */
export async function countRows(store: Store, table: string, final = false): Promise<number> {
  const [r] = await store.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.${table}${final ? ' FINAL' : ''}`);
  return Number(r?.n ?? 0);
}
