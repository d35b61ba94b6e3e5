/**
 * The problems engine on tau-bench's real airline trajectories through the real system: the 200
 * conversations posted to /v1/ingest, analyzed by the stream role, one engine pass; the top
 * problems are printed with their evidence counts, and every evidence anchor of every listed
 * problem (trusted and untrusted) opens, through GET /conversations/:id/context, the message that
 * holds the quoted evidence.
 */
import { existsSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { dataPath } from '../../helpers/shared.js';
import { convertFile } from '../../../stream/import/index.js';
import { listProblems, runProblemsOnce } from '../../../stream/problems/api.js';

const FILE = dataPath('tau-bench', 'gpt-4o-airline.json');
const available = existsSync(FILE);
let ts: TestSystem;
let conversations = 0;

const get = async (path: string) => {
  const r = await http(`${ts.queryUrl}/api/v1/data${path}`, { headers: { 'x-api-key': ts.adminKey } });
  assert.is(r.status, 200, `${path}: ${r.text}`);
  return r.body;
};
const analyzed = async () =>
  Number((await ts.system.rt.store.query<{ n: string }>(`SELECT uniqExact(conversation_id) AS n FROM {{db}}.analysis_state FINAL WHERE tenant_id = 'default' AND analyzer = 'step-scores'`))[0]!.n);

test.before(async () => {
  if (!available) return;
  ts = await startTestSystem({ stream: { tenantJobs: [] } });
  const { events } = convertFile(FILE);
  conversations = new Set(events.map((e) => e.conversation_id)).size;
  for (let i = 0; i < events.length; i += 1000) {
    const r = await http(`${ts.ingestUrl}/v1/ingest`, { headers: { authorization: `Bearer ${ts.adminKey}` }, body: { events: events.slice(i, i + 1000) } });
    assert.ok(r.status >= 200 && r.status < 300, r.text);
  }
  assert.ok(await eventually(async () => (await analyzed()) >= conversations, { timeoutMs: 240_000, intervalMs: 1000 }), `analyzed ${await analyzed()} of ${conversations}`);
  await runProblemsOnce({ store: ts.system.rt.store }, 'default');
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

test('tau-bench: top problems with evidence counts; every evidence anchor opens its message through the context endpoint', async () => {
  if (!available) {
    console.log(`skipped: ${FILE} is not present in this checkout`);
    return;
  }
  // the trajectories are from 2024, outside any days_back window of GET /problems: take the ids from the run
  const ids = (await listProblems({ store: ts.system.rt.store }, 'default')).filter((p) => p.tier === 'leaf' && p.status === 'active' && !p.provisional);
  const all = await Promise.all(ids.map(async (x) => (await get(`/problems/${x.problem_id}`)).header));
  assert.ok(all.some((p: any) => p.verification_status === 'current'), JSON.stringify(all.map((p: any) => p.display_name)));
  let anchors = 0;
  for (const p of all) {
    console.log(`${p.verification_status === 'current' ? 'trusted' : p.verification_status}  ${p.display_name}: ${p.total_attributions} evidence rows, ${p.affected_conversations} conversations, ${JSON.stringify(p.family_counts)}`);
    let cursor: string | null = null;
    do {
      const page: any = await get(`/problems/${p.problem_id}/evidence?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      for (const e of page.evidence) {
        const ctx = await get(`/conversations/${encodeURIComponent(e.conversation_id)}/context?msg_index=${e.anchor_msg_index}&window=1`);
        assert.is(ctx.context.center_index, e.anchor_msg_index, `${e.conversation_id}#${e.anchor_msg_index}`);
        const m = ctx.context.messages.find((x: any) => x.index === e.anchor_msg_index);
        assert.ok(m, `${e.conversation_id}#${e.anchor_msg_index} exists`);
        if (e.signal_family !== 'step_score') {
          const text = [m.content, ...m.tool_results.map((r: any) => r.content), ...m.tool_calls.map((c: any) => c.input)].join(' ').replace(/\s+/g, ' ');
          const words = e.snippet_parsed.excerpt.replace(/…/g, ' ').split(/[^A-Za-z0-9$']+/).filter((w: string) => w.length > 3).slice(0, 4);
          assert.ok(words.every((w: string) => text.includes(w)), `${e.signal_family} ${e.conversation_id}#${e.anchor_msg_index}: ${words.join(' ')} not in "${text.slice(0, 160)}"`);
        }
        anchors++;
      }
      cursor = page.pagination.next_cursor;
    } while (cursor);
  }
  console.log(`${anchors} evidence anchors checked through the context endpoint`);
  assert.is(anchors, all.reduce((a: number, p: any) => a + p.total_attributions, 0));
});

test.run();
