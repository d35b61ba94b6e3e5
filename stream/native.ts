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
 * `YYYY-MM-DDThh:mm:ss[.fff]Z` form of a real calendar day, maps of strings. Any other value makes
 * the message's rows of that table fall back to JSON lines, so the engine decides on them as
 * before (a time it refuses still dead-letters its event alone). Strings reach the encoder
 * well-formed (the edge and `repairRows` see to it); were one not, its lone surrogate would be
 * written as U+FFFD, as the repair writes it.
 */
import type { TableName } from './rows.js';

/** Each table's column types, in COLUMNS order, as the migrations leave them (a test compares). */
export const COLUMN_TYPES: Record<TableName, readonly string[]> = {
  events: [
    'LowCardinality(String)', "DateTime64(3, 'UTC')", 'String', "DateTime64(3, 'UTC')", 'LowCardinality(String)', 'LowCardinality(String)',
    'LowCardinality(String)', 'LowCardinality(String)', 'String', 'String', 'LowCardinality(String)', 'UInt64', 'String', 'String',
    'Map(String, String)', 'Map(String, String)', 'LowCardinality(String)', 'LowCardinality(String)', 'String', 'LowCardinality(String)',
    'UInt64', 'UInt64', 'UInt64', 'UInt64', 'Float64', 'LowCardinality(String)', 'String', 'Int8', 'Float64', 'String',
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
    return { name: names[i]!, kind, wire, scale: time ? Number(time[1]) : 0, streams: kind === 'map' ? 3 : 1 };
  });
}

/** Buffer's own UTF-8 writer, without `write`'s argument handling: bytes written. */
type Utf8Write = (s: string, offset: number, length: number) => number;

/** A growing byte buffer; the encoder's are reused from call to call (a worker runs one at a time). */
class Writer {
  buf: Buffer;
  pos = 0;
  constructor(size = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(size);
  }
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
  varint(v: number): void {
    this.ensure(10);
    while (v >= 0x80) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.pos++] = v;
  }
  /** Length-prefixed UTF-8 (a lone surrogate is written as U+FFFD, as `toWellFormed` makes it). */
  string(s: string): void {
    const chars = s.length;
    if (chars <= 42) {
      // at most 126 bytes: a one-byte length, then the text; ASCII copied here (cheaper than a
      // call into the runtime for a short string)
      this.ensure(128);
      const b = this.buf;
      const at = this.pos + 1;
      let i = 0;
      for (; i < chars; i++) {
        const code = s.charCodeAt(i);
        if (code >= 0x80) break;
        b[at + i] = code;
      }
      const n = i === chars ? chars : (b as unknown as { utf8Write: Utf8Write }).utf8Write(s, at, 127);
      b[this.pos] = n;
      this.pos = at + n;
      return;
    }
    const n = Buffer.byteLength(s, 'utf8');
    this.varint(n);
    this.ensure(n);
    this.pos += (this.buf as unknown as { utf8Write: Utf8Write }).utf8Write(s, this.pos, n);
  }
  /** A safe integer as 8 bytes little-endian (two's complement). */
  int64(v: number): void {
    this.ensure(8);
    const b = this.buf;
    const lo = v >>> 0;
    const hi = Math.floor(v / 4294967296) | 0;
    const p = this.pos;
    b[p] = lo;
    b[p + 1] = lo >>> 8;
    b[p + 2] = lo >>> 16;
    b[p + 3] = lo >>> 24;
    b[p + 4] = hi;
    b[p + 5] = hi >>> 8;
    b[p + 6] = hi >>> 16;
    b[p + 7] = hi >>> 24;
    this.pos = p + 8;
  }
  f64(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }
  byte(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v & 0xff;
  }
  append(w: Writer): void {
    this.ensure(w.pos);
    w.buf.copy(this.buf, this.pos, 0, w.pos);
    this.pos += w.pos;
  }
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number written by `len` digits of `s` from `at`, or -1. */
function digits(s: string, at: number, len: number): number {
  let v = 0;
  for (let i = at; i < at + len; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/**
 * Units of 10^-scale s since the epoch of a canonical `YYYY-MM-DDThh:mm:ss[.f…]Z` time (fraction
 * of at most `scale` digits, a real calendar day, years 1970–2261), or undefined for any other text.
 */
export function timeUnits(s: string, scale: number): number | undefined {
  const len = s.length;
  if (len < 20 || s.charCodeAt(len - 1) !== 90 /* Z */) return undefined;
  if (s[4] !== '-' || s[7] !== '-' || s[10] !== 'T' || s[13] !== ':' || s[16] !== ':') return undefined;
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 2);
  const d = digits(s, 8, 2);
  const h = digits(s, 11, 2);
  const mi = digits(s, 14, 2);
  const sec = digits(s, 17, 2);
  let frac = 0;
  if (len > 20) {
    const places = len - 21;
    if (s[19] !== '.' || places < 1 || places > scale) return undefined;
    frac = digits(s, 20, places);
    if (frac < 0) return undefined;
    frac *= 10 ** (scale - places);
  }
  if (y < 1970 || y > 2261 || mo < 1 || mo > 12 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59) return undefined;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d < 1 || d > (mo === 2 && leap ? 29 : DAYS[mo - 1]!)) return undefined;
  const units = (Date.UTC(y, mo - 1, d, h, mi, sec) / 1000) * 10 ** scale + frac;
  return units <= Number.MAX_SAFE_INTEGER ? units : undefined;
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
        for (const k in v) {
          const x = v[k];
          if (typeof x !== 'string') return false;
          keys.string(k);
          values.string(x);
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

/** One Native block of `chunks` (their rows in order): a header, then each column's streams concatenated. */
export function nativeBlock(columns: readonly NativeColumn[], chunks: readonly NativeChunk[]): Buffer {
  let rows = 0;
  let size = 20;
  for (const ch of chunks) {
    rows += ch.rows;
    size += ch.data.byteLength;
  }
  for (const c of columns) size += 20 + 3 * (c.name.length + c.wire.length);
  head.pos = 0;
  head.varint(columns.length);
  head.varint(rows);
  for (const c of columns) {
    head.string(c.name);
    head.string(c.wire);
  }
  // the header of every column, written once: names and types are copied from here
  const out = Buffer.allocUnsafe(size);
  let pos = 0;
  let hp = 0;
  const copyHead = (n: number) => {
    head.buf.copy(out, pos, hp, hp + n);
    pos += n;
    hp += n;
  };
  copyHead(head.buf[0]! < 0x80 ? 1 : varintLength(columns.length));
  copyHead(varintLength(rows));
  const at = new Uint32Array(chunks.length);
  let stream = 0;
  for (const c of columns) {
    copyHead(stringLength(c.name) + stringLength(c.wire));
    for (let s = 0; s < c.streams; s++, stream++) {
      // the sizes of a map become offsets running over the whole block
      const sizes = c.kind === 'map' && s === 0;
      let offset = 0;
      for (let i = 0; i < chunks.length; i++) {
        const ch = chunks[i]!;
        const len = ch.lens[stream]!;
        const from = at[i]!;
        const src = ch.data;
        if (sizes) {
          for (let k = from; k < from + len; k += 8, pos += 8) {
            offset += (src[k]! | (src[k + 1]! << 8) | (src[k + 2]! << 16)) + src[k + 3]! * 0x1000000 + (src[k + 4]! | (src[k + 5]! << 8)) * 4294967296;
            out.writeUInt32LE(offset >>> 0, pos);
            out.writeUInt32LE(Math.floor(offset / 4294967296), pos + 4);
          }
        } else {
          out.set(src.subarray(from, from + len), pos);
          pos += len;
        }
        at[i] = from + len;
      }
    }
  }
  return out.subarray(0, pos);
}

const head = new Writer(4096);
const varintLength = (v: number) => (v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5);
const stringLength = (s: string) => {
  const n = Buffer.byteLength(s, 'utf8');
  return varintLength(n) + n;
};

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  varint(): number {
    let v = 0;
    let mul = 1;
    for (;;) {
      const b = this.buf[this.pos++]!;
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 128;
    }
  }
  string(): string {
    const n = this.varint();
    const s = this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
  int64(): number {
    const v = this.buf.readUInt32LE(this.pos) + this.buf.readInt32LE(this.pos + 4) * 4294967296;
    this.pos += 8;
    return v;
  }
}

/** Renders time units as the canonical text they were read from (tests, diagnostics). */
function timeText(units: number, scale: number): string {
  const per = 10 ** scale;
  const seconds = Math.floor(units / per);
  const frac = scale ? `.${String(units - seconds * per).padStart(scale, '0')}` : '';
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}${frac}Z`;
}

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
        for (; k < offsets[i]!; k++) m[keys[k]!] = r.string();
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
