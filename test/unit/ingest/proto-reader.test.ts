import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeProtoRequest, decodeProto, protoRoot, type Signal } from '../../../ingest/otlp/decode-proto.js';
import { ProtoDepthError, ProtoFormatError, readProto } from '../../../ingest/otlp/proto-reader.js';
import { shapeOf } from '../../../ingest/otlp/proto-shapes.js';
import { MAX_PROTO_DEPTH } from '../../../ingest/limits.js';
import { decodeLogs, decodeSpans } from '../../../ingest/otlp/decode-envelope.js';
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

/** A copy of one of `seeds` with bytes changed, cut short or inserted. */
function damaged(r: ReturnType<typeof rng>, seeds: ReadonlyArray<{ signal: 'logs' | 'traces'; bytes: Buffer }>) {
  const { signal, bytes } = seeds[r.int(seeds.length)]!;
  const b = Buffer.from(bytes);
  const mode = r.int(3);
  if (mode === 0 && b.length) {
    for (let k = 0; k < 1 + r.int(3); k++) b[r.int(b.length)] = r.int(256);
    return { signal, mutated: b };
  }
  if (mode === 1) return { signal, mutated: b.subarray(0, r.int(b.length + 1)) };
  const at = r.int(b.length + 1);
  return { signal, mutated: Buffer.concat([b.subarray(0, at), Buffer.from([r.int(256), r.int(256)]), b.subarray(at)]) };
}

// PROTO_SEED and PROTO_MUTATIONS run other and more mutations (240,000 over eight seeds agreed)
test('damaged bytes: the two readers agree, both refusing or both reading the same, and the refusal is a format error', () => {
  const r = rng(Number(process.env.PROTO_SEED ?? 7));
  const seeds = corpus().slice(0, 120);
  let refused = 0;
  for (let i = 0; i < Number(process.env.PROTO_MUTATIONS ?? 3000); i++) {
    const { signal, mutated } = damaged(r, seeds);
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

/**
 * The edge's reading (`mapAttributes`: attribute lists straight into maps) against the general
 * reading walked the same way: decode-envelope.ts must give the same records, rejections and
 * reasons, and the same refusals of the whole request.
 */
const mapped = (signal: 'logs' | 'traces', bytes: Uint8Array) => readProto(shapeOf(protoRoot().lookupType(TYPES[signal]), true), Buffer.from(bytes), MAX_PROTO_DEPTH);
const walked = (signal: 'logs' | 'traces', body: unknown) => (signal === 'logs' ? decodeLogs(body, 'base64') : decodeSpans(body, 'base64'));
/** What the edge makes of the bytes through one reading: the walk's output, or the refusal's class. */
function outcome(read: typeof mapped, signal: 'logs' | 'traces', bytes: Uint8Array): unknown {
  let body: unknown;
  try {
    body = read(signal, bytes);
  } catch (err) {
    if (err instanceof ProtoDepthError) return 'depth error';
    if (err instanceof ProtoFormatError) return 'format error';
    throw err;
  }
  try {
    return walked(signal, body);
  } catch (err) {
    return `envelope error: ${(err as Error).message}`;
  }
}
const sameWalk = (signal: 'logs' | 'traces', bytes: Uint8Array, what: string) => {
  const mine = outcome(mapped, signal, bytes);
  assert.equal(mine, outcome(direct, signal, bytes), what);
  return mine as { items: any[]; rejected: number; reasons: string[] };
};

test('attributes read into maps: the same records, rejections and reasons as the general reading, over the whole corpus', () => {
  let attrs = 0;
  let rejected = 0;
  for (const c of corpus()) {
    const d = sameWalk(c.signal, c.bytes, c.what);
    for (const item of d.items) attrs += Object.keys(item.attributes).length;
    rejected += d.rejected;
  }
  assert.ok(attrs > 2000, `attributes compared: ${attrs}`);
  assert.ok(rejected > 20, `records rejected for their attributes (empty keys, deep values) compared: ${rejected}`);
});

test('attributes read into maps: damaged bytes are refused or read alike', () => {
  const r = rng(Number(process.env.PROTO_SEED ?? 11));
  const seeds = corpus().slice(0, 120);
  let refused = 0;
  for (let i = 0; i < Number(process.env.PROTO_MUTATIONS ?? 3000); i++) {
    const { signal, mutated } = damaged(r, seeds);
    const mine = outcome(mapped, signal, mutated);
    assert.equal(mine, outcome(direct, signal, mutated), `mutation ${i}`);
    if (typeof mine === 'string') refused++;
  }
  assert.ok(refused > 300, `only ${refused} of the mutations were refused`);
});

test('attributes read into maps: KeyValues an encoder may send but protobufjs never writes', () => {
  const str = (v: string) => len(1, Buffer.from(v));
  const kv = (...parts: Buffer[]) => len(6, Buffer.concat(parts)); // log_record.attributes
  const key = (k: string) => len(1, Buffer.from(k));
  const value = (...members: Buffer[]) => len(2, Buffer.concat(members));
  const int = (n: number) => Buffer.concat([varint(3 * 8), varint(n)]);
  const array = (...values: Buffer[]) => len(5, Buffer.concat(values.map((v) => len(1, v))));
  const record = (...attrs: Buffer[]) => logsWith(Buffer.concat([...attrs, len(12, Buffer.from('ev'))]));
  const cases: Array<[string, Buffer, unknown]> = [
    ['value before key', record(kv(value(str('v')), key('k'))), { k: 'v' }],
    ['key twice: the last wins', record(kv(key('a'), value(str('v')), key('b'))), { b: 'v' }],
    ['value twice: merged, the last member wins', record(kv(key('k'), value(str('v')), value(int(7)))), { k: 7 }],
    ['array value twice: the arrays concatenate', record(kv(key('k'), value(array(str('a'))), value(array(str('b'))))), { k: ['a', 'b'] }],
    ['two members in one value: the last wins', record(kv(key('k'), value(str('v'), int(3)))), { k: 3 }],
    ['unknown fields in the KeyValue and the value', record(kv(varint(9 * 8), varint(1), key('k'), value(len(15, Buffer.from('x')), str('v')))), { k: 'v' }],
    ['a value field of another wire type is skipped', record(kv(key('k'), varint(2 * 8), varint(5))), { k: null }],
    ['no value, an empty value', record(kv(key('a')), kv(key('b'), value())), { a: null, b: null }],
    ['duplicate keys: the last value, in the first place', record(kv(key('a'), value(str('1'))), kv(key('b'), value(str('2'))), kv(key('a'), value(str('3')))), { a: '3', b: '2' }],
    ['__proto__ is an own key', record(kv(key('__proto__'), value(str('p')))), JSON.parse('{"__proto__":"p"}')],
    ['integers beyond 2^53 stay decimal text', record(kv(key('big'), value(Buffer.concat([varint(3 * 8), Buffer.from([0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10])])))), { big: '9007199254740993' }],
  ];
  for (const [what, bytes, attributes] of cases) {
    const d = sameWalk('logs', bytes, what);
    assert.is(d.rejected, 0, what);
    assert.equal(d.items[0].attributes, attributes, what);
    if (what.startsWith('__proto__')) assert.is(Object.getPrototypeOf(d.items[0].attributes), Object.prototype, 'the prototype is untouched');
  }
  // refused attributes reject their record alone, with the general reading's reason
  let deep = str('leaf');
  for (let i = 0; i < 40; i++) deep = array(deep);
  const refusals: Array<[string, Buffer, string]> = [
    ['an empty key', record(kv(key(''), value(str('v')))), 'attribute key must be a string'],
    ['no key', record(kv(value(str('v')))), 'attribute key must be a string'],
    ['an empty KeyValue', record(kv()), 'attribute key must be a string'],
    ['a value nested deeper than 32', record(kv(key('k'), value(deep))), 'AnyValue nested too deeply'],
    ['a refused attribute before valid ones', record(kv(key(''), value(str('v'))), kv(key('ok'), value(str('v')))), 'attribute key must be a string'],
  ];
  for (const [what, bytes, reason] of refusals) {
    const valid = logsWith(len(12, Buffer.from('other')));
    const both = Buffer.concat([bytes, valid]);
    const d = sameWalk('logs', both, what);
    assert.is(d.rejected, 1, what);
    assert.equal(d.reasons, [reason], what);
    assert.equal(d.items.map((x) => x.eventName), ['other'], `${what}: the valid record beside it is read`);
  }
  // bytes broken after a refused attribute still refuse the whole request
  const broken = record(kv(key(''), value(str('v'))), kv(key('k'), len(2, Buffer.from([0x0a, 0x09, 0x61]))));
  assert.is(outcome(mapped, 'logs', broken), 'format error');
  assert.is(outcome(direct, 'logs', broken), 'format error');
});

test('attributes read into maps: a resource shared by its scopes gives each its own map', () => {
  const bytes = encodeProtoRequest('logs', {
    resourceLogs: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] }, scopeLogs: [{ logRecords: [{ eventName: 'a' }] }, { logRecords: [{ eventName: 'b' }] }] }],
  });
  const d = sameWalk('logs', bytes, 'two scopes');
  const [a, b] = d.items as Array<{ ctx: { resource: Record<string, unknown> } }>;
  assert.equal(a!.ctx.resource, { 'service.name': 'svc' });
  assert.ok(a!.ctx.resource !== b!.ctx.resource, 'two maps');
  a!.ctx.resource['service.name'] = 'changed';
  assert.is(b!.ctx.resource['service.name'], 'svc');
});

test('attribute keys read again come from a cache of their bytes: thousands of keys, colliding slots, read as the general reading reads them', () => {
  const r = rng(99);
  const keys = Array.from({ length: 3000 }, (_, i) => `${r.pick(['k', 'gen_ai.', 'é', '日本'])}${i.toString(36)}${'x'.repeat(r.int(70))}`);
  const records = Array.from({ length: 60 }, (_, i) => ({
    eventName: `r${i}`,
    attributes: Array.from({ length: 100 }, (_, j) => ({ key: keys[(i * 37 + j * 101) % keys.length]!, value: { stringValue: String(j) } })),
  }));
  const bytes = encodeProtoRequest('logs', { resourceLogs: [{ scopeLogs: [{ logRecords: records }] }] });
  for (let pass = 0; pass < 2; pass++) {
    const d = sameWalk('logs', bytes, `pass ${pass}`);
    assert.is(d.items.length, 60);
    d.items.forEach((item, i) => assert.equal(Object.keys(item.attributes), records[i]!.attributes.map((a) => a.key).filter((k, j, all) => all.indexOf(k) === j)));
  }
});

test('64-bit integers: decimal text as protobufjs gives it, across the whole range', () => {
  const r = rng(64);
  const values: bigint[] = [0n, 1n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 48n, 2n ** 63n, 2n ** 64n - 1n, 1_732_000_000_123_456_789n, 999_999_999n * 2n ** 32n];
  for (let i = 0; i < 2000; i++) values.push((BigInt(r.int(2 ** 32)) << 32n) | BigInt(r.int(2 ** 32)));
  for (let i = 0; i < 300; i++) values.push((BigInt(2 ** 21 + r.int(64)) << 32n) | BigInt(r.int(2 ** 32)));
  const records = values.map((v) => ({ timeUnixNano: v.toString(), attributes: [{ key: 'n', value: { intValue: BigInt.asIntN(64, v).toString() } }] }));
  const bytes = encodeProtoRequest('logs', { resourceLogs: [{ scopeLogs: [{ logRecords: records }] }] });
  same('logs', bytes, '64-bit values');
  const read = (direct('logs', bytes) as any).resourceLogs[0].scopeLogs[0].logRecords.map((x: any) => x.timeUnixNano ?? '0');
  assert.equal(read, values.map(String));
  sameWalk('logs', bytes, '64-bit values walked');
});

test.run();
