/**
 * The rows of an analysis batch's table that the engine refuses, found by halves. One row the
 * engine cannot take (a value out of its column's range, text it refuses) used to fail the table's
 * insert for every conversation of the batch, at every retry, until the analyzers of all of them
 * gave up. On a permanent error the rows are inserted again in halves, recursively, within a budget
 * of statements; the conversations of the rows refused alone are reported, every other row is
 * stored. Every analysis table is versioned (a write replaces, none increments), so rows inserted
 * twice on the way are harmless. A refused row that names no conversation, or more refusals than
 * the budget finds, fail the table as a whole, as before.
 */
import { isTransientClickHouseError, type Store } from '../../core/clickhouse.js';
import { conversationKey } from '../conversation-key.js';
import { describeError } from '../../core/errors.js';

/** Statements one table of a batch may take to find its refused rows: about 2·log2(rows) per refused row (two among 1,000). */
export const SPLIT_BUDGET = 48;

/** Rows that can be inserted whole or by index range, each naming its conversation (or not). */
export interface SplittableRows {
  /** Inserts every row as one statement. */
  insertAll(): Promise<void>;
  /** Rows in all (needed only once the whole insert failed). */
  count(): number;
  /** Inserts rows [lo, hi). */
  insert(lo: number, hi: number): Promise<void>;
  /** The conversation key of row `i`; undefined when the row names none. */
  conversationOf(i: number): string | undefined;
}

/**
 * Rows as JSONCompactEachRow lines (the analysis thread's bytes): a line per row, split at its
 * newline. The lines are found only once a part of the body is needed: an insert that the engine
 * takes whole never looks for them.
 */
export function lineRows(store: Store, table: string, columns: readonly string[], body: Buffer): SplittableRows {
  let found: number[] | undefined;
  const starts = () => {
    if (found) return found;
    found = [0];
    for (let at = body.indexOf(0x0a); at >= 0 && at + 1 < body.length; at = body.indexOf(0x0a, at + 1)) found.push(at + 1);
    found.push(body.length);
    return found;
  };
  const tenant = columns.indexOf('tenant_id');
  const conversation = columns.indexOf('conversation_id');
  return {
    insertAll: () => store.insertBytes(table, columns, body),
    count: () => starts().length - 1,
    insert: (lo, hi) => store.insertBytes(table, columns, body.subarray(starts()[lo], starts()[hi])),
    conversationOf(i) {
      if (tenant < 0 || conversation < 0) return undefined;
      const values = JSON.parse(body.subarray(starts()[i], starts()[i + 1]).toString()) as unknown[];
      return typeof values[tenant] === 'string' && typeof values[conversation] === 'string' ? conversationKey(values[tenant], values[conversation]) : undefined;
    },
  };
}

/** Row objects, inserted through `Store.insert`. */
export function objectRows(store: Store, table: string, rows: readonly Record<string, unknown>[]): SplittableRows {
  return {
    insertAll: () => store.insert(table, rows),
    count: () => rows.length,
    insert: (lo, hi) => store.insert(table, rows.slice(lo, hi)),
    conversationOf(i) {
      const { tenant_id: t, conversation_id: c } = rows[i]!;
      return typeof t === 'string' && typeof c === 'string' ? conversationKey(t, c) : undefined;
    },
  };
}

/**
 * Inserts every row; on a permanent error, inserts the halves again, down to single rows. Returns
 * the conversations of the rows refused alone, with the engine's error; throws the first error when
 * a refused row names no conversation or the budget runs out, and any transient error at once (the
 * caller retries the whole table).
 */
export async function insertFindingRefused(rows: SplittableRows, budget = SPLIT_BUDGET): Promise<Map<string, string>> {
  const refused = new Map<string, string>();
  let first: unknown;
  try {
    // the whole table as one statement: the rows are found only when it fails
    await rows.insertAll();
    return refused;
  } catch (err) {
    if (isTransientClickHouseError(err)) throw err;
    first = err;
  }
  let left = budget;
  /** Rows [lo, hi), refused as a whole with `err`: a single row is reported, more are halved. */
  const split = async (lo: number, hi: number, err: unknown): Promise<void> => {
    if (hi - lo === 1) {
      const key = rows.conversationOf(lo);
      if (key === undefined) throw first;
      if (!refused.has(key)) refused.set(key, describeError(err));
      return;
    }
    const mid = lo + ((hi - lo) >> 1);
    for (const [a, b] of [[lo, mid], [mid, hi]] as const) {
      if (left-- <= 0) throw first;
      try {
        await rows.insert(a, b);
      } catch (e) {
        if (isTransientClickHouseError(e)) throw e;
        await split(a, b, e);
      }
    }
  };
  const count = rows.count();
  if (count === 0) throw first;
  await split(0, count, first);
  return refused;
}
