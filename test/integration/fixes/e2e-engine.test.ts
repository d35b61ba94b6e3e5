/**
 * End to end on the whole system with the real problems engine, through the official MCP SDK
 * client over Streamable HTTP: conversations where a tool keeps failing are ingested and analyzed,
 * one engine pass plants the problem → fixes_draft_batch → fixes_drive → fix_verify (reference
 * replay worker, `tracehouse replay-worker`) → fix_submit pr (local fake of the GitHub REST API)
 * → signed merge webhook → SHIPPED with mark_fixed pending (actor svc-github-app) → next problems
 * run (fixed_monitoring, fix CONFIRMING) → the failure recurs → problem reopened → fix REGRESSED on
 * read. Then the read-only part of the same scenario over stdio (`tracehouse mcp`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { projectRoot } from '../../../core/paths.js';
import { REPLAY_PING_SUBJECT } from '../../../fixes/replay-protocol.js';
import { signPayload } from '../../../query/routes/fixes.js';
import { getProblem, listProblems, runProblemsOnce } from '../../../stream/problems/api.js';
import { eventually, startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { startFakeGithub, type FakeGithub } from '../../helpers/fake-github.js';

const SECRET = 'whsec-e2e-0123456789';
let ts: TestSystem;
let gh: FakeGithub;
let worker: ChildProcess;
let client: Client;
let key = '';
let problemId = '';
let fixId = '';
const deps = () => ({ store: ts.system.rt.store });

/** A conversation where update_address rejects its input and the user gets annoyed. */
function failing(id: string, at: number, user: string) {
  const t = (i: number) => new Date(at + i * 2000).toISOString();
  const m = (i: number, role: string, body: string | unknown[]) => ({ conversation_id: id, role, user_id: user, timestamp: t(i), ...(typeof body === 'string' ? { message: body } : { content: body }) });
  return [
    m(0, 'user', `Please change the shipping address of order #${id.length}${id.slice(-2)} to 12 Elm Street.`),
    m(1, 'assistant', [{ type: 'text', text: 'Updating the address now.' }, { type: 'tool_use', tool_name: 'update_address', tool_use_id: 'c1', input: { order: 12, street: '12 Elm Street' } }]),
    m(2, 'user', [{ type: 'tool_result', tool_use_id: 'c1', content: "Error: invalid input: field 'order_id' is required (got unknown field 'order')", is_error: true }]),
    m(3, 'assistant', [{ type: 'text', text: 'Let me try again.' }, { type: 'tool_use', tool_name: 'update_address', tool_use_id: 'c2', input: { order: 12, street: '12 Elm St' } }]),
    m(4, 'user', [{ type: 'tool_result', tool_use_id: 'c2', content: "Error: invalid input: field 'order_id' is required (got unknown field 'order')", is_error: true }]),
    m(5, 'user', 'Ugh, this is useless. Why does it keep failing?!'),
  ];
}

const ingest = async (events: unknown[]) => {
  const r = await http(`${ts.ingestUrl}/v1/ingest`, { headers: { authorization: `Bearer ${ts.adminKey}` }, body: { events } });
  assert.ok(r.status >= 200 && r.status < 300, r.text);
};
const failedCalls = async () =>
  Number((await ts.system.rt.store.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.conversation_tool_calls FINAL WHERE tenant_id = 'default' AND success = 0`))[0]!.n);
const emotions = async () => Number((await ts.system.rt.store.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.emotion_detections FINAL WHERE tenant_id = 'default'`))[0]!.n);

const call = async (name: string, args: Record<string, unknown> = {}, c = client) => {
  const r = (await c.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as { content: Array<{ text: string }>; isError?: boolean };
  const text = r.content[0]!.text;
  const body = text.startsWith('{') ? JSON.parse(text) : { text };
  return { ...body, isError: !!r.isError };
};

test.before(async () => {
  gh = await startFakeGithub({ owner: 'acme', repo: 'harness' });
  ts = await startTestSystem({
    env: { FIX_GITHUB_TOKEN: 'ghs_test', FIX_GITHUB_REPO: 'acme/harness', FIX_GITHUB_API_URL: gh.url, FIX_WEBHOOK_SECRET: SECRET, FIX_GATE_SEEDS: '1', FIX_PUBLIC_URL: 'http://tracehouse.test' },
    stream: { tenantJobs: [] },
  });
  const t0 = Date.now() - 3_600_000;
  const events: unknown[] = [];
  for (let i = 0; i < 8; i++) events.push(...failing(`fail-${i}`, t0 + i * 60_000, `user-${i % 5}`));
  await ingest(events);
  assert.ok(await eventually(async () => (await failedCalls()) >= 16 && (await emotions()) >= 8, { timeoutMs: 90_000, intervalMs: 250 }), 'conversations analyzed');
  key = (await ts.system.rt.keys.create({ tenant: 'default', role: 'admin' })).key;
  worker = spawn(process.execPath, [join(projectRoot, 'bin', 'tracehouse.js'), 'replay-worker'], {
    env: { PATH: process.env.PATH ?? '', NATS_URL: ts.nats.url, LOG_LEVEL: 'warn', TRACEHOUSE_SECRET: 'test-secret-0123456789abcdef' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; ; i++) {
    try {
      await ts.system.rt.bus.nc.request(REPLAY_PING_SUBJECT, '{}', { timeout: 500 });
      break;
    } catch (err) {
      if (i > 80) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  client = new Client({ name: 'e2e-engine', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${ts.queryUrl}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
});

test.after(async () => {
  await client?.close();
  worker?.kill('SIGTERM');
  await ts?.stop({ withNats: true });
  await gh?.stop();
});

test('one engine pass plants the problem; harness and prompt registry prepared through the tools', async () => {
  await runProblemsOnce(deps(), 'default');
  const p = (await listProblems(deps(), 'default')).find((x) => x.cause_key.startsWith('tool_failure|update_address|'));
  assert.ok(p, 'the planted problem');
  assert.is(p!.verification_status, 'current');
  problemId = p!.problem_id;
  const graph = {
    agents: [{ key: 'support' }],
    artifacts: [{ key: 'support/system-prompt', kind: 'prompt', source_path: 'prompts/support.md', prompt_key: 'support-system', keywords: ['address', 'shipping', 'order'] }],
    relationships: [],
  };
  assert.is((await call('harness_sync', { graph })).isError, false);
  const sync = await call('prompts_sync', { prompts: [{ key: 'support-system', content: 'You are the support agent of an online shop. Be concise.', source_path: 'prompts/support.md' }] });
  assert.is(sync.data.prompts[0].action, 'created');
});

test('fixes_draft_batch → fixes_drive → fix_verify → VERIFIED with a pass verdict on the holdout', async () => {
  const batch = await call('fixes_draft_batch', { limit: 5 });
  assert.is(batch.isError, false, JSON.stringify(batch));
  const drafted = batch.data.drafted.find((f: any) => f.problemId === problemId);
  assert.ok(drafted, JSON.stringify(batch.data));
  fixId = drafted.id;
  const drive = await call('fixes_drive', { max_passes: 2, pass_interval_seconds: 0 });
  assert.is(drive.isError, false, JSON.stringify(drive));
  const mine = drive.data.fixes.find((f: any) => f.fix_id === fixId);
  assert.is(mine.status, 'PROPOSED', JSON.stringify(drive.data));
  const f0 = (await call('fix', { fix_id: fixId })).data.fix;
  assert.is(f0.fixType, 'PROMPT');
  assert.is(f0.targetSourcePath, 'prompts/support.md');
  assert.is(f0.repairCaseIds.length + f0.holdoutCaseIds.length, 8);
  assert.ok(f0.candidateRef.promptVersionId);
  const v = await call('fix_verify', { fix_id: fixId, poll_interval_seconds: 2, max_wait_seconds: 120 });
  assert.is(v.isError, false, JSON.stringify(v));
  assert.is(v.data.fix.status, 'VERIFIED');
  assert.is(v.data.fix.gateResult.verdict, 'pass');
  assert.is(v.data.fix.gateResult.holdout.wins, 4);
  assert.is(v.data.fix.gateResult.noiseFloor, 0);
});

test('fix_submit pr → signed merge webhook → SHIPPED with mark_fixed pending → run → reopened → REGRESSED', async () => {
  const s = await call('fix_submit', { fix_id: fixId, channel: 'pr' });
  assert.is(s.isError, false, JSON.stringify(s));
  assert.is(s.data.status, 'PR_OPEN');
  const pr = gh.pulls.find((p) => p.head === s.data.prBranch)!;
  assert.ok(pr.body.includes('Fixes SVC-FIX-'));
  const payload = JSON.stringify({ action: 'closed', pull_request: { merged: true, body: pr.body, head: { ref: pr.head }, html_url: pr.html_url, merge_commit_sha: 'e'.repeat(40), merged_at: new Date().toISOString() } });
  const hook = (sig: string) => http(`${ts.queryUrl}/api/webhooks/code-host`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-hub-signature-256': sig }, body: payload });
  assert.is((await hook(signPayload('wrong', payload))).status, 401);
  const first = await hook(signPayload(SECRET, payload));
  assert.is(first.status, 202, first.text);
  const again = await hook(signPayload(SECRET, payload));
  assert.is(again.body.fixes[0].feedback_id, first.body.fixes[0].feedback_id, 'a redelivery converges on the same pending feedback');
  assert.is(again.body.fixes[0].duplicate, true);
  assert.is((await call('fix', { fix_id: fixId })).data.fix.status, 'SHIPPED');
  const fb = await http(`${ts.queryUrl}/api/v1/data/problems/${problemId}/feedback`, { headers: { 'x-api-key': key } });
  assert.is(fb.status, 200, fb.text);
  const marks = fb.body.feedback.filter((f: any) => f.feedback_kind === 'mark_fixed');
  assert.is(marks.length, 1);
  assert.is(marks[0].status, 'pending');
  assert.is(marks[0].actor, 'svc-github-app');
  assert.ok(JSON.stringify(marks[0].fix_ref).includes(fixId));
  // the next problems run applies it: fixed-monitoring, the fix is confirming
  await runProblemsOnce(deps(), 'default');
  assert.is((await getProblem(deps(), 'default', problemId)).problem!.lifecycle, 'fixed_monitoring');
  assert.is((await call('fix', { fix_id: fixId })).data.fix.status, 'CONFIRMING');
  // the failure recurs
  await ingest(failing('fail-new-1', Date.now() - 60_000, 'user-9'));
  assert.ok(await eventually(async () => (await failedCalls()) >= 18, { timeoutMs: 60_000, intervalMs: 250 }));
  await runProblemsOnce(deps(), 'default');
  assert.is((await getProblem(deps(), 'default', problemId)).problem!.lifecycle, 'reopened');
  const read = await call('fix', { fix_id: fixId });
  assert.is(read.data.fix.status, 'REGRESSED');
  assert.is(read.data.next_steps[0].tool, 'fix_start');
});

test('stdio (`tracehouse mcp`): the read-only part of the same scenario', async () => {
  const stdio = new Client({ name: 'stdio-e2e', version: '1.0.0' });
  await stdio.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(projectRoot, 'bin', 'tracehouse.js'), 'mcp', '--url', ts.queryUrl, '--api-key', key],
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' },
      stderr: 'inherit',
    }),
  );
  try {
    assert.is((await stdio.listTools()).tools.length, 27);
    const q = await call('fixes', { status: 'REGRESSED' }, stdio);
    assert.equal(q.data.fixes.map((f: any) => f.id), [fixId]);
    assert.is((await call('fix', { fix_id: fixId }, stdio)).data.fix.status, 'REGRESSED');
    const p = await call('fix_packet', { fix_id: fixId }, stdio);
    assert.is(p.data.problem_id, problemId);
    assert.is(p.data.evidence.length, 8);
    assert.ok(p.data.title.startsWith('<untrusted-data>'));
    const st = await call('replay_run_status', { set_id: (await call('fix', { fix_id: fixId }, stdio)).data.fix.replaySetId }, stdio);
    assert.is(st.data.status, 'completed');
  } finally {
    await stdio.close();
  }
});

test.run();
