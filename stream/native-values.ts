/**
 * The values of ClickHouse's Native format as bytes, both ways: LEB128 lengths, length-prefixed
 * UTF-8, 64-bit little-endian integers, doubles; and the canonical UTC time text the encoder
 * turns into a DateTime64's units (and back, for tests). stream/native.ts lays them out in columns.
 */

/** Buffer's own UTF-8 writer, without `write`'s argument handling: bytes written. */
type Utf8Write = (s: string, offset: number, length: number) => number;

/** A growing byte buffer; the encoder's are reused from call to call (a worker runs one at a time). */
export class Writer {
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
/** 10^n for the digits of a DateTime64 (0–9): `**` calls the engine's general power, a table is one load. */
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
const pow10 = (n: number) => POW10[n] ?? 10 ** n;

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
 * The last calendar day read (`YYYY-MM-DD`, already checked) and its midnight in ms: the times of a
 * message, and of the messages after it, mostly fall on one day, so its date is checked and turned
 * into a time once, not for every value.
 */
let lastDay = '';
let lastDayMs = 0;

/** Midnight (ms since the epoch) of the day `s` starts with, or -1 when it is not a real day of 1970–2261. */
function dayMs(s: string): number {
  if (lastDay.length === 10) {
    let same = true;
    for (let i = 0; i < 10; i++) {
      if (s.charCodeAt(i) !== lastDay.charCodeAt(i)) {
        same = false;
        break;
      }
    }
    if (same) return lastDayMs;
  }
  if (s[4] !== '-' || s[7] !== '-') return -1;
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 2);
  const d = digits(s, 8, 2);
  if (y < 1970 || y > 2261 || mo < 1 || mo > 12) return -1;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d < 1 || d > (mo === 2 && leap ? 29 : DAYS[mo - 1]!)) return -1;
  lastDay = s.slice(0, 10);
  lastDayMs = Date.UTC(y, mo - 1, d);
  return lastDayMs;
}

/**
 * Units of 10^-scale s since the epoch of a canonical `YYYY-MM-DDThh:mm:ss[.f…]Z` time (fraction
 * of at most `scale` digits, a real calendar day, years 1970–2261), or undefined for any other text.
 */
export function timeUnits(s: string, scale: number): number | undefined {
  const len = s.length;
  if (len < 20 || s.charCodeAt(len - 1) !== 90 /* Z */) return undefined;
  if (s[10] !== 'T' || s[13] !== ':' || s[16] !== ':') return undefined;
  const h = digits(s, 11, 2);
  const mi = digits(s, 14, 2);
  const sec = digits(s, 17, 2);
  let frac = 0;
  if (len > 20) {
    const places = len - 21;
    if (s[19] !== '.' || places < 1 || places > scale) return undefined;
    frac = digits(s, 20, places);
    if (frac < 0) return undefined;
    frac *= pow10(scale - places);
  }
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59) return undefined;
  const day = dayMs(s);
  if (day < 0) return undefined;
  const units = ((day + h * 3_600_000 + mi * 60_000 + sec * 1000) / 1000) * pow10(scale) + frac;
  return units <= Number.MAX_SAFE_INTEGER ? units : undefined;
}

export const varintLength = (v: number) => (v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5);
export const stringLength = (s: string) => {
  const n = Buffer.byteLength(s, 'utf8');
  return varintLength(n) + n;
};

export class Reader {
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
export function timeText(units: number, scale: number): string {
  const per = 10 ** scale;
  const seconds = Math.floor(units / per);
  const frac = scale ? `.${String(units - seconds * per).padStart(scale, '0')}` : '';
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}${frac}Z`;
}
