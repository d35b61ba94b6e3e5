/**
 * Every problems endpoint through the real system: generated conversations with planted causes
 * posted to /v1/ingest, analyzed by the stream role, one engine pass (`runProblemsOnce`, as the
 * leased job runs it), then GET /problems with every block, /problems/:id with every block, the
 * keyset-paginated sub-resources (cursors round-trip, tampered or foreign ones give 400), every
 * evidence anchor opening its message through the context endpoint, a merged-away id resolving on
 * every endpoint, the feedback round trip (each action visible after the next run; 400/404 rules;
 * duplicates), and tenant isolation on every endpoint.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { assertMatchesSchema } from './fixtures/schema-check.js';
import { generateProblemSet } from '../../../eval/problems/generator.js';
import { runProblemsOnce } from '../../../stream/problems/api.js';

let ts: TestSystem;
let otherKey: string;
let otherAdminKey: string;
let memberKey: string;
const OTHER = 'acme';
const N = 200;

const get = async (path: string, key = ts.adminKey, status = 200) => {
  const r = await http(`${ts.queryUrl}/api/v1/data${path}`, { headers: { 'x-api-key': key } });
  assert.is(r.status, status, `${path}: ${r.text}`);
  if (status === 200) assertMatchesSchema(path, r.body);
  return r.body;
};
const post = async (path: string, body: unknown, key = ts.adminKey) => http(`${ts.queryUrl}/api/v1/data${path}`, { headers: { 'x-api-key': key }, body });
const run = () => runProblemsOnce({ store: ts.system.rt.store }, 'default');

/** Conversations where two tools fail together: one cause seen as two (merged). */
function paired(i: number, at: number) {
  const id = `pair-${i}`;
  const t = (k: number) => new Date(at + k * 1000).toISOString();
  const m = (k: number, role: string, content: unknown[] | string) => ({ conversation_id: id, role, user_id: `pair-user-${i}`, timestamp: t(k), message_id: `${id}:${k}`, ...(typeof content === 'string' ? { message: content } : { content }) });
  return [
    m(0, 'user', 'Please set up the team meeting for Thursday and invite everyone.'),
    m(1, 'assistant', [{ type: 'tool_use', tool_name: 'sync_calendar', tool_use_id: 's1', input: { day: 'thu' } }]),
    m(2, 'user', [{ type: 'tool_result', tool_use_id: 's1', content: 'Error: connection reset by peer while contacting calendar host', is_error: true }]),
    m(3, 'assistant', [{ type: 'tool_use', tool_name: 'send_invite', tool_use_id: 's2', input: { to: 'team' } }]),
    m(4, 'user', [{ type: 'tool_result', tool_use_id: 's2', content: 'Error: 401 Unauthorized: token expired', is_error: true }]),
    m(5, 'assistant', 'I could not reach the calendar service.'),
  ];
}

async function ingest(events: unknown[], key = ts.adminKey) {
  for (let i = 0; i < events.length; i += 500) {
    const r = await http(`${ts.ingestUrl}/v1/ingest`, { headers: { authorization: `Bearer ${key}` }, body: { events: events.slice(i, i + 500) } });
    assert.ok(r.status >= 200 && r.status < 300, r.text);
  }
}
const analyzed = async (tenant: string) =>
  Number((await ts.system.rt.store.query<{ n: string }>(`SELECT uniqExact(conversation_id) AS n FROM {{db}}.analysis_state FINAL WHERE tenant_id = {t:String} AND analyzer = 'emotions'`, { t: tenant }))[0]!.n);

const set = generateProblemSet(5, N, Date.now());
let list: any;
const byCause = new Map<string, any>();

test.before(async () => {
  ts = await startTestSystem({ stream: { tenantJobs: [] } });
  otherKey = (await ts.system.rt.keys.create({ tenant: OTHER, role: 'member', scopes: ['ingest', 'read'] })).key;
  otherAdminKey = (await ts.system.rt.keys.create({ tenant: OTHER, role: 'admin', scopes: ['ingest', 'read'] })).key;
  memberKey = (await ts.system.rt.keys.create({ tenant: 'default', role: 'member', scopes: ['read'] })).key;
  const t0 = Date.now() - 3 * 3_600_000;
  await ingest([...set.flatMap((c) => c.events), ...Array.from({ length: 8 }, (_, i) => paired(i, t0 + i * 60_000)).flat()]);
  await ingest(generateProblemSet(6, 20, Date.now()).flatMap((c) => c.events.map((e) => ({ ...e, conversation_id: `acme-${e.conversation_id}` }))), otherKey);
  const ok = await eventually(async () => (await analyzed('default')) >= N + 8 && (await analyzed(OTHER)) >= 20, { timeoutMs: 180_000, intervalMs: 500 });
  assert.ok(ok, `analyzed ${await analyzed('default')} of ${N + 8}`);
  await run();
  await runProblemsOnce({ store: ts.system.rt.store }, OTHER);
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

test('GET /problems: the planted causes are trusted, ranked problems; every block is there', async () => {
  list = await get('/problems');
  const names = list.problems.map((p: any) => p.display_name);
  const find = (re: RegExp) => list.problems.find((p: any) => re.test(p.display_name));
  byCause.set('schema_mismatch', find(/update_shipping_address/));
  byCause.set('prompt_defect', find(/incomplete/));
  byCause.set('wrong_claim', find(/contradicted/));
  for (const [cause, p] of byCause) assert.ok(p, `${cause} in ${JSON.stringify(names)}`);
  const top5 = list.problems.slice(0, 5).map((p: any) => p.problem_id);
  for (const p of byCause.values()) assert.ok(top5.includes(p.problem_id), 'in the top 5');
  const scores = list.problems.map((p: any) => p.rank_score);
  assert.equal(scores, [...scores].sort((a: number, b: number) => b - a), 'ranked by rank_score');
  assert.ok(list.problems.every((p: any) => p.verification_status === 'current'));
  assert.ok(list.untrusted.every((p: any) => p.verification_status !== 'current'));
  assert.ok(list.summary.total_problems >= 3);
  assert.ok(list.summary.signals_attributed > 0 && list.remainder.coverage_pct > 50);
  assert.ok(list.freshness.book_computed_at && list.freshness.discovery.run_id);
  assert.is(list.feedback_pending, 0);
  const limited = await get('/problems?limit=2&days_back=500');
  assert.is(limited.problems.length, 2);
  assert.is(limited.summary.days_back, 90, 'days_back clamped');
  await get('/problems?limit=abc', ts.adminKey, 400);
  // the other tenant sees only its own
  const other = await get('/problems', otherKey);
  const ids = new Set(list.problems.map((p: any) => p.problem_id));
  assert.not.ok(other.problems.some((p: any) => ids.has(p.problem_id) && p.affected_conversations === byCause.get('schema_mismatch').affected_conversations));
});

test('GET /problems/:id: every block; unknown and malformed ids give found: false', async () => {
  const p = byCause.get('schema_mismatch');
  const d = await get(`/problems/${p.problem_id}`);
  assert.is(d.found, true);
  assert.is(d.alias_resolved, false);
  assert.equal(d.header, p);
  assert.is(d.rubric.version, p.rubric_version);
  assert.is(d.rubric.tier, 'leaf');
  assert.ok(d.trend.length >= 1);
  assert.ok(d.verification.judge_audit.total > 0);
  assert.ok(d.evidence.length > 0 && d.evidence.length <= 25);
  assert.ok(d.affected_conversations.length > 0);
  assert.ok(d.investigation_reports.items.length > 0);
  assert.ok(d.investigation_reports.items.every((r: any) => r.status === 'investigated' && r.citations.length > 0));
  assert.is(d.confidence.verification_status, 'current');
  assert.ok(d.confidence.current.kinds.judge_audit.n > 0);
  assert.ok(d.change_history.some((e: any) => e.event_kind === 'created'));
  assert.is(d.impact_identity.total_conversations, p.affected_conversations);
  assert.ok(d.dossier.executive_summary.length > 0 && d.dossier.suggested_investigation.length > 0);
  const kinds = d.stories.map((s: any) => s.story_kind);
  assert.ok(kinds.includes('top_confidence') && kinds.includes('newest') && kinds.includes('replay_verified'), JSON.stringify(kinds));
  for (const bad of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', "1' OR 1=1"]) {
    const u = await get(`/problems/${encodeURIComponent(bad)}`);
    assert.is(u.found, false);
    assert.is(u.header, null);
    assert.is(u.requested_problem_id, bad);
  }
});

test('every evidence anchor opens its message through the context endpoint', async () => {
  for (const p of byCause.values()) {
    let cursor: string | null = null;
    let checked = 0;
    do {
      const page: any = await get(`/problems/${p.problem_id}/evidence?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      for (const e of page.evidence) {
        const ctx = await get(`/conversations/${encodeURIComponent(e.conversation_id)}/context?msg_index=${e.anchor_msg_index}&window=1`);
        assert.is(ctx.context.center_index, e.anchor_msg_index);
        const m = ctx.context.messages.find((x: any) => x.index === e.anchor_msg_index);
        const text = [m.content, ...m.tool_results.map((r: any) => r.content), ...m.tool_calls.map((c: any) => c.input)].join(' ');
        const words = e.snippet_parsed.excerpt.replace(/…/g, ' ').split(/[^\w$']+/).filter((w: string) => w.length > 3).slice(0, 3);
        if (e.signal_family !== 'step_score') assert.ok(words.every((w: string) => text.includes(w)), `${e.signal_family} ${e.conversation_id}#${e.anchor_msg_index}: ${JSON.stringify(words)} in ${text.slice(0, 200)}`);
        checked++;
      }
      cursor = page.pagination.next_cursor;
    } while (cursor);
    assert.is(checked, p.total_attributions);
  }
});

test('keyset cursors round-trip; tampered, foreign and cross-tenant cursors give 400', async () => {
  const p = byCause.get('schema_mismatch');
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: any = await get(`/problems/${p.problem_id}/evidence?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    seen.push(...page.evidence.map((e: any) => e.attribution_id));
    assert.is(page.pagination.limit, 7);
    cursor = page.pagination.next_cursor;
    assert.is(page.pagination.has_more, cursor !== null);
    pages++;
  } while (cursor && pages < 100);
  assert.is(seen.length, p.total_attributions);
  assert.is(new Set(seen).size, seen.length, 'no row twice');
  const convs: string[] = [];
  cursor = null;
  do {
    const page: any = await get(`/problems/${p.problem_id}/conversations?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    convs.push(...page.conversations.map((c: any) => c.conversation_id));
    cursor = page.pagination.next_cursor;
  } while (cursor);
  assert.is(convs.length, p.affected_conversations);
  assert.is(new Set(convs).size, convs.length);
  const reports: string[] = [];
  cursor = null;
  do {
    const page: any = await get(`/problems/${p.problem_id}/reports?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    reports.push(...page.reports.map((r: any) => r.report_id));
    cursor = page.pagination.next_cursor;
  } while (cursor);
  assert.is(new Set(reports).size, reports.length);
  assert.ok(reports.length >= p.affected_conversations);
  const first: any = await get(`/problems/${p.problem_id}/evidence?limit=2`);
  const c = first.pagination.next_cursor as string;
  const [payload, sig] = c.split('.');
  const forged = Buffer.from(JSON.stringify({ v: 1, s: 'x', p: { run: 'r', k: ['2020-01-01T00:00:00.000Z', 'z'] } })).toString('base64url');
  for (const bad of [`${payload}x.${sig}`, `${forged}.${sig}`, 'garbage', `${payload}.`]) await get(`/problems/${p.problem_id}/evidence?limit=2&cursor=${encodeURIComponent(bad)}`, ts.adminKey, 400);
  await get(`/problems/${byCause.get('wrong_claim').problem_id}/evidence?limit=2&cursor=${encodeURIComponent(c)}`, ts.adminKey, 400);
  await get(`/problems/${p.problem_id}/reports?limit=2&cursor=${encodeURIComponent(c)}`, ts.adminKey, 400);
  await get(`/problems/${p.problem_id}/evidence?limit=2&cursor=${encodeURIComponent(c)}`, otherKey, 400);
  // limits are clamped, filters echo
  const big: any = await get(`/problems/${p.problem_id}/evidence?limit=500`);
  assert.is(big.pagination.limit, 50);
  const fam: any = await get(`/problems/${p.problem_id}/conversations?family=frustration&door=local_causal_chain`);
  assert.is(fam.family, 'frustration');
  assert.is(fam.door, 'local_causal_chain');
  assert.ok(fam.conversations.length > 0 && fam.conversations.every((x: any) => Object.keys(x.families).every((f) => f === 'frustration')));
  await get(`/problems/${p.problem_id}/conversations?door=sideways`, ts.adminKey, 400);
});

test('a merged-away id resolves on every problem endpoint', async () => {
  const rows = await ts.system.rt.store.query<{ alias_id: string; problem_id: string }>(`SELECT alias_id, problem_id FROM {{db}}.problem_aliases FINAL WHERE tenant_id = 'default'`);
  assert.ok(rows.length >= 1, 'the two tools failing together were merged');
  const { alias_id: alias, problem_id: survivor } = rows[0]!;
  const d = await get(`/problems/${alias}`);
  assert.is(d.found, true);
  assert.is(d.problem_id, survivor);
  assert.is(d.requested_problem_id, alias);
  assert.is(d.alias_resolved, true);
  assert.ok(d.change_history.some((e: any) => e.event_kind === 'merged'));
  assert.is(d.rubric.match_criteria.any_of.length, 2);
  for (const sub of ['reports', 'conversations', 'evidence', 'feedback']) {
    const r = await get(`/problems/${alias}/${sub}`);
    assert.equal([r.problem_id, r.requested_problem_id, r.alias_resolved], [survivor, alias, true], sub);
  }
  const ev: any = await get(`/problems/${alias}/evidence?limit=1`);
  if (ev.pagination.next_cursor) await get(`/problems/${alias}/evidence?limit=1&cursor=${encodeURIComponent(ev.pagination.next_cursor)}`);
  const fb = await post(`/problems/${alias}/feedback`, { action: 'rename', new_display_name: 'Calendar and invites fail together' });
  assert.is(fb.status, 200, fb.text);
  assert.equal([fb.body.problem_id, fb.body.requested_problem_id, fb.body.alias_resolved], [survivor, alias, true]);
});

test('feedback rules: 400 and 404 exactly as specified; identical feedback is a duplicate', async () => {
  const p = byCause.get('wrong_claim');
  const other = byCause.get('schema_mismatch');
  const foreign = (await get(`/problems/${other.problem_id}/evidence?limit=1`)).evidence[0].attribution_id;
  const cases: Array<[string, unknown, number]> = [
    ['/problems/not-a-uuid/feedback', { action: 'mark_fixed' }, 400],
    [`/problems/${p.problem_id}/feedback`, { action: 'explode' }, 400],
    [`/problems/${p.problem_id}/feedback`, { action: 'dismiss' }, 400],
    [`/problems/${p.problem_id}/feedback`, { action: 'flag_attribution', reason: 'x' }, 400],
    [`/problems/${p.problem_id}/feedback`, { action: 'flag_attribution', reason: 'x', attribution_id: 'nope' }, 400],
    [`/problems/${p.problem_id}/feedback`, { action: 'flag_attribution', reason: 'x', attribution_id: foreign }, 404],
    [`/problems/${p.problem_id}/feedback`, { action: 'rename' }, 400],
    [`/problems/${p.problem_id}/feedback`, { action: 'rename', new_display_name: 'x'.repeat(256) }, 400],
    [`/problems/${p.problem_id}/feedback`, { action: 'dismiss', reason: 'x'.repeat(2001) }, 400],
    [`/problems/${p.problem_id}/feedback`, { action: 'mark_fixed', surprise: 1 }, 400],
    ['/problems/00000000-0000-4000-8000-000000000000/feedback', { action: 'mark_fixed' }, 404],
  ];
  for (const [path, body, status] of cases) {
    const r = await post(path, body);
    assert.is(r.status, status, `${path} ${JSON.stringify(body)}: ${r.text}`);
    assert.ok(r.body.message, 'error bodies carry a message');
  }
  assert.is((await http(`${ts.queryUrl}/api/v1/data/problems/not-a-uuid/feedback`, { headers: { 'x-api-key': ts.adminKey } })).status, 400, 'GET feedback of a non-UUID id');
  // the other tenant cannot give feedback on it: the problem is not found for any of its keys
  assert.is((await post(`/problems/${p.problem_id}/feedback`, { action: 'mark_fixed' }, otherAdminKey)).status, 404);
  assert.is((await post(`/problems/${p.problem_id}/feedback`, { action: 'mark_fixed' }, otherKey)).status, 404);
  // a member key (read scope) of the tenant is held to the same rules: 400 for a non-UUID id first
  assert.is((await post('/problems/not-a-uuid/feedback', { action: 'mark_fixed' }, memberKey)).status, 400);
});

test('feedback round trip, each visible after the next run: dismiss, rename, flag_attribution, mark_fixed', async () => {
  const lazy = byCause.get('prompt_defect');
  const claim = byCause.get('wrong_claim');
  const schema = byCause.get('schema_mismatch');
  const victim = (await get(`/problems/${schema.problem_id}/evidence?limit=1`)).evidence[0];
  const a = await post(`/problems/${lazy.problem_id}/feedback`, { action: 'dismiss', reason: 'known limitation of the coding prompt', actor: 'qa' });
  assert.is(a.status, 200, a.text);
  assert.equal([a.body.success, a.body.status, a.body.duplicate, a.body.action], [true, 'pending', false, 'dismiss']);
  const again = await post(`/problems/${lazy.problem_id}/feedback`, { action: 'dismiss', reason: 'known limitation of the coding prompt', actor: 'qa' });
  assert.equal([again.body.feedback_id, again.body.duplicate], [a.body.feedback_id, true]);
  // sent with a member key (read scope): applied like any other
  assert.is((await post(`/problems/${claim.problem_id}/feedback`, { action: 'rename', new_display_name: 'Refund amounts stated wrong' }, memberKey)).status, 200);
  assert.is((await post(`/problems/${schema.problem_id}/feedback`, { action: 'flag_attribution', attribution_id: victim.attribution_id, reason: 'this one was a user typo' })).status, 200);
  assert.is((await post(`/problems/${schema.problem_id}/feedback`, { action: 'mark_fixed', fix_ref: { fix_id: 'f1', short_ref: 'PR #31', pr_url: 'https://example.invalid/31' } })).status, 200);
  const pending = await get(`/problems/${lazy.problem_id}/feedback`);
  assert.is(pending.pending_count, 1);
  assert.is(pending.feedback[0].status, 'pending');
  assert.is((await get('/problems')).feedback_pending, 5);
  // nothing changes before the run
  assert.ok((await get('/problems')).problems.some((p: any) => p.problem_id === lazy.problem_id));
  await run();
  const after = await get('/problems');
  assert.not.ok(after.problems.some((p: any) => p.problem_id === lazy.problem_id), 'dismissed: leaves the ranking');
  assert.not.ok(after.untrusted.some((p: any) => p.problem_id === lazy.problem_id));
  assert.is(after.feedback_pending, 0);
  const consumed = await get(`/problems/${lazy.problem_id}/feedback`);
  assert.is(consumed.feedback[0].status, 'consumed');
  assert.ok(consumed.feedback[0].consumed_by_run_id);
  const renamed = await get(`/problems/${claim.problem_id}`);
  assert.is(renamed.header.display_name, 'Refund amounts stated wrong');
  assert.is(renamed.rubric.version, claim.rubric_version + 1);
  assert.ok(renamed.change_history.some((e: any) => e.event_kind === 'renamed' && e.reason.includes('Refund amounts stated wrong')));
  // trend and change history, newest first: the second run (with the rename) leads
  const runTs = renamed.trend.map((t: any) => t.run_ts);
  assert.ok(runTs.length >= 2, JSON.stringify(renamed.trend));
  assert.equal(runTs, [...runTs].sort().reverse());
  assert.equal([renamed.trend[0].rubric_version, renamed.trend.at(-1).rubric_version], [claim.rubric_version + 1, claim.rubric_version]);
  const eventTs = renamed.change_history.map((e: any) => e.created_ts);
  assert.equal(eventTs, [...eventTs].sort().reverse());
  const kinds = renamed.change_history.map((e: any) => e.event_kind);
  assert.ok(kinds.indexOf('renamed') < kinds.lastIndexOf('created'), JSON.stringify(kinds));
  const flagged = await get(`/problems/${schema.problem_id}`);
  const all: string[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await get(`/problems/${schema.problem_id}/evidence?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    all.push(...page.evidence.map((e: any) => e.attribution_id));
    cursor = page.pagination.next_cursor;
  } while (cursor);
  assert.not.ok(all.includes(victim.attribution_id), 'the flagged attribution is removed');
  assert.ok(flagged.rubric.counter_examples.some((c: any) => c.attribution_id === victim.attribution_id));
  assert.ok(flagged.confidence.current.kinds.ground_truth.n >= 1 && flagged.confidence.current.kinds.ground_truth.pass_rate < 1, 'the audit shows it');
  assert.is(flagged.header.lifecycle, 'fixed_monitoring');
  assert.ok(flagged.change_history.some((e: any) => e.event_kind === 'lifecycle' && e.reason.includes('PR #31')));
  // the cause recurs → reopened
  const recurring = generateProblemSet(5, N, Date.now()).filter((c) => c.cause === 'schema_mismatch').slice(0, 2);
  await ingest(recurring.flatMap((c) => c.events.map((e) => ({ ...e, conversation_id: `again-${e.conversation_id}`, message_id: `again-${e.message_id}` }))));
  assert.ok(await eventually(async () => (await analyzed('default')) >= N + 10, { timeoutMs: 60_000, intervalMs: 300 }));
  await run();
  const back = await get(`/problems/${schema.problem_id}`);
  assert.is(back.header.lifecycle, 'reopened');
  assert.is((await get('/problems')).summary.reopened, 1);
});

test('tenant isolation on every problem endpoint', async () => {
  const p = byCause.get('schema_mismatch');
  const d = await get(`/problems/${p.problem_id}`, otherKey);
  assert.is(d.found, false);
  for (const sub of ['reports', 'conversations', 'evidence', 'feedback']) {
    const r = await get(`/problems/${p.problem_id}/${sub}`, otherKey);
    assert.is(r.problem_id, null, sub);
  }
  const mine = await get('/problems', otherKey);
  for (const q of mine.problems) {
    const ev = await get(`/problems/${q.problem_id}/evidence?limit=50`, otherKey);
    assert.ok(ev.evidence.every((e: any) => e.conversation_id.startsWith('acme-')));
  }
  assert.is((await http(`${ts.queryUrl}/api/v1/data/problems`, {})).status, 401);
});

test.run();
