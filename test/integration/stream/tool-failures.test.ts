/**
 * The tool-failure rollup through the real pipeline (JetStream -> stream role -> analyzer ->
 * tool_failures_daily / tool_call_facts -> data API): out-of-order rows, redelivery, a result
 * arriving days after its decision, a call changing outcome, a call whose start moves to an earlier
 * day and gains its tool name, several days, the environment filter, and /overview agreeing with
 * /tool-failures. Every answer is also compared with a fold over tool_calls under the window rule
 * (whole UTC days). A last test makes the rollup's last write fail: the analyzer is retried on its
 * own and the rollup converges with nothing counted twice.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { failingInserts } from './helpers.js';
import { batchOf, messageEvent, publishBatch, toolDecisionEvent, toolResultEvent } from '../../helpers/events.js';
import type { IngestEvent } from '../../../schemas/events.js';
import type { Store } from '../../../core/clickhouse.js';

const H = 3_600_000;
const DAY = 24 * H;
const T0 = Date.parse('2025-06-01T10:00:00.000Z'); // the events helper's base time
let ts: TestSystem;
let D: number; // today's UTC midnight
const off = (ms: number) => ms - T0; // absolute time -> helper offset
const day = (k: number) => new Date(D - k * DAY).toISOString().slice(0, 10);

const staging = (e: IngestEvent): IngestEvent => ({ ...e, environment: 'staging' });
const publish = (events: IngestEvent[], msgId?: string) => publishBatch(ts.system.rt.bus.js, batchOf(events), msgId ? { msgId } : {});

const get = async (path: string) => {
  const r = await http(`${ts.queryUrl}/api/v1/data${path}`, { headers: { 'x-api-key': ts.adminKey } });
  assert.is(r.status, 200, `${path}: ${r.text}`);
  return r.body;
};

/**
 * The reference, computed here independently of the rollup: calls recorded by telemetry (the fold of
 * tool_calls per call: min start, max of the rest) plus calls in message blocks (a tool_use and the
 * tool_result of its id; a result without a use is a call of an unknown tool), under the window rule.
 */
async function foldReference(store: Store, tenant: string, daysBack: number, environment: string) {
  const since = new Date(D - daysBack * DAY).toISOString().slice(0, 10);
  const calls = await store.query<{ conv: string; tool: string; ok: number; day: string; env: string; err: string }>(
    `SELECT conversation_id AS conv, max(tool_name) AS tool, max(success) AS ok, toString(toDate(min(ts))) AS day, max(environment) AS env, max(error) AS err
     FROM {{db}}.tool_calls WHERE tenant_id = {t:String} GROUP BY conversation_id, call_id`,
    { t: tenant },
  );
  const msgs = await store.query<{ conv: string; uses: string; results: string; day: string; env: string }>(
    `SELECT conversation_id AS conv, tool_calls AS uses, tool_results AS results, toString(toDate(ts)) AS day, environment AS env
     FROM {{db}}.messages FINAL WHERE tenant_id = {t:String} ORDER BY conversation_id, ts, seq, message_id`,
    { t: tenant },
  );
  const blockCalls = new Map<string, { conv: string; tool: string; ok: number; day: string; env: string; err: string }>();
  for (const m of msgs) for (const u of JSON.parse(m.uses)) blockCalls.set(`${m.conv}|${u.id}`, { conv: m.conv, tool: u.name, ok: -1, day: m.day, env: m.env, err: '' });
  for (const m of msgs) {
    for (const r of JSON.parse(m.results)) {
      const c = blockCalls.get(`${m.conv}|${r.tool_use_id}`) ?? { conv: m.conv, tool: '', ok: -1, day: m.day, env: m.env, err: '' };
      c.ok = r.is_error ? 0 : 1;
      blockCalls.set(`${m.conv}|${r.tool_use_id}`, c);
    }
  }
  calls.push(...blockCalls.values());
  const mine = calls.filter((c) => c.day >= since && (environment === 'all' || c.env === environment));
  const failed = mine.filter((c) => Number(c.ok) === 0);
  const tools = [...new Set(mine.map((c) => c.tool))].sort();
  return {
    totals: { calls: mine.length, failures: failed.length, conversations: new Set(failed.map((c) => c.conv)).size, tools: new Set(failed.map((c) => c.tool)).size },
    tools: tools.map((t) => [t, mine.filter((c) => c.tool === t).length, failed.filter((c) => c.tool === t).length, new Set(failed.filter((c) => c.tool === t).map((c) => c.conv)).size]),
    days: [...new Set(mine.map((c) => c.day))].sort().map((d) => [d, mine.filter((c) => c.day === d).length, failed.filter((c) => c.day === d).length]),
  };
}

/** API answers of /tool-failures and /overview in the reference's shape; checks they agree. */
async function api(daysBack: number, environment: string) {
  const q = `days_back=${daysBack}&environment=${environment}`;
  const [tf, ov] = await Promise.all([get(`/tool-failures?${q}`), get(`/overview?${q}`)]);
  const { failure_rate_pct: _r, ...totals } = tf.totals;
  assert.equal(ov.tool_failures, { total: totals.failures, conversations: totals.conversations, tools: totals.tools }, `overview agrees with /tool-failures (${q})`);
  assert.is(tf.timeline.length, daysBack + 1);
  return {
    totals,
    tools: tf.tools.map((t: any) => [t.tool_name, t.calls, t.failures, t.conversations]).sort((a: any, b: any) => (a[0] < b[0] ? -1 : 1)),
    days: tf.timeline.filter((d: any) => d.calls > 0).map((d: any) => [d.date, d.calls, d.failures]),
  };
}

const COMBOS: [number, string][] = [[7, 'all'], [7, 'production'], [7, 'staging'], [30, 'all'], [1, 'all'], [2, 'production']];

/**
 * Waits until the API shows `totals` for 7 days / all and agrees with the fold in every window (the
 * same totals can show while a later row is still being analyzed), then checks every combination.
 */
async function settleAndCompare(totals: Record<string, number>) {
  const ok = await eventually(async () => {
    // while the rollup still moves, the two endpoints' concurrent reads may straddle one of its
    // writes and disagree for a moment: that is retried here; once settled, every check is strict
    const a = await api(7, 'all').catch(() => undefined);
    if (!a) return undefined;
    if (JSON.stringify(a.totals) !== JSON.stringify(totals)) return undefined;
    // every window settles, not only 7 days: an older call's rollup may land a moment after the rest
    for (const [d, env] of COMBOS) {
      if (JSON.stringify(await api(d, env).catch(() => undefined)) !== JSON.stringify(await foldReference(ts.system.rt.store, 'default', d, env))) return undefined;
    }
    return true;
  }, { timeoutMs: 30_000, intervalMs: 100 });
  assert.ok(ok, `rollup reached ${JSON.stringify(totals)}; now ${JSON.stringify((await api(7, 'all')).totals)}`);
  for (const [d, env] of COMBOS) assert.equal(await api(d, env), await foldReference(ts.system.rt.store, 'default', d, env), `${d} days, ${env}`);
}

/** Inserts into this table fail while set (a permanent error, as a refused insert would be). */
let failTable: string | undefined;
const failing = failingInserts(() => failTable);

test.before(async () => {
  ts = await startTestSystem({ env: { ANALYZE_DEBOUNCE_MS: '50' }, stream: { wrapAnalysisStore: failing } });
  D = Math.floor(Date.now() / DAY) * DAY;
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

test('first deliveries: results before decisions, redelivered rows, decisions without results, an old call', async () => {
  // a1: its failed result arrives first
  await publish([toolResultEvent('tf-a', 'a1', 'Bash', off(D - 2 * DAY + 2 * H), false, 'boom')]);
  // b1 (staging): decision and failed result, the result delivered again in another batch
  await publish([staging(toolDecisionEvent('tf-b', 'b1', 'Bash', off(D - 3 * DAY + H))), staging(toolResultEvent('tf-b', 'b1', 'Bash', off(D - 3 * DAY + 2 * H), false, 'boom'))]);
  await publish([staging(toolResultEvent('tf-b', 'b1', 'Bash', off(D - 3 * DAY + 2 * H), false, 'boom'))], 'b1-again');
  // c1: decision only (its result comes days later, in the next test); a2: decision only
  await publish([toolDecisionEvent('tf-c', 'c1', 'Edit', off(D - 5 * DAY + H))]);
  await publish([toolDecisionEvent('tf-a', 'a2', 'Read', off(D - DAY + H))]);
  // d1: failed now, succeeds later
  await publish([toolDecisionEvent('tf-d', 'd1', 'Bash', off(D - DAY + 3 * H)), toolResultEvent('tf-d', 'd1', 'Bash', off(D - DAY + 3 * H + 1000), false, 'flaky')]);
  // e1: a failed tool_result block (no tool name) just after midnight; its tool_use comes later, before midnight
  await publish([messageEvent('tf-e', 'user', [{ type: 'tool_result', tool_use_id: 'e1', content: 'denied', is_error: true }], off(D - DAY + H / 2), { message_id: 'e-r' })]);
  // f1: failed nine days ago (only in the 30-day window)
  await publish([toolDecisionEvent('tf-f', 'f1', 'Bash', off(D - 9 * DAY)), toolResultEvent('tf-f', 'f1', 'Bash', off(D - 9 * DAY + 1000), false, 'old')]);
  // calls a1 a2 b1 c1 d1 e1; failures a1 b1 d1 e1 (tools Bash and the unnamed e1)
  await settleAndCompare({ calls: 6, failures: 4, conversations: 4, tools: 2 });
  const t = await api(7, 'all');
  assert.equal(t.days, [[day(5), 1, 0], [day(3), 1, 1], [day(2), 1, 1], [day(1), 3, 2]]);
  assert.equal(t.tools, [['', 1, 1, 1], ['Bash', 3, 3, 3], ['Edit', 1, 0, 0], ['Read', 1, 0, 0]]);
});

test('later rows: the decision after its result, a result days later, a failure turning into success, a start moving a day back', async () => {
  await publish([toolDecisionEvent('tf-a', 'a1', 'Bash', off(D - 2 * DAY + H))]);
  await publish([toolResultEvent('tf-c', 'c1', 'Edit', off(D - DAY + 5 * H), false, 'late boom')]);
  await publish([toolResultEvent('tf-d', 'd1', 'Bash', off(D - DAY + 4 * H), true)]);
  await publish([messageEvent('tf-e', 'assistant', [{ type: 'tool_use', tool_name: 'Write', tool_use_id: 'e1', input: { path: '/x' } }], off(D - DAY - H / 2), { message_id: 'e-u' })]);
  await publish([staging(toolResultEvent('tf-b', 'b1', 'Bash', off(D - 3 * DAY + 2 * H), false, 'boom'))], 'b1-third');
  // calls a1 a2 b1 c1 d1 e1; failures a1 b1 c1 e1; failed conversations a b c e; tools Bash Edit Write
  await settleAndCompare({ calls: 6, failures: 4, conversations: 4, tools: 3 });
  const t = await api(7, 'all');
  assert.equal(t.days, [[day(5), 1, 1], [day(3), 1, 1], [day(2), 2, 2], [day(1), 2, 0]]);
  assert.equal(t.tools, [['Bash', 3, 2, 2], ['Edit', 1, 1, 1], ['Read', 1, 0, 0], ['Write', 1, 1, 1]]);
  const prod = await api(7, 'production');
  assert.equal(prod.totals, { calls: 5, failures: 3, conversations: 3, tools: 3 });
  assert.equal((await api(7, 'staging')).totals, { calls: 1, failures: 1, conversations: 1, tools: 1 });
  assert.equal((await api(30, 'all')).totals, { calls: 7, failures: 5, conversations: 5, tools: 3 });
  // window edge: days_back=2 is today, yesterday and the day before
  assert.equal((await api(2, 'all')).totals, { calls: 4, failures: 2, conversations: 2, tools: 2 });
  // no fact row is left at an old key (tombstoned), and each call has one fact
  const facts = await ts.system.rt.store.query<{ n: string }>("SELECT count() AS n FROM {{db}}.tool_call_facts FINAL WHERE tenant_id = 'default'");
  assert.is(Number(facts[0]!.n), 7);
  // detail: Bash's errors are its failed calls only (d1's 'flaky' turned into a success)
  const bash = await get('/tool-failures/Bash?days_back=7');
  assert.equal(bash.totals, { calls: 3, failures: 2, failure_rate_pct: 66.7, conversations: 2 });
  assert.equal(bash.errors.map((e: any) => [e.error, e.count, e.examples.map((x: any) => x.call_id)]), [['boom', 2, ['a1', 'b1']]]);
  assert.is(bash.errors[0].last_seen, new Date(D - 2 * DAY + H).toISOString());
  const tools = await get('/tool-failures?days_back=7');
  const b = tools.tools.find((x: any) => x.tool_name === 'Bash');
  assert.equal([b.example_errors, b.last_failure_at], [['boom'], new Date(D - 2 * DAY + H).toISOString()]);
  const write = await get('/tool-failures/Write?days_back=7&environment=production');
  assert.equal(write.errors.map((e: any) => [e.error, e.count, e.examples[0].timestamp]), [['denied', 1, new Date(D - DAY - H / 2).toISOString()]]);
});

test('a rollup write that fails is recorded, retried on its own, and counts nothing twice', async () => {
  const store = ts.system.rt.store;
  const T = 'crash';
  const crash = (e: IngestEvent): IngestEvent => ({ ...e, tenant_id: T });
  const daily = async () =>
    (
      await store.query<any>(
        "SELECT toString(day) AS day, tool_name, calls, failures, uniqExactMerge(failed_conversations) AS convs FROM {{db}}.tool_failures_daily FINAL WHERE tenant_id = 'crash' GROUP BY day, tool_name, calls, failures ORDER BY day, tool_name",
      )
    ).map((x) => [x.day, x.tool_name, Number(x.calls), Number(x.failures), Number(x.convs)]);
  const state = async (conv: string) =>
    (await store.query<any>("SELECT outcome, attempts FROM {{db}}.analysis_state FINAL WHERE tenant_id = 'crash' AND conversation_id = {c:String} AND analyzer = 'tool-failure-rollup'", { c: conv }))[0];
  // the state insert fails after the facts and daily rows are written
  failTable = 'tool_call_rollup_state';
  await publishBatch(ts.system.rt.bus.js, batchOf([crash(toolDecisionEvent('k1', 'x', 'Bash', off(D - DAY + H))), crash(toolResultEvent('k1', 'x', 'Bash', off(D - DAY + 2 * H), false, 'e1')), crash(toolDecisionEvent('k2', 'y', 'Read', off(D - 2 * DAY + H)))], 'logs', T));
  const failed = await eventually(async () => ((await state('k1'))?.outcome === 'error' ? await state('k1') : undefined), { timeoutMs: 20_000 });
  assert.ok(failed, 'the failed write is recorded as an error of the tool-failure rollup');
  assert.ok(Number(failed.attempts) >= 1);
  // the other analyzers' rows stand meanwhile: the paired calls of both conversations are written
  // (k2 may be analyzed in the batch after k1's)
  const pairedCalls = async () => Number((await store.query<{ n: string }>("SELECT count() AS n FROM {{db}}.conversation_tool_calls FINAL WHERE tenant_id = 'crash'"))[0]!.n);
  await eventually(async () => ((await pairedCalls()) === 2 ? true : undefined), { timeoutMs: 20_000 });
  assert.is(await pairedCalls(), 2);
  failTable = undefined;
  const ok = await eventually(async () => ((await state('k1'))?.outcome === 'ok' ? true : undefined), { timeoutMs: 20_000 });
  assert.ok(ok, 'the retry succeeds once the table accepts writes');
  // the daily rows follow with the next pass over the marked groups
  const first = JSON.stringify([[day(2), 'Read', 1, 0, 0], [day(1), 'Bash', 1, 1, 1]]);
  assert.ok(await eventually(async () => (JSON.stringify(await daily()) === first ? true : undefined), { timeoutMs: 20_000 }), `daily rows: ${JSON.stringify(await daily())}`);
  // the call changes outcome and day (an earlier decision row) while the state write fails again, then recovers
  failTable = 'tool_call_rollup_state';
  await publishBatch(ts.system.rt.bus.js, batchOf([crash(toolResultEvent('k1', 'x', 'Bash', off(D - 3 * DAY), true))], 'logs', T), { msgId: 'crash-3' });
  await eventually(async () => ((await state('k1'))?.outcome === 'error' ? true : undefined), { timeoutMs: 20_000 });
  failTable = undefined;
  const settled = await eventually(async () => {
    const d = await daily();
    return JSON.stringify(d) === JSON.stringify([[day(3), 'Bash', 1, 0, 0], [day(2), 'Read', 1, 0, 0]]) ? d : undefined;
  }, { timeoutMs: 20_000 });
  assert.ok(settled, `daily rows converge; now ${JSON.stringify(await daily())}`);
  const facts = await store.query<{ n: string }>("SELECT count() AS n FROM {{db}}.tool_call_facts FINAL WHERE tenant_id = 'crash'");
  assert.is(Number(facts[0]!.n), 2);
});

test.run();
