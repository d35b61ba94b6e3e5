/**
 * ClickHouse's Native format for the sink's tables: the engine reads a column of a Native block
 * with no parsing at all (about half the insert CPU of JSONCompactEachRow on `events` rows;
 * docs/stream.md "Native inserts").
 *
 * A decode worker encodes the rows of one message (one table, one partition month) as a chunk:
 * every column's streams one after the other, and their byte lengths. The sink builds one block of
 * many chunks by concatenating each stream across chunks (a map column's per-row sizes become the
 * block's running offsets), so a batch, a half of one or a single message is a block of its own
 * without encoding anything again.
 *
 * A value is encoded only where its Native bytes are exactly what the engine would store from its
 * JSON text: strings, integers in range, finite floats, times in the canonical
 * `YYYY-MM-DDThh:mm:ss[.fff]Z` form of a real calendar day, maps (a value that is not a string
 * written as its JSON text, as `stringMap` makes it for JSON lines). Any other value makes
 * the message's rows of that table fall back to JSON lines, so the engine decides on them as
 * before (a time it refuses still dead-letters its event alone). A string holding a lone surrogate
 * is written with U+FFFD in its place, as `repairStrings` repairs it for JSON lines.
 */
import { setOwn } from '../core/own.js';
import { joined } from '../core/bytes.js';
import { isReferenced, toText, type TableName } from './rows.js';
import { rowRefs, storedValue } from '../schemas/attribute-refs.js';
import { Reader, stringLength, Writer } from './native-values.js';
import { timeText, timeUnits } from '../core/utc-time.js';

/** Each table's column types, in COLUMNS order, as the migrations leave them (a test compares). */
export const COLUMN_TYPES: Record<TableName, readonly string[]> = {
  events: [
    'LowCardinality(String)', "DateTime64(3, 'UTC')", 'String', "DateTime64(3, 'UTC')", 'LowCardinality(String)', 'LowCardinality(String)',
    'LowCardinality(String)', 'LowCardinality(String)', 'String', 'String', 'LowCardinality(String)', 'UInt64', 'String', 'String',
    'Map(String, String)', 'Map(String, String)', 'LowCardinality(String)', 'LowCardinality(String)', 'String', 'LowCardinality(String)',
    'UInt64', 'UInt64', 'UInt64', 'UInt64', 'Float64', 'LowCardinality(String)', 'String', 'Int8', 'Float64', 'String', 'UInt8',
  ],
  spans: [
    'LowCardinality(String)', 'String', 'String', 'String', "DateTime64(6, 'UTC')", "DateTime64(6, 'UTC')", 'Float64', 'LowCardinality(String)',
    'UInt8', 'UInt8', 'String', 'LowCardinality(String)', 'String', 'LowCardinality(String)', 'LowCardinality(String)', 'LowCardinality(String)',
    'LowCardinality(String)', 'UInt64', 'UInt64', 'LowCardinality(String)', 'String', 'Map(String, String)', 'Map(String, String)', 'String', 'String',
  ],
  messages: [
    'LowCardinality(String)', 'String', "DateTime64(3, 'UTC')", 'UInt64', 'String', 'LowCardinality(String)', 'LowCardinality(String)',
    'LowCardinality(String)', 'String', 'String', 'LowCardinality(String)', 'String', 'String', 'String', 'String', 'UInt8',
    'LowCardinality(String)', 'LowCardinality(String)', 'UInt64', 'UInt64', 'UInt64', 'String', 'String', 'LowCardinality(String)', 'String',
  ],
  tool_calls: [
    'LowCardinality(String)', 'String', 'String', "SimpleAggregateFunction(min, DateTime64(3, 'UTC'))", "SimpleAggregateFunction(max, DateTime64(3, 'UTC'))",
    'SimpleAggregateFunction(max, String)', 'SimpleAggregateFunction(max, String)', 'SimpleAggregateFunction(max, String)',
    'SimpleAggregateFunction(max, String)', 'SimpleAggregateFunction(max, Int8)', 'SimpleAggregateFunction(max, String)',
    'SimpleAggregateFunction(max, String)', 'SimpleAggregateFunction(max, Float64)', 'SimpleAggregateFunction(max, String)',
    'SimpleAggregateFunction(max, String)', 'SimpleAggregateFunction(max, String)', 'SimpleAggregateFunction(max, String)',
    'SimpleAggregateFunction(max, String)', 'SimpleAggregateFunction(max, String)', 'SimpleAggregateFunction(max, String)',
  ],
};

type Kind = 'string' | 'u8' | 'i8' | 'u64' | 'f64' | 'time' | 'map';

export interface NativeColumn {
  name: string;
  kind: Kind;
  /** The type named in the block: the column's own, with LowCardinality and SimpleAggregateFunction taken off. */
  wire: string;
  /** Digits of a second (DateTime64). */
  scale: number;
  /** Streams of the column: 1, or 3 for a map (sizes, keys, values). */
  streams: number;
  /** A map whose values are stored by reference to the row's columns (`events.attributes`). */
  refs: boolean;
}

/** The column's own type without the wrappers that do not change its Native bytes. */
function bareType(type: string): string {
  let t = type;
  const saf = /^SimpleAggregateFunction\(\w+, (.+)\)$/.exec(t);
  if (saf) t = saf[1]!;
  const lc = /^LowCardinality\((.+)\)$/.exec(t);
  if (lc) t = lc[1]!;
  return t;
}

export function nativeColumns(table: TableName, names: readonly string[]): NativeColumn[] {
  return COLUMN_TYPES[table].map((type, i) => {
    const wire = bareType(type);
    const time = /^DateTime64\((\d), 'UTC'\)$/.exec(wire);
    const kind: Kind | undefined = time
      ? 'time'
      : ({ String: 'string', UInt8: 'u8', Int8: 'i8', UInt64: 'u64', Float64: 'f64', 'Map(String, String)': 'map' } as Record<string, Kind>)[wire];
    if (!kind) throw new Error(`${table}.${names[i]}: no Native encoding for ${type}`);
    return { name: names[i]!, kind, wire, scale: time ? Number(time[1]) : 0, streams: kind === 'map' ? 3 : 1, refs: isReferenced(table, names[i]!) };
  });
}

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const main = new Writer();
const keys = new Writer();
const values = new Writer();

/** Writes one column of `rows`; false when a value has no exact Native form. */
function writeColumn(w: Writer, c: NativeColumn, rows: readonly Record<string, unknown>[], lens: number[]): boolean {
  let start = w.pos;
  const end = () => {
    lens.push(w.pos - start);
    start = w.pos;
  };
  const name = c.name;
  const n = rows.length;
  switch (c.kind) {
    case 'string':
      for (let i = 0; i < n; i++) {
        const v = rows[i]![name];
        if (typeof v === 'string') w.string(v);
        else if (v === null || v === undefined) w.byte(0);
        else return false;
      }
      break;
    case 'u8':
    case 'i8':
    case 'u64':
      for (let i = 0; i < n; i++) {
        const raw = rows[i]![name];
        // null inserts the type's zero, as JSON null does (not a column's DEFAULT expression)
        const v = raw === null || raw === undefined ? 0 : typeof raw === 'boolean' ? Number(raw) : raw;
        if (typeof v !== 'number' || !Number.isSafeInteger(v)) return false;
        if (c.kind === 'u64') {
          if (v < 0) return false;
          w.int64(v);
        } else {
          if (c.kind === 'u8' ? v < 0 || v > 255 : v < -128 || v > 127) return false;
          w.byte(v);
        }
      }
      break;
    case 'f64':
      for (let i = 0; i < n; i++) {
        const v = rows[i]![name];
        if (v === null || v === undefined) w.f64(0);
        // + 0 turns -0 into 0, as its JSON text "0" does
        else if (typeof v === 'number' && Number.isFinite(v)) w.f64(v + 0);
        else return false;
      }
      break;
    case 'time': {
      // the rows of a message mostly share their times (one receive time): the last one is kept
      let text = '';
      let units = 0;
      for (let i = 0; i < n; i++) {
        const v = rows[i]![name];
        if (v === null || v === undefined) w.int64(0);
        else if (typeof v !== 'string') return false;
        else {
          if (v !== text) {
            const u = timeUnits(v, c.scale);
            if (u === undefined) return false;
            text = v;
            units = u;
          }
          w.int64(units);
        }
      }
      break;
    }
    case 'map': {
      // sizes, keys and values are three streams: keys and values go to writers of their own
      keys.pos = 0;
      values.pos = 0;
      for (let i = 0; i < n; i++) {
        const v = rows[i]![name];
        if (v === null || v === undefined) {
          w.int64(0);
          continue;
        }
        if (!isPlain(v)) return false;
        let count = 0;
        const refs = c.refs ? rowRefs(rows[i]!) : undefined;
        // a value that is not a string is stored as its JSON text (stringMap's rule)
        for (const k in v) {
          const x = v[k];
          const text = typeof x === 'string' ? x : toText(x);
          keys.string(k);
          values.string(refs ? storedValue(text, refs) : text);
          count++;
        }
        w.int64(count);
      }
      end();
      w.append(keys);
      end();
      w.append(values);
      break;
    }
  }
  end();
  return true;
}

/** One table's rows as a Native chunk (every column's streams, and their lengths), or undefined. */
export function encodeNativeChunk(columns: readonly NativeColumn[], rows: readonly Record<string, unknown>[]): { data: Uint8Array; lens: Uint32Array } | undefined {
  main.pos = 0;
  const lens: number[] = [];
  for (const c of columns) if (!writeColumn(main, c, rows, lens)) return undefined;
  // a copy of the used part only: the writer is the next call's
  return { data: Uint8Array.prototype.slice.call(main.buf, 0, main.pos), lens: Uint32Array.from(lens) };
}

export interface NativeChunk {
  rows: number;
  data: Uint8Array;
  lens: Uint32Array;
}

/**
 * One Native block of `chunks` (their rows in order) as parts in order: a header, then each
 * column's name and type and its streams, each stream the chunks' pieces of it one after the other.
 * The pieces are views into the chunks (no copy); only a map's sizes are rewritten, as offsets
 * running over the whole block. The store writes the parts to its file in one gathering write.
 */
export function nativeBlockParts(columns: readonly NativeColumn[], chunks: readonly NativeChunk[]): Uint8Array[] {
  let rows = 0;
  for (const ch of chunks) rows += ch.rows;
  const maps = columns.filter((c) => c.kind === 'map').length;
  // the header and every column's name and type in one small buffer (sized so that it never grows:
  // a short string asks for 128 bytes of room); a map's offsets in another
  const head = new Writer(20 + 128 + columns.reduce((n, c) => n + stringLength(c.name) + stringLength(c.wire), 0));
  const offsets = Buffer.allocUnsafe(8 * rows * maps);
  let op = 0;
  head.varint(columns.length);
  head.varint(rows);
  const parts: Uint8Array[] = [];
  let from = 0;
  const headPart = () => {
    parts.push(new Uint8Array(head.buf.buffer, head.buf.byteOffset + from, head.pos - from));
    from = head.pos;
  };
  const at = new Uint32Array(chunks.length);
  let stream = 0;
  for (const c of columns) {
    head.string(c.name);
    head.string(c.wire);
    headPart();
    for (let s = 0; s < c.streams; s++, stream++) {
      const sizes = c.kind === 'map' && s === 0;
      const start = op;
      let offset = 0;
      for (let i = 0; i < chunks.length; i++) {
        const ch = chunks[i]!;
        const len = ch.lens[stream]!;
        const pos = at[i]!;
        at[i] = pos + len;
        if (sizes) {
          const src = ch.data;
          for (let k = pos; k < pos + len; k += 8, op += 8) {
            offset += (src[k]! | (src[k + 1]! << 8) | (src[k + 2]! << 16)) + src[k + 3]! * 0x1000000 + (src[k + 4]! | (src[k + 5]! << 8)) * 4294967296;
            offsets.writeUInt32LE(offset >>> 0, op);
            offsets.writeUInt32LE(Math.floor(offset / 4294967296), op + 4);
          }
        } else if (len > 0) parts.push(new Uint8Array(ch.data.buffer, ch.data.byteOffset + pos, len));
      }
      if (sizes && op > start) parts.push(new Uint8Array(offsets.buffer, offsets.byteOffset + start, op - start));
    }
  }
  return parts;
}

/** One Native block of `chunks` as one buffer (tests and diagnostics; the sink inserts the parts). */
export const nativeBlock = (columns: readonly NativeColumn[], chunks: readonly NativeChunk[]): Buffer => joined(nativeBlockParts(columns, chunks));

/**
 * The rows of a Native block made by `nativeBlock`, as the objects they were encoded from (tests,
 * fault seams; never on the insert path): every column's value, as the engine stores it.
 */
export function decodeNativeBlock(body: Buffer): Record<string, unknown>[] {
  const r = new Reader(body);
  const ncols = r.varint();
  const nrows = r.varint();
  const out: Record<string, unknown>[] = Array.from({ length: nrows }, () => ({}));
  for (let c = 0; c < ncols; c++) {
    const name = r.string();
    const wire = r.string();
    const time = /^DateTime64\((\d)/.exec(wire);
    if (wire === 'Map(String, String)') {
      const offsets: number[] = [];
      for (let i = 0; i < nrows; i++) offsets.push(r.int64());
      const keys: string[] = [];
      const total = offsets.at(-1) ?? 0;
      for (let i = 0; i < total; i++) keys.push(r.string());
      let k = 0;
      for (let i = 0; i < nrows; i++) {
        const m: Record<string, string> = {};
        for (; k < offsets[i]!; k++) setOwn(m, keys[k]!, r.string());
        out[i]![name] = m;
      }
      continue;
    }
    for (let i = 0; i < nrows; i++) {
      let v: unknown;
      if (wire === 'String') v = r.string();
      else if (wire === 'UInt8') v = body[r.pos++];
      else if (wire === 'Int8') v = body.readInt8(r.pos++);
      else if (wire === 'UInt64') v = r.int64();
      else if (wire === 'Float64') {
        v = body.readDoubleLE(r.pos);
        r.pos += 8;
      } else if (time) v = timeText(r.int64(), Number(time[1]));
      else throw new Error(`${name}: cannot read ${wire}`);
      out[i]![name] = v;
    }
  }
  return out;
}
