/**
 * Row objects as the text of JSON insert formats. Pure (no engine, no client), so that a worker
 * thread can turn its rows into insert-ready bytes and the main thread only sends them.
 */

/**
 * Row objects as JSONCompactEachRow lines, when every row has the same keys and no `undefined`
 * value (what the client's JSONEachRow would send, as values in column order); otherwise
 * `undefined`: an omitted or undefined field means the column's default, which only the named
 * format says. Values are serialized by `JSON.stringify`, as the client does.
 */
export function compactLines(rows: readonly object[]): { columns: string[]; text: string } | undefined {
  const columns = Object.keys(rows[0] ?? {});
  if (columns.length === 0) return undefined;
  const lines = new Array<string>(rows.length);
  const values = new Array<unknown>(columns.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as Record<string, unknown>;
    let keys = 0;
    for (const _ in row) keys++;
    if (keys !== columns.length) return undefined;
    for (let c = 0; c < columns.length; c++) {
      const v = row[columns[c]!];
      if (v === undefined) return undefined;
      values[c] = v;
    }
    lines[r] = JSON.stringify(values);
  }
  return { columns, text: `${lines.join('\n')}\n` };
}

/** Row objects as JSONEachRow lines, with the union of their keys (an omitted key is the column's default). */
export function namedLines(rows: readonly object[]): { columns: string[]; text: string } {
  const columns = new Set<string>();
  const lines = rows.map((row) => {
    for (const [k, v] of Object.entries(row)) if (v !== undefined) columns.add(k);
    return JSON.stringify(row);
  });
  return { columns: [...columns], text: `${lines.join('\n')}\n` };
}
