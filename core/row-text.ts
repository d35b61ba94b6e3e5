/**
 * Row objects as the text of JSON insert formats. Pure (no engine, no client), so that a worker
 * thread can turn its rows into insert-ready bytes and the main thread only sends them.
 */

/**
 * JSON.stringify writes half of a surrogate pair as an escape (`\udXXX`) and a whole pair as the
 * character itself, so every such escape in its output stands for a lone surrogate. Not preceded
 * by an odd run of backslashes (`\\ud800` is an escaped backslash followed by text).
 */
const LONE_SURROGATE_ESCAPE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;

/**
 * The JSON text `json` (output of JSON.stringify) with every lone surrogate replaced by U+FFFD.
 * The engine refuses such text ("missing second part of surrogate pair"), and the whole insert
 * with it: one text cut inside an emoji would fail every row of its batch.
 */
export function repairSerialized(json: string): string {
  return json.includes('\\ud') ? json.replace(LONE_SURROGATE_ESCAPE, '$1\\ufffd') : json;
}

/**
 * Row objects as JSONCompactEachRow lines, when every row has the same keys and no `undefined`
 * value (what the client's JSONEachRow would send, as values in column order); otherwise
 * `undefined`: an omitted or undefined field means the column's default, which only the named
 * format says. Values are serialized by `JSON.stringify`, as the client does, and a lone surrogate
 * in a text becomes U+FFFD (`repairSerialized`).
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
  return { columns, text: repairSerialized(`${lines.join('\n')}\n`) };
}

/**
 * Row objects as JSONEachRow lines, with the union of their keys (an omitted key is the column's
 * default); a lone surrogate in a text becomes U+FFFD, as in `compactLines`.
 */
export function namedLines(rows: readonly object[]): { columns: string[]; text: string } {
  const columns = new Set<string>();
  const lines = rows.map((row) => {
    for (const [k, v] of Object.entries(row)) if (v !== undefined) columns.add(k);
    return JSON.stringify(row);
  });
  return { columns: [...columns], text: repairSerialized(`${lines.join('\n')}\n`) };
}
