/**
 * The problems engine as the stream role runs it: the leased tenant job (`problems`) notices new
 * analyses on its own, writes a run per tenant, applies feedback posted to the data API at its
 * next tick, and skips ticks when nothing changed (no new run recorded). (The suite sets the
 * job's minimum interval between passes to 0; a tenant whose analyses keep changing is otherwise
 * passed at most every 5 minutes.)
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { problemsJob } from '../../../stream/jobs/problems.js';
import { generateProblemSet } from '../../../eval/problems/generator.js';

let ts: TestSystem;
let otherKey: string;

const get = async (path: string, key = ts.adminKey) => {
  const r = await http(`${ts.queryUrl}/api/v1/data${path}`, { headers: { 'x-api-key': key } });
  assert.is(r.status, 200, `${path}: ${r.text}`);
  return r.body;
};
const runs = async (tenant: string) =>
  Number((await ts.system.rt.store.query<{ n: string }>(`SELECT uniqExact(run_id) AS n FROM {{db}}.problem_runs WHERE tenant_id = {t:String} AND status = 'complete'`, { t: tenant }))[0]!.n);

test.before(async () => {
  ts = await startTestSystem({ env: { JOB_INTERVAL_MS: '500' }, stream: { tenantJobs: [problemsJob({ minIntervalMs: 0 })] } });
  otherKey = (await ts.system.rt.keys.create({ tenant: 'acme', role: 'member', scopes: ['ingest', 'read'] })).key;
  const events = generateProblemSet(21, 160, Date.now()).flatMap((c) => c.events);
  for (let i = 0; i < events.length; i += 600) {
    const r = await http(`${ts.ingestUrl}/v1/ingest`, { headers: { authorization: `Bearer ${ts.adminKey}` }, body: { events: events.slice(i, i + 600) } });
    assert.ok(r.status >= 200 && r.status < 300, r.text);
  }
  const other = generateProblemSet(22, 10, Date.now()).flatMap((c) => c.events.map((e) => ({ ...e, conversation_id: `acme-${e.conversation_id}` })));
  assert.ok((await http(`${ts.ingestUrl}/v1/ingest`, { headers: { authorization: `Bearer ${otherKey}` }, body: { events: other } })).status < 300);
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

test('the leased job finds the planted problems by itself, per tenant', async () => {
  const list = await eventually(
    async () => {
      const l = await get('/problems');
      return l.problems.some((p: any) => /update_shipping_address/.test(p.display_name)) && l.problems.some((p: any) => /contradicted/.test(p.display_name)) ? l : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 500 },
  );
  assert.ok(list, 'planted causes listed without any explicit run');
  assert.ok(await eventually(async () => (await runs('acme')) >= 1, { timeoutMs: 30_000 }), 'the other tenant has runs of its own');
  const mine = new Set(list!.problems.map((p: any) => p.problem_id));
  assert.not.ok((await get('/problems', otherKey)).problems.some((p: any) => mine.has(p.problem_id)));
});

test('feedback is applied at the next tick; idle ticks record no run', async () => {
  const list = await get('/problems');
  const p = list.problems.find((x: any) => /contradicted/.test(x.display_name));
  const r = await http(`${ts.queryUrl}/api/v1/data/problems/${p.problem_id}/feedback`, { headers: { 'x-api-key': ts.adminKey }, body: { action: 'rename', new_display_name: 'Refund amount misstated' } });
  assert.is(r.status, 200, r.text);
  const renamed = await eventually(async () => ((await get(`/problems/${p.problem_id}`)).header.display_name === 'Refund amount misstated' ? true : undefined), { timeoutMs: 30_000, intervalMs: 300 });
  assert.ok(renamed);
  // once everything is analyzed and applied, ticks find nothing new
  const settled = await eventually(
    async () => {
      const a = await runs('default');
      await new Promise((res) => setTimeout(res, 2500));
      return (await runs('default')) === a ? a : undefined;
    },
    { timeoutMs: 60_000 },
  );
  assert.ok(settled, 'no new run while nothing changes');
});

test.run();
