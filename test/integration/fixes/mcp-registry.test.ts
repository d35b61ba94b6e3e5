/**
 * The registry tools through the SDK client over Streamable HTTP: prompts (sync complete-set,
 * promote, A/B replay with wait and poll, propose with a gate and promotion on a strict win,
 * replay_run_status), skills (push no-op on an unchanged hash, list, generation without a
 * clustering run, status of an unknown run) and harness (dry run, delete with confirm).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createFixServices, type FixServices } from '../../../fixes/services.js';
import { startReplayWorker, type ReplayWorker } from '../../../fixes/replay-worker.js';
import { sha256 } from '../../../fixes/prompts.js';
import { createMemoryProblems } from '../../helpers/problems.js';
import { seedConversations, startFixSystem, type FixSystem } from '../../helpers/fix-system.js';

let sys: FixSystem;
let svc: FixServices;
let worker: ReplayWorker;
let client: Client;

const call = async (name: string, args: Record<string, unknown> = {}) => {
  const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as { content: Array<{ text: string }>; isError?: boolean };
  const text = r.content[0]!.text;
  const body = text.startsWith('{') ? JSON.parse(text) : { text };
  return { ...body, isError: !!r.isError };
};

test.before(async () => {
  sys = await startFixSystem({ problems: createMemoryProblems() });
  svc = await createFixServices({ config: sys.config, bus: sys.rt.bus, store: sys.rt.store, problems: createMemoryProblems() });
  await seedConversations(sys.rt, 'default', Array.from({ length: 6 }, (_, i) => ({ id: `reg-${i}`, user: `Question number ${i} about invoices` })));
  worker = await startReplayWorker(sys.rt.bus);
  const key = (await sys.rt.keys.create({ tenant: 'default', role: 'admin' })).key;
  client = new Client({ name: 'registry', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${sys.url}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
});

test.after(async () => {
  await client.close();
  await worker.stop();
  await sys.stop();
});

test('prompts_sync: complete set (absent keys removed), unchanged content keeps its version; prompts_promote moves a label', async () => {
  const a = await call('prompts_sync', { prompts: [{ key: 'billing', content: 'You answer billing questions.' }, { key: 'old', content: 'Legacy prompt text.' }], source_commit: 'c1' });
  assert.is(a.isError, false, JSON.stringify(a));
  assert.equal(a.data.prompts.map((p: any) => p.action), ['created', 'created']);
  assert.is(a.data.prompts[0].contentHash, sha256('You answer billing questions.'));
  const b = await call('prompts_sync', { prompts: [{ key: 'billing', content: 'You answer billing questions.' }] });
  assert.equal(b.data.prompts.map((p: any) => p.action), ['unchanged']);
  assert.equal(b.data.removed, ['old']);
  const v2 = await call('prompts_sync', { prompts: [{ key: 'billing', content: 'You answer billing questions politely.' }] });
  assert.is(v2.data.prompts[0].action, 'updated');
  const rec = await svc.prompts.get('default', 'billing');
  assert.is(rec!.labels.prod, a.data.prompts[0].versionId, 'prod stays until promoted');
  const pr = await call('prompts_promote', { prompt_key: 'billing', label: 'prod', version_id: v2.data.prompts[0].versionId });
  assert.is(pr.data.labels.prod, v2.data.prompts[0].versionId);
  assert.ok(pr.warnings.length === 1);
  const bad = await call('prompts_promote', { prompt_key: 'billing', label: 'canary', version_id: 'x' });
  assert.is(bad.isError, true);
  const empty = await call('prompts_sync', { prompts: [] });
  assert.is(empty.isError, true, 'at least one prompt');
});

test('prompts_ab: wait=false returns ids; conversation_ids give one case per trace; at most one set source', async () => {
  const r = await call('prompts_ab', { baseline_content: 'A', candidate_content: 'B', conversation_ids: ['reg-0', 'reg-1', 'reg-1'] });
  assert.is(r.isError, false, JSON.stringify(r));
  assert.ok(r.data.replaySetId && r.data.runId);
  const set = await svc.replay.getSet('default', r.data.replaySetId);
  assert.is(set!.cases.length, 2);
  assert.is(set!.cases[0]!.scenario, 'Question number 0 about invoices');
  const both = await call('prompts_ab', { baseline_content: 'A', candidate_content: 'B', conversation_ids: ['reg-0'], set_id: r.data.replaySetId });
  assert.is(both.isError, true);
  assert.is(both.error.status, 400);
  const auto = await call('prompts_ab', { baseline_content: 'A', candidate_content: 'B', auto_generate: { case_count: 3 }, wait: true, poll_interval_seconds: 2, max_wait_seconds: 30 });
  assert.is(auto.isError, false, JSON.stringify(auto));
  assert.is(auto.data.status, 'completed');
  assert.is(auto.data.cases.length, 3);
  assert.is(auto.data.verdict, 'tie');
  const st = await call('replay_run_status', { set_id: r.data.replaySetId });
  assert.is(st.data.run_id, r.data.runId);
});

test('prompts_propose: dossiers from a run, new unlabeled version, gate over the full set, promotion only on a strict win', async () => {
  const sync = await call('prompts_sync', { prompts: [{ key: 'billing', content: 'You answer billing questions politely.' }, { key: 'invoices', content: 'You handle invoices.' }] });
  const baseVersion = sync.data.prompts[1].versionId;
  const cases = Array.from({ length: 6 }, (_, i) => ({ case_id: `c00${i + 1}`, conversation_id: `reg-${i}`, msg_index: 0, scenario: `Question number ${i} about invoices`, checks: ['duplicate', 'invoices'] }));
  const set = await svc.replay.createSet('default', { name: 'invoice checks', cases, source: 'conversations' });
  const ab = await call('prompts_ab', { baseline_content: 'You handle invoices.', candidate_content: 'You handle invoices.', set_id: set.setId, wait: true, poll_interval_seconds: 2 });
  assert.is(ab.data.status, 'completed');
  assert.is(ab.data.baseline.passes, 0);
  const needsBaseline = await call('prompts_propose', { prompt_key: 'invoices', from_run_id: ab.data.runId, set_id: set.setId, gate: true });
  assert.is(needsBaseline.error.status, 400);
  const promoteNeedsGate = await call('prompts_propose', { prompt_key: 'invoices', from_run_id: ab.data.runId, set_id: set.setId, promote_on_win: true });
  assert.is(promoteNeedsGate.error.status, 400);
  const p = await call('prompts_propose', {
    prompt_key: 'invoices',
    from_run_id: ab.data.runId,
    set_id: set.setId,
    gate: true,
    promote_on_win: true,
    baseline_content: 'You handle invoices.',
    poll_interval_seconds: 2,
  });
  assert.is(p.isError, false, JSON.stringify(p));
  assert.ok(p.data.versionId);
  assert.is(p.data.contentHash, sha256(p.data.content));
  assert.ok(p.data.content.includes('duplicate'));
  assert.is(p.data.repair_case_ids.length + p.data.holdout_case_ids.length, 6);
  assert.is(p.data.gate.status, 'completed');
  assert.is(p.data.gate.verdict, 'candidate');
  assert.is(p.data.promoted, true);
  const rec = await svc.prompts.get('default', 'invoices');
  assert.is(rec!.labels.prod, p.data.versionId);
  assert.is.not(rec!.labels.prod, baseVersion);
  const status = await call('replay_run_status', { set_id: set.setId });
  assert.is(status.data.status, 'completed');
  assert.is(status.data.candidate.passes, 6);
  assert.is(status.data.candidate.rate, 1);
});

test('skills: push is a no-op on an unchanged hash; list approved; gen without clustering warns; status of an unknown run', async () => {
  const md = '---\nname: refunds\n---\n# Refunds\nCheck the order first.';
  const a = await call('skills_push', { skills: [{ key: 'refunds', name: 'Refunds', skill_md: md }] });
  assert.is(a.data.skills[0].action, 'created');
  assert.is(a.data.skills[0].content_hash, sha256(md));
  const b = await call('skills_push', { skills: [{ key: 'refunds', name: 'Refunds', skill_md: md }] });
  assert.is(b.data.skills[0].action, 'unchanged');
  const list = await call('skills_list', {});
  assert.equal(list.data.skills.map((s: any) => [s.key, s.skill_md]), [['refunds', md]]);
  const gen = await call('skills_gen', { lookback_hours: 24 });
  assert.is(gen.isError, false, JSON.stringify(gen));
  assert.is(gen.data.proposals, 0);
  assert.match(gen.warnings[0], /clustering/);
  const st = await call('skills_status', {});
  assert.is(st.data.found, true);
  assert.is(st.data.run_id, gen.data.run_id);
  const unknown = await call('skills_status', { run_id: '00000000-0000-4000-8000-000000000000' });
  assert.is(unknown.isError, false);
  assert.is(unknown.data.found, false);
  const props = await call('skills_proposals', {});
  assert.equal(props.data.proposals, []);
  const missing = await call('skills_proposal', { proposal_id: 'nope' });
  assert.is(missing.error.status, 404);
  const badRange = await call('skills_gen', { lookback_hours: 9000 });
  assert.is(badRange.isError, true, 'lookback_hours above 8,760 is refused');
});

test('skills_gen mines the successful conversations of each use-case cluster into SKILL.md proposals; mark applied leaves the ready queue', async () => {
  const st = sys.rt.store;
  const now = new Date().toISOString();
  await st.insert('cluster_runs', [{ tenant_id: 'default', run_id: 'run-1', version: 1, status: 'completed', trigger: 'test', started_at: now, completed_at: now }], { async_insert: 0 });
  await st.insert(
    'cluster_nodes',
    [
      { tenant_id: 'default', run_id: 'run-1', node_id: 'cat', parent_id: '', depth: 0, node_type: 'category', label: 'Billing', summary: '', keywords: [] },
      { tenant_id: 'default', run_id: 'run-1', node_id: 'leaf-inv', parent_id: 'cat', depth: 1, node_type: 'cluster', label: 'Invoice corrections', summary: 'Users ask to correct invoice details.', keywords: ['invoice', 'correction', 'vat'] },
    ],
    { async_insert: 0 },
  );
  await st.insert(
    'cluster_assignments',
    ['reg-0', 'reg-1', 'reg-2', 'reg-3'].map((c, i) => ({ tenant_id: 'default', run_id: 'run-1', segment_id: `s${i}`, version: 1, conversation_id: c, node_id: 'leaf-inv', category_id: 'cat', similarity: 0.9, text_hash: '', source: 'build' })),
    { async_insert: 0 },
  );
  // reg-3 ended frustrated: not a model of success
  await st.insert('conversation_signals', [{ tenant_id: 'default', conversation_id: 'reg-3', version: 1, last_ts: now, frustrated: 1 }], { async_insert: 0 });
  await st.insert(
    'conversation_tool_calls',
    ['reg-0', 'reg-1'].map((c, i) => ({ tenant_id: 'default', conversation_id: c, item_key: `k${i}`, version: 1, is_deleted: 0, analyzer_version: 1, tool_name: 'update_invoice', success: 1, ts: now })),
    { async_insert: 0 },
  );
  const old = await call('skills_gen', { start_at: '2020-01-01T00:00:00Z', end_at: '2020-02-01T00:00:00Z' });
  assert.is(old.isError, false, JSON.stringify(old));
  assert.is(old.data.proposals, 0, 'no conversation in that window');
  sys.clock.now = Date.now() + 60_000; // the service clock is pinned at start; the conversations are newer
  const gen = await call('skills_gen', { max_sessions: 1000, lookback_hours: 24 });
  assert.is(gen.isError, false, JSON.stringify(gen));
  assert.is(gen.data.proposals, 1);
  const props = await call('skills_proposals', { generation_run_id: gen.data.run_id });
  assert.is(props.data.proposals.length, 1);
  const one = props.data.proposals[0];
  assert.is(one.name, 'Invoice corrections');
  assert.equal([one.evidence.conversations, one.evidence.successful], [4, 3]);
  const full = await call('skills_proposal', { proposal_id: one.proposal_id });
  assert.match(full.data.skill_md, /^---\nname: invoice-corrections/);
  assert.match(full.data.skill_md, /update_invoice/);
  const proposed = await call('skills_list', { status: 'proposed' });
  assert.ok(proposed.data.skills.some((s: any) => s.proposal_id === one.proposal_id && s.skill_md));
  const applied = await call('skills_proposal_mark_applied', { proposal_id: one.proposal_id });
  assert.is(applied.data.status, 'applied');
  assert.match(applied.data.applied_by, /^mcp:/);
  assert.equal((await call('skills_proposals', {})).data.proposals, []);
  assert.is((await call('skills_proposals', { status: 'all' })).data.proposals.length, 1);
});

test('harness: dry run writes nothing; delete needs confirm=true and returns counts', async () => {
  const graph = { key: 'bot', agents: [{ key: 'a' }], artifacts: [{ key: 'p', kind: 'prompt', content: 'x' }], relationships: [{ from: 'a', to: 'p' }] };
  const dry = await call('harness_sync', { graph, dry_run: true });
  assert.is(dry.data.dry_run, true);
  assert.is(await svc.harness.latestGraph('default'), null);
  const up = await call('harness_sync', { graph });
  assert.is(up.data.counts.relationships, 1);
  const same = await call('harness_sync', { graph });
  assert.is(same.data.unchanged, true);
  const noConfirm = await call('harness_delete', { id_or_key: 'bot', confirm: false });
  assert.is(noConfirm.error.status, 400);
  const del = await call('harness_delete', { id_or_key: 'bot', confirm: true });
  assert.equal(del.data, { deleted: true, versions: 1, agents: 1, artifacts: 1, relationships: 1 });
  assert.is(await svc.harness.latestGraph('default'), null);
  const again = await call('harness_delete', { id_or_key: 'bot', confirm: true });
  assert.is(again.error.status, 404);
  const missingGraph = await call('harness_sync', {});
  assert.is(missingGraph.error.status, 400);
});

test.run();
