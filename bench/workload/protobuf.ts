/**
 * A minimal protobuf wire-format writer and a schema-driven reader: enough for OTLP logs
 * (ExportLogsServiceRequest) without generated code. The reader is what the HTTP parse ceiling
 * uses, so that ceiling decodes protobuf bodies as fully as a real receiver would.
 */

export class ProtoWriter {
  private buf: Buffer = Buffer.allocUnsafe(16 * 1024);
  private len = 0;

  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  varint(v: number): this {
    this.ensure(10);
    // numbers above 2^31 need arithmetic, not bit ops
    while (v > 0x7f) {
      this.buf[this.len++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.len++] = v;
    return this;
  }

  tag(field: number, wire: 0 | 1 | 2 | 5): this {
    return this.varint(field * 8 + wire);
  }

  string(field: number, s: string): this {
    const max = s.length * 3;
    this.tag(field, 2);
    if (max < 128) {
      // short strings (most keys): length fits one byte, write in place
      this.ensure(1 + max);
      const n = this.buf.write(s, this.len + 1, 'utf8');
      this.buf[this.len] = n;
      this.len += 1 + n;
      return this;
    }
    const bytes = Buffer.from(s, 'utf8');
    this.varint(bytes.length);
    this.ensure(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
    return this;
  }

  bytes(field: number, b: Uint8Array): this {
    this.tag(field, 2).varint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }

  uint(field: number, v: number): this {
    return this.tag(field, 0).varint(v);
  }

  /** int64 written as varint; negative values are not produced by the workload. */
  int64(field: number, v: number): this {
    return this.uint(field, v);
  }

  bool(field: number, v: boolean): this {
    return this.tag(field, 0).varint(v ? 1 : 0);
  }

  double(field: number, v: number): this {
    this.tag(field, 1);
    this.ensure(8);
    new DataView(this.buf.buffer, this.buf.byteOffset + this.len, 8).setFloat64(0, v, true);
    this.len += 8;
    return this;
  }

  fixed64(field: number, v: bigint): this {
    this.tag(field, 1);
    this.ensure(8);
    new DataView(this.buf.buffer, this.buf.byteOffset + this.len, 8).setBigUint64(0, v, true);
    this.len += 8;
    return this;
  }

  /**
   * Embedded message: `fn` writes the content in place, then the content is shifted right by the
   * size of its length prefix (one buffer for the whole request, no per-message allocation).
   */
  message(field: number, fn: (w: ProtoWriter) => void): this {
    this.tag(field, 2);
    const start = this.len;
    fn(this);
    const size = this.len - start;
    let prefix = 1;
    for (let v = size; v > 0x7f; v = Math.floor(v / 128)) prefix++;
    this.ensure(prefix);
    this.buf.copyWithin(start + prefix, start, this.len);
    const end = this.len + prefix;
    this.len = start;
    this.varint(size);
    this.len = end;
    return this;
  }

  finish(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}

/** Field number → [name, kind]; a kind naming another schema entry is a nested message. */
export type ProtoSchema = Record<string, Record<number, [string, string]>>;

/** The part of the OTLP protos the workload uses (numbers from opentelemetry-proto). */
export const OTLP_LOGS_SCHEMA: ProtoSchema = {
  ExportLogsServiceRequest: { 1: ['resourceLogs', 'ResourceLogs'] },
  ResourceLogs: { 1: ['resource', 'Resource'], 2: ['scopeLogs', 'ScopeLogs'], 3: ['schemaUrl', 'string'] },
  Resource: { 1: ['attributes', 'KeyValue'], 2: ['droppedAttributesCount', 'uint'] },
  ScopeLogs: { 1: ['scope', 'Scope'], 2: ['logRecords', 'LogRecord'], 3: ['schemaUrl', 'string'] },
  Scope: { 1: ['name', 'string'], 2: ['version', 'string'], 3: ['attributes', 'KeyValue'] },
  LogRecord: {
    1: ['timeUnixNano', 'fixed64'],
    11: ['observedTimeUnixNano', 'fixed64'],
    2: ['severityNumber', 'uint'],
    3: ['severityText', 'string'],
    5: ['body', 'AnyValue'],
    6: ['attributes', 'KeyValue'],
    8: ['flags', 'fixed32'],
    9: ['traceId', 'bytes'],
    10: ['spanId', 'bytes'],
    12: ['eventName', 'string'],
  },
  KeyValue: { 1: ['key', 'string'], 2: ['value', 'AnyValue'] },
  AnyValue: { 1: ['stringValue', 'string'], 2: ['boolValue', 'bool'], 3: ['intValue', 'uint'], 4: ['doubleValue', 'double'], 5: ['arrayValue', 'ArrayValue'], 6: ['kvlistValue', 'KvList'], 7: ['bytesValue', 'bytes'] },
  ArrayValue: { 1: ['values', 'AnyValue'] },
  KvList: { 1: ['values', 'KeyValue'] },
};

const REPEATED = new Set(['resourceLogs', 'scopeLogs', 'logRecords', 'attributes', 'values']);

/** Decodes `bytes` as message `type` of `schema` into a plain object; unknown fields are skipped. */
export function decodeProto(bytes: Uint8Array, type: string, schema: ProtoSchema = OTLP_LOGS_SCHEMA): Record<string, unknown> {
  const fields = schema[type];
  if (!fields) throw new Error(`unknown message type ${type}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Record<string, unknown> = {};
  let pos = 0;
  const varint = () => {
    let result = 0;
    let mul = 1;
    for (;;) {
      if (pos >= bytes.length) throw new Error('truncated varint');
      const b = bytes[pos++]!;
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
  };
  while (pos < bytes.length) {
    const key = varint();
    const no = Math.floor(key / 8);
    const wire = key & 7;
    const def = fields[no];
    let value: unknown;
    if (wire === 0) value = varint();
    else if (wire === 1) {
      value = def?.[1] === 'double' ? view.getFloat64(pos, true) : view.getBigUint64(pos, true).toString();
      pos += 8;
    } else if (wire === 5) {
      value = view.getUint32(pos, true);
      pos += 4;
    } else if (wire === 2) {
      const n = varint();
      if (pos + n > bytes.length) throw new Error('truncated field');
      const slice = bytes.subarray(pos, pos + n);
      pos += n;
      const kind = def?.[1];
      if (kind === 'string') value = Buffer.from(slice.buffer, slice.byteOffset, slice.byteLength).toString('utf8');
      else if (kind && schema[kind]) value = decodeProto(slice, kind, schema);
      else value = slice;
    } else throw new Error(`unsupported wire type ${wire}`);
    if (!def) continue;
    const [name, kind] = def;
    if (kind === 'bool') value = value === 1;
    if (REPEATED.has(name)) ((out[name] ??= []) as unknown[]).push(value);
    else out[name] = value;
  }
  return out;
}
