/**
 * The LLM proposer inside the pipeline (FIX_LLM_URL set): proposing calls a local fake that speaks
 * the chat-completions protocol, registers its revision as the candidate version, and the request
 * carries the repair cases only — no holdout scenario ever reaches the proposer. An unreachable
 * endpoint leaves the fix in PROPOSING with a 503.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createFixServices, type FixServices } from '../../../fixes/services.js';
import { http } from '../../helpers/http.js';
import { createMemoryProblems } from '../../helpers/problems.js';
import { seedConversations, startFixSystem, type FixSystem } from '../../helpers/fix-system.js';

const problems = createMemoryProblems();
const convIds = Array.from({ length: 8 }, (_, i) => `llm-conv-${i}`);
const P = problems.add({ attributions: convIds.map((conversationId) => ({ conversationId, msgIndex: 0 })) });
const bodies: any[] = [];
let failing = false;
const fake = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
  if (failing) {
    res.writeHead(502).end();
    return;
  }
  const content = JSON.stringify({ content: 'You are a support agent. Before refusing refunds, check eligibility by calling lookup_order.', changelog: 'model revision', risks: 'none known' });
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }] }));
});
let sys: FixSystem;
let svc: FixServices;

test.before(async () => {
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/v1`;
  sys = await startFixSystem({ problems, env: { FIX_LLM_URL: url, FIX_LLM_API_KEY: 'sk-local', FIX_LLM_MODEL: 'local-model' } });
  svc = await createFixServices({ config: sys.config, bus: sys.rt.bus, store: sys.rt.store, problems });
  await seedConversations(sys.rt, 'default', convIds.map((id) => ({ id, user: `Scenario text of ${id}: I want my money back.` })));
  await svc.harness.sync('default', { graph: { agents: [], artifacts: [{ key: 'sys', kind: 'prompt', source_path: 'sys.md', prompt_key: 'sys' }], relationships: [] }, dryRun: false });
  await svc.prompts.sync('default', [{ key: 'sys', content: 'You are a support agent.' }], { dryRun: false });
});

test.after(async () => {
  await sys.stop();
  await new Promise<void>((r) => fake.close(() => r()));
});

const post = (path: string, body?: unknown) => http(`${sys.url}/api/tenants/default${path}`, { method: 'POST', headers: { 'x-api-key': sys.adminKey }, body });

test('proposing asks the model with the repair cases only and registers its revision', async () => {
  const d = (await post(`/problems/${P.problemId}/fixes`, {})).body;
  const scoped = (await post(`/fixes/${d.id}/advance`)).body;
  assert.is(scoped.status, 'PROPOSING', scoped.statusReason);
  failing = true;
  const down = await post(`/fixes/${d.id}/advance`);
  assert.is(down.status, 503, down.text);
  assert.is((await http(`${sys.url}/api/tenants/default/fixes/${d.id}`, { headers: { 'x-api-key': sys.adminKey } })).body.status, 'PROPOSING');
  failing = false;
  const f = (await post(`/fixes/${d.id}/advance`)).body;
  assert.is(f.status, 'PROPOSED', f.statusReason);
  assert.is(f.candidateRef.changelog, 'model revision');
  const content = await svc.prompts.content('default', f.candidateRef.promptVersionId);
  assert.match(content!, /lookup_order/);
  const req = bodies.at(-1);
  assert.is(req.model, 'local-model');
  const text = JSON.stringify(req.messages);
  const set = await svc.replay.getSet('default', f.replaySetId);
  const byId = new Map(set!.cases.map((c) => [c.case_id, c.conversation_id]));
  for (const id of f.repairCaseIds) assert.ok(text.includes(byId.get(id)!), `repair case ${id} is in the request`);
  for (const id of f.holdoutCaseIds) assert.not.ok(text.includes(byId.get(id)!), `holdout case ${id} never reaches the proposer`);
});

test.run();
