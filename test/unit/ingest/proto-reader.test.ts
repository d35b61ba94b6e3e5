import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeProtoRequest, decodeProto, protoRoot, type Signal } from '../../../ingest/otlp/decode-proto.js';
import { ProtoDepthError, ProtoFormatError, readProto, shapeOf } from '../../../ingest/otlp/proto-reader.js';
import { MAX_PROTO_DEPTH } from '../../../ingest/limits.js';
import { generateWorkload } from '../../../bench/workload/generate.js';
import { dataPath } from '../../helpers/shared.js';

/** The shape protobufjs gives (what the walker of decode-envelope.ts was written against). */
const TYPES: Record<'logs' | 'traces', string> = {
  logs: 'opentelemetry.proto.collector.ExportLogsServiceRequest',
  traces: 'opentelemetry.proto.collector.ExportTraceServiceRequest',
};
const reference = (signal: 'logs' | 'traces', bytes: Uint8Array) => {
  const type = protoRoot().lookupType(TYPES[signal]);
  return type.toObject(type.decode(bytes), { longs: String, bytes: String, defaults: false, arrays: false, oneofs: false });
};
const direct = (signal: 'logs' | 'traces', bytes: Uint8Array) => readProto(shapeOf(protoRoot().lookupType(TYPES[signal])), Buffer.from(bytes), MAX_PROTO_DEPTH);
const same = (signal: 'logs' | 'traces', bytes: Uint8Array, what: string) => assert.equal(direct(signal, bytes), reference(signal, bytes), what);

/** A small seeded generator: the same requests on every run. */
function rng(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick };
}

const STRINGS = ['', 'a', 'service.name', 'naïve — 日本語 🙂', 'x'.repeat(40), 'tab\tand\nnewline', '\u0000nul', 'é'.repeat(20)];
const INT64 = ['0', '1', '-1', '9007199254740993', '-9223372036854775808', '9223372036854775807', '4294967296', '-4294967297'];
const UINT64 = ['0', '1', '1732000000123456789', '18446744073709551615', '4294967295', '9007199254740991'];

function anyValue(r: ReturnType<typeof rng>, depth: number): Record<string, unknown> {
  const k = r.int(depth > 3 ? 5 : 8);
  if (k === 0) return { stringValue: r.pick(STRINGS) };
  if (k === 1) return { boolValue: r.next() < 0.5 };
  if (k === 2) return { intValue: r.pick(INT64) };
  if (k === 3) return { doubleValue: r.pick([0, -0.5, 1e300, NaN, Infinity, -Infinity, 3.25]) };
  if (k === 4) return { bytesValue: Buffer.from(r.pick(STRINGS)).toString('base64') };
  if (k === 5) return { arrayValue: { values: Array.from({ length: r.int(3) }, () => anyValue(r, depth + 1)) } };
  if (k === 6) return { kvlistValue: { values: attributes(r, depth + 1) } };
  return {};
}
const attributes = (r: ReturnType<typeof rng>, depth = 0) => Array.from({ length: r.int(4) }, () => ({ key: r.pick(STRINGS), value: anyValue(r, depth) }));
const id = (r: ReturnType<typeof rng>, n: number) => Buffer.from(Array.from({ length: r.pick([n, n, 0, 3]) }, () => r.int(256))).toString('base64');
const scope = (r: ReturnType<typeof rng>) => (r.next() < 0.3 ? undefined : { name: r.pick(STRINGS), version: r.pick(STRINGS), attributes: attributes(r), droppedAttributesCount: r.int(3) });
const resource = (r: ReturnType<typeof rng>) => (r.next() < 0.2 ? undefined : { attributes: attributes(r), droppedAttributesCount: r.int(2) });

function logsRequest(r: ReturnType<typeof rng>) {
  return {
    resourceLogs: Array.from({ length: 1 + r.int(2) }, () => ({
      resource: resource(r),
      schemaUrl: r.pick(STRINGS),
      scopeLogs: Array.from({ length: r.int(3) }, () => ({
        scope: scope(r),
        logRecords: Array.from({ length: r.int(4) }, () => ({
          timeUnixNano: r.pick(UINT64),
          observedTimeUnixNano: r.pick(UINT64),
          severityNumber: r.pick([0, 9, 17, -3]),
          severityText: r.pick(STRINGS),
          body: r.next() < 0.8 ? anyValue(r, 0) : undefined,
          attributes: attributes(r),
          droppedAttributesCount: r.int(3),
          flags: r.pick([0, 1, 4294967295]),
          traceId: id(r, 16),
          spanId: id(r, 8),
          eventName: r.pick(STRINGS),
        })),
      })),
    })),
  };
}

function tracesRequest(r: ReturnType<typeof rng>) {
  return {
    resourceSpans: Array.from({ length: 1 + r.int(2) }, () => ({
      resource: resource(r),
      scopeSpans: Array.from({ length: r.int(3) }, () => ({
        scope: scope(r),
        spans: Array.from({ length: r.int(3) }, () => ({
          traceId: id(r, 16),
          spanId: id(r, 8),
          parentSpanId: id(r, 8),
          traceState: r.pick(STRINGS),
          name: r.pick(STRINGS),
          kind: r.int(6),
          startTimeUnixNano: r.pick(UINT64),
          endTimeUnixNano: r.pick(UINT64),
          attributes: attributes(r),
          droppedAttributesCount: r.int(2),
          events: Array.from({ length: r.int(3) }, () => ({ timeUnixNano: r.pick(UINT64), name: r.pick(STRINGS), attributes: attributes(r), droppedAttributesCount: r.int(2) })),
          droppedEventsCount: r.int(2),
          links: Array.from({ length: r.int(2) }, () => ({ traceId: id(r, 16), spanId: id(r, 8), traceState: r.pick(STRINGS), attributes: attributes(r), flags: r.int(3) })),
          droppedLinksCount: r.int(2),
          status: r.next() < 0.5 ? { code: r.int(3), message: r.pick(STRINGS) } : undefined,
          flags: r.pick([0, 256, 4294967295]),
        })),
      })),
    })),
  };
}

function corpus(): Array<{ signal: 'logs' | 'traces'; bytes: Buffer; what: string }> {
  const out: Array<{ signal: 'logs' | 'traces'; bytes: Buffer; what: string }> = [];
  const r = rng(20261124);
  for (let i = 0; i < 150; i++) out.push({ signal: 'logs', bytes: encodeProtoRequest('logs', logsRequest(r)), what: `random logs ${i}` });
  for (let i = 0; i < 150; i++) out.push({ signal: 'traces', bytes: encodeProtoRequest('traces', tracesRequest(r)), what: `random traces ${i}` });
  // the published OTLP examples, ids turned from hex (OTLP/JSON) into bytes
  const hexIds = (_k: string, v: unknown) => (typeof v === 'string' && /^[0-9a-f]{16}([0-9a-f]{16})?$/.test(v) ? Buffer.from(v, 'hex').toString('base64') : v);
  out.push({ signal: 'logs', bytes: encodeProtoRequest('logs', JSON.parse(readFileSync(dataPath('otlp-examples', 'logs.json'), 'utf8'), hexIds)), what: 'otlp-examples/logs.json' });
  out.push({ signal: 'traces', bytes: encodeProtoRequest('traces', JSON.parse(readFileSync(dataPath('otlp-examples', 'trace.json'), 'utf8'), hexIds)), what: 'otlp-examples/trace.json' });
  // what agents send: the bench's OTLP protobuf bodies of both agent shapes
  const { requests } = generateWorkload({ conversations: 60 });
  for (const q of requests) if (q.format.startsWith('otlp-proto')) out.push({ signal: 'logs', bytes: Buffer.from(q.body as Uint8Array), what: `workload ${q.format}` });
  return out;
}

test('valid requests read exactly as protobufjs reads them: random logs and traces, the OTLP examples, agent bodies', () => {
  const all = corpus();
  assert.ok(all.length > 300, String(all.length));
  for (const c of all) same(c.signal, c.bytes, c.what);
});

test('the edge decodes logs and traces through the direct reader, metrics as before', () => {
  const logs = encodeProtoRequest('logs', { resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: '1732000000123456789', body: { stringValue: 'hi' } }] }] }] });
  assert.equal(decodeProto('logs', logs), { resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: '1732000000123456789', body: { stringValue: 'hi' } }] }] }] });
  // metrics hold packed repeated numbers the reader does not handle: its table refuses to build
  assert.throws(() => shapeOf(protoRoot().lookupType('opentelemetry.proto.collector.ExportMetricsServiceRequest')), /not read directly/);
  const metrics = encodeProtoRequest('metrics', { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'm', gauge: { dataPoints: [{ asInt: '3' }] } }] }] }] });
  assert.ok(decodeProto('metrics', metrics));
});

/** Protobuf wire pieces, to build what an encoder may send but protobufjs's encoder never writes. */
const varint = (n: number) => {
  const out: number[] = [];
  for (; n > 0x7f; n = Math.floor(n / 128)) out.push((n % 128) | 0x80);
  out.push(n);
  return Buffer.from(out);
};
const len = (no: number, bytes: Buffer) => Buffer.concat([varint(no * 8 + 2), varint(bytes.length), bytes]);
const logsWith = (record: Buffer) => len(1, len(2, len(2, record))); // request{resource_logs{scope_logs{log_records}}}

test('unknown fields of every wire type, groups included, are skipped', () => {
  const known = len(3, Buffer.from('INFO')); // severity_text
  const unknown = Buffer.concat([
    varint(99 * 8 + 0), varint(300),
    varint(98 * 8 + 1), Buffer.alloc(8, 7),
    len(97, Buffer.from('ignored')),
    varint(96 * 8 + 5), Buffer.alloc(4, 1),
    varint(95 * 8 + 3), varint(1 * 8 + 0), varint(5), len(2, Buffer.from('in a group')), varint(95 * 8 + 4),
  ]);
  const plain = direct('logs', logsWith(known));
  assert.equal(direct('logs', logsWith(Buffer.concat([unknown, known, unknown]))), plain);
  assert.equal(reference('logs', logsWith(Buffer.concat([unknown, known, unknown]))), plain);
});

test('presence as in proto3: a plain field sent at its default is absent, a oneof member is kept and replaces the others, message fields merge', () => {
  // severity_text 'first' then '' (the last wins: absent), severity_number 0, event_name 'e'
  const record = Buffer.concat([len(3, Buffer.from('first')), len(3, Buffer.alloc(0)), varint(2 * 8), varint(0), len(12, Buffer.from('e'))]);
  const out = direct('logs', logsWith(record));
  assert.equal(out, reference('logs', logsWith(record)));
  assert.equal((out as any).resourceLogs[0].scopeLogs[0].logRecords[0], { eventName: 'e' });
  // body: string_value 'a', then bool_value false; then a second body occurrence holding int_value 0
  const body = Buffer.concat([len(5, Buffer.concat([len(1, Buffer.from('a')), varint(2 * 8), varint(0)])), len(5, Buffer.concat([varint(3 * 8), varint(0)]))]);
  const merged = direct('logs', logsWith(body));
  assert.equal(merged, reference('logs', logsWith(body)));
  assert.equal((merged as any).resourceLogs[0].scopeLogs[0].logRecords[0].body, { intValue: '0' });
  // a known field sent with another wire type is skipped like an unknown one
  const wrongWire = logsWith(Buffer.concat([varint(3 * 8 + 0), varint(5), len(12, Buffer.from('kept'))]));
  assert.equal(direct('logs', wrongWire), reference('logs', wrongWire));
  assert.equal((direct('logs', wrongWire) as any).resourceLogs[0].scopeLogs[0].logRecords[0], { eventName: 'kept' });
});

// PROTO_SEED and PROTO_MUTATIONS run other and more mutations (240,000 over eight seeds agreed)
test('damaged bytes: the two readers agree, both refusing or both reading the same, and the refusal is a format error', () => {
  const r = rng(Number(process.env.PROTO_SEED ?? 7));
  const seeds = corpus().slice(0, 120);
  let refused = 0;
  for (let i = 0; i < Number(process.env.PROTO_MUTATIONS ?? 3000); i++) {
    const { signal, bytes } = seeds[r.int(seeds.length)]!;
    const b = Buffer.from(bytes);
    const mode = r.int(3);
    let mutated: Buffer;
    if (mode === 0 && b.length) {
      for (let k = 0; k < 1 + r.int(3); k++) b[r.int(b.length)] = r.int(256);
      mutated = b;
    } else if (mode === 1) mutated = b.subarray(0, r.int(b.length + 1));
    else {
      const at = r.int(b.length + 1);
      mutated = Buffer.concat([b.subarray(0, at), Buffer.from([r.int(256), r.int(256)]), b.subarray(at)]);
    }
    let theirs: unknown;
    try {
      theirs = reference(signal, mutated);
    } catch {
      theirs = undefined;
    }
    let mine: unknown;
    try {
      mine = direct(signal, mutated);
    } catch (err) {
      assert.ok(err instanceof ProtoFormatError || err instanceof ProtoDepthError, String(err));
      assert.is(theirs, undefined, `protobufjs read mutation ${i}, the direct reader refused it: ${(err as Error).message}`);
      refused++;
      continue;
    }
    assert.equal(mine, theirs, `mutation ${i}`);
  }
  assert.ok(refused > 300, `only ${refused} of 3,000 mutations were refused`);
});

test('a length past the end, a bad wire type and invalid UTF-8 are format errors', () => {
  assert.throws(() => direct('logs', logsWith(Buffer.concat([varint(3 * 8 + 7), varint(5)]))), (e: unknown) => e instanceof ProtoFormatError && /wire type/.test((e as Error).message));
  assert.throws(() => direct('logs', Buffer.concat([varint(1 * 8 + 2), varint(50), Buffer.alloc(3)])), (e: unknown) => e instanceof ProtoFormatError);
  const badUtf8 = logsWith(len(3, Buffer.from([0x61, 0xc3, 0x28])));
  assert.throws(() => direct('logs', badUtf8), (e: unknown) => e instanceof ProtoFormatError && /UTF-8/.test((e as Error).message));
  assert.throws(() => reference('logs', badUtf8));
  const longUtf8 = logsWith(len(3, Buffer.concat([Buffer.from('é'.repeat(40)), Buffer.from([0xff])])));
  assert.throws(() => direct('logs', longUtf8), (e: unknown) => e instanceof ProtoFormatError);
});

test('nesting: as deep as protobufjs reads, and one level more is a depth error', () => {
  // request (level 0) → resource_logs → scope_logs → log_records → body: AnyValue at level 4;
  // each array_value adds two levels (ArrayValue, AnyValue)
  const nested = (arrays: number) => {
    let v = len(1, Buffer.from('leaf'));
    for (let i = 0; i < arrays; i++) v = len(5, len(1, v));
    return logsWith(len(5, v));
  };
  const fits = (MAX_PROTO_DEPTH - 4) / 2;
  assert.ok(Number.isInteger(fits), 'the limit is even');
  assert.equal(direct('logs', nested(fits)), reference('logs', nested(fits)));
  assert.throws(() => direct('logs', nested(fits + 1)), (e: unknown) => e instanceof ProtoDepthError);
  assert.throws(() => reference('logs', nested(fits + 1)));
  assert.throws(() => decodeProto('logs' as Signal, nested(200)), /deeper than 100 levels of protobuf messages/);
});

test.run();
