/**
 * Inserts rows as JSONCompactEachRow with an explicit column list: one JSON array per row instead
 * of an object, so neither side handles the column names of every row (the embedded engine's row
 * parsing is the insert's bottleneck; measured faster than JSONEachRow on the same rows). A
 * standard ClickHouse format: works the same on a server.
 */
import type { ClickHouseSettings } from '@clickhouse/client';
import type { Store } from '../core/clickhouse.js';

/** Columns of a batch: the keys of its first row, or of every row when rows differ in shape. */
export function batchColumns(rows: readonly object[]): string[] {
  const first = Object.keys(rows[0] ?? {});
  for (const r of rows) {
    const keys = Object.keys(r);
    if (keys.length !== first.length || keys.some((k, i) => k !== first[i])) {
      const all = new Set(first);
      for (const row of rows) for (const k of Object.keys(row)) all.add(k);
      return [...all];
    }
  }
  return first;
}

/** Rows as arrays in `columns` order; an absent value becomes null, which inserts the column default. */
export function compactRows(rows: readonly object[], columns: readonly string[]): unknown[][] {
  const out: unknown[][] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] as Record<string, unknown>;
    const a: unknown[] = new Array(columns.length);
    for (let c = 0; c < columns.length; c++) a[c] = r[columns[c]!] ?? null;
    out[i] = a;
  }
  return out;
}

export async function insertCompact(store: Store, table: string, rows: readonly object[], settings?: ClickHouseSettings): Promise<void> {
  if (rows.length === 0) return;
  const columns = batchColumns(rows);
  await store.client.insert({
    table: store.table(table),
    values: compactRows(rows, columns),
    columns: columns as [string, ...string[]],
    format: 'JSONCompactEachRow',
    clickhouse_settings: store.settings(settings),
  });
}
