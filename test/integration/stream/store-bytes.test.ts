/**
 * The byte path on both store implementations, same scenarios: the embedded engine (chDB's raw
 * insert) and a server (`CLICKHOUSE_URL`: `@clickhouse/client` streaming the same bytes over HTTP).
 * There is no ClickHouse server binary on this machine; the server side is the engine behind
 * ClickHouse's HTTP interface in a child process (test/helpers/ch-http-child.ts), so the client's
 * real HTTP path (URL parameters, settings per request, error bodies and codes) is what runs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FILE_INSERT_MIN_BYTES, isTransientClickHouseError, type Store } from '../../../core/clickhouse.js';
import { createLogger } from '../../../core/log.js';
import { createMetrics } from '../../../core/metrics.js';
import { decodeMessage, splitMessage } from '../../../stream/batch.js';
import { blockOf, createSink, type RefusedEvent, type SinkEntry } from '../../../stream/sink.js';
import { streamMetrics } from '../../../stream/metrics.js';
import { TABLES } from '../../../stream/rows.js';
import type { TableBytes } from '../../../stream/row-bytes.js';
import { batchOf, conversationEvents, messageEvent } from '../../helpers/events.js';
import { useBothStores } from '../../helpers/ch-http.js';
import { partsLength } from '../../../core/bytes.js';

const storeNamed = useBothStores(test);

const decoded = (events: Parameters<typeof batchOf>[0]) => {
  const r = decodeMessage(JSON.stringify(batchOf(events)));
  if (r.kind !== 'ok') throw new Error(r.reason);
  return r.output;
};
const countOf = async (store: Store, table: string, where = '1') =>
  Number((await store.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.${table} WHERE ${where}`))[0]!.n);

async function insertAll(store: Store, tables: TableBytes, token: string) {
  for (const t of TABLES) {
    const chunks = tables[t];
    if (!chunks?.length) continue;
    const b = blockOf(t, chunks);
    await store.insertBytes(t, b.columns, b.body, { insert_deduplication_token: `${token}:${t}` }, b.format);
  }
}

for (const which of ['embedded', 'server'] as const) {
  const storeOf = () => storeNamed(which);

  test(`${which}: pre-serialized rows are stored with their values; the same token twice stores them once`, async () => {
    const store = storeOf();
    const conv = `bytes-${which}`;
    const out = decoded(conversationEvents(conv, 2));
    await insertAll(store, out.tables, `t-${which}`);
    await insertAll(store, out.tables, `t-${which}`);
    const where = `conversation_id = '${conv}'`;
    assert.is(await countOf(store, 'events', where), 8);
    assert.is(await countOf(store, 'messages', where), 2);
    const calls = await store.query<{ n: string }>(`SELECT uniqExact(call_id) AS n FROM {{db}}.tool_calls WHERE ${where}`);
    assert.is(Number(calls[0]!.n), 2);
    const rows = await store.query<{ role: string; content: string }>(`SELECT role, content FROM {{db}}.messages FINAL WHERE ${where} ORDER BY ts, seq LIMIT 1`);
    assert.equal(rows[0], { role: 'user', content: 'turn 0: please fix the tests' });
    const ev = await store.query<{ resource: Record<string, string> }>(`SELECT resource FROM {{db}}.events WHERE ${where} LIMIT 1`);
    assert.equal(ev[0]!.resource, { 'service.name': 'claude-code' });
  });

  test(`${which}: a large block (Native; JSON lines through a file and parallel parsing on the embedded engine) is stored whole, once per token`, async () => {
    const store = storeOf();
    const conv = `large-${which}`;
    const out = decoded(conversationEvents(conv, 400));
    const block = blockOf('events', out.tables.events!);
    assert.is(block.format, 'Native');
    await store.insertBytes('events', block.columns, block.body, { insert_deduplication_token: `large-${which}` }, block.format);
    await store.insertBytes('events', block.columns, block.body, { insert_deduplication_token: `large-${which}` }, block.format);
    assert.is(await countOf(store, 'events', `conversation_id = '${conv}'`), 1600);
    const [r] = await store.query<{ n: string; t: string }>(`SELECT uniqExact(event_id) AS n, toString(min(event_time)) AS t FROM {{db}}.events WHERE conversation_id = '${conv}'`);
    assert.is(Number(r!.n), 1600);
    assert.is(r!.t, '2025-06-01 10:00:00.000');
    // a time JavaScript accepts (it rolls over to 2 March) has no Native form: the message's rows
    // go as JSON lines, and the engine refuses them
    const events = conversationEvents(`${conv}-bad`, 400);
    events[0] = { ...events[0]!, event_time: '2025-02-30T10:00:00.000Z' };
    const badBlock = blockOf('events', decoded(events).tables.events!);
    assert.is(badBlock.format, 'JSONCompactEachRow');
    assert.ok(partsLength(badBlock.body) >= FILE_INSERT_MIN_BYTES, `block of ${partsLength(badBlock.body)} bytes`);
    const err = await store.insertBytes('events', badBlock.columns, badBlock.body, undefined, badBlock.format).then(() => undefined, (e: unknown) => e);
    assert.ok(err, 'a refused row in a large block fails the insert');
    assert.is(isTransientClickHouseError(err), false);
    assert.is(await countOf(store, 'events', `conversation_id = '${conv}-bad'`), 0, 'nothing of a refused block is stored');
  });

  test(`${which}: a token does not outlive its insert (the next insert without one is stored)`, async () => {
    const store = storeOf();
    const a = decoded([messageEvent(`leak-${which}`, 'user', 'one', 0)]);
    const b = decoded([messageEvent(`leak-${which}`, 'user', 'two', 1000)]);
    const ba = blockOf('messages', a.tables.messages!);
    const bb = blockOf('messages', b.tables.messages!);
    await store.insertBytes('messages', ba.columns, ba.body, { insert_deduplication_token: 'same' }, ba.format);
    await store.insertBytes('messages', bb.columns, bb.body, undefined, bb.format);
    assert.is(await countOf(store, 'messages', `conversation_id = 'leak-${which}'`), 2);
  });

  test(`${which}: a row the engine refuses fails its insert with a permanent error; the sink dead-letters that event alone`, async () => {
    const store = storeOf();
    const conv = `poison-${which}`;
    const good1 = conversationEvents(`${conv}-a`, 1);
    const mixed = conversationEvents(`${conv}-b`, 2);
    // a date JavaScript accepts (it rolls over to 2 March) and the engine refuses
    mixed[0] = { ...mixed[0]!, event_time: '2025-02-30T10:00:00.000Z' };
    const good2 = conversationEvents(`${conv}-c`, 1);
    const bodies = [good1, mixed, good2].map((events) => JSON.stringify(batchOf(events)));
    const bad = decodeMessage(bodies[1]!);
    assert.is(bad.kind, 'ok', 'the event passes decoding');
    const block = blockOf('events', (bad as Extract<typeof bad, { kind: 'ok' }>).output.tables.events!);
    assert.is(block.format, 'JSONCompactEachRow', 'a time with no Native form: JSON lines');
    const err = await store.insertBytes('events', block.columns, block.body, undefined, block.format).then(() => undefined, (e: unknown) => e);
    assert.ok(err, 'the engine refused the block');
    assert.is(isTransientClickHouseError(err), false, 'a refusal is not retried');

    const log: string[] = [];
    const refusedSeen: RefusedEvent[] = [];
    const sink = createSink({
      insert: (t, b, s) => store.insertBytes(t, b.columns, b.body, s, b.format),
      maxBatchRows: 10_000, maxBatchBytes: 1e9, flushIntervalMs: 60_000, retryDeadlineMs: 2000,
      metrics: streamMetrics(createMetrics()), log: createLogger('silent'),
    });
    bodies.forEach((body, i) => {
      const r = decodeMessage(body);
      if (r.kind !== 'ok') throw new Error(r.reason);
      const entry: SinkEntry = {
        id: `${which}-poison-${i}`, rows: r.output.tables, rowCount: r.output.rowCount, bytes: r.output.bytes, receivedAtMs: Date.now(), conversations: [],
        split: () => {
          const s = splitMessage(body);
          return 'kind' in s ? undefined : s;
        },
        done: async (refused) => {
          refusedSeen.push(...refused);
          log.push(`ack ${i}${refused.length ? ` refused ${refused.map((x) => x.index).join(',')}` : ''}`);
          return true;
        },
        retry: () => void log.push(`nak ${i}`),
        reject: async () => void log.push(`dlq ${i}`),
        working: () => {},
      };
      sink.add(entry);
    });
    await sink.close();
    assert.equal(log, ['ack 0', 'ack 1 refused 0', 'ack 2']);
    assert.is(refusedSeen[0]!.eventId, mixed[0]!.event_id);
    // refused by the batch's first table (messages, stream/rows.ts TABLES), so kept out of the later ones
    assert.match(refusedSeen[0]!.reason, /messages:/);
    assert.is(await countOf(store, 'events', `conversation_id = '${conv}-a'`), 4);
    assert.is(await countOf(store, 'events', `conversation_id = '${conv}-b'`), 7, 'every event of the mixed message but the refused one');
    assert.is(await countOf(store, 'events', `conversation_id = '${conv}-c'`), 4);
    assert.is(await countOf(store, 'messages', `conversation_id = '${conv}-b'`), 1, 'the refused prompt stays out of the later tables');
  });
  test(`${which}: row objects are stored as the client would store them: omitted and undefined fields take the column's default`, async () => {
    const store = storeOf();
    const table = `shapes_${which}`;
    await store.command(`CREATE TABLE {{db}}.${table} (id UInt32, name String DEFAULT 'dflt', n Nullable(Int32), tags Array(String), at DateTime64(3, 'UTC') DEFAULT toDateTime64('2020-01-01 00:00:00', 3, 'UTC'), m Map(String, String)) ENGINE = MergeTree ORDER BY id`);
    // uniform rows (one key set, no undefined), a Date among the values
    await store.insert(table, [
      { id: 1, name: 'a "quoted" \\ name', n: null, tags: ['x', 'y'], at: '2026-11-24T01:02:03.456Z', m: { k: 'v' } },
      { id: 2, name: 'b', n: 5, tags: [], at: new Date('2026-11-24T05:06:07.089Z'), m: {} },
    ]);
    // rows of different shapes, and an undefined value: the defaults of the omitted columns
    await store.insert(table, [{ id: 3 }, { id: 4, name: undefined, n: 7, tags: ['z'] }]);
    await store.insert(table, [{ id: 5, name: undefined, n: undefined, tags: [], at: undefined, m: { a: 'b' } }]);
    const rows = await store.query<Record<string, unknown>>(`SELECT id, name, n, tags, toString(at) AS at, m FROM {{db}}.${table} ORDER BY id`);
    assert.equal(rows, [
      { id: 1, name: 'a "quoted" \\ name', n: null, tags: ['x', 'y'], at: '2026-11-24 01:02:03.456', m: { k: 'v' } },
      { id: 2, name: 'b', n: 5, tags: [], at: '2026-11-24 05:06:07.089', m: {} },
      { id: 3, name: 'dflt', n: null, tags: [], at: '2020-01-01 00:00:00.000', m: {} },
      { id: 4, name: 'dflt', n: 7, tags: ['z'], at: '2020-01-01 00:00:00.000', m: {} },
      { id: 5, name: 'dflt', n: null, tags: [], at: '2020-01-01 00:00:00.000', m: { a: 'b' } },
    ]);
  });

  test(`${which}: a text holding half of an emoji is stored with U+FFFD in its place, its whole insert with it (uniform rows, named rows, arrays)`, async () => {
    const store = storeOf();
    const table = `halves_${which}`;
    await store.command(`CREATE TABLE {{db}}.${table} (id UInt32, text String DEFAULT '', tags Array(String)) ENGINE = MergeTree ORDER BY id`);
    const smile = '\u{1F600}';
    const high = smile.slice(0, 1);
    const low = smile.slice(1);
    // the engine refuses this text as JSON: the premise of the repair
    const refused = await store.command(`INSERT INTO {{db}}.${table} FORMAT JSONCompactEachRow ${JSON.stringify([0, `a${high}`, []])}`).then(() => false, () => true);
    assert.ok(refused, 'the engine refuses half of a pair in JSON text');
    await store.insert(table, [
      { id: 1, text: `cut here ${high}`, tags: [`${low}tail`] },
      { id: 2, text: `whole ${smile} and a literal \\ud83d`, tags: [] },
    ]);
    await store.insert(table, [{ id: 3, text: `${high}${high}${smile}` }, { id: 4, tags: [high] }]);
    const rows = await store.query<{ id: number; text: string; tags: string[] }>(`SELECT id, text, tags FROM {{db}}.${table} ORDER BY id`);
    assert.equal(rows, [
      { id: 1, text: 'cut here \uFFFD', tags: ['\uFFFDtail'] },
      { id: 2, text: `whole ${smile} and a literal \\ud83d`, tags: [] },
      { id: 3, text: `\uFFFD\uFFFD${smile}`, tags: [] },
      { id: 4, text: '', tags: ['\uFFFD'] },
    ]);
  });
}

test.run();
