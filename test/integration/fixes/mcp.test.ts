/**
 * The MCP tool server end to end through the official SDK client: tools/list (27 tools, schemas
 * with the spec's bounds and defaults, read-only vs writing annotations), tenant from the signed
 * key (tenant_id only for unsigned keys), then the fix flow over Streamable HTTP — planted problem
 * → fixes_draft_batch → fixes_drive → fix_verify (reference replay worker, `tracehouse
 * replay-worker`) → fix_submit pr (fake code host) → signed merge webhook → SHIPPED with
 * mark_fixed pending → problems run → recurrence → reopened → fix REGRESSED on read — and the
 * read-only part of the same scenario over stdio (`tracehouse mcp`) — and prompts_ab with
 * promote_primary on the fix's replay set; last, seeded random arguments on every tool.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { projectRoot } from '../../../core/paths.js';
import { WRITING_TOOLS } from '../../../mcp/tools.js';
import { REPLAY_PING_SUBJECT } from '../../../fixes/replay-protocol.js';
import { signPayload } from '../../../query/routes/fixes.js';
import { createFixServices } from '../../../fixes/services.js';
import { http } from '../../helpers/http.js';
import { createMemoryProblems } from '../../helpers/problems.js';
import { startFakeGithub, type FakeGithub } from '../../helpers/fake-github.js';
import { seedConversations, startFixSystem, type FixSystem } from '../../helpers/fix-system.js';
import { createRng } from '../../../bench/workload/rng.js';

const SECRET = 'whsec-mcp-0123456789';
const problems = createMemoryProblems();
const convIds = Array.from({ length: 8 }, (_, i) => `mcp-conv-${i}`);
const PLANTED = problems.add({
  displayName: 'Refunds refused without an order lookup',
  causeStatement: 'The agent refuses refunds without calling lookup_order to check eligibility',
  attributions: convIds.map((conversationId) => ({ conversationId, msgIndex: 0 })),
  rankScore: 0.95,
});

const ALL_TOOLS = [
  'prompts_sync', 'prompts_diff', 'prompts_promote', 'prompts_ab', 'prompts_propose', 'replay_run_status',
  'skills_gen', 'skills_status', 'skills_list', 'skills_push', 'skills_proposals', 'skills_proposal', 'skills_proposal_mark_applied',
  'harness_sync', 'harness_delete', 'harness_analyze_status',
  'fixes', 'fixes_draft_batch', 'fixes_drive', 'fix', 'fix_start', 'fix_packet', 'fix_verify', 'fix_checkout', 'fix_submit', 'fix_mark_applied', 'fix_dismiss',
];

let sys: FixSystem;
let gh: FakeGithub;
let worker: ChildProcess;
let client: Client;
let signedKey = '';
let fixId = '';

const call = async (name: string, args: Record<string, unknown> = {}, c = client) => {
  const r = (await c.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as { content: Array<{ text: string }>; isError?: boolean };
  const text = r.content[0]!.text;
  // input validation errors of the SDK come back as plain text
  const body = text.startsWith('{') ? JSON.parse(text) : { text };
  return { ...body, isError: !!r.isError };
};

test.before(async () => {
  gh = await startFakeGithub({ owner: 'acme', repo: 'harness' });
  sys = await startFixSystem({ problems, env: { FIX_GITHUB_TOKEN: 'ghs_test', FIX_GITHUB_REPO: 'acme/harness', FIX_GITHUB_API_URL: gh.url, FIX_WEBHOOK_SECRET: SECRET } });
  await seedConversations(sys.rt, 'default', convIds.map((id, i) => ({ id, user: `My order ${2000 + i} is damaged, I want a refund.` })));
  signedKey = (await sys.rt.keys.create({ tenant: 'default', role: 'admin' })).key;
  worker = spawn(process.execPath, [join(projectRoot, 'bin', 'tracehouse.js'), 'replay-worker'], {
    env: { PATH: process.env.PATH ?? '', NATS_URL: sys.nats.url, LOG_LEVEL: 'warn', TRACEHOUSE_SECRET: 'test-secret-0123456789abcdef' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // the worker answers pings once it is connected
  for (let i = 0; ; i++) {
    try {
      await sys.rt.bus.nc.request(REPLAY_PING_SUBJECT, '{}', { timeout: 500 });
      break;
    } catch (err) {
      if (i > 60) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${sys.url}/mcp`), { requestInit: { headers: { 'x-api-key': signedKey } } }));
});

test.after(async () => {
  await client?.close();
  worker?.kill('SIGTERM');
  await sys.stop();
  await gh.stop();
});

test('the /mcp endpoint refuses a missing or invalid key with 401 and GET with 405', async () => {
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
  assert.is((await http(`${sys.url}/mcp`, { method: 'POST', headers: { accept: 'application/json, text/event-stream' }, body })).status, 401);
  assert.is((await http(`${sys.url}/mcp`, { method: 'POST', headers: { 'x-api-key': 'nope', accept: 'application/json, text/event-stream' }, body })).status, 401);
  assert.is((await http(`${sys.url}/mcp`, { headers: { 'x-api-key': signedKey } })).status, 405);
});

test('tools/list: all 27 tools, read-only vs writing annotations, schemas with the spec bounds and defaults', async () => {
  const { tools } = await client.listTools();
  assert.equal(tools.map((t) => t.name).sort(), [...ALL_TOOLS].sort());
  for (const t of tools) {
    const writes = (WRITING_TOOLS as readonly string[]).includes(t.name) || t.name === 'fix';
    assert.is(t.annotations?.readOnlyHint, !writes, `${t.name} readOnlyHint`);
    assert.is(t.inputSchema.type, 'object');
  }
  assert.is(WRITING_TOOLS.length, 17);
  const schema = (n: string) => tools.find((t) => t.name === n)!.inputSchema as { properties: Record<string, any>; required?: string[] };
  const prop = (n: string, p: string) => schema(n).properties[p];
  const bounds = (n: string, p: string, min: number, max: number, def?: number) => {
    const s = prop(n, p);
    assert.is(s.minimum, min, `${n}.${p} minimum`);
    assert.is(s.maximum, max, `${n}.${p} maximum`);
    if (def !== undefined) assert.is(s.default, def, `${n}.${p} default`);
  };
  bounds('fixes', 'limit', 1, 100);
  bounds('fixes_draft_batch', 'limit', 1, 25);
  bounds('fixes_drive', 'max_passes', 1, 10, 3);
  bounds('fixes_drive', 'pass_interval_seconds', 0, 30, 5);
  assert.equal(prop('fixes_drive', 'status').enum, ['DRAFT', 'SCOPING', 'PROPOSING', 'PROPOSED', 'GATING']);
  for (const n of ['fix', 'fix_start', 'fix_verify']) {
    bounds(n, 'max_wait_seconds', 10, 600, 120);
    bounds(n, 'poll_interval_seconds', 2, 60, 5);
  }
  assert.is(prop('fix', 'wait').default, false);
  assert.is(prop('fix_verify', 'wait').default, true);
  assert.equal(prop('fix_start', 'type').enum, ['auto', 'prompt']);
  assert.equal(prop('fix_submit', 'channel').enum, ['pr', 'local_ref']);
  assert.equal(schema('fix_submit').required!.sort(), ['channel', 'fix_id']);
  assert.is(prop('fix_mark_applied', 'note').maxLength, 600);
  assert.equal([prop('fix_verify', 'candidate_content').minLength, prop('fix_verify', 'candidate_content').maxLength], [40, 200_000]);
  assert.is(prop('fix_dismiss', 'reason').minLength, 1);
  assert.equal(schema('fix_dismiss').required!.sort(), ['fix_id', 'reason']);
  bounds('prompts_ab', 'seeds_per_case', 1, 10, 3);
  bounds('prompts_ab', 'max_wait_seconds', 10, 600, 300);
  bounds('prompts_ab', 'poll_interval_seconds', 2, 60, 10);
  assert.is(prop('prompts_ab', 'wait').default, false);
  assert.is(prop('prompts_ab', 'promote_primary').default, false);
  const auto = prop('prompts_ab', 'auto_generate').properties;
  assert.equal([auto.case_count.minimum, auto.case_count.maximum, auto.case_count.default], [1, 500, 5]);
  assert.equal([auto.lookback_days.minimum, auto.lookback_days.maximum, auto.lookback_days.default], [1, 365, 30]);
  assert.equal(schema('prompts_ab').required!.sort(), ['baseline_content', 'candidate_content']);
  bounds('prompts_propose', 'max_dossiers', 1, 16, 8);
  bounds('prompts_propose', 'seeds_per_case', 1, 10, 3);
  assert.equal(schema('prompts_propose').required!.sort(), ['from_run_id', 'prompt_key', 'set_id']);
  assert.equal(prop('prompts_promote', 'label').enum, ['dev', 'staging', 'prod']);
  assert.is(prop('prompts_sync', 'prompts').minItems, 1);
  assert.is(prop('prompts_sync', 'dry_run').default, false);
  bounds('skills_gen', 'max_sessions', 1, 100_000);
  bounds('skills_gen', 'lookback_hours', 1, 8760);
  bounds('skills_gen', 'clustering_timeout_seconds', 1, 86_400);
  bounds('skills_gen', 'clustering_poll_seconds', 1, 600);
  bounds('skills_gen', 'max_traces', 1, 100_000);
  bounds('skills_gen', 'improvement_rounds', 1, 10);
  assert.is(prop('skills_gen', 'max_cluster_pct').minimum, 0);
  assert.equal(prop('skills_gen', 'source').enum, ['all', 'sdk']);
  assert.equal(prop('skills_list', 'status').enum, ['approved', 'proposed', 'all']);
  assert.is(prop('skills_list', 'status').default, 'approved');
  assert.is(prop('skills_proposals', 'status').default, 'ready_for_pr');
  assert.equal(schema('harness_delete').required!.sort(), ['confirm', 'id_or_key']);
  assert.ok('tenant_id' in schema('fix').properties);
});

test('tenant from the signed key; an unsigned key needs tenant_id; a member key cannot write', async () => {
  const legacy = new Client({ name: 'legacy', version: '1' });
  await legacy.connect(new StreamableHTTPClientTransport(new URL(`${sys.url}/mcp`), { requestInit: { headers: { 'x-api-key': sys.adminKey } } }));
  const without = await call('fixes', {}, legacy);
  assert.is(without.isError, true);
  assert.is(without.error.status, 401);
  const withTenant = await call('fixes', { tenant_id: 'default' }, legacy);
  assert.is(withTenant.isError, false, JSON.stringify(withTenant));
  await legacy.close();
  const member = new Client({ name: 'member', version: '1' });
  await member.connect(new StreamableHTTPClientTransport(new URL(`${sys.url}/mcp`), { requestInit: { headers: { 'x-api-key': sys.memberKey } } }));
  assert.is((await call('fixes', {}, member)).isError, false);
  const denied = await call('fixes_draft_batch', {}, member);
  assert.is(denied.error.status, 403);
  await member.close();
  const signedOther = await call('fixes', { tenant_id: 'acme' });
  assert.is(signedOther.isError, true, 'a signed key cannot reach another tenant');
});

test('harness_sync and prompts_sync (complete set, hashes, dry run) prepare routing', async () => {
  const graph = {
    agents: [{ key: 'support' }],
    artifacts: [{ key: 'support/system-prompt', kind: 'prompt', source_path: 'prompts/support.md', prompt_key: 'support-system', keywords: ['refund', 'order'] }],
    relationships: [],
  };
  const h = await call('harness_sync', { graph, source_commit: 'abc123' });
  assert.is(h.isError, false, JSON.stringify(h));
  assert.is(h.data.counts.artifacts, 1);
  const st = await call('harness_analyze_status', { run_id: h.data.analysis_run_id });
  assert.is(st.data.status, 'completed');
  const big = await call('harness_sync', { graph: { agents: [], artifacts: [], relationships: [], pad: 'x'.repeat(2_000_001) } });
  assert.is(big.isError, true);
  assert.is(big.error.status, 400);
  const dry = await call('prompts_diff', { prompts: [{ key: 'support-system', content: 'You are a support agent. Be polite.' }] });
  assert.is(dry.data.dryRun, true);
  assert.is(dry.data.prompts[0].action, 'created');
  const sync = await call('prompts_sync', { prompts: [{ key: 'support-system', content: 'You are a support agent. Be polite.', source_path: 'prompts/support.md' }] });
  assert.is(sync.data.prompts[0].action, 'created');
  assert.match(sync.data.prompts[0].contentHash, /^[0-9a-f]{64}$/);
  const again = await call('prompts_sync', { prompts: [{ key: 'support-system', content: 'You are a support agent. Be polite.' }] });
  assert.is(again.data.prompts[0].action, 'unchanged');
});

test('fixes_draft_batch → fixes_drive → fix_verify (replay worker) → VERIFIED with a pass verdict', async () => {
  const batch = await call('fixes_draft_batch', { limit: 5 });
  assert.is(batch.isError, false, JSON.stringify(batch));
  assert.is(batch.data.drafted.length, 1);
  fixId = batch.data.drafted[0].id;
  assert.is(batch.data.drafted[0].problemId, PLANTED.problemId);
  const again = await call('fixes_draft_batch', {});
  assert.is(again.data.drafted.length, 0);
  assert.match(again.data.skipped[0].reason, /active fix SVC-FIX-/);
  // two passes: scoping, then proposing (a third would start the gate)
  const drive = await call('fixes_drive', { max_passes: 2, pass_interval_seconds: 0 });
  assert.is(drive.isError, false, JSON.stringify(drive));
  assert.is(drive.data.passes, 2);
  assert.is(drive.data.fixes[0].status, 'PROPOSED', JSON.stringify(drive.data));
  assert.equal(drive.data.stragglers.map((x: any) => x.status), ['PROPOSED'], 'a fix still in the pipeline after the last pass is a straggler');
  assert.is(drive.data.coverage_truncated, false);
  const v = await call('fix_verify', { fix_id: fixId, poll_interval_seconds: 2, max_wait_seconds: 60 });
  assert.is(v.isError, false, JSON.stringify(v));
  assert.is(v.data.fix.status, 'VERIFIED');
  assert.is(v.data.fix.gateResult.verdict, 'pass');
  assert.is(v.data.next_steps[0].tool, 'fix_submit');
  const co = await call('fix_checkout', { fix_id: fixId });
  assert.is(co.data.branch, `svc/fix/${v.data.fix.shortRef.toLowerCase()}`);
  assert.is(co.data.magic_word, `Fixes SVC-FIX-${v.data.fix.shortRef}`);
  assert.ok(co.data.candidate_text.includes('lookup_order'));
  const bad = await call('fix_submit', { fix_id: fixId, channel: 'pr', local_ref: 'x' });
  assert.is(bad.isError, true, 'local_ref is forbidden with pr');
});

test('fix_submit pr → PR_OPEN; signed merge webhook → SHIPPED with mark_fixed pending; run → reopened → REGRESSED', async () => {
  const s = await call('fix_submit', { fix_id: fixId, channel: 'pr' });
  assert.is(s.isError, false, JSON.stringify(s));
  assert.is(s.data.status, 'PR_OPEN');
  const pr = gh.pulls.find((p) => p.head === s.data.prBranch)!;
  const payload = JSON.stringify({ action: 'closed', pull_request: { merged: true, body: pr.body, head: { ref: pr.head }, html_url: pr.html_url, merge_commit_sha: 'f'.repeat(40), merged_at: new Date().toISOString() } });
  const hook = await http(`${sys.url}/api/webhooks/code-host`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-hub-signature-256': signPayload(SECRET, payload) }, body: payload });
  assert.is(hook.status, 202, hook.text);
  const shipped = await call('fix', { fix_id: fixId });
  assert.is(shipped.data.fix.status, 'SHIPPED');
  const pending = problems.feedback.filter((f) => f.problemId === PLANTED.problemId && f.action === 'mark_fixed' && f.status === 'pending');
  assert.is(pending.length, 1);
  assert.is(pending[0]!.actor, 'svc-github-app');
  await problems.runOnce('default');
  assert.is((await call('fix', { fix_id: fixId })).data.fix.status, 'CONFIRMING');
  problems.recur(PLANTED.problemId);
  await problems.runOnce('default');
  const regressed = await call('fix', { fix_id: fixId });
  assert.is(regressed.data.fix.status, 'REGRESSED');
  const marked = await call('fix_mark_applied', { fix_id: fixId, note: 'x'.repeat(601) });
  assert.is(marked.isError, true, 'note over 600 characters is refused');
  assert.match(marked.text, /note/);
});

test('fix_start with wait drives a new attempt through the gate; fix with wait needs an admin key', async () => {
  const r = await call('fix_start', { problem_id: PLANTED.problemId, type: 'prompt', wait: true, poll_interval_seconds: 2, max_wait_seconds: 60 });
  assert.is(r.isError, false, JSON.stringify(r));
  assert.is(r.data.fix.attemptNo, 2);
  assert.is(r.data.fix.status, 'VERIFIED', r.data.fix.statusReason);
  const member = new Client({ name: 'member-wait', version: '1' });
  await member.connect(new StreamableHTTPClientTransport(new URL(`${sys.url}/mcp`), { requestInit: { headers: { 'x-api-key': sys.memberKey } } }));
  assert.is((await call('fix', { fix_id: r.data.fix.id }, member)).isError, false, 'a member reads');
  assert.is((await call('fix', { fix_id: r.data.fix.id, wait: true }, member)).error.status, 403, 'wait=true writes');
  await member.close();
  const d = await call('fix_dismiss', { fix_id: r.data.fix.id, reason: '   ' });
  assert.is(d.isError, true, 'a blank reason is refused');
});

test('stdio transport (`tracehouse mcp`): the same tools and the read-only part of the scenario', async () => {
  const stdio = new Client({ name: 'stdio-e2e', version: '1.0.0' });
  await stdio.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(projectRoot, 'bin', 'tracehouse.js'), 'mcp', '--url', sys.url, '--api-key', signedKey],
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' },
      stderr: 'inherit',
    }),
  );
  try {
    const { tools } = await stdio.listTools();
    assert.equal(tools.map((t) => t.name).sort(), [...ALL_TOOLS].sort());
    const q = await call('fixes', { limit: 10 }, stdio);
    assert.ok(q.data.fixes.some((f: any) => f.id === fixId));
    const f = await call('fix', { fix_id: fixId }, stdio);
    assert.is(f.data.fix.status, 'REGRESSED');
    assert.ok(Array.isArray(f.data.next_steps));
    const p = await call('fix_packet', { fix_id: fixId }, stdio);
    assert.match(p.data.kind, /\.fix_packet\.v1$/);
    assert.is(p.data.fix_id, fixId);
    const sk = await call('skills_status', {}, stdio);
    assert.is(sk.data.found, false);
    assert.ok(sk.warnings.length > 0);
    const big = await call('harness_sync', { graph: { pad: 'x'.repeat(2_000_001) } }, stdio);
    assert.is(big.error.code, 'graph_too_large', 'refused before upload');
  } finally {
    await stdio.close();
  }
});

test('prompts_ab promote_primary: a strict candidate win makes the candidate version prod; without candidate ids or without waiting a warning says nothing is promoted', async () => {
  const f = (await call('fix', { fix_id: fixId })).data.fix;
  const svc = await createFixServices({ config: sys.config, bus: sys.rt.bus, store: sys.rt.store, problems });
  const prodBefore = (await svc.prompts.get('default', 'support-system'))!.labels.prod;
  assert.is.not(prodBefore, f.candidateRef.promptVersionId);
  const candidate = (await call('fix_checkout', { fix_id: fixId })).data.candidate_text;
  const common = { baseline_content: 'You are a support agent. Be polite.', candidate_content: candidate, set_id: f.replaySetId, seeds_per_case: 1, promote_primary: true, wait: true, poll_interval_seconds: 2, max_wait_seconds: 60 };
  const noIds = await call('prompts_ab', { ...common, candidate_version_id: f.candidateRef.promptVersionId });
  assert.is(noIds.isError, false, JSON.stringify(noIds));
  assert.is(noIds.data.verdict, 'candidate');
  assert.ok(noIds.warnings.some((w: string) => /promote_primary needs candidate_prompt_id/.test(w)), JSON.stringify(noIds.warnings));
  assert.is((await svc.prompts.get('default', 'support-system'))!.labels.prod, prodBefore, 'nothing was promoted');
  const noWait = await call('prompts_ab', { ...common, wait: false, candidate_prompt_id: f.promptId, candidate_version_id: f.candidateRef.promptVersionId });
  assert.is(noWait.isError, false, JSON.stringify(noWait));
  assert.ok(noWait.data.runId);
  assert.ok(noWait.warnings.some((w: string) => /applies only with wait=true/.test(w)), JSON.stringify(noWait.warnings));
  const r = await call('prompts_ab', { ...common, candidate_prompt_id: f.promptId, candidate_version_id: f.candidateRef.promptVersionId });
  assert.is(r.isError, false, JSON.stringify(r));
  assert.is(r.data.verdict, 'candidate', JSON.stringify(r.data));
  assert.equal(r.warnings, []);
  assert.is((await svc.prompts.get('default', 'support-system'))!.labels.prod, f.candidateRef.promptVersionId, 'the candidate version is the prod label');
});

/**
 * Seeded random arguments on every tool (from its own input schema: wrong types, missing and extra
 * fields, empty, huge and non-ASCII strings, out-of-range numbers; never waiting): each call
 * answers, a refusal is the SDK's input validation error or a 4xx error object with a code and a
 * message, never a 5xx or an internal error, and the server keeps serving.
 */
test('random arguments on every tool: refused with a clear 4xx error or answered, never an internal error', async () => {
  const rng = createRng(Number(process.env.MCP_FUZZ_SEED ?? 5));
  const TEXT = ['', 'x', 'x'.repeat(5000), '日本語', '../../etc/passwd', PLANTED.problemId, '00000000-0000-0000-0000-000000000000', '{"a":1}', 'null'];
  type Schema = { type?: string | string[]; enum?: unknown[]; items?: Schema; properties?: Record<string, Schema> };
  const value = (s: Schema | undefined, depth: number): unknown => {
    if (rng.chance(0.15)) return rng.pick<unknown>([null, 1, -1, 1e12, 'text', true, [], {}, 1.5]);
    const t = Array.isArray(s?.type) ? s.type[0] : s?.type;
    if (s?.enum) return rng.chance(0.8) ? rng.pick(s.enum) : 'nope';
    if (t === 'integer' || t === 'number') return rng.pick([0, 1, -5, 1e9, 3.5, 100000]);
    if (t === 'boolean') return rng.chance(0.5);
    if (t === 'array') return depth > 2 ? [] : Array.from({ length: rng.int(0, 3) }, () => value(s?.items, depth + 1));
    if (t === 'object') return depth > 2 ? {} : object(s, depth + 1);
    return rng.pick(TEXT);
  };
  const object = (s: Schema | undefined, depth: number): Record<string, unknown> => {
    const o: Record<string, unknown> = {};
    for (const [k, p] of Object.entries(s?.properties ?? {})) if (rng.chance(0.6)) o[k] = value(p, depth);
    if (rng.chance(0.1)) o.unknown_field = 1;
    return o;
  };
  const { tools } = await client.listTools();
  const outcomes: Record<string, number> = {};
  const unclear: string[] = [];
  for (const tool of tools) {
    for (let k = 0; k < 8; k++) {
      const args = object(tool.inputSchema as Schema, 0);
      if ('wait' in ((tool.inputSchema as Schema).properties ?? {})) args.wait = false;
      const r = (await client.callTool({ name: tool.name, arguments: args }, undefined, { timeout: 60_000 })) as { content: Array<{ text: string }>; isError?: boolean };
      const text = r.content[0]?.text ?? '';
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const kind = !r.isError ? 'answered' : /^MCP error -32602: Input validation error: \S/.test(text) ? 'invalid input' : body?.error ? `error ${body.error.status}` : 'unclear';
      outcomes[kind] = (outcomes[kind] ?? 0) + 1;
      const clear =
        kind === 'answered' ? body !== undefined : kind === 'invalid input' || (body.error.status >= 400 && body.error.status < 500 && typeof body.error.code === 'string' && String(body.error.message ?? '').length > 0);
      if (!clear || /internal|TypeError|ReferenceError|Cannot read prop/i.test(text)) unclear.push(`${tool.name} ${JSON.stringify(args).slice(0, 150)}: ${text.slice(0, 200)}`);
    }
  }
  console.log(`  ${JSON.stringify(outcomes)}`);
  assert.equal(unclear, []);
  assert.ok((outcomes['invalid input'] ?? 0) > 0 && (outcomes['answered'] ?? 0) > 0, 'both refused and answered calls');
  assert.is((await client.listTools()).tools.length, 27, 'the server still serves');
});

test.run();
