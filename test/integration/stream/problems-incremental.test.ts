/**
 * Incremental problems runs: conversations arrive in two waves through /v1/ingest, a run follows
 * each. The second run reads only the conversations changed since the first (the others' signals
 * come from the signal store) and its result equals a full recompute on the same final data: the
 * engine fed every signal read afresh from the analysis tables, from the same previous state, gives
 * the same problems, attribution sets and ranks; a run from no history at all finds the same
 * problems with the same attributions and order. A forced full run reads everything again.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { runProblemsOnce } from '../../../stream/problems/api.js';
import { runEngine } from '../../../stream/problems/engine.js';
import { createProblemsStore } from '../../../stream/problems/store.js';
import { generateProblemSet } from '../../../eval/problems/generator.js';

let ts: TestSystem;
const T = 'default';
const deps = () => ({ store: ts.system.rt.store, watermarkMarginMs: 0 });
const all = generateProblemSet(31, 120, Date.now());
const wave1 = all.slice(0, 90);
const wave2 = all.slice(90);

async function post(convs: typeof all) {
  const events = convs.flatMap((c) => c.events);
  for (let i = 0; i < events.length; i += 600) {
    const r = await http(`${ts.ingestUrl}/v1/ingest`, { headers: { authorization: `Bearer ${ts.adminKey}` }, body: { events: events.slice(i, i + 600) } });
    assert.ok(r.status >= 200 && r.status < 300, r.text);
  }
}

/** Waits until every conversation is recorded and the analysis tables stop changing. */
async function settle(n: number) {
  const ps = createProblemsStore(ts.system.rt.store);
  let last = '';
  let stableSince = 0;
  const ok = await eventually(
    async () => {
      const convs = Number((await ts.system.rt.store.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String}`, { t: T }))[0]!.n);
      const mark = await ps.inputMark(T);
      if (mark !== last) {
        last = mark;
        stableSince = Date.now();
        return undefined;
      }
      return convs >= n && Date.now() - stableSince >= 4000 ? true : undefined;
    },
    { timeoutMs: 180_000, intervalMs: 500 },
  );
  assert.ok(ok, `analyses of ${n} conversations settled`);
}

const ranked = (problems: Array<{ problem_id: string; status: string; verification_status: string; metrics: { rank_score: number } }>) =>
  problems
    .filter((p) => p.status === 'active' && p.verification_status === 'current')
    .sort((a, b) => b.metrics.rank_score - a.metrics.rank_score || (a.problem_id < b.problem_id ? -1 : 1))
    .map((p) => p.problem_id);

const attributionSets = (rows: Array<{ attribution_id: string; problem_id: string; dedup_count: number }>) =>
  rows.map((r) => `${r.problem_id}:${r.attribution_id}:${r.dedup_count}`).sort();

async function stored(runId: string) {
  const ps = createProblemsStore(ts.system.rt.store);
  const problems = await ps.loadProblems(T, runId);
  const rows = await ts.system.rt.store.query<{ attribution_id: string; problem_id: string; dedup_count: number }>(
    `SELECT attribution_id, problem_id, dedup_count FROM {{db}}.problem_attributions WHERE tenant_id = {t:String} AND run_id = {r:String}`,
    { t: T, r: runId },
  );
  return { problems, rows: rows.map((r) => ({ ...r, dedup_count: Number(r.dedup_count) })) };
}

test.before(async () => {
  ts = await startTestSystem({ stream: { tenantJobs: [] } });
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

test('a run after a second wave reads only the changed conversations and equals a full recompute', async () => {
  await post(wave1);
  await settle(wave1.length);
  const first = await runProblemsOnce(deps(), T);
  assert.is(first.stats?.incremental?.mode, 'full', 'the first run reads everything');
  assert.is(first.stats?.incremental?.read_conversations, wave1.length);

  await post(wave2);
  await settle(all.length);
  const ps = createProblemsStore(ts.system.rt.store);
  const previous = await ps.loadProblems(T, first.run_id!);
  const previousAttributions = await ps.loadAttributionIndex(T, first.run_id!);
  const startedAt = Date.now();
  const second = await runProblemsOnce({ ...deps(), now: () => startedAt }, T);
  const inc = second.stats!.incremental!;
  assert.is(inc.mode, 'incremental', inc.reason);
  assert.is(inc.read_conversations, wave2.length, 'only the second wave is read from the analyses');
  assert.is(inc.reused_conversations, wave1.length, 'the first wave comes from the signal store');

  // the same pass over every signal read afresh, from the same previous state
  const full = await ps.loadSignals(T);
  assert.is(second.stats!.signals, full.signals.length);
  assert.is(second.stats!.conversations, new Set(full.signals.map((s) => s.conversation_id)).size);
  const recomputed = runEngine({ tenant: T, runId: second.run_id!, now: startedAt, signals: full.signals, previous, previousAttributions, feedback: [], blended: full.blended, conversationCount: full.conversations });
  const got = await stored(second.run_id!);
  assert.equal(got.problems.map((p) => p.problem_id).sort(), recomputed.problems.map((p) => p.problem_id).sort(), 'same problems');
  assert.equal(attributionSets(got.rows), attributionSets(recomputed.attributions), 'same attribution sets');
  assert.equal(ranked(got.problems), ranked(recomputed.problems), 'same ranking');
  assert.equal(
    got.problems.map((p) => `${p.problem_id}:${p.metrics.rank_score}:${p.verification_status}:${p.rubric.version}`).sort(),
    recomputed.problems.map((p) => `${p.problem_id}:${p.metrics.rank_score}:${p.verification_status}:${p.rubric.version}`).sort(),
    'same scores, verification and versions',
  );

  // a fresh run with no history on the same final data
  const fresh = runEngine({ tenant: T, runId: 'fresh', now: startedAt, signals: full.signals, previous: [], previousAttributions: new Map(), feedback: [], blended: full.blended, conversationCount: full.conversations });
  const live = (ps: Array<{ problem_id: string; status: string }>) => ps.filter((p) => p.status === 'active').map((p) => p.problem_id).sort();
  assert.equal(live(got.problems), live(fresh.problems), 'same problems as a run from no history');
  assert.equal(attributionSets(got.rows), attributionSets(fresh.attributions), 'same attributions as a run from no history');
  assert.equal(ranked(got.problems), ranked(fresh.problems), 'same ranks as a run from no history');
  assert.ok(ranked(got.problems).length >= 1, `trusted problems rank (${ranked(got.problems).length})`);
});

test('a forced full run reads every conversation again and changes nothing', async () => {
  const before = await runProblemsOnce(deps(), T);
  assert.is(before.stats?.incremental?.mode, 'incremental');
  assert.is(before.stats?.incremental?.read_conversations, 0, 'nothing changed since the last run');
  const full = await runProblemsOnce(deps(), T, { full: true });
  assert.is(full.stats?.incremental?.mode, 'full');
  assert.is(full.stats?.incremental?.read_conversations, all.length);
  const a = await stored(before.run_id!);
  const b = await stored(full.run_id!);
  assert.equal(attributionSets(a.rows), attributionSets(b.rows));
  assert.equal(ranked(a.problems), ranked(b.problems));
});

test.run();
