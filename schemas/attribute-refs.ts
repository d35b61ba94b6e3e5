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
import { timeText, timeUnits } from '../core/utc-time.js';
import { setOwn } from '../core/own.js';

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

/** The codes of the columns compared by text as they are (all but `event_time`). */
const PLAIN_CODES = CODES.filter((c) => c !== 'e');

/** A row's column as the text a reference to it rebuilds, or undefined when it rebuilds none. */
function columnText(row: Record<string, unknown>, code: Exclude<Code, 'e'>): string | undefined {
  const v = row[ATTRIBUTE_REFS[code]];
  if (code === 's') return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? String(v) : undefined;
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** What a row's values may refer to: `refsOf(row)`, once per row, for `storedValue`. */
export interface RowRefs {
  /** Texts of the row's columns, each stored as the reference at the same index. */
  texts: string[];
  refs: string[];
  eventTime: unknown;
  /** `event_time` as a reference rebuilds it ('' when it rebuilds none); made when first needed. */
  timeText?: string;
}

/**
 * The texts a row's values may refer to. Only texts of three characters or more are referred to (a
 * reference is two); a text that two columns hold refers to the first. A plain scan, not a map: a
 * row has at most nine, and a value of another length is passed over at its length.
 */
export function refsOf(row: Record<string, unknown>): RowRefs {
  const texts: string[] = [];
  const refs: string[] = [];
  for (const code of PLAIN_CODES) {
    const text = columnText(row, code as Exclude<Code, 'e'>);
    if (text !== undefined && text.length > 2 && !texts.includes(text)) {
      texts.push(text);
      refs.push(NUL + code);
    }
  }
  return { texts, refs, eventTime: row.event_time };
}

/**
 * What the values of a row's attribute map may refer to, or undefined when the row is not written
 * by reference (it does not say `attribute_refs` 1): the one test both encoders (stream/native.ts,
 * jsonLines) make.
 */
export function rowRefs(row: Record<string, unknown>): RowRefs | undefined {
  return row.attribute_refs === 1 ? refsOf(row) : undefined;
}

/** `event_time` as the text its reference rebuilds: `YYYY-MM-DDThh:mm:ss.fffZ`, '' when not canonical. */
function timeTextOf(v: unknown): string {
  if (typeof v !== 'string') return '';
  const units = timeUnits(v, 3);
  if (units === undefined) return '';
  // the edge's own form (milliseconds, Z) is already that text
  return v.length === 24 && v.charCodeAt(19) === 46 /* . */ ? v : timeText(units, 3);
}

const REF_TIME = `${NUL}e`;

/** How a received attribute value (its text) is stored, given its row's `refsOf`. */
export function storedValue(text: string, r: RowRefs): string {
  if (text.charCodeAt(0) === 0) return NUL + text;
  const n = text.length;
  for (let i = 0; i < r.texts.length; i++) {
    const t = r.texts[i]!;
    if (t.length === n && t === text) return r.refs[i]!;
  }
  // a time's text is 24 characters ending in Z: only such a value costs the row's time text
  if (n === 24 && text.charCodeAt(23) === 90 && text === (r.timeText ??= timeTextOf(r.eventTime))) return REF_TIME;
  return text;
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
    setOwn(out, k, text);
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
