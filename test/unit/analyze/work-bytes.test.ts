/**
 * An analysis batch's rows as insert-ready bytes from the analysis thread (stream/analyze/work-bytes.ts),
 * and the writer sending them: the engine must receive the same rows either way.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store } from '../../../core/clickhouse.js';
import { createLogger } from '../../../core/log.js';
import { runAnalysisWork, type WorkOutput } from '../../../stream/analyze/work.js';
import { encodeWorkOutput, mergeWorkOutputs, stateRows } from '../../../stream/analyze/work-bytes.js';
import { writeAnalysis } from '../../../stream/analyze/writer.js';
import type { MessageRowIn, WorkItem } from '../../../stream/analyze/work-items.js';

const T0 = Date.parse('2025-06-01T10:00:00.000Z');
const msg = (id: string, i: number, role: string, content: string, calls: unknown[] = [], results: unknown[] = []): MessageRowIn => ({
  message_id: id, role, content, tool_calls: JSON.stringify(calls), tool_results: JSON.stringify(results), ts_ms: String(T0 + i * 1000), thread_id: '',
});

function item(conversationId: string, tenantId = 't1'): WorkItem {
  return {
    tenantId,
    conversationId,
    messages: [
      msg('m0', 0, 'user', 'Cancel my booking R1, I already told you twice!'),
      msg('m1', 1, 'assistant', 'I cancelled it.', [{ id: 'x', name: 'cancel_reservation', input: '{"id":"R1"}' }]),
      msg('m2', 2, 'user', '', [], [{ tool_use_id: 'x', content: 'Error: reservation not found', is_error: true }]),
      msg('m3', 3, 'assistant', 'Done, "R1" is cancelled.\nAnything else?'),
    ],
    calls: [],
    state: [],
    toolState: [],
  };
}

const work = () => runAnalysisWork({ version: 11, items: [item('c1'), item('c2')] });
const lines = (body: Uint8Array) => new TextDecoder().decode(body).split('\n').filter(Boolean);
/** JSONCompactEachRow lines back to named rows, values as JSON gives them. */
const named = (columns: readonly string[], body: Uint8Array) => lines(body).map((l) => Object.fromEntries((JSON.parse(l) as unknown[]).map((v, i) => [columns[i]!, v])));
/** Rows as the engine would read them from JSON (Dates become their text). */
const asJson = (rows: readonly object[]) => JSON.parse(JSON.stringify(rows)) as Record<string, unknown>[];

test('every uniform table leaves as JSONCompactEachRow bytes holding the same rows, each in a buffer of its own', () => {
  const plain = work();
  const out = work();
  const buffers = encodeWorkOutput(out, 11, 5);
  const encoded = out.encoded!;
  assert.ok(Object.keys(plain.tables).length >= 5, 'the batch wrote several tables');
  for (const [table, rows] of Object.entries(plain.tables)) {
    if (table in out.tables) continue; // rows that are not uniform stay objects
    const e = encoded[table];
    assert.ok(e, `${table} encoded`);
    assert.equal(named(e.columns, e.body), asJson(rows), table);
  }
  assert.ok(Object.keys(out.tables).length < Object.keys(plain.tables).length, 'tables left the object rows');
  // each body owns its whole buffer: moving one never detaches another's memory
  assert.is(new Set(buffers).size, buffers.length);
  for (const b of buffers) assert.ok(b.byteLength > 0);
  for (const e of [...Object.values(encoded), out.encodedState!.table]) {
    assert.is(e.body.byteOffset, 0);
    assert.is(e.body.byteLength, e.body.buffer.byteLength);
    assert.ok(buffers.includes(e.body.buffer as ArrayBuffer));
  }
});

test('the outcome rows encoded on the thread are the ones the writer builds when every write succeeds', () => {
  const plain = work();
  const out = work();
  encodeWorkOutput(out, 11, 5);
  const s = out.encodedState!;
  assert.equal([s.version, s.maxAttempts], [11, 5]);
  assert.equal(named(s.table.columns, s.table.body), asJson(stateRows(plain.items, 11, 5, () => undefined)));
});

/** A store that records what each insert would send, as named rows; `failing` tables refuse. */
function recordingStore(failing: string[] = []) {
  const sent: Array<[string, Record<string, unknown>[]]> = [];
  const refuse = (table: string) => {
    if (failing.includes(table)) throw Object.assign(new Error(`cannot write ${table}`), { code: 'TEST' });
  };
  const store = {
    async insert(table: string, rows: readonly object[]) {
      refuse(table);
      sent.push([table, asJson(rows)]);
    },
    async insertBytes(table: string, columns: readonly string[], body: Buffer) {
      refuse(table);
      sent.push([table, named(columns, body)]);
    },
  } as unknown as Store;
  return { store, sent };
}

const log = createLogger('error', {}, process.stderr);
const write = (out: WorkOutput, store: Store) => writeAnalysis(out, { store, log, version: 11, retryDeadlineMs: 0, maxAttempts: 5 });
/** The tool_rollup_dirty marks carry a fresh version per write: compared without it. */
const comparable = (sent: Array<[string, Record<string, unknown>[]]>) =>
  sent.map(([t, rows]) => [t, t === 'tool_rollup_dirty' ? rows.map(({ version: _v, ...r }) => r) : rows]);

test('the writer sends the same tables, in the same order, with the same rows, from bytes as from objects', async () => {
  const a = recordingStore();
  const b = recordingStore();
  const plain = work();
  const encoded = work();
  encodeWorkOutput(encoded, 11, 5);
  assert.equal(await write(plain, a.store), []);
  assert.equal(await write(encoded, b.store), []);
  assert.ok(a.sent.length >= 8, 'several tables written');
  assert.equal(comparable(b.sent), comparable(a.sent));
});

test('after a failed table write the outcomes are built again: the failed analyzer is recorded as failed', async () => {
  const { store, sent } = recordingStore(['step_scores']);
  const out = work();
  encodeWorkOutput(out, 11, 5);
  const failures = await write(out, store);
  assert.equal([...new Set(failures.map((f) => f.analyzer))], ['step-scores']);
  const state = sent.find(([t]) => t === 'analysis_state')![1];
  const steps = state.filter((r) => r.analyzer === 'step-scores');
  assert.is(steps.length, 2);
  for (const r of steps) assert.equal([r.outcome, r.attempts], ['error', 1]);
  assert.ok(state.filter((r) => r.analyzer !== 'step-scores').every((r) => r.outcome === 'ok'));
});

/** Rows of each table as sent, in a canonical order (parts of a batch may list conversations in another order). */
const byTable = (sent: Array<[string, Record<string, unknown>[]]>) => {
  const out: Record<string, string[]> = {};
  for (const [t, rows] of comparable(sent) as Array<[string, Record<string, unknown>[]]>) (out[t] ??= []).push(...rows.map((r) => JSON.stringify(r)));
  for (const rows of Object.values(out)) rows.sort();
  return out;
};

test('a batch analyzed in parts of whole tenants on several threads writes the same rows as in one piece, one insert per table', async () => {
  const items = [item('c1', 't1'), item('c2', 't1'), item('c3', 't2')];
  const whole = runAnalysisWork({ version: 11, items });
  encodeWorkOutput(whole, 11, 5);
  const parts = [items.slice(0, 2), items.slice(2)].map((part) => {
    const out = runAnalysisWork({ version: 11, items: part });
    encodeWorkOutput(out, 11, 5);
    return out;
  });
  const merged = mergeWorkOutputs(parts);
  const a = recordingStore();
  const b = recordingStore();
  assert.equal(await write(whole, a.store), []);
  assert.equal(await write(merged, b.store), []);
  assert.equal(byTable(b.sent), byTable(a.sent));
  assert.equal(b.sent.map(([t]) => t), a.sent.map(([t]) => t), 'the same inserts, in the same order');
  assert.ok(merged.encodedState, 'the outcome rows stay prebuilt');
  assert.is(merged.items.length, 3);
  assert.equal(merged.toolGroups.map((g) => g[0]).sort(), whole.toolGroups.map((g) => g[0]).sort());
});

test('parts of a table with other columns are written beside each other, none dropped', async () => {
  const part = (columns: string[], line: string): WorkOutput => ({
    tables: {}, toolGroups: [], toolState: [], items: [], createdCategories: {},
    encoded: { step_scores: { columns, body: new TextEncoder().encode(line + '\n') } },
  });
  const merged = mergeWorkOutputs([part(['a', 'b'], '[1,2]'), part(['a'], '[3]'), part(['a', 'b'], '[4,5]')]);
  const { store, sent } = recordingStore();
  await write(merged, store);
  assert.equal(sent.filter(([t]) => t === 'step_scores').map(([, rows]) => rows), [[{ a: 1, b: 2 }, { a: 4, b: 5 }], [{ a: 3 }]]);
});

test.run();
