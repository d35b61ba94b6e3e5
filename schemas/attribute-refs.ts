/**
 * `events.attributes` stored by reference. The attribute map of an event as received repeats what
 * the row's own columns hold: the session id is `conversation_id`, the event's timestamp is
 * `event_time`, a tool use id is `tool_call_id`, and so on. A value equal to one of these columns
 * is stored as a two-character reference, NUL and the column's code; the key stays where it was, so
 * the map keeps its keys in the order received. A received value that itself begins with NUL is
 * stored with one more NUL in front, so nothing received is ever read as a reference.
 *
 * Rows written this way have `attribute_refs = 1`; rows written before have 0 and their map as
 * received. Readers use `receivedAttributes` (or the view `events_received`,
 * sql/migrations/0180_attribute_refs.sql, which rebuilds the map by the same rule), and get back
 * exactly the map received either way (docs/storage.md "Attributes stored by reference").
 */
import { timeText, timeUnits } from '../stream/native-values.js';

const NUL = '\u0000';

/**
 * The columns a value may refer to, by code. Each rebuilds as the exact text compared here:
 * strings as they are, `sequence` as its decimal digits, `event_time` as
 * `YYYY-MM-DDThh:mm:ss.fffZ` (the milliseconds stored).
 */
export const ATTRIBUTE_REFS = {
  c: 'conversation_id',
  u: 'user_id',
  n: 'name',
  t: 'tool_call_id',
  o: 'tool_name',
  m: 'model',
  i: 'message_id',
  s: 'sequence',
  e: 'event_time',
} as const;
type Code = keyof typeof ATTRIBUTE_REFS;
const CODES = Object.keys(ATTRIBUTE_REFS) as Code[];

/** A row's column as the text a reference to it rebuilds, or undefined when it rebuilds none. */
function columnText(row: Record<string, unknown>, code: Code): string | undefined {
  const v = row[ATTRIBUTE_REFS[code]];
  if (code === 's') return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? String(v) : undefined;
  if (code === 'e') {
    const units = typeof v === 'string' ? timeUnits(v, 3) : undefined;
    return units === undefined ? undefined : timeText(units, 3);
  }
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * The texts of a row's referable columns, computed once per row: `refsOf(row)` for the writer.
 * Only texts of at least three characters are referred to (a reference is two).
 */
export function refsOf(row: Record<string, unknown>): Map<string, string> {
  const out = new Map<string, string>();
  for (const code of CODES) {
    const text = columnText(row, code);
    // the first column holding a text is the one referred to
    if (text !== undefined && text.length > 2 && !out.has(text)) out.set(text, NUL + code);
  }
  return out;
}

/** How a received attribute value (its text) is stored, given its row's `refsOf`. */
export function storedValue(text: string, refs: ReadonlyMap<string, string>): string {
  if (text.charCodeAt(0) === 0) return NUL + text;
  return refs.get(text) ?? text;
}

/** The attribute map as received, from a stored row (`attribute_refs` 0: as stored). */
export function receivedAttributes(row: Record<string, unknown>): Record<string, string> {
  const stored = (row.attributes ?? {}) as Record<string, string>;
  if (Number(row.attribute_refs ?? 0) !== 1) return stored;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(stored)) {
    let text = v;
    if (v.charCodeAt(0) === 0) {
      if (v.charCodeAt(1) === 0) text = v.slice(1);
      else if (v.length === 2 && v[1]! in ATTRIBUTE_REFS) text = storedColumnText(row, v[1] as Code);
    }
    Object.defineProperty(out, k, { value: text, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** A column of a row read back from the store, as the text a reference to it stands for. */
function storedColumnText(row: Record<string, unknown>, code: Code): string {
  const v = row[ATTRIBUTE_REFS[code]];
  if (code === 'e') {
    // the engine's own text of a DateTime64(3) ('YYYY-MM-DD hh:mm:ss.fff'), or the ISO text a
    // JSON read with date_time_output_format 'iso' gives ('…T…Z', milliseconds dropped when zero)
    const s = String(v);
    const ms = Date.parse(s.includes('T') ? s : `${s.replace(' ', 'T')}Z`);
    return new Date(ms).toISOString();
  }
  return String(v ?? '');
}
