/**
 * The analysis framework through the real pipeline (POST /v1/ingest -> JetStream -> stream role ->
 * load snapshot -> Piscina -> analyzer tables): every analyzer's outcome is recorded per
 * conversation with its version; an analyzer whose table cannot be written fails alone, is retried
 * on its own and gives up after STREAM_MAX_DELIVER failures in a row while the rest is written; a
 * version change (conversations analyzed by an older version) is recomputed by the leased backfill
 * job, which records its progress.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KV_BUCKETS } from '../../../schemas/subjects.js';
import { backfillKey, type BackfillProgress } from '../../../stream/analyze/backfill.js';
import { FRAMEWORK_ANALYZERS } from '../../../stream/analyze/tables.js';
import { eventually, startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { failingInserts } from './helpers.js';
import { runCli } from '../../helpers/cli.js';
import { RETRY_FAILED_SUBJECT } from '../../../stream/analyze/retry-failed.js';

let ts: TestSystem;
let failTable: string | undefined;
let refuse: { table: string; text: string } | undefined;
const failing = failingInserts(() => failTable, () => refuse);

const conversation = (id: string, at: number) => [
  { conversation_id: id, role: 'user', message: 'please cancel reservation ABC123', timestamp: new Date(at).toISOString() },
  { conversation_id: id, role: 'assistant', content: [{ type: 'tool_use', tool_name: 'cancel_reservation', tool_use_id: `${id}-c1`, input: { id: 'ABC123' } }], timestamp: new Date(at + 1000).toISOString() },
  { conversation_id: id, role: 'user', content: [{ type: 'tool_result', tool_use_id: `${id}-c1`, content: 'Error: reservation not found', is_error: true }], timestamp: new Date(at + 2000).toISOString() },
];
const post = async (events: unknown[]) => {
  const r = await http(`${ts.ingestUrl}/v1/ingest`, { headers: { authorization: `Bearer ${ts.adminKey}` }, body: { events } });
  assert.is(r.status, 200, r.text);
};
const states = (conv: string) =>
  ts.system.rt.store.query<{ analyzer: string; analyzer_version: number; outcome: string; attempts: number; version: string }>(
    "SELECT analyzer, analyzer_version, outcome, attempts, toString(version) AS version FROM {{db}}.analysis_state FINAL WHERE tenant_id = 'default' AND conversation_id = {c:String} ORDER BY analyzer",
    { c: conv },
  );
const allOk = async (conv: string) => {
  const s = await states(conv);
  return s.length === FRAMEWORK_ANALYZERS.length && s.every((x) => x.outcome === 'ok') ? s : undefined;
};

test.before(async () => {
  ts = await startTestSystem({ env: { ANALYZE_DEBOUNCE_MS: '100', JOB_INTERVAL_MS: '500', STREAM_MAX_DELIVER: '2' }, stream: { wrapAnalysisStore: failing } });
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

test('every analyzer records its outcome and version for every analyzed conversation', async () => {
  const now = Date.now() - 60_000;
  await post([...conversation('fw-1', now), ...conversation('fw-2', now + 5000)]);
  const s = await eventually(() => allOk('fw-1'), { timeoutMs: 20_000 });
  assert.ok(s, `fw-1 analyzed: ${JSON.stringify(await states('fw-1'))}`);
  assert.equal(s!.map((x) => [x.analyzer, Number(x.analyzer_version)]), FRAMEWORK_ANALYZERS.map((a) => [a.name, a.version]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))));
  assert.ok(await eventually(() => allOk('fw-2'), { timeoutMs: 20_000 }));
});

test('conversations whose summaries would be cut inside an emoji are analyzed and stored, with their neighbours in the batch', async () => {
  const smile = '\u{1F600}';
  const dense = (shift: number) => 'a'.repeat(shift) + Array.from({ length: 60 }, (_, i) => (i % 5 === 0 ? 'word ' : smile)).join('');
  const now = Date.now() - 50_000;
  const ids = Array.from({ length: 6 }, (_, i) => `fw-emoji-${i}`);
  const emoji: unknown[] = ids.flatMap((id, shift) => [
    { conversation_id: id, role: 'user', message: `${dense(shift)} please fix the failing test ${dense(shift)}`, timestamp: new Date(now).toISOString() },
    { conversation_id: id, role: 'assistant', message: `I fixed it ${dense(shift)} and the tests pass`, timestamp: new Date(now + 1000).toISOString() },
  ]);
  await post([...emoji, ...conversation('fw-plain', now)]);
  for (const id of [...ids, 'fw-plain']) assert.ok(await eventually(() => allOk(id), { timeoutMs: 20_000 }), `${id} analyzed: ${JSON.stringify(await states(id))}`);
  const rows = await ts.system.rt.store.query<{ c: string; summary: string }>(
    "SELECT conversation_id AS c, summary FROM {{db}}.conversation_summaries FINAL WHERE tenant_id = 'default' AND conversation_id IN {ids:Array(String)} ORDER BY c",
    { ids },
  );
  assert.equal(rows.map((r) => r.c), ids);
  for (const r of rows) {
    assert.ok(r.summary.includes(smile), `${r.c}: ${r.summary}`);
    assert.not.ok(r.summary.includes('\uFFFD'), `${r.c}: cut between the halves of an emoji: ${r.summary}`);
  }
});

test('an analyzer whose table cannot be written fails alone, retries, and gives up after STREAM_MAX_DELIVER failures', async () => {
  failTable = 'conversation_tool_calls';
  await post(conversation('fw-bad', Date.now() - 30_000));
  const gaveUp = await eventually(async () => {
    const s = (await states('fw-bad')).find((x) => x.analyzer === 'tool-calls');
    return s?.outcome === 'failed' ? s : undefined;
  }, { timeoutMs: 30_000 });
  assert.ok(gaveUp, `tool-calls gave up: ${JSON.stringify(await states('fw-bad'))}`);
  assert.is(Number(gaveUp!.attempts), 2);
  const s = await states('fw-bad');
  // its dependent rollup failed with it; the conversation row was written
  assert.is(s.find((x) => x.analyzer === 'tool-failure-rollup')!.outcome, 'failed');
  assert.is(s.find((x) => x.analyzer === 'conversation-rollup')!.outcome, 'ok');
  const conv = await ts.system.rt.store.query<{ n: string }>("SELECT count() AS n FROM {{db}}.conversations FINAL WHERE tenant_id = 'default' AND conversation_id = 'fw-bad'");
  assert.is(Number(conv[0]!.n), 1);
  // no retry is left queued: the ANALYZE stream drains
  const drained = await eventually(async () => ((await ts.system.rt.bus.jsm.streams.info('ANALYZE')).state.messages === 0 ? true : undefined), { timeoutMs: 10_000 });
  assert.ok(drained);
  failTable = undefined;
});

test('a row the engine refuses fails its own conversation\'s analyzer only; the rest of the batch is stored', async () => {
  refuse = { table: 'conversation_summaries', text: 'fw-poison' };
  try {
    const now = Date.now() - 20_000;
    const neighbours = ['fw-near-1', 'fw-near-2', 'fw-near-3'];
    await post([...conversation('fw-poison', now), ...neighbours.flatMap((id, i) => conversation(id, now + i * 100))]);
    for (const id of neighbours) assert.ok(await eventually(() => allOk(id), { timeoutMs: 20_000 }), `${id} analyzed: ${JSON.stringify(await states(id))}`);
    const gaveUp = await eventually(async () => {
      const s = (await states('fw-poison')).find((x) => x.analyzer === 'summary');
      return s?.outcome === 'failed' ? s : undefined;
    }, { timeoutMs: 30_000 });
    assert.ok(gaveUp, `summary of fw-poison gave up: ${JSON.stringify(await states('fw-poison'))}`);
    // the poisoned conversation's other analyzers stand, and so does every neighbour's summary
    const others = (await states('fw-poison')).filter((x) => x.analyzer !== 'summary');
    assert.ok(others.every((x) => x.outcome === 'ok'), JSON.stringify(others));
    const summaries = await ts.system.rt.store.query<{ c: string }>(
      "SELECT conversation_id AS c FROM {{db}}.conversation_summaries FINAL WHERE tenant_id = 'default' AND conversation_id IN {ids:Array(String)} ORDER BY c",
      { ids: ['fw-poison', ...neighbours] },
    );
    assert.equal(summaries.map((r) => r.c), neighbours);
    // and they were stored by the batch the poisoned one was in, not by a retry: no version of a
    // neighbour's outcome (FINAL left out) records a failed summary
    const neighbourFailures = await ts.system.rt.store.query<{ c: string; outcome: string }>(
      "SELECT conversation_id AS c, outcome FROM {{db}}.analysis_state WHERE tenant_id = 'default' AND analyzer = 'summary' AND conversation_id IN {ids:Array(String)} AND outcome != 'ok'",
      { ids: neighbours },
    );
    assert.equal(neighbourFailures, []);
  } finally {
    refuse = undefined;
  }
});

test('tracehouse retry-analyses runs the analyses that gave up once more: fixed causes end ok', async () => {
  refuse = { table: 'conversation_summaries', text: 'fw-retry' };
  try {
    await post(conversation('fw-retry', Date.now() - 15_000));
    const gaveUp = await eventually(async () => ((await states('fw-retry')).find((x) => x.analyzer === 'summary')?.outcome === 'failed' ? true : undefined), { timeoutMs: 30_000 });
    assert.ok(gaveUp, `summary of fw-retry gave up: ${JSON.stringify(await states('fw-retry'))}`);
    // with the fault still in place until no analysis job is left: none may heal it by itself
    const quiet = await eventually(async () => ((await ts.system.rt.bus.jsm.streams.info('ANALYZE')).state.messages === 0 ? true : undefined), { timeoutMs: 20_000 });
    assert.ok(quiet, 'no analysis job left');
    assert.is((await states('fw-retry')).find((x) => x.analyzer === 'summary')?.outcome, 'failed');
  } finally {
    refuse = undefined;
  }
  const refusedRequest = await ts.system.rt.bus.nc.request(RETRY_FAILED_SUBJECT, JSON.stringify({ limit: -1 }), { timeout: 10_000 });
  assert.equal(refusedRequest.json(), { error: 'limit must be a positive integer' });
  const r = await runCli(['retry-analyses', '--tenant', 'default', '--json'], ts.env);
  assert.is(r.code, 0, r.stderr);
  const answer = JSON.parse(r.stdout) as { conversations: number; analyzers: Record<string, number> };
  assert.ok(answer.conversations >= 1 && answer.analyzers.summary! >= 1, r.stdout);
  assert.ok(await eventually(() => allOk('fw-retry'), { timeoutMs: 20_000 }), `fw-retry analyzed again: ${JSON.stringify(await states('fw-retry'))}`);
  const [summary] = await ts.system.rt.store.query<{ n: string }>("SELECT count() AS n FROM {{db}}.conversation_summaries FINAL WHERE tenant_id = 'default' AND conversation_id = 'fw-retry'");
  assert.is(summary!.n, '1');
  // what gave up in the tests before (their faults are gone too) ends ok as well: nothing is left to queue
  const drained = await eventually(async () => {
    const again = await runCli(['retry-analyses'], ts.env);
    return again.code === 0 && again.stdout === '0 conversations queued for analysis\n' ? true : undefined;
  }, { timeoutMs: 40_000, intervalMs: 2000 });
  assert.ok(drained, 'a later run queues nothing');
});

test('a version change is recomputed by the backfill job, with its progress recorded', async () => {
  const store = ts.system.rt.store;
  const before = (await states('fw-1')).find((x) => x.analyzer === 'tool-calls')!;
  // fw-1 and fw-2 look analyzed by an older version of tool-calls (as after an upgrade)
  await store.command(
    `INSERT INTO {{db}}.analysis_state (tenant_id, conversation_id, analyzer, version, analyzer_version, outcome, error, attempts, item_keys, message_count)
     SELECT tenant_id, conversation_id, analyzer, version + 1, 0, outcome, error, attempts, item_keys, message_count
     FROM {{db}}.analysis_state FINAL WHERE tenant_id = 'default' AND conversation_id IN ('fw-1', 'fw-2') AND analyzer = 'tool-calls'`,
  );
  const kv = await ts.system.rt.bus.kv(KV_BUCKETS.jobs.name);
  await kv.delete(backfillKey('default'));
  const redone = await eventually(async () => {
    const s = (await states('fw-1')).find((x) => x.analyzer === 'tool-calls');
    return s && Number(s.analyzer_version) > 0 && BigInt(s.version) > BigInt(before.version) + 1n ? s : undefined;
  }, { timeoutMs: 20_000 });
  assert.ok(redone, 'fw-1 recomputed at the current version');
  assert.ok(await eventually(async () => (await allOk('fw-2')) && Number((await states('fw-2')).find((x) => x.analyzer === 'tool-calls')!.analyzer_version) > 0));
  const progress = await eventually(async () => {
    const p = (await kv.get(backfillKey('default')))?.json<BackfillProgress>();
    return p?.complete ? p : undefined;
  }, { timeoutMs: 20_000 });
  assert.ok(progress, 'the backfill reports completion');
  // fw-bad's tool-calls failed at the current version: not requeued by the backfill
  assert.ok(progress!.published >= 2);
  assert.is(progress!.pending, 0);
});

test.run();
