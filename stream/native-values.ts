/**
 * The values of ClickHouse's Native format as bytes, both ways: LEB128 lengths, length-prefixed
 * UTF-8, 64-bit little-endian integers, doubles (times are read by core/utc-time.ts).
 * stream/native.ts lays them out in columns.
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
