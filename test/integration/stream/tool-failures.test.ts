/**
 * The tool-failure rollup through the real pipeline (JetStream -> stream role -> analyzer ->
 * tool_failures_daily / tool_call_facts -> data API): out-of-order rows, redelivery, a result
 * arriving days after its decision, a call changing outcome, a call whose start moves to an earlier
 * day and gains its tool name, several days, the environment filter, and /overview agreeing with
 * /tool-failures. Every answer is also compared with a fold over tool_calls under the window rule
 * (whole UTC days). A last test interrupts the analyzer between its writes and retries it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { batchOf, messageEvent, publishBatch, toolDecisionEvent, toolResultEvent } from '../../helpers/events.js';
import type { IngestEvent } from '../../../schemas/events.js';
import type { Store } from '../../../core/clickhouse.js';
import { toolFailureRollup } from '../../../stream/analyze/tool-failures.js';
import { nextVersion } from '../../../stream/analyze/version.js';
import { createLogger } from '../../../core/log.js';

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
 * The reference: the fold of tool_calls (per call: min start, max of the rest) under the window
 * rule, computed here independently of the rollup.
 */
async function foldReference(store: Store, tenant: string, daysBack: number, environment: string) {
  const since = new Date(D - daysBack * DAY).toISOString().slice(0, 10);
  const calls = await store.query<{ conv: string; tool: string; ok: number; day: string; env: string; err: string }>(
    `SELECT conversation_id AS conv, max(tool_name) AS tool, max(success) AS ok, toString(toDate(min(ts))) AS day, max(environment) AS env, max(error) AS err
     FROM {{db}}.tool_calls WHERE tenant_id = {t:String} GROUP BY conversation_id, call_id`,
    { t: tenant },
  );
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

/** Waits until the API shows `totals` for 7 days / all, then checks every combination against the fold. */
async function settleAndCompare(totals: Record<string, number>) {
  const ok = await eventually(async () => {
    const a = await api(7, 'all');
    return JSON.stringify(a.totals) === JSON.stringify(totals) ? true : undefined;
  }, { timeoutMs: 20_000, intervalMs: 100 });
  assert.ok(ok, `rollup reached ${JSON.stringify(totals)}; now ${JSON.stringify((await api(7, 'all')).totals)}`);
  // the analyzer of the last job may still be finishing other conversations of its batch
  await new Promise((r) => setTimeout(r, 300));
  for (const [d, env] of COMBOS) assert.equal(await api(d, env), await foldReference(ts.system.rt.store, 'default', d, env), `${d} days, ${env}`);
}

test.before(async () => {
  ts = await startTestSystem({ env: { ANALYZE_DEBOUNCE_MS: '50' } });
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

test('interrupted between its writes, a retried analyzer run counts nothing twice', async () => {
  const store = ts.system.rt.store;
  const T = 'crash';
  const row = (conv: string, id: string, atMs: number, extra: Record<string, unknown>) => ({
    tenant_id: T, conversation_id: conv, call_id: id, ts: new Date(atMs).toISOString(), last_ts: new Date(atMs).toISOString(), tool_name: '', input: '', command: '',
    effect_class: '', success: -1, error: '', error_type: '', duration_ms: 0, decision: '', decision_source: '', agent: 'a',
    environment: 'production', user_id: 'u', message_id: '', mcp_server: '', ...extra,
  });
  // rows written straight into tool_calls (no jobs are published for this tenant): the test drives the analyzer
  const keys = [{ tenantId: T, conversationId: 'k1' }, { tenantId: T, conversationId: 'k2' }];
  const failing = (table: string): Store => ({
    ...store,
    insert: async (t, rows, s) => {
      if (t === table) throw new Error(`injected failure before ${table}`);
      return store.insert(t, rows, s);
    },
  });
  const daily = async () =>
    (
      await store.query<any>(
        "SELECT toString(day) AS day, tool_name, calls, failures, uniqExactMerge(failed_conversations) AS convs FROM {{db}}.tool_failures_daily FINAL WHERE tenant_id = 'crash' GROUP BY day, tool_name, calls, failures ORDER BY day, tool_name",
      )
    ).map((x) => [x.day, x.tool_name, Number(x.calls), Number(x.failures), Number(x.convs)]);
  const run = (s: Store, k = keys) => toolFailureRollup.run({ store: s, log: createLogger('silent'), version: nextVersion() }, k);
  // own dedup tokens: on the embedded connection a setting stays set for the session, so a direct insert
  // would otherwise carry the sink's last token and could be dropped as a duplicate of its block
  const insert = (rows: object[], token: string) => store.insert('tool_calls', rows, { insert_deduplication_token: token });
  await insert([row('k1', 'x', D - DAY + H, { tool_name: 'Bash', effect_class: 'compute' }), row('k2', 'y', D - 2 * DAY + H, { tool_name: 'Read' })], 'crash-1');
  await insert([row('k1', 'x', D - DAY + 2 * H, { success: 0, error: 'e1' })], 'crash-2');
  // first attempt dies after the facts and daily rows, before the state; the retry groups the conversations differently
  assert.is(await run(failing('tool_call_rollup_state')).then(() => 'ran', (e: Error) => e.message), 'injected failure before tool_call_rollup_state');
  await run(store, [keys[1]!]);
  await run(store, [keys[0]!]);
  await run(store);
  assert.equal(await daily(), [[day(2), 'Read', 1, 0, 0], [day(1), 'Bash', 1, 1, 1]]);
  // the call changes outcome and day (an earlier decision row): one attempt dies before the state, then two runs
  await insert([row('k1', 'x', D - 3 * DAY, { success: 1 })], 'crash-3');
  assert.is(await run(failing('tool_call_rollup_state')).then(() => 'ran', (e: Error) => e.message), 'injected failure before tool_call_rollup_state');
  await run(store);
  await run(store);
  assert.equal(await daily(), [[day(3), 'Bash', 1, 0, 0], [day(2), 'Read', 1, 0, 0]]);
  const facts = await store.query<{ n: string }>("SELECT count() AS n FROM {{db}}.tool_call_facts FINAL WHERE tenant_id = 'crash'");
  assert.is(Number(facts[0]!.n), 2);
});

test.run();
