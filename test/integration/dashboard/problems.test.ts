/**
 * The dashboard's problem pages in headless Chromium against the whole system: generated
 * conversations with planted causes posted to /v1/ingest, analyzed by the stream role, one engine
 * pass, then the problems list (ranked, untrusted, emerging, hierarchy, summary) and a problem page
 * (every block of GET /problems/:id, evidence paged through the evidence endpoint) compared with
 * the API; an evidence anchor opens the conversation at its message; feedback sent from the page
 * with a member key (feedback is open to every key of the tenant) and listed as pending. Screenshots at 1280×800 to <tmp>/tracehouse-screenshots.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually, startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { findChromium, launchChromium, screenshotDir } from '../../helpers/browser.js';
import { generateProblemSet } from '../../../eval/problems/generator.js';
import { runProblemsOnce } from '../../../stream/problems/api.js';

const chromiumPath = findChromium();
const N = 200;
let ts: TestSystem;
let browser: Browser;
let member: BrowserContext;
let admin: BrowserContext;
let memberKey: string;
let list: any;
const shots = screenshotDir();

const int = (n: number) => n.toLocaleString('en-US');
const pct = (n: number) => `${n.toLocaleString('en-US', { maximumFractionDigits: 1 })}%`;
const api = async (path: string, key = memberKey): Promise<any> => {
  const r = await http(`${ts.queryUrl}/api/v1/data${path}`, { headers: { 'x-api-key': key } });
  assert.is(r.status, 200, `${path}: ${r.text}`);
  return r.body;
};
async function contextWithKey(key: string): Promise<BrowserContext> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: ts.queryUrl });
  await ctx.addInitScript((k: string) => sessionStorage.setItem('tracehouse.api-key', k), key);
  return ctx;
}
async function settled(page: Page) {
  await page.waitForFunction(() => !document.querySelector('.boot') && !document.querySelector('.loading'), undefined, { timeout: 20_000 });
}
async function open(ctx: BrowserContext, path: string): Promise<Page> {
  const page = await ctx.newPage();
  page.on('pageerror', (e) => console.error(`page error on ${path}: ${e.message}`));
  await page.goto(path);
  await settled(page);
  return page;
}
const attrs = (page: Page, selector: string, name: string) => page.locator(selector).evaluateAll((els, n) => els.map((e) => e.getAttribute(n as string) ?? ''), name);
const kpi = async (page: Page, id: string) => (await page.locator(`[data-kpi="${id}"] [data-value]`).textContent())?.trim();

async function setup() {
  ts = await startTestSystem({ stream: { tenantJobs: [] } });
  memberKey = (await ts.system.rt.keys.create({ tenant: 'default', role: 'member', scopes: ['read'] })).key;
  const events = generateProblemSet(5, N, Date.now()).flatMap((c) => c.events);
  for (let i = 0; i < events.length; i += 500) {
    const r = await http(`${ts.ingestUrl}/v1/ingest`, { headers: { authorization: `Bearer ${ts.adminKey}` }, body: { events: events.slice(i, i + 500) } });
    assert.is(r.status, 200, r.text);
  }
  const analyzed = async () => Number((await ts.system.rt.store.query<{ n: string }>("SELECT uniqExact(conversation_id) AS n FROM {{db}}.analysis_state FINAL WHERE tenant_id = 'default' AND analyzer = 'emotions'"))[0]!.n);
  assert.ok(await eventually(async () => (await analyzed()) >= N, { timeoutMs: 180_000, intervalMs: 500 }), 'every conversation analyzed');
  await runProblemsOnce({ store: ts.system.rt.store }, 'default');
  list = await api('/problems');
  assert.ok(list.problems.length > 0, 'the engine ranked problems');
  browser = await launchChromium(chromiumPath!);
  member = await contextWithKey(memberKey);
  admin = await contextWithKey(ts.adminKey);
}
test.before(async () => {
  try {
    await setup();
  } catch (e) {
    console.error('setup failed:', e);
    throw e;
  }
});
test.after(async () => {
  await browser?.close();
  await ts?.stop({ withNats: true });
});

test('problems list: summary, ranked and untrusted rows, emerging and hierarchy as GET /problems answers', async () => {
  const page = await open(member, '/problems');
  assert.is(await kpi(page, 'open-problems'), int(list.summary.open_problems));
  assert.is(await kpi(page, 'signals-attributed'), int(list.summary.signals_attributed));
  assert.is(await kpi(page, 'explained'), pct(list.summary.explained_coverage_pct));
  assert.is(await kpi(page, 'feedback-pending'), int(list.feedback_pending));
  assert.equal(await attrs(page, '[data-table="problems"] [data-problem]', 'data-problem'), list.problems.map((p: any) => p.problem_id));
  assert.equal(await page.locator('[data-table="problems"] [data-attributions]').allTextContents(), list.problems.map((p: any) => int(p.total_attributions)));
  assert.equal(await attrs(page, '[data-table="untrusted"] [data-problem]', 'data-problem'), list.untrusted.map((p: any) => p.problem_id));
  assert.equal(await attrs(page, '[data-list="emerging"] [data-problem]', 'data-problem'), list.emerging.map((p: any) => p.problem_id));
  assert.equal(await attrs(page, '[data-list="macros"] [data-problem]', 'data-problem'), list.hierarchy.macros.map((p: any) => p.problem_id));
  if (list.remainder) assert.is(await page.locator('[data-remainder] [data-unexplained]').textContent(), int(list.remainder.unexplained_signals));
  await page.screenshot({ path: join(shots, 'problems.png') });
  await page.close();
});

test('problem page: every block of GET /problems/:id; evidence paged through the evidence endpoint; an anchor opens its message', async () => {
  const top = list.problems[0];
  const d = await api(`/problems/${top.problem_id}`);
  const page = await open(member, `/problems/${top.problem_id}`);
  assert.is(await page.locator('[data-problem-name]').textContent(), d.header.display_name);
  assert.is(await kpi(page, 'attributions'), int(d.header.total_attributions));
  for (const panel of ['rubric', 'trend', 'verification', 'impact', 'feedback', 'history']) assert.ok(await page.locator(`[data-panel="${panel}"]`).count(), panel);
  assert.ok(((await page.locator('[data-panel="rubric"]').textContent()) ?? '').includes(d.rubric.display_description));
  if (d.dossier) assert.ok(((await page.locator('[data-panel="dossier"]').textContent()) ?? '').includes(d.dossier.executive_summary));
  assert.is(await page.locator('[data-list="stories"] li').count(), d.stories.length);
  assert.is(await page.locator('[data-list="reports"] [data-report]').count(), d.investigation_reports.items.length);
  assert.is(await page.locator('[data-list="history"] li').count(), d.change_history.length);
  assert.equal(await attrs(page, '[data-table="evidence"] [data-attribution]', 'data-attribution'), d.evidence.map((e: any) => e.attribution_id));
  await page.screenshot({ path: join(shots, 'problem.png') });
  // every evidence page of the endpoint, in order
  const all: string[] = [];
  let cursor: string | null = null;
  do {
    const r: any = await api(`/problems/${top.problem_id}/evidence${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`);
    all.push(...r.evidence.map((e: any) => e.attribution_id));
    cursor = r.pagination.has_more ? r.pagination.next_cursor : null;
  } while (cursor);
  await page.getByRole('button', { name: 'Page through all evidence' }).click();
  await settled(page);
  for (let shown = d.evidence.length, more = page.getByRole('button', { name: 'More evidence' }); await more.count(); ) {
    await more.click();
    await page.waitForFunction((n) => document.querySelectorAll('[data-table="evidence"] [data-attribution]').length > n, shown);
    shown = await page.locator('[data-table="evidence"] [data-attribution]').count();
  }
  assert.equal(await attrs(page, '[data-table="evidence"] [data-attribution]', 'data-attribution'), all);
  // the first evidence anchor opens its conversation at the anchor message
  const e = d.evidence[0];
  await page.locator(`[data-attribution="${e.attribution_id}"] a.anchor`).click();
  await page.waitForURL(new RegExp(`/conversations/${encodeURIComponent(e.conversation_id)}\\?msg=${e.anchor_msg_index}$`));
  await settled(page);
  const target = page.locator(`#m-${e.anchor_msg_index}`);
  await target.waitFor();
  assert.match((await target.getAttribute('class')) ?? '', /selected/);
  const box = await target.boundingBox();
  assert.ok(box && box.y >= 0 && box.y < 800, 'the anchor message is in view');
  const ctx = await api(`/conversations/${encodeURIComponent(e.conversation_id)}/context?msg_index=${e.anchor_msg_index}&window=1`);
  const msg = ctx.context.messages.find((m: any) => m.index === e.anchor_msg_index);
  if (msg.content) assert.ok(((await target.locator('.msg-body').first().textContent()) ?? '').startsWith(msg.content.slice(0, 200)));
  await page.close();
});

test('feedback: a member key sends feedback from the page and sees it pending; the same feedback again is recorded once', async () => {
  const top = list.problems[0];
  const a = await open(member, `/problems/${top.problem_id}`);
  assert.is(await a.locator('[data-member-note]').count(), 0);
  await a.selectOption('[data-feedback-actions] select[name="action"]', 'dismiss');
  await a.fill('[data-feedback-actions] input[name="reason"]', 'expected behaviour of the sandbox');
  await a.click('[data-feedback-actions] button[type="submit"]');
  await a.locator('[data-feedback-result]').waitFor();
  assert.match((await a.locator('[data-feedback-result]').textContent()) ?? '', /^Recorded: pending/);
  const fb = await api(`/problems/${top.problem_id}/feedback`);
  assert.is(fb.pending_count, 1);
  await a.locator(`[data-feedback="${fb.feedback[0].feedback_id}"]`).waitFor();
  assert.match((await a.locator(`[data-feedback="${fb.feedback[0].feedback_id}"]`).textContent()) ?? '', /dismiss by dashboard · pending/);
  // the same feedback again is a duplicate, recorded once
  await a.click('[data-feedback-actions] button[type="submit"]');
  await a.locator('[data-feedback-result]', { hasText: 'Already recorded' }).waitFor();
  assert.is((await api(`/problems/${top.problem_id}/feedback`)).feedback.length, 1);
  await a.close();
});

test('problem page: its fixes (fix routes), and an admin drafts one that opens as a DRAFT fix', async () => {
  const top = list.problems[0];
  const page = await open(admin, `/problems/${top.problem_id}`);
  await page.locator('[data-panel="fixes"]').waitFor();
  await page.click('[data-action="draft-fix"]');
  await page.waitForURL(/\/fixes\/[^/]+$/);
  await settled(page);
  const fixId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]!);
  const r = await http(`${ts.queryUrl}/api/tenants/default/fixes/${fixId}`, { headers: { 'x-api-key': memberKey } });
  assert.is(r.status, 200, r.text);
  assert.is(r.body.problemId, top.problem_id);
  assert.is((await page.locator('[data-fix-status]').textContent())?.trim(), r.body.status);
  // back on the problem page, a member sees the fix listed and no draft button
  const m = await open(member, `/problems/${top.problem_id}`);
  await m.locator(`[data-list="problem-fixes"] [data-fix="${fixId}"]`).waitFor();
  assert.is(await m.locator('[data-action="draft-fix"]').count(), 0);
  await m.close();
  await page.close();
});

if (!chromiumPath) {
  console.log('[skip] dashboard problems suite: no Chromium found (looked at CHROMIUM_PATH and /usr/bin/chromium; `apt-get install chromium`)');
} else {
  test.run();
}
