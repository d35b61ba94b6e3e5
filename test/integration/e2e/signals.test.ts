/**
 * Conversation signals through the real path, with the default debounce and flush settings:
 * a coding conversation posted to POST /v1/ingest shows its summary, emotion signals, failure
 * categories and hallucination findings in the data API once the system is at rest, and shows
 * them again after the analyzers' versions change (recomputed by the backfill job). The time from
 * the last accepted event to all four being visible is printed (measured, not asserted).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KV_BUCKETS } from '../../../schemas/subjects.js';
import { backfillKey } from '../../../stream/analyze/backfill.js';
import { eventually, startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';

let ts: TestSystem;
const CONV = 'e2e-signals-1';
const other = { key: '' };

function conversation(startMs: number) {
  const at = (i: number) => new Date(startMs + i * 2000).toISOString();
  const m = (i: number, role: string, body: string | unknown[]) => ({
    conversation_id: CONV,
    role,
    user_id: 'dev-7',
    timestamp: at(i),
    ...(typeof body === 'string' ? { message: body } : { content: body }),
  });
  return [
    m(0, 'user', 'Please fix the failing test in src/parser.ts and run the tests.'),
    m(1, 'assistant', [{ type: 'text', text: "I'll run the tests first." }, { type: 'tool_use', tool_name: 'Bash', tool_use_id: 't1', input: { command: 'npm test' } }]),
    m(2, 'user', [{ type: 'tool_result', tool_use_id: 't1', content: 'Error: 3 tests failed\n  FAIL parser.test.ts > parses numbers', is_error: true }]),
    m(3, 'assistant', [{ type: 'tool_use', tool_name: 'Edit', tool_use_id: 't2', input: { file_path: 'src/parser.ts', old_string: 'a', new_string: 'b' } }]),
    m(4, 'user', [{ type: 'tool_result', tool_use_id: 't2', content: 'User rejected update to src/parser.ts', is_error: true }]),
    m(5, 'user', 'NO! I told you not to touch the parser, the bug is in the tokenizer. Why do you keep doing this?!'),
    m(6, 'assistant', [{ type: 'tool_use', tool_name: 'Bash', tool_use_id: 't3', input: { command: 'npm test' } }]),
    m(7, 'user', [{ type: 'tool_result', tool_use_id: 't3', content: 'Error: 3 tests failed\n  FAIL parser.test.ts > parses numbers', is_error: true }]),
    m(8, 'assistant', 'All tests pass now. The fix is complete.'),
    m(9, 'user', "They don't pass. This is useless."),
  ];
}

const get = async (path: string, key = ts.adminKey) => {
  const r = await http(`${ts.queryUrl}/api/v1/data${path}`, { headers: { 'x-api-key': key } });
  assert.is(r.status, 200, `${path}: ${r.text}`);
  return r.body;
};

/** What the API shows of the conversation, once all four signals are there (else undefined). */
async function visible() {
  const [list, emotions, failures, hallucinations] = await Promise.all([
    get(`/conversations?limit=5`),
    get(`/emotions?conversation_id=${CONV}&family=frustration`),
    get('/tool-failures?days_back=7'),
    get(`/hallucinations?conversation_id=${CONV}`),
  ]);
  const row = list.conversations.find((c: any) => c.conversation_id === CONV);
  const frustrated = emotions.detections.filter((d: any) => d.score >= 0.5);
  const contradicted = hallucinations.findings.filter((f: any) => f.verdict === 'contradicted');
  const families = new Set((failures.categories ?? []).map((c: any) => c.family));
  if (!row?.summary || frustrated.length === 0 || contradicted.length === 0 || !families.has('user_rejected')) return undefined;
  return { row, frustrated, contradicted, failures };
}

test.before(async () => {
  // the defaults a user runs with (the test helper shortens them otherwise)
  ts = await startTestSystem({ env: { ANALYZE_DEBOUNCE_MS: '500', SINK_FLUSH_INTERVAL_MS: '250', JOB_INTERVAL_MS: '1000' } });
  other.key = (await ts.system.rt.keys.create({ tenant: 'other-team', role: 'member', scopes: ['ingest', 'read'] })).key;
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

test('a conversation posted over HTTP shows its summary, emotions, failure categories and hallucinations', async () => {
  const r = await http(`${ts.ingestUrl}/v1/ingest`, { headers: { authorization: `Bearer ${ts.adminKey}` }, body: { events: conversation(Date.now() - 60_000) } });
  assert.is(r.status, 200, r.text);
  const acceptedAt = Date.now();
  const shown = await eventually(visible, { timeoutMs: 30_000, intervalMs: 100 });
  const latencyMs = Date.now() - acceptedAt;
  assert.ok(shown, 'summary, frustration, a user_rejected category and a contradicted claim are all visible');
  console.log(`signals visible ${latencyMs} ms after the last event was accepted`);
  // the frustrated turn is the capitalised NO after a declined edit; the cause is that call
  const no = shown!.frustrated.find((d: any) => d.message_index === 5);
  assert.ok(no, JSON.stringify(shown!.frustrated));
  const said = (conversation(0)[5] as { message: string }).message;
  assert.ok(no.quotes.every((q: string) => said.includes(q)), 'quotes are verbatim');
  assert.is(shown!.contradicted[0].message_index, 8);
  assert.ok(shown!.row.summary.length <= 300);
  const overview = await get('/overview?days_back=1');
  assert.ok(overview.frustrations.frustrated >= 1 && overview.frustrations.total_analyzed >= 1);
  // another tenant sees none of it
  const theirs = await get(`/emotions?conversation_id=${CONV}`, other.key);
  assert.is(theirs.detections.length, 0);
  assert.is((await get(`/hallucinations?conversation_id=${CONV}`, other.key)).findings.length, 0);
});

test('after the analyzers change version the conversation is recomputed and shows the same signals', async () => {
  const store = ts.system.rt.store;
  const runOf = async () => (await store.query<{ v: string }>("SELECT toString(max(version)) AS v FROM {{db}}.analysis_state FINAL WHERE tenant_id = 'default' AND conversation_id = {c:String}", { c: CONV }))[0]!.v;
  const before = await runOf();
  // as after an upgrade: every analyzer's outcome says an older version wrote it
  await store.command(
    `INSERT INTO {{db}}.analysis_state (tenant_id, conversation_id, analyzer, version, analyzer_version, outcome, error, attempts, item_keys, message_count)
     SELECT tenant_id, conversation_id, analyzer, version + 1, 0, outcome, error, attempts, item_keys, message_count
     FROM {{db}}.analysis_state FINAL WHERE tenant_id = 'default' AND conversation_id = {c:String}`,
    { c: CONV },
  );
  await (await ts.system.rt.bus.kv(KV_BUCKETS.jobs.name)).delete(backfillKey('default'));
  const recomputed = await eventually(async () => {
    const rows = await store.query<{ n: string }>(
      "SELECT countIf(analyzer_version = 0) AS n FROM {{db}}.analysis_state FINAL WHERE tenant_id = 'default' AND conversation_id = {c:String}",
      { c: CONV },
    );
    return Number(rows[0]!.n) === 0 && BigInt(await runOf()) > BigInt(before) + 1n ? true : undefined;
  }, { timeoutMs: 30_000 });
  assert.ok(recomputed, 'every analyzer ran again at its current version');
  assert.ok(await eventually(visible, { timeoutMs: 10_000 }), 'the signals are shown again');
});

test.run();
