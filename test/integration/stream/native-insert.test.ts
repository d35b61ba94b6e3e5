/**
 * Native inserts store exactly what JSON lines store: the same rows (every format of the bench's
 * agent workload and the published OTLP examples, through the edge's pipeline and the stream's
 * transform) inserted once as JSONCompactEachRow and once as Native blocks of per-message chunks
 * read back identically, column by column, on the embedded engine and through the HTTP interface.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import type { Store } from '../../../core/clickhouse.js';
import { eventJson, runPipeline } from '../../../ingest/pipeline.js';
import { withDefaults } from '../../../stream/batch.js';
import { encodeNativeChunk, nativeBlock, COLUMN_TYPES } from '../../../stream/native.js';
import { COLUMNS, eventsToRows, stringMap, TABLES, type TableName } from '../../../stream/rows.js';
import { ATTRIBUTE_REFS, receivedAttributes } from '../../../schemas/attribute-refs.js';
import { jsonLines, nativeColumnsOf } from '../../../stream/row-bytes.js';
import { buildPool } from '../../../bench/lib/pool.js';
import type { IngestEvent } from '../../../schemas/events.js';
import { dataPath } from '../../helpers/shared.js';
import { useBothStores } from '../../helpers/ch-http.js';

const storeNamed = useBothStores(test);

/** Rows per message, per table, of `count` bench events and the OTLP examples. */
function messages(count: number): Array<Partial<Record<TableName, Record<string, unknown>[]>>> {
  const bodies = buildPool(count, { seed: 7 }).requests.map((r) => ({
    route: r.route === '/v1/ingest' ? 'ingest' : r.route.split('/').at(-1)!,
    agent: r.route === '/v1/ingest' ? 'direct' : r.route.split('/').at(-2)!,
    encoding: r.contentType.includes('protobuf') ? 'protobuf' : 'json',
    body: r.body,
    tenant: r.tenant,
  }));
  for (const [route, file] of [['logs', 'logs.json'], ['traces', 'trace.json']] as const) {
    bodies.push({ route, agent: 'otlp', encoding: 'json', body: readFileSync(dataPath('otlp-examples', file)), tenant: 'examples' });
  }
  const out: Array<Partial<Record<TableName, Record<string, unknown>[]>>> = [];
  for (const b of bodies) {
    const res = runPipeline({ ...b, receiveTime: '2026-11-24T10:00:00.000Z' } as Parameters<typeof runPipeline>[0]);
    if (res.kind !== 'ok') continue;
    out.push(eventsToRows(res.events.map((e) => withDefaults(JSON.parse(eventJson(e)) as IngestEvent))).rows);
  }
  // values the workload may not have: absent columns (null: the type's zero), edge values. The
  // rows always carry `events.success` (its DEFAULT -1 is what a null gives through a server's
  // JSON parser, 0 through the embedded raw insert's; Native writes the zero)
  const sparse = (t: TableName) => ({ tenant_id: 'edge', conversation_id: `sparse-${t}`, event_id: `sparse-${t}`, call_id: 'c1', message_id: 'm1', trace_id: 't1', span_id: 's1', ...(t === 'events' ? { success: -1 } : {}) });
  out.push(Object.fromEntries(TABLES.map((t) => [t, [sparse(t)]])));
  const edge = {
    tenant_id: 'edge', conversation_id: 'edge-values', event_id: 'ev-é', message_id: '😀 ünïcode \u0000 "quoted" \\ back\nslash',
    event_time: '2025-06-01T10:00:00Z', receive_time: '2024-02-29T23:59:59.9Z', ts: '2261-12-31T23:59:59.999Z', last_ts: '1970-01-01T00:00:00.000Z',
    start_time: '2025-06-01T10:00:00.123456Z', end_time: '2025-06-01T10:00:01.5Z', sequence: Number.MAX_SAFE_INTEGER, seq: 0, input_tokens: 2 ** 40,
    cost_usd: 0.1 + 0.2, duration_ms: -0.0, success: 1, has_tool_error: true, kind: 255, status_code: 0,
    // a key named __proto__ as JSON.parse makes it (an own key; a literal would set the prototype)
    attributes: { 'a.b': 'x', '': '', 'ключ': 'значение', n: 1.5, big: 2 ** 53, b: true, o: { x: [1, 'y'] }, z: null, ...JSON.parse('{"__proto__":"p"}') }, resource: {},
  };
  out.push(Object.fromEntries(TABLES.map((t) => [t, [edge]])));
  return out;
}

const dump = async (store: Store, db: string, table: TableName) => {
  const cols = COLUMNS[table].join(', ');
  return (await store.query<{ r: string }>(`SELECT toJSONString(tuple(${cols})) AS r FROM ${db}.${table} ORDER BY r`)).map((x) => x.r);
};

for (const which of ['embedded', 'server'] as const) {
  test(`${which}: Native blocks of per-message chunks store exactly what JSON lines store, in every table`, async () => {
    const store = storeNamed(which);
    for (const db of ['via_json', 'via_native']) {
      await store.command(`CREATE DATABASE IF NOT EXISTS ${db}`);
      for (const t of TABLES) await store.command(`CREATE TABLE IF NOT EXISTS ${db}.${t} AS {{db}}.${t}`);
    }
    const msgs = messages(3000);
    for (const t of TABLES) {
      const perMessage = msgs.map((m) => m[t] ?? []).filter((rows) => rows.length);
      const all = perMessage.flat();
      assert.ok(all.length > 0, `${t}: no rows`);
      await store.insertBytes(`via_json.${t}`, COLUMNS[t], Buffer.from(jsonLines(t, all)), { insert_deduplicate: 0 });
      const chunks = perMessage.map((rows) => ({ rows: rows.length, ...encodeNativeChunk(nativeColumnsOf(t), rows)! }));
      const encoded = chunks.filter((c) => c.data);
      assert.is(encoded.length, chunks.length, `${t}: every message of the workload has a Native form`);
      await store.insertBytes(`via_native.${t}`, COLUMNS[t], nativeBlock(nativeColumnsOf(t), encoded), { insert_deduplicate: 0 }, 'Native');
      const [a, b] = [await dump(store, 'via_json', t), await dump(store, 'via_native', t)];
      assert.is(b.length, a.length, `${t}: row count`);
      for (let i = 0; i < a.length; i++) assert.is(b[i], a[i], `${t}: row ${i}`);
    }
    const kept = await store.query<{ v: string }>("SELECT attributes['__proto__'] AS v FROM via_native.events WHERE conversation_id = 'edge-values'");
    assert.equal(kept, [{ v: 'p' }], 'an attribute named __proto__ is stored');
  });
}

/** An events row whose attributes repeat its columns in every way a reference must (and must not) take. */
function referencingRow(): Record<string, unknown> {
  const row: Record<string, unknown> = {
    tenant_id: 'edge', conversation_id: 'sess-0f3a-41c2', user_id: 'user-77', name: 'claude_code.tool_result', tool_call_id: 'toolu_01ABC',
    tool_name: 'Bash', model: 'claude-sonnet-4-5', message_id: 'msg-1', sequence: 4242, event_id: 'refs-1',
    event_time: '2025-06-01T10:00:00.120Z', receive_time: '2025-06-01T10:00:01Z', type: 'tool_result', success: 1, attribute_refs: 1,
  };
  row.attributes = {
    'session.id': 'sess-0f3a-41c2', session_id: 'sess-0f3a-41c2', 'user.id': 'user-77', 'event.name': 'claude_code.tool_result',
    tool_use_id: 'toolu_01ABC', tool_name: 'Bash', model: 'claude-sonnet-4-5', 'message.id': 'msg-1', 'event.sequence': 4242, seq_text: '4242', 'short.seq': 42,
    'event.timestamp': '2025-06-01T10:00:00.120Z', 'other.time': '2025-06-01T10:00:00.12Z', 'nul.ref': '\u0000c', 'nul.lead': '\u0000\u0000x',
    empty: '', short: 'Ba', 'not.ref': 'sess-0f3a-41c2 ', obj: { id: 'sess-0f3a-41c2' }, n: 1.5,
  };
  return row;
}

for (const which of ['embedded', 'server'] as const) {
  test(`${which}: events.attributes are stored by reference to the row's columns and read back exactly as received`, async () => {
    const store = storeNamed(which);
    // a row that does not say it is written by reference (as an older writer's) is stored as received
    const plain: Record<string, unknown> = { ...referencingRow(), event_id: 'plain-1', attribute_refs: undefined };
    const rows = [...messages(1500).flatMap((m) => m.events ?? []), referencingRow(), plain].filter((r) => r.event_id);
    const cols = nativeColumnsOf('events');
    await store.insertBytes('events', COLUMNS.events, nativeBlock(cols, [{ rows: rows.length, ...encodeNativeChunk(cols, rows)! }]), { insert_deduplicate: 0 }, 'Native');
    const received = new Map(rows.map((r) => [`${r.tenant_id}/${r.event_id}`, stringMap(r.attributes as Record<string, unknown>)]));
    const read = await store.query<Record<string, unknown>>(`SELECT tenant_id, event_id, attributes, attribute_refs, ${Object.values(ATTRIBUTE_REFS).join(', ')} FROM {{db}}.events`);
    const viewed = new Map(
      (await store.query<{ id: string; attributes: Record<string, string> }>("SELECT concat(tenant_id, '/', event_id) AS id, attributes FROM {{db}}.events_received")).map((r) => [r.id, r.attributes]),
    );
    assert.is(read.length, rows.length);
    let storedChars = 0;
    let receivedChars = 0;
    for (const r of read) {
      const id = `${r.tenant_id}/${r.event_id}`;
      const want = received.get(id)!;
      assert.equal(Object.entries(receivedAttributes(r)), Object.entries(want), `${id}: read by receivedAttributes`);
      assert.equal(Object.entries(viewed.get(id)!), Object.entries(want), `${id}: read through events_received`);
      for (const v of Object.values(r.attributes as Record<string, string>)) storedChars += v.length;
      for (const v of Object.values(want)) receivedChars += v.length;
    }
    // the workload's sessions, timestamps and tool ids are stored once, in their columns
    assert.ok(storedChars < receivedChars * 0.8, `stored ${storedChars} of ${receivedChars} characters`);
    const mine = read.find((r) => r.event_id === 'refs-1')!.attributes as Record<string, string>;
    assert.equal(
      { ...mine },
      {
        'session.id': '\u0000c', session_id: '\u0000c', 'user.id': '\u0000u', 'event.name': '\u0000n', tool_use_id: '\u0000t', tool_name: '\u0000o',
        model: '\u0000m', 'message.id': '\u0000i', 'event.sequence': '\u0000s', seq_text: '\u0000s', 'short.seq': '42', 'event.timestamp': '\u0000e',
        'other.time': '2025-06-01T10:00:00.12Z', 'nul.ref': '\u0000\u0000c', 'nul.lead': '\u0000\u0000\u0000x', empty: '', short: 'Ba',
        'not.ref': 'sess-0f3a-41c2 ', obj: '{"id":"sess-0f3a-41c2"}', n: '1.5',
      },
      'what is stored for each kind of value',
    );
    assert.equal({ ...(read.find((r) => r.event_id === 'plain-1')!.attributes as Record<string, string>) }, { ...stringMap(plain.attributes as Record<string, unknown>) }, 'a row not written by reference keeps its map as received');
  });
}

test('the column types the encoder writes are the tables\' own after every migration', async () => {
  const store = storeNamed('embedded');
  for (const t of TABLES) {
    const rows = await store.query<{ name: string; type: string }>(`SELECT name, type FROM system.columns WHERE database = {db:String} AND table = {t:String}`, { db: store.database, t });
    const types = new Map(rows.map((r) => [r.name, r.type]));
    assert.equal(COLUMNS[t].map((c) => types.get(c)), [...COLUMN_TYPES[t]], t);
  }
  // events_received is every column of events (a view keeps the columns it was made with: a
  // migration that changes the columns of events must make it again)
  const columnsOf = async (table: string) =>
    (await store.query<{ name: string; type: string }>('SELECT name, type FROM system.columns WHERE database = {db:String} AND table = {t:String} ORDER BY position', { db: store.database, t: table })).map((c) => `${c.name} ${c.type}`);
  assert.equal(await columnsOf('events_received'), await columnsOf('events'));
});

test.run();
