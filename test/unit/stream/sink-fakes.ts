/** Fakes shared by the sink's unit suites: messages of events, an insert that records, a hand-driven clock. */
import { blockRows, createSink, type InsertFn, type SinkEntry } from '../../../stream/sink.js';
import type { TableRows } from '../../../stream/rows.js';
import { encodeTables } from '../../../stream/row-bytes.js';
import { streamMetrics } from '../../../stream/metrics.js';
import { createMetrics } from '../../../core/metrics.js';
import { createLogger } from '../../../core/log.js';

const log = createLogger('silent');
const metrics = () => streamMetrics(createMetrics());
export const transientErr = () => Object.assign(new Error('down'), { code: 'ECONNREFUSED' });
const refusedErr = () => Object.assign(new Error('Cannot parse input'), { code: '27' });

/** A message of `ids.length` events; each event has an events row and a messages row. */
export function entry(id: string, ids: string[], log2: string[], opts: { splittable?: boolean } = {}): SinkEntry {
  const rowsOf = (e: string): TableRows => ({ events: [{ event_id: e }], messages: [{ event_id: e, message_id: `m-${e}` }] });
  const all: TableRows = { events: ids.map((e) => rowsOf(e).events![0]!), messages: ids.map((e) => rowsOf(e).messages![0]!) };
  return {
    id,
    rows: ids.length ? encodeTables(all).tables : {},
    rowCount: ids.length * 2,
    bytes: ids.length * 20,
    receivedAtMs: Date.now(),
    conversations: [],
    split: () =>
      opts.splittable === false
        ? undefined
        : { tenant: 't', source: 'ingest', requestId: 'r', events: ids.map((e, index) => ({ index, eventId: e, rows: encodeTables(rowsOf(e)).tables, json: JSON.stringify({ event_id: e }) })) },
    done: async (refused) => {
      log2.push(`ack ${id}${refused.length ? ` refused ${refused.map((r) => r.eventId).join(',')}` : ''}`);
      return true;
    },
    retry: () => void log2.push(`nak ${id}`),
    reject: async () => void log2.push(`dlq ${id}`),
    working: () => {},
  };
}

/** An insert that records every row it stores, refuses rows whose event id starts with `bad`, fails while `down()`. */
export function fakeStore(down: () => boolean = () => false, badTable?: string) {
  const stored: Array<{ table: string; id: string }> = [];
  const calls: Array<{ table: string; n: number; token: unknown }> = [];
  const insert: InsertFn = async (table, block, s) => {
    const rows = blockRows(block);
    calls.push({ table, n: rows.length, token: s?.insert_deduplication_token });
    if (down()) throw transientErr();
    if ((!badTable || badTable === table) && rows.some((r) => String((r as { event_id: string }).event_id).startsWith('bad'))) throw refusedErr();
    for (const r of rows) stored.push({ table, id: String((r as { event_id: string }).event_id) });
  };
  return { insert, stored, calls };
}

export const sinkOf = (insert: InsertFn, over: Partial<Parameters<typeof createSink>[0]> = {}) =>
  createSink({ insert, maxBatchRows: 1000, maxBatchBytes: 1e9, flushIntervalMs: 10_000, retryDeadlineMs: 300, metrics: metrics(), log, ...over });

/** A clock the test advances by hand: the sink's scheduled cuts, with the delay each asked for. */
export function fakeSchedule() {
  const timers: Array<{ fn: () => void; ms: number; cancelled: boolean }> = [];
  return {
    timers,
    schedule: (fn: () => void, ms: number) => {
      const t = { fn, ms, cancelled: false };
      timers.push(t);
      return { cancel: () => void (t.cancelled = true) };
    },
    /** Fires the latest live timer; returns its delay. */
    fire(): number {
      const t = [...timers].reverse().find((x) => !x.cancelled)!;
      t.cancelled = true;
      t.fn();
      return t.ms;
    },
    /** Fires the live timer of this delay (throws when there is none). */
    fireAfter(ms: number): void {
      const t = timers.find((x) => !x.cancelled && x.ms === ms);
      if (!t) throw new Error(`no live timer of ${ms} ms (live: ${timers.filter((x) => !x.cancelled).map((x) => x.ms).join(', ')})`);
      t.cancelled = true;
      t.fn();
    },
    live: () => timers.filter((t) => !t.cancelled).map((t) => t.ms),
  };
}

/** An insert of `events` rows that blocks its first call until `release()`. */
export function gatedInsert() {
  const calls: string[][] = [];
  let release!: () => void;
  const blocked = new Promise<void>((r) => (release = r));
  const insert: InsertFn = async (table, block) => {
    if (table !== 'events') return;
    calls.push(blockRows(block).map((r) => String(r.event_id)));
    if (calls.length === 1) await blocked;
  };
  return { insert, calls, release: () => release() };
}
export const settle = () => new Promise((r) => setImmediate(r));

