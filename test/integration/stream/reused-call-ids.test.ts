/**
 * A call is the pairing of one tool_use with the tool_result that answers it, in order — real
 * producers reuse call ids within a conversation. tau-bench's airline trajectories (200
 * conversations, 1,164 calls, 73 error results, 73 reused ids) posted through POST /v1/ingest as
 * direct events with the ids exactly as recorded: every call and every failure is counted, by the
 * conversation rows, /overview and /tool-failures alike, the same as through `tracehouse import`
 * (which renames reused ids), and again after the same requests are sent twice.
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, startTestSystem, toolRollupSettled, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { dataPath } from '../../helpers/shared.js';

interface TauMessage {
  role: string;
  content: string | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  name?: string;
}

let ts: TestSystem;
const tau = JSON.parse(readFileSync(dataPath('tau-bench', 'gpt-4o-airline.json'), 'utf8')) as Array<{ task_id: number; trial: number; traj: TauMessage[] }>;
const isError = (content: string | null) => /^\s*error/i.test(String(content ?? ''));

/** Expected numbers from the raw file: every tool_calls entry is a call, every error answer a failure. */
const expected = (() => {
  let calls = 0;
  let failures = 0;
  const thinkCalls = tau.flatMap((t) => t.traj.flatMap((m) => m.tool_calls ?? [])).filter((c) => c.function.name === 'think').length;
  for (const t of tau) for (const m of t.traj) {
    calls += m.tool_calls?.length ?? 0;
    if (m.role === 'tool' && isError(m.content)) failures++;
  }
  const failedConversations = tau.filter((t) => t.traj.some((m) => m.role === 'tool' && isError(m.content))).length;
  return { calls, failures, failedConversations, thinkCalls };
})();

/** Standard direct events, call ids as recorded (reused ids stay reused). */
function directEvents(startMs: number) {
  return tau.map((t, i) => {
    const conversation = `tau-${t.task_id}-${t.trial}`;
    return t.traj.map((m, k) => {
      const base = { conversation_id: conversation, timestamp: new Date(startMs + i * 60_000 + k * 1000).toISOString(), message_id: `${conversation}:${k}` };
      if (m.role === 'tool') return { ...base, role: 'user', content: [{ type: 'tool_result', tool_use_id: m.tool_call_id, content: m.content ?? '', is_error: isError(m.content) }] };
      if (m.role === 'assistant' && m.tool_calls?.length) {
        const blocks: unknown[] = m.content ? [{ type: 'text', text: m.content }] : [];
        for (const c of m.tool_calls) blocks.push({ type: 'tool_use', tool_name: c.function.name, tool_use_id: c.id, input: JSON.parse(c.function.arguments || '{}') });
        return { ...base, role: 'assistant', content: blocks };
      }
      return { ...base, role: m.role === 'assistant' || m.role === 'system' ? m.role : 'user', message: m.content ?? '' };
    });
  });
}

async function postAll(conversations: unknown[][]) {
  // several conversations per request, each conversation whole
  for (let i = 0; i < conversations.length; i += 20) {
    const r = await http(`${ts.ingestUrl}/v1/ingest`, { headers: { authorization: `Bearer ${ts.adminKey}` }, body: { events: conversations.slice(i, i + 20).flat() } });
    assert.is(r.status, 200, r.text);
  }
}

const get = async (path: string) => (await http(`${ts.queryUrl}/api/v1/data${path}`, { headers: { 'x-api-key': ts.adminKey } })).body;

async function settled() {
  return eventually(
    async () => {
      const rows = await ts.system.rt.store.query<{ n: string; calls: string; failures: string }>(
        "SELECT count() AS n, sum(tool_call_count) AS calls, sum(tool_failure_count) AS failures FROM {{db}}.conversations FINAL WHERE tenant_id = 'default'",
      );
      const r = rows[0]!;
      return Number(r.n) === tau.length && Number(r.calls) === expected.calls && Number(r.failures) === expected.failures ? r : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
}

test.before(async () => {
  ts = await startTestSystem({ env: { ANALYZE_DEBOUNCE_MS: '100' } });
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

test('tau-bench as direct events with reused call ids: 1,164 calls, 73 failures everywhere', async () => {
  assert.equal([expected.calls, expected.failures], [1164, 73]);
  const events = directEvents(Date.now() - 3 * 3_600_000);
  await postAll(events);
  assert.ok(await settled(), 'conversation rows count every call and every failure');
  // the daily tool-failure rows follow with the next paced pass of the rollup
  assert.ok(await toolRollupSettled(ts.system.rt.store), 'the tool-failure rollup recomputed every marked group');
  const overview = await get('/overview?days_back=7');
  assert.equal(overview.tool_failures, { total: expected.failures, conversations: expected.failedConversations, tools: overview.tool_failures.tools });
  const tools = await get('/tool-failures?days_back=7');
  assert.is(tools.totals.calls, expected.calls);
  assert.is(tools.totals.failures, expected.failures);
  // a pure `think` tool is never merged with a writing call that reused its id
  const think = tools.tools.find((t: any) => t.tool_name === 'think');
  assert.is(think.calls, expected.thinkCalls);
  const effects = await ts.system.rt.store.query<{ effect_class: string }>(
    "SELECT DISTINCT effect_class FROM {{db}}.conversation_tool_calls FINAL WHERE tenant_id = 'default' AND tool_name = 'think'",
  );
  assert.equal(effects.map((e) => e.effect_class), ['compute']);
  // every failed call has a workspace category, persisted once, counted in the daily category rollup
  const cats = await ts.system.rt.store.query<{ failed: string; categorized: string; categories: string; registered: string; daily: string }>(
    `SELECT countIf(success = 0) AS failed, countIf(success = 0 AND category_id != '' AND family != '') AS categorized, uniqExactIf(category_id, success = 0) AS categories,
            (SELECT count() FROM {{db}}.tool_failure_categories FINAL WHERE tenant_id = 'default') AS registered,
            (SELECT sum(failures) FROM {{db}}.tool_categories_daily FINAL WHERE tenant_id = 'default') AS daily
     FROM {{db}}.conversation_tool_calls FINAL WHERE tenant_id = 'default'`,
  );
  const c = cats[0]!;
  assert.equal([Number(c.failed), Number(c.categorized), Number(c.daily)], [expected.failures, expected.failures, expected.failures]);
  assert.ok(Number(c.categories) >= 2 && Number(c.categories) <= Number(c.registered), JSON.stringify(c));
  // sent again (a client retry): nothing counts twice
  await postAll(events);
  await new Promise((r) => setTimeout(r, 1500));
  assert.ok(await settled());
  assert.ok(await toolRollupSettled(ts.system.rt.store));
  assert.is((await get('/tool-failures?days_back=7')).totals.calls, expected.calls);
});

test.run();
