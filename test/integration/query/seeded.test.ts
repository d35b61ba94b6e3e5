/**
 * Every implemented data-API endpoint checked against numbers computed from the seeded dataset
 * model (fixtures/expect.ts), plus tenant isolation across every endpoint, and the spec's rules
 * for query parameters on every GET endpoint (one parameter at a time, then seeded random mixes).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, startTestSystem, toolRollupSettled, type TestSystem } from '../../helpers/system.js';
import { Ajv } from 'ajv';
import { http } from '../../helpers/http.js';
import { ENDPOINTS } from '../../../schemas/api/index.js';
import { buildDataset, ingestBodies, rows, type SeedConversation } from './fixtures/dataset.js';
import { expectedCalls, expectedList, expectedSearch, rate } from './fixtures/expect.js';
import { createRng } from '../../../bench/workload/rng.js';

const DAY = 86_400_000;
let ts: TestSystem;
let data: SeedConversation[];
let otherKey: string;
let nowMs: number;
const MAIN = 'default';
const OTHER = 'acme';

// every 200 answer is checked against the endpoint's published response schema
const ajv = new Ajv({ strict: false, allErrors: true });
const validators = ENDPOINTS.map((e) => ({ re: new RegExp(`^${e.path.replace(/\{\w+\}/g, '[^/]+')}$`), method: e.method, validate: ajv.compile(e.response) }));
const get = async (path: string, key = ts.adminKey) => {
  const r = await http(`${ts.queryUrl}/api/v1/data${path}`, { headers: { 'x-api-key': key } });
  if (r.status === 200) {
    const v = validators.find((x) => x.method === 'get' && x.re.test(path.split('?')[0]!));
    assert.ok(v, `no schema for ${path}`);
    assert.ok(v.validate(r.body), `${path} does not match its response schema: ${JSON.stringify(v.validate.errors)}`);
  }
  return r;
};

/**
 * The dataset goes through the real pipeline: POST /v1/ingest (ingest role) -> JetStream -> stream
 * role -> ClickHouse, then the suite waits until every table holds the expected rows.
 * `QUERY_TEST_SEED=direct` writes the rows straight into the tables instead (debugging aid).
 */
async function seedThroughIngest(keys: Map<string, string>) {
  for (const [tenant, body] of ingestBodies(data)) {
    const r = await http(`${ts.ingestUrl}/v1/ingest`, { headers: { authorization: `Bearer ${keys.get(tenant)}` }, body });
    assert.ok(r.status >= 200 && r.status < 300, `ingest answered ${r.status}: ${r.text}`);
  }
  const store = ts.system.rt.store;
  const want = data.map((c) => ({ tenant: c.tenant, id: c.id, n: c.messages.length, calls: c.messages.flatMap((m) => m.toolUses ?? []).length }));
  const stored = await eventually(
    async () => {
      const conv = await store.query<{ tenant_id: string; conversation_id: string; message_count: number; tool_call_count: number }>(
        'SELECT tenant_id, conversation_id, message_count, tool_call_count FROM {{db}}.conversations FINAL',
      );
      const calls = await store.query<{ n: string }>(
        "SELECT count() AS n FROM {{db}}.conversation_tool_calls FINAL WHERE success >= 0 AND tool_name != ''",
      );
      const complete = want.every((w) => conv.some((c) => c.tenant_id === w.tenant && c.conversation_id === w.id && Number(c.message_count) === w.n && Number(c.tool_call_count) === w.calls));
      return complete && Number(calls[0]?.n) === want.reduce((a, w) => a + w.calls, 0);
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  assert.ok(stored, 'the stream role stored the seeded dataset within 60 s');
  assert.ok(await toolRollupSettled(store), 'the tool-failure rollup caught up');
}

test.before(async () => {
  const direct = process.env.QUERY_TEST_SEED === 'direct';
  ts = await startTestSystem(direct ? { roles: ['query'] } : {});
  nowMs = Date.now();
  data = buildDataset(nowMs, { main: MAIN, other: OTHER });
  const other = await ts.system.rt.keys.create({ tenant: OTHER, role: 'member', scopes: ['ingest', 'read'] });
  otherKey = other.key;
  if (direct) {
    const r = rows(data);
    await ts.system.rt.store.insert('messages', r.messages);
    await ts.system.rt.store.insert('tool_calls', r.tool_calls);
    await ts.system.rt.store.insert('conversations', r.conversations);
  } else {
    await seedThroughIngest(new Map([[MAIN, ts.adminKey], [OTHER, other.key]]));
  }
  await loadSummaries();
});
/**
 * Summaries as the stream role stored them (the trace-summary analysis fills them once it runs;
 * until then ''): the endpoints must show exactly these, never blank them.
 */
let summaries = new Map<string, string>();
async function loadSummaries() {
  const rows = await ts.system.rt.store.query<{ tenant_id: string; conversation_id: string; summary: string }>('SELECT tenant_id, conversation_id, summary FROM {{db}}.conversations FINAL');
  summaries = new Map(rows.map((r) => [`${r.tenant_id}/${r.conversation_id}`, r.summary]));
  signalsStored = Number((await ts.system.rt.store.query<{ n: string }>('SELECT count() AS n FROM {{db}}.conversation_signals'))[0]?.n) > 0;
}
let signalsStored = false;
const summaryOf = (tenant: string, id: string) => summaries.get(`${tenant}/${id}`) ?? '';

test.after(async () => {
  await ts?.stop({ withNats: true });
});

test('GET /conversations: default page is the 20 newest by last activity with an exact total', async () => {
  const exp = expectedList(data, MAIN);
  const r = await get('/conversations');
  assert.is(r.status, 200);
  assert.is(r.body.search_mode, 'keyword');
  assert.equal(r.body.pagination, { limit: 20, offset: 0, total: exp.length, has_more: true });
  assert.equal(
    r.body.conversations.map((c: any) => ({ conversation_id: c.conversation_id, message_count: c.message_count, first_timestamp: c.first_timestamp, last_timestamp: c.last_timestamp, environment: c.environment })),
    exp.slice(0, 20),
  );
  for (const c of r.body.conversations) {
    assert.is(c.summary, summaryOf(MAIN, c.conversation_id));
    assert.is(c.cluster_id, null);
    assert.is(c.cluster_name, null);
  }
});

test('GET /conversations: offset pages walk the whole list without gaps', async () => {
  const exp = expectedList(data, MAIN).map((c) => c.conversation_id);
  const seen: string[] = [];
  let offset = 0;
  for (;;) {
    const r = await get(`/conversations?limit=7&offset=${offset}`);
    seen.push(...r.body.conversations.map((c: any) => c.conversation_id));
    if (!r.body.pagination.has_more) break;
    assert.is(r.body.pagination.total, exp.length, `total on the page at offset ${offset}`);
    offset += 7;
  }
  assert.equal(seen, exp);
  // past the end: no rows, and still the exact total
  const past = await get(`/conversations?limit=7&offset=${exp.length + 3}`);
  assert.equal(past.body.conversations, []);
  assert.equal(past.body.pagination, { limit: 7, offset: exp.length + 3, total: exp.length, has_more: false });
  const none = await get('/conversations?search=nothingmatches&offset=5');
  assert.is(none.body.pagination.total, 0);
});

test('GET /conversations: environment, user_id, time_range and search filters', async () => {
  const cases: [string, Parameters<typeof expectedList>[2]][] = [
    ['environment=staging', { environment: 'staging' }],
    ['environment=development', { environment: 'development' }],
    ['user_id=user-1', { userId: 'user-1' }],
    ['time_range=24h', { sinceMs: nowMs - DAY }],
    ['time_range=7d&environment=production', { sinceMs: nowMs - 7 * DAY, environment: 'production' }],
    ['search=refund', { search: 'refund' }],
    ['search=REFUND%20broken', { search: 'refund broken' }],
    ['search=widgets&limit=100', { search: 'widgets' }],
    ['search=nothingmatches', { search: 'nothingmatches' }],
  ];
  for (const [qs, f] of cases) {
    const exp = expectedList(data, MAIN, f).map((c) => c.conversation_id);
    const r = await get(`/conversations?${qs}`);
    assert.is(r.status, 200, qs);
    assert.equal(r.body.conversations.map((c: any) => c.conversation_id), exp.slice(0, r.body.pagination.limit), qs);
    assert.is(r.body.pagination.total, exp.length, qs);
  }
});

// world_state and outcome: test/integration/query/world-state.test.ts and step-scores.test.ts
test('GET /conversations: the cluster_id filter matches nothing until a taxonomy exists', async () => {
  for (const qs of ['cluster_id=n1']) {
    const r = await get(`/conversations?${qs}`);
    assert.is(r.status, 200);
    assert.equal(r.body.conversations, []);
    assert.is(r.body.pagination.total, 0);
  }
  const any = await get('/conversations?outcome=any');
  assert.is(any.body.pagination.total, expectedList(data, MAIN).length);
});

test('GET /conversations/:id/context: default centre is the middle, window 2, tool parts truncated', async () => {
  const r = await get('/conversations/conv-refund/context');
  assert.is(r.status, 200);
  const conv = data.find((c) => c.tenant === MAIN && c.id === 'conv-refund')!;
  const n = conv.messages.length;
  const centre = Math.floor((n - 1) / 2);
  assert.is(r.body.total_messages, n);
  assert.is(r.body.summary, summaryOf(MAIN, 'conv-refund'));
  assert.is(r.body.context.center_index, centre);
  assert.is(r.body.context.from_index, centre - 2);
  assert.is(r.body.context.to_index, centre + 2);
  assert.equal(r.body.context.messages.map((m: any) => m.index), [1, 2, 3, 4, 5]);
  const m1 = r.body.context.messages[0];
  assert.is(m1.role, 'assistant');
  assert.is(m1.content, conv.messages[1]!.text);
  assert.is(m1.timestamp, new Date(conv.messages[1]!.atMs).toISOString());
  assert.is(m1.tool_calls[0].id, 'call-r1');
  assert.is(m1.tool_calls[0].name, 'get_order_details');
  assert.is(Array.from(m1.tool_calls[0].input as string).length, 1000);
  assert.ok((m1.tool_calls[0].input as string).endsWith('…'));
  const m2 = r.body.context.messages[1];
  assert.equal(m2.tool_results, [{ tool_use_id: 'call-r1', content: 'order not found in region eu-west', is_error: true }]);
});

test('GET /conversations/:id/context: msg_index past the end is clamped to the last message', async () => {
  const r = await get('/conversations/conv-refund/context?msg_index=100&window=9');
  assert.is(r.body.context.center_index, 6);
  assert.is(r.body.context.from_index, 1);
  assert.is(r.body.context.to_index, 6);
  const first = await get('/conversations/conv-refund/context?msg_index=0&window=1');
  assert.equal(first.body.context.messages.map((m: any) => m.index), [0, 1]);
});

test('GET /conversations/:id/context: unknown conversation is 200 with nothing', async () => {
  const r = await get('/conversations/nope/context');
  assert.is(r.status, 200);
  assert.equal(r.body, { conversation_id: 'nope', total_messages: 0, summary: '', context: { center_index: null, from_index: null, to_index: null, messages: [] } });
});

test('GET /conversations/:id/context: a rolled-up conversation without messages still shows its summary', async () => {
  // a tenant of its own: no other test counts its conversations
  const tenant = 'ctx-summary-only';
  const key = (await ts.system.rt.keys.create({ tenant, role: 'member', scopes: ['read'] })).key;
  const summary = 'spans only: three tool calls, no messages';
  await ts.system.rt.store.insert('conversations', [{ tenant_id: tenant, conversation_id: 'spans-1', version: 1, summary }]);
  const r = await get('/conversations/spans-1/context', key);
  assert.is(r.status, 200);
  assert.equal(r.body, { conversation_id: 'spans-1', total_messages: 0, summary, context: { center_index: null, from_index: null, to_index: null, messages: [] } });
});

/** Tool failures count calls of whole UTC days: today and the previous `days` days. */
const toolWindowStart = (days: number) => {
  const d = new Date(nowMs - days * DAY);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
};

function overviewExpect(tenant: string, days: number) {
  const last = (c: SeedConversation) => Math.max(...c.messages.map((m) => m.atMs));
  const mine = data.filter((c) => c.tenant === tenant);
  const cur = mine.filter((c) => last(c) >= nowMs - days * DAY).length;
  const prev = mine.filter((c) => last(c) >= nowMs - 2 * days * DAY && last(c) < nowMs - days * DAY).length;
  const failures = expectedCalls(data, tenant).filter((c) => c.failed && c.startMs >= toolWindowStart(days));
  const recent = expectedList(data, tenant, { sinceMs: nowMs - 7 * DAY }).slice(0, 10);
  return {
    conversations: { total: cur, trend_pct: prev === 0 ? 0 : Math.round(((cur - prev) / prev) * 1000) / 10 },
    tool_failures: { total: failures.length, conversations: new Set(failures.map((f) => f.conversation)).size, tools: new Set(failures.map((f) => f.use.name)).size },
    recent: recent.map((c) => ({ conversation_id: c.conversation_id, summary: summaryOf(tenant, c.conversation_id), timestamp: c.last_timestamp })),
    // per UTC day of the tool window: conversations by their last activity (KPI window), failures by call start
    timeline: Array.from({ length: days + 1 }, (_, i) => {
      const start = toolWindowStart(days) + i * DAY;
      const inDay = (ms: number) => ms >= start && ms < start + DAY;
      return {
        date: new Date(start).toISOString().slice(0, 10),
        conversations: mine.filter((c) => last(c) >= nowMs - days * DAY && inDay(last(c))).length,
        tool_failures: failures.filter((f) => inDay(f.startMs)).length,
      };
    }),
  };
}

test('GET /overview: KPIs for days_back 7 (default), 3 and 30', async () => {
  for (const days of [7, 3, 30]) {
    const r = await get(days === 7 ? '/overview' : `/overview?days_back=${days}`);
    assert.is(r.status, 200);
    const exp = overviewExpect(MAIN, days);
    assert.equal(r.body.period, { days });
    assert.equal(r.body.conversations, exp.conversations, `days ${days}`);
    assert.equal(r.body.tool_failures, exp.tool_failures, `days ${days}`);
    assert.equal(r.body.recent_activity, exp.recent);
    assert.equal(r.body.timeline.map((t: any) => ({ date: t.date, conversations: t.conversations, tool_failures: t.tool_failures })), exp.timeline, `timeline, days ${days}`);
    assert.is(r.body.timeline.reduce((a: number, t: any) => a + t.frustrated, 0), r.body.frustrations.frustrated);
    // the detectors decide who is frustrated (their own suites); here the KPI must be consistent
    const f = r.body.frustrations;
    if (!signalsStored) assert.equal(f, { total_analyzed: 0, frustrated: 0, at_risk: 0, rate_pct: 0 });
    assert.ok(f.total_analyzed <= exp.conversations.total && f.frustrated + f.at_risk <= f.total_analyzed, JSON.stringify(f));
    assert.is(f.rate_pct, f.total_analyzed ? Math.round((f.frustrated / f.total_analyzed) * 1000) / 10 : 0);
    assert.equal(r.body.top_clusters, []);
  }
});

test('GET /tool-failures: counts and rates by tool, effect class and day', async () => {
  for (const days of [7, 30]) {
    const calls = expectedCalls(data, MAIN).filter((c) => c.startMs >= toolWindowStart(days));
    const r = await get(`/tool-failures?days_back=${days}`);
    assert.is(r.status, 200);
    const failed = calls.filter((c) => c.failed);
    assert.equal(r.body.totals, {
      calls: calls.length,
      failures: failed.length,
      failure_rate_pct: rate(failed.length, calls.length),
      conversations: new Set(failed.map((c) => c.conversation)).size,
      tools: new Set(failed.map((c) => c.use.name)).size,
    });
    const names = [...new Set(calls.map((c) => c.use.name))];
    for (const name of names) {
      const mine = calls.filter((c) => c.use.name === name);
      const f = mine.filter((c) => c.failed);
      const row = r.body.tools.find((t: any) => t.tool_name === name);
      assert.ok(row, name);
      assert.is(row.calls, mine.length);
      assert.is(row.failures, f.length);
      assert.is(row.failure_rate_pct, rate(f.length, mine.length));
      assert.is(row.conversations, new Set(f.map((c) => c.conversation)).size);
      assert.ok(row.example_errors.every((e: string) => f.some((c) => c.error === e)));
      if (f.length) assert.is(row.last_failure_at, new Date(Math.max(...f.map((c) => c.startMs))).toISOString());
      else assert.is(row.last_failure_at, null);
    }
    assert.is(r.body.tools.length, names.length);
    for (const eff of new Set(calls.map((c) => c.use.effect))) {
      const mine = calls.filter((c) => c.use.effect === eff);
      const row = r.body.by_effect_class.find((e: any) => e.effect_class === eff);
      assert.equal(row, { effect_class: eff, calls: mine.length, failures: mine.filter((c) => c.failed).length, failure_rate_pct: rate(mine.filter((c) => c.failed).length, mine.length) });
    }
    const sum = (k: 'calls' | 'failures') => r.body.timeline.reduce((a: number, d: any) => a + d[k], 0);
    assert.is(sum('calls'), calls.length);
    assert.is(sum('failures'), failed.length);
    assert.is(r.body.timeline.length, days + 1);
    for (const c of calls) {
      const day = r.body.timeline.find((d: any) => d.date === new Date(c.startMs).toISOString().slice(0, 10));
      assert.ok(day && day.calls >= 1);
    }
  }
});

test('GET /tool-failures/:tool: one tool with its error texts and examples; unknown tool is empty', async () => {
  const calls = expectedCalls(data, MAIN).filter((c) => c.startMs >= toolWindowStart(7) && c.use.name === 'get_order_details');
  const failed = calls.filter((c) => c.failed);
  const r = await get('/tool-failures/get_order_details');
  assert.is(r.status, 200);
  assert.is(r.body.tool_name, 'get_order_details');
  assert.equal(r.body.totals, { calls: calls.length, failures: failed.length, failure_rate_pct: rate(failed.length, calls.length), conversations: new Set(failed.map((c) => c.conversation)).size });
  assert.is(r.body.errors.length, new Set(failed.map((c) => c.error)).size);
  const e = r.body.errors[0];
  assert.is(e.error, failed[0]!.error);
  assert.is(e.count, 1);
  assert.equal(e.examples, [{ conversation_id: failed[0]!.conversation, call_id: failed[0]!.use.id, timestamp: new Date(failed[0]!.startMs).toISOString() }]);
  const none = await get('/tool-failures/no_such_tool');
  assert.is(none.status, 200);
  assert.equal(none.body.totals, { calls: 0, failures: 0, failure_rate_pct: 0, conversations: 0 });
  assert.equal(none.body.errors, []);
  assert.equal(none.body.by_effect_class, []);
});

test('GET /search: keyword hits with message index, snippet and score; limit-only pagination', async () => {
  const exp = expectedSearch(data, MAIN, 'refund');
  const r = await get('/search?q=refund&limit=50');
  assert.is(r.status, 200);
  assert.is(r.body.search_mode, 'keyword');
  assert.is(r.body.requested_mode, 'hybrid');
  assert.is(r.body.sort, 'recent');
  assert.equal(
    // message ids are derived by ingest on the real path; the index identifies the message
    r.body.hits.map((h: any) => [h.conversation_id, h.message_index, h.score]),
    exp.map((h) => [h.conversation_id, h.message_index, h.score]),
  );
  const byScore = expectedSearch(data, MAIN, 'refund', 'relevance');
  assert.ok(byScore.some((h, i) => h.message_id !== exp[i]!.message_id), 'the dataset orders differently by score and by time');
  const rel = await get('/search?q=refund&limit=50&sort=relevance');
  assert.is(rel.body.sort, 'relevance');
  assert.equal(rel.body.hits.map((h: any) => [h.conversation_id, h.message_index, h.score]), byScore.map((h) => [h.conversation_id, h.message_index, h.score]));
  // every page size agrees with the full order (the recent path grows its candidate pool as needed)
  for (const limit of [1, 3, 7]) {
    for (const sort of ['recent', 'relevance'] as const) {
      const page = await get(`/search?q=refund&limit=${limit}&sort=${sort}`);
      const want = (sort === 'recent' ? exp : byScore).slice(0, limit);
      assert.equal(page.body.hits.map((h: any) => [h.conversation_id, h.message_index]), want.map((h) => [h.conversation_id, h.message_index]), `${sort} limit ${limit}`);
    }
  }
  assert.is((await get('/search?q=refund&sort=oldest')).status, 400);
  assert.equal(r.body.pagination, { limit: 50, returned: exp.length, has_more: false });
  for (const h of r.body.hits) assert.match(h.snippet, /refund/i);
  const two = await get('/search?q=refund&limit=2&mode=semantic');
  assert.equal(two.body.pagination, { limit: 2, returned: 2, has_more: true });
  assert.is(two.body.search_mode, 'keyword');
  assert.is(two.body.requested_mode, 'semantic');
  const scoped = await get('/search?q=refund&conversation_id=conv-ancient');
  assert.equal(scoped.body.hits.map((h: any) => [h.conversation_id, h.message_index, h.role]), [['conv-ancient', 0, 'user']]);
  for (const h of r.body.hits) {
    const ctx = await get(`/conversations/${h.conversation_id}/context?msg_index=${h.message_index}&window=1`);
    const m = ctx.body.context.messages.find((x: any) => x.index === h.message_index);
    assert.is(m.timestamp, h.timestamp, 'a hit\'s message_index feeds the context endpoint');
  }
  const recent = await get('/search?q=refund&time_range=7d');
  assert.ok(!recent.body.hits.some((h: any) => h.conversation_id === 'conv-ancient'));
});

test('POST /feedback stores the record before answering 202', async () => {
  const r = await http(`${ts.queryUrl}/api/v1/data/feedback`, {
    headers: { 'x-api-key': ts.adminKey },
    body: { category: 'noisy_data', note: 'duplicate rows', source: 'cli', refs: { conversation_id: 'conv-refund' } },
  });
  assert.is(r.status, 202);
  assert.match(r.body.feedback_id, /^[0-9a-f-]{36}$/);
  assert.ok(!Number.isNaN(Date.parse(r.body.submitted_at)));
  const stored = await ts.system.rt.store.query<any>(`SELECT toString(feedback_id) AS id, category, severity, note, source, refs, tenant_id FROM {{db}}.feedback WHERE feedback_id = {id:UUID}`, { id: r.body.feedback_id });
  assert.equal(stored, [{ id: r.body.feedback_id, category: 'noisy_data', severity: 'low', note: 'duplicate rows', source: 'cli', refs: '{"conversation_id":"conv-refund"}', tenant_id: MAIN }]);
  const again = await http(`${ts.queryUrl}/api/v1/data/feedback`, { headers: { 'x-api-key': ts.adminKey }, body: { category: 'noisy_data', note: 'duplicate rows', source: 'cli', refs: { conversation_id: 'conv-refund' } } });
  assert.is(again.status, 202);
  assert.is.not(again.body.feedback_id, r.body.feedback_id);
});

test('tenant isolation: no endpoint ever returns another tenant\'s rows', async () => {
  const mainOnly = ['conv-bulk', 'conv-shipping', 'conv-old', 'broken', 'eu-west', 'smtp', 'create_label', 'send_email', 'user-2'];
  const otherOnly = ['conv-other-only', 'secret', 'other tenant'];
  const paths = [
    '/conversations?limit=100',
    '/conversations?search=refund',
    '/conversations?search=widgets&limit=100',
    '/conversations/conv-refund/context?window=5',
    '/conversations/conv-other-only/context',
    '/conversations/conv-shipping/context',
    '/overview?days_back=90',
    '/tool-failures?days_back=90',
    '/tool-failures/get_order_details?days_back=90',
    '/tool-failures/create_label?days_back=90',
    '/search?q=refund&limit=50',
    '/search?q=widgets&limit=50',
    '/emotions?limit=100',
    '/emotions?conversation_id=conv-refund',
    '/hallucinations?limit=100',
  ];
  for (const p of paths) {
    const asOther = await get(p, otherKey);
    const asMain = await get(p);
    assert.is(asOther.status, 200, p);
    // an id echoed from the request path is not a leak
    for (const s of mainOnly) if (!p.includes(s)) assert.not.ok(asOther.text.includes(s), `${p} leaks "${s}" to the other tenant`);
    for (const s of otherOnly) if (!p.includes(s)) assert.not.ok(asMain.text.includes(s), `${p} leaks "${s}" to the main tenant`);
    if (p.includes('/context')) {
      const owner = data.filter((c) => p.includes(`/conversations/${c.id}/`));
      assert.is(asMain.body.total_messages, owner.find((c) => c.tenant === MAIN)?.messages.length ?? 0, p);
      assert.is(asOther.body.total_messages, owner.find((c) => c.tenant === OTHER)?.messages.length ?? 0, p);
    }
  }
  const list = await get('/conversations?limit=100', otherKey);
  assert.equal(list.body.conversations.map((c: any) => c.conversation_id), expectedList(data, OTHER).map((c) => c.conversation_id));
  const ov = await get('/overview', otherKey);
  const exp = overviewExpect(OTHER, 7);
  assert.equal(ov.body.conversations, exp.conversations);
  assert.equal(ov.body.tool_failures, exp.tool_failures);
  const ctx = await get('/conversations/conv-refund/context?window=5', otherKey);
  assert.equal(ctx.body.context.messages.map((m: any) => m.content), ['Other tenant refund secret widgets.', 'Other tenant tool.', '']);
  const fb = await http(`${ts.queryUrl}/api/v1/data/feedback`, { headers: { 'x-api-key': otherKey }, body: { category: 'other' } });
  const stored = await ts.system.rt.store.query<any>(`SELECT tenant_id FROM {{db}}.feedback WHERE feedback_id = {id:UUID}`, { id: fb.body.feedback_id });
  assert.equal(stored, [{ tenant_id: OTHER }]);
});

/**
 * Every query parameter of every GET endpoint, one at a time, against the spec's rules ("Errors"):
 * an integer parameter answers 400 only for a value that is not a plain integer of its sign (an
 * out-of-range integer is clamped, not refused), a decimal parameter likewise, an enum parameter
 * 400 outside its set; an empty value is "not given". Then seeded random mixes of values,
 * repeated parameters and unknown ids on every GET route: never a 5xx, every error with its
 * `message`, every 200 matching its published schema (the `get` helper checks it).
 */
const PATH_IDS: Record<string, string> = { id: 'conv-refund', tool: 'get_order_details', nodeId: 'node-unknown' };
const PROBLEM_ID = '6f1c2a4e-9b7d-4c3e-8a21-5d0e7f9b3c11';
const fill = (path: string, ids: Record<string, string>) => path.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(ids[k] ?? 'x'));
const NUMERIC_VALUES = ['0', '1', '-1', '+3', '99999999999999999999', '-0', '2.5', '.5', '1e3', '0x10', ' 5', 'NaN', 'abc', '', '7'];
const TEXT_VALUES = ['', ' ', 'a', 'ab', 'x'.repeat(201), '日本語', "'; DROP TABLE events; --", '%', '\\', '"quoted"', 'NULL', '{}', 'all'];

type Expect = 'ok' | 'bad';
function expectOf(schema: Record<string, unknown>, value: string): Expect | undefined {
  if (value === '') return 'ok';
  const enumSet = schema.enum as string[] | undefined;
  if (enumSet) return enumSet.includes(value) ? 'ok' : 'bad';
  const positive = schema['x-clamp'] === 'positive' || (schema.minimum !== undefined && Number(schema.minimum) >= 1 && schema['x-clamp'] !== 'non_negative');
  if (schema.type === 'integer') {
    if (!/^[+-]?\d+$/.test(value)) return 'bad';
    const n = Number(value);
    return n < (positive ? 1 : 0) ? 'bad' : 'ok';
  }
  if (schema.type === 'number') {
    if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(value)) return 'bad';
    return Number(value) < 0 ? 'bad' : 'ok';
  }
  return undefined;
}

const validValue = (schema: Record<string, unknown>) => (schema.enum ? (schema.enum as string[])[0]! : schema.type === 'integer' || schema.type === 'number' ? '0' : 'refund');

test('every query parameter of every GET endpoint: 400 exactly where the spec refuses, clamps otherwise', async () => {
  const mismatches: string[] = [];
  let checked = 0;
  for (const ep of ENDPOINTS.filter((e) => e.method === 'get' && e.operationId !== 'getOpenApi')) {
    const props = (ep.query?.properties ?? {}) as Record<string, Record<string, unknown>>;
    const required = new Set((ep.query?.required as string[] | undefined) ?? []);
    const base = fill(ep.path, { ...PATH_IDS, id: ep.path.startsWith('/problems') ? PROBLEM_ID : PATH_IDS.id! });
    for (const [name, schema] of Object.entries(props)) {
      const values = schema.enum ? [...(schema.enum as string[]), 'nope', 'ALL', ''] : schema.type === 'integer' || schema.type === 'number' ? NUMERIC_VALUES : [];
      for (const v of values) {
        // an empty value is "not given": refused only where the parameter is required
        const want = v === '' && required.has(name) ? 'bad' : expectOf(schema, v);
        if (!want) continue;
        const others = [...required].filter((r) => r !== name).map((r) => `${r}=${validValue(props[r]!)}`);
        // required in the schema's prose, not its `required`: q unless node_id
        if (ep.path === '/task-clusters/search' && name !== 'q' && name !== 'node_id') others.push('q=refund');
        const path = `${base}?${[...others, `${name}=${encodeURIComponent(v)}`].join('&')}`;
        const r = await get(path);
        checked++;
        const got = r.status === 400 ? 'bad' : r.status === 200 ? 'ok' : `status ${r.status}`;
        if (got !== want) mismatches.push(`${path}: ${r.status} (want ${want}) ${r.text.slice(0, 120)}`);
        if (r.status === 400 && !(typeof r.body?.message === 'string' || Array.isArray(r.body?.message))) mismatches.push(`${path}: 400 without message`);
      }
    }
  }
  console.log(`  ${checked} single-parameter requests`);
  assert.equal(mismatches, []);
});

test('seeded random parameters and ids on every GET route: never a 5xx, errors explained, answers match their schemas', async () => {
  const rng = createRng(Number(process.env.QUERY_FUZZ_SEED ?? 23));
  const statuses: Record<string, number> = {};
  const problems: string[] = [];
  const ids = [...new Set(data.map((c) => c.id))].slice(0, 6);
  for (const ep of ENDPOINTS.filter((e) => e.method === 'get')) {
    const props = Object.entries((ep.query?.properties ?? {}) as Record<string, Record<string, unknown>>);
    for (let k = 0; k < 30; k++) {
      const idPick = () => rng.pick([...ids, PROBLEM_ID, 'missing', 'x'.repeat(300), '日本', ' ', '0', '%25']);
      const path = fill(ep.path, { id: idPick(), tool: idPick(), nodeId: idPick() });
      const params: string[] = [];
      for (const [name, schema] of props) {
        if (!rng.chance(0.4)) continue;
        const pool = schema.enum ? [...(schema.enum as string[]), ...TEXT_VALUES] : schema.type === 'integer' || schema.type === 'number' ? NUMERIC_VALUES : TEXT_VALUES;
        params.push(`${name}=${encodeURIComponent(rng.pick(pool))}`);
        if (rng.chance(0.1)) params.push(`${name}=${encodeURIComponent(rng.pick(pool))}`);
      }
      if (rng.chance(0.2)) params.push(`${rng.pick(['environment', 'time_range', 'unknown_param'])}=${encodeURIComponent(rng.pick(TEXT_VALUES))}`);
      const url = params.length ? `${path}?${params.join('&')}` : path;
      const r = await get(url);
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      if (![200, 400, 404].includes(r.status)) problems.push(`${url}: ${r.status} ${r.text.slice(0, 200)}`);
      else if (r.status !== 200 && !(typeof r.body?.message === 'string' || Array.isArray(r.body?.message))) problems.push(`${url}: ${r.status} without message: ${r.text.slice(0, 200)}`);
    }
  }
  console.log(`  statuses ${JSON.stringify(statuses)}`);
  assert.equal(problems, []);
  assert.ok((statuses['200'] ?? 0) > 100 && (statuses['400'] ?? 0) > 100, 'both answered and refused requests');
});

test.run();
