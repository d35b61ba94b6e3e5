/**
 * A direct protobuf reader for the OTLP requests the edge stores (logs and traces): one pass over
 * the bytes into plain objects of exactly the shape protobufjs gives with `decode` and then
 * `toObject({ longs: String, bytes: String, defaults: false, arrays: false, oneofs: false })`:
 * lowerCamelCase names, 64-bit integers as decimal strings, bytes as base64, a repeated field only
 * when it has elements, proto3 presence (a plain scalar at its default value is absent, a oneof
 * member is present whatever its value and replaces the others), occurrences of a message field
 * merged, a known field sent with another wire type skipped as unknown. protobufjs builds message
 * instances and then copies them into that shape, so the edge paid for two trees per request; this
 * builds one. The tests hold the two readers to the same output on valid and on damaged bytes.
 *
 * The field tables it reads by are proto-shapes.ts.
 */
import { isUtf8 } from 'node:buffer';
import { ReadAttributes } from './anyvalue.js';
import { Kind, type KeyValueIds, type Shape } from './proto-shapes.js';

/** The bytes are not a valid encoding of the message. */
export class ProtoFormatError extends Error {}
/** Messages nested deeper than the limit. */
export class ProtoDepthError extends Error {}

// the reader's state: decoding is synchronous and never re-entered
const EMPTY = Buffer.alloc(0);
let buf: Buffer = EMPTY;
let pos = 0;
let lo = 0;
let hi = 0;
let maxDepth = 100;

const bad = (what: string) => new ProtoFormatError(what);

/** A varint into `lo` and `hi` (unsigned 32-bit halves). */
function varint(): void {
  let b = 0;
  let l = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    if (pos >= buf.length) throw bad('truncated varint');
    b = buf[pos++]!;
    l |= (b & 0x7f) << shift;
    if (b < 0x80) {
      lo = l >>> 0;
      hi = 0;
      return;
    }
  }
  if (pos >= buf.length) throw bad('truncated varint');
  b = buf[pos++]!;
  l |= (b & 0x0f) << 28;
  let h = (b & 0x7f) >> 4;
  if (b < 0x80) {
    lo = l >>> 0;
    hi = h;
    return;
  }
  for (let shift = 3; shift < 32; shift += 7) {
    if (pos >= buf.length) throw bad('truncated varint');
    b = buf[pos++]!;
    h |= (b & 0x7f) << shift;
    if (b < 0x80) {
      lo = l >>> 0;
      hi = h >>> 0;
      return;
    }
  }
  throw bad('varint longer than 10 bytes');
}

/** A field tag: a varint of at most 5 bytes within 32 bits, never field number 0. */
function tag(): void {
  const start = pos;
  varint();
  if (pos - start > 5 || hi !== 0) throw bad('invalid tag encoding');
  if (lo >>> 3 === 0) throw bad('field number 0');
}

/** A length prefix (at most 5 bytes, below 2^31) and the end it gives, within `end`. */
function delimited(end: number): number {
  const start = pos;
  varint();
  if (pos - start > 5 || hi !== 0 || lo > 0x7fffffff) throw bad('invalid length encoding');
  if (lo > end - pos) throw bad('length beyond the message');
  return pos + lo;
}

function unsigned64(l: number, h: number): string {
  if (h === 0) return String(l);
  if (h < 0x200000) return String(h * 4294967296 + l);
  return ((BigInt(h) << 32n) | BigInt(l)).toString();
}

function signed64(l: number, h: number): string {
  if (h & 0x80000000) return BigInt.asIntN(64, (BigInt(h) << 32n) | BigInt(l)).toString();
  return unsigned64(l, h);
}

/** UTF-8 text, refused when not valid UTF-8 (as protobufjs refuses it in proto3 strings). */
function text(start: number, end: number): string {
  const n = end - start;
  if (n === 0) return '';
  if (n < 32) {
    // short keys and values: ASCII builds faster in place than through a native call
    let s = '';
    for (let i = start; i < end; i++) {
      const c = buf[i]!;
      if (c & 0x80) return utf8(start, end);
      s += String.fromCharCode(c);
    }
    return s;
  }
  return utf8(start, end);
}

/**
 * Attribute keys seen lately, by a hash of their bytes: the same few dozen keys come in every record
 * of an agent, and a key read again is the string already made (one V8 has already made a property
 * name of) instead of a new one. Direct-mapped: a slot holds the last key that hashed to it.
 */
const KEY_SLOTS = 512;
const MAX_CACHED_KEY = 64;
const keyBytes: Array<Uint8Array | undefined> = new Array(KEY_SLOTS);
const keyStrings: string[] = new Array(KEY_SLOTS);

function keyText(start: number, end: number): string {
  const n = end - start;
  if (n === 0 || n > MAX_CACHED_KEY) return text(start, end);
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
  const slot = (h >>> 0) % KEY_SLOTS;
  const cached = keyBytes[slot];
  if (cached !== undefined && cached.length === n) {
    let i = 0;
    while (i < n && cached[i] === buf[start + i]) i++;
    if (i === n) return keyStrings[slot]!;
  }
  // validated (and refused) as any text: only valid UTF-8 is kept
  const s = text(start, end);
  keyBytes[slot] = Uint8Array.prototype.slice.call(buf, start, end);
  keyStrings[slot] = s;
  return s;
}

function utf8(start: number, end: number): string {
  if (!isUtf8(buf.subarray(start, end))) throw bad('a string field is not valid UTF-8');
  return buf.toString('utf8', start, end);
}

function fixed32(end: number): number {
  if (end - pos < 4) throw bad('truncated fixed32');
  const v = buf.readUInt32LE(pos);
  pos += 4;
  return v;
}

/** Skips a field of an unknown number; groups (wire types 3 and 4) are skipped whole. */
function skip(wire: number, end: number, depth: number, id: number): void {
  if (wire === 0) {
    // an unknown varint is passed over whatever its length, as protobufjs does
    do if (pos >= end) throw bad('truncated varint');
    while (buf[pos++]! & 0x80);
  } else if (wire === 1) pos += 8;
  else if (wire === 2) pos = delimited(end);
  else if (wire === 5) pos += 4;
  else if (wire === 3) {
    if (depth + 1 > maxDepth) throw new ProtoDepthError();
    for (;;) {
      if (pos >= end) throw bad('unterminated group');
      tag();
      const w = lo & 7;
      if (w === 4) {
        if (lo >>> 3 !== id) throw bad('mismatched end of group');
        break;
      }
      skip(w, end, depth + 1, lo >>> 3);
    }
  } else throw bad(`invalid wire type ${wire}`);
  if (pos > end) throw bad('field beyond the message');
}

/**
 * Reads fields until `end` into `into` (a new object, or the one an earlier occurrence of the same
 * message field left: occurrences merge, as the protobuf rules and protobufjs have it).
 */
function message(shape: Shape, end: number, depth: number, into?: Record<string, unknown>): Record<string, unknown> {
  const o: Record<string, unknown> = into ?? {};
  // nothing to remove from an object nothing was set on yet (the common case: deletes are slow)
  let empty = into === undefined;
  const fields = shape.fields;
  while (pos < end) {
    tag();
    const id = lo >>> 3;
    const wire = lo & 7;
    const f = id < fields.length ? fields[id] : undefined;
    // a known field with another wire type is an unknown field to protobufjs: skipped the same way
    if (!f || wire !== f.wire) {
      skip(wire, end, depth, id);
      continue;
    }
    if (f.kind === Kind.Attrs) {
      const stop = delimited(end);
      if (depth + 1 > maxDepth) throw new ProtoDepthError();
      let attrs = o[f.name] as ReadAttributes | undefined;
      if (attrs === undefined) o[f.name] = attrs = new ReadAttributes();
      keyValueInto(attrs, f.shape!, f.kv!, stop, depth + 1);
      empty = false;
      continue;
    }
    let v: unknown;
    let unset = false;
    switch (f.kind) {
      case Kind.Msg: {
        const stop = delimited(end);
        if (depth + 1 > maxDepth) throw new ProtoDepthError();
        const prev = f.repeated ? undefined : (o[f.name] as Record<string, unknown> | undefined);
        v = message(f.shape!, stop, depth + 1, prev);
        break;
      }
      case Kind.Str: {
        const stop = delimited(end);
        v = text(pos, stop);
        unset = stop === pos;
        pos = stop;
        break;
      }
      case Kind.Bytes: {
        const stop = delimited(end);
        v = buf.toString('base64', pos, stop);
        unset = stop === pos;
        pos = stop;
        break;
      }
      case Kind.Bool:
        varint();
        // protobufjs reads a bool as the low 32 bits of the varint
        v = lo !== 0;
        unset = lo === 0;
        break;
      case Kind.Int32:
        varint();
        v = lo | 0;
        unset = lo === 0;
        break;
      case Kind.Uint32:
        varint();
        v = lo;
        unset = lo === 0;
        break;
      case Kind.Int64:
        varint();
        v = signed64(lo, hi);
        unset = lo === 0 && hi === 0;
        break;
      case Kind.Uint64:
        varint();
        v = unsigned64(lo, hi);
        unset = lo === 0 && hi === 0;
        break;
      case Kind.Fixed64: {
        if (end - pos < 8) throw bad('truncated fixed64');
        const l = buf.readUInt32LE(pos);
        const h = buf.readUInt32LE(pos + 4);
        pos += 8;
        v = unsigned64(l, h);
        unset = l === 0 && h === 0;
        break;
      }
      case Kind.Fixed32:
        v = fixed32(end);
        unset = v === 0;
        break;
      case Kind.Double:
        if (end - pos < 8) throw bad('truncated double');
        v = buf.readDoubleLE(pos);
        unset = !v;
        pos += 8;
        break;
      case Kind.Float:
        if (end - pos < 4) throw bad('truncated float');
        v = buf.readFloatLE(pos);
        unset = !v;
        pos += 4;
        break;
    }
    if (f.repeated) {
      const list = o[f.name] as unknown[] | undefined;
      if (list) list.push(v);
      else o[f.name] = [v];
    } else if (f.implicit && unset) {
      if (!empty && f.name in o) delete o[f.name];
      continue;
    } else {
      if (!empty && f.others) for (const n of f.others) if (n in o) delete o[n];
      o[f.name] = v;
    }
    empty = false;
  }
  if (pos !== end) throw bad('field beyond the message');
  return o;
}

/** `scalarValue`: the AnyValue is not one scalar member read once. */
const GENERAL = Symbol('general');

/**
 * One KeyValue (its bytes up to `end`, the message at `depth`) into `attrs`. The usual attribute —
 * its key once, then its value once, an AnyValue of one scalar member — is read in place; anything
 * else (a field repeated or out of order, an unknown field, an array or kvlist value, a merge the
 * protobuf rules would apply) is read again from its start by the general path, `message` and then
 * keyValues's own conversion, so both give the same map and the same errors.
 */
function keyValueInto(attrs: ReadAttributes, kvShape: Shape, ids: KeyValueIds, end: number, depth: number): void {
  const start = pos;
  if (attrs.error === undefined) {
    let key: string | undefined;
    let value: unknown = null;
    let valueSeen = false;
    let general = false;
    while (pos < end) {
      tag();
      const id = lo >>> 3;
      const wire = lo & 7;
      if (id === ids.key && wire === 2 && key === undefined) {
        const stop = delimited(end);
        key = keyText(pos, stop);
        pos = stop;
      } else if (id === ids.value && wire === 2 && !valueSeen && depth + 1 <= maxDepth) {
        const stop = delimited(end);
        value = scalarValue(ids, stop);
        valueSeen = true;
        if (value === GENERAL) {
          general = true;
          break;
        }
      } else {
        general = true;
        break;
      }
    }
    if (!general && pos === end) {
      attrs.addScalar(key, value);
      return;
    }
    pos = start;
  }
  // the general path also reads the entries after a refused one: their bytes must be valid all the same
  attrs.addKeyValue(message(kvShape, end, depth));
}

/** An AnyValue up to `end` holding one scalar member once: its value as `anyValue` gives it, or GENERAL. */
function scalarValue(ids: KeyValueIds, end: number): unknown {
  if (pos === end) return null;
  tag();
  const id = lo >>> 3;
  const wire = lo & 7;
  let v: unknown;
  if (id === ids.string && wire === 2) {
    const stop = delimited(end);
    v = text(pos, stop);
    pos = stop;
  } else if (id === ids.bool && wire === 0) {
    varint();
    v = lo !== 0;
  } else if (id === ids.int && wire === 0) {
    varint();
    const s = signed64(lo, hi);
    const n = Number(s);
    v = Number.isSafeInteger(n) ? n : s;
  } else if (id === ids.double && wire === 1) {
    if (end - pos < 8) return GENERAL;
    v = buf.readDoubleLE(pos);
    pos += 8;
  } else if (id === ids.bytes && wire === 2) {
    const stop = delimited(end);
    v = buf.toString('base64', pos, stop);
    pos = stop;
  } else return GENERAL;
  return pos === end ? v : GENERAL;
}

/**
 * Decodes `bytes` as the message of `shape`. Throws ProtoFormatError for bytes that are not a
 * valid encoding and ProtoDepthError for messages more than `depthLimit` levels below the root
 * (protobufjs's own limit counts the same way).
 */
export function readProto(shape: Shape, bytes: Buffer, depthLimit: number): Record<string, unknown> {
  buf = bytes;
  pos = 0;
  maxDepth = depthLimit;
  try {
    return message(shape, bytes.length, 0);
  } finally {
    buf = EMPTY;
  }
}
