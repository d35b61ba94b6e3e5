/**
 * The dashboard's fix pages in headless Chromium against the query role with the fix domain (the
 * reference replay worker, a routed prompt artifact, a problems source holding two problems): the
 * queue as the fix routes list it, the status filter in the URL; a fix driven from DRAFT to
 * VERIFIED with the page's own Advance button, its gate result (wins, losses, noise floor,
 * abstained, verdict) and packet as the routes answer them, delivered as a local reference; a
 * second fix dismissed; a member key sees no actions and the routes refuse them (403).
 * Screenshots at 1280×800 to <tmp>/tracehouse-screenshots.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createFixServices } from '../../../fixes/services.js';
import { startReplayWorker, type ReplayWorker } from '../../../fixes/replay-worker.js';
import { http } from '../../helpers/http.js';
import { createMemoryProblems } from '../../helpers/problems.js';
import { REFUND_BASELINE, REFUND_CONVERSATIONS, seedRefundScenario, startFixSystem, type FixSystem } from '../../helpers/fix-system.js';
import { findChromium, launchChromium, screenshotDir } from '../../helpers/browser.js';

const chromiumPath = findChromium();
const problems = createMemoryProblems();
const convIds = REFUND_CONVERSATIONS;
const P = problems.add({ attributions: convIds.map((id) => ({ conversationId: id, msgIndex: 0 })), rankScore: 0.9 });
const P2 = problems.add({ displayName: 'Second problem', causeStatement: 'The agent forgets shipping addresses between turns', attributions: convIds.map((id) => ({ conversationId: id, msgIndex: 0 })), rankScore: 0.4 });

let sys: FixSystem;
let worker: ReplayWorker | undefined;
let browser: Browser;
let member: BrowserContext;
let admin: BrowserContext;
let fixId = '';
let fix2 = '';
const shots = screenshotDir();

const route = (path: string) => `${sys.url}/api/tenants/default${path}`;
const get = async (path: string, key = sys.memberKey): Promise<any> => {
  const r = await http(route(path), { headers: { 'x-api-key': key } });
  assert.is(r.status, 200, `${path}: ${r.text}`);
  return r.body;
};
async function contextWithKey(key: string): Promise<BrowserContext> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: sys.url });
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
const shownStatus = async (page: Page) => (await page.locator('[data-fix-status]').textContent())?.trim();

async function setup() {
  sys = await startFixSystem({ problems });
  const svc = await createFixServices({ config: sys.config, bus: sys.rt.bus, store: sys.rt.store, problems, now: () => sys.clock.now });
  await seedRefundScenario(sys, svc);
  worker = await startReplayWorker(sys.rt.bus);
  for (const p of [P, P2]) {
    const r = await http(route(`/problems/${p.problemId}/fixes`), { method: 'POST', headers: { 'x-api-key': sys.adminKey }, body: { fixType: 'auto' } });
    assert.is(r.status, 200, r.text);
    if (p === P) fixId = r.body.id;
    else fix2 = r.body.id;
  }
  browser = await launchChromium(chromiumPath!);
  member = await contextWithKey(sys.memberKey);
  admin = await contextWithKey(sys.adminKey);
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
  await worker?.stop();
  await sys?.stop();
});

test('fix queue: the rows of GET /fixes in their order; the status filter goes to the URL and the list', async () => {
  const page = await open(member, '/fixes');
  const q = await get('/fixes?limit=50');
  assert.equal(await attrs(page, '[data-table="fixes"] [data-fix]', 'data-fix'), q.fixes.map((f: any) => f.id));
  assert.is(q.fixes.length, 2);
  await page.screenshot({ path: join(shots, 'fixes.png') });
  await page.selectOption('select[name="status"]', 'DRAFT');
  await page.waitForURL(/\/fixes\?status=DRAFT$/);
  await settled(page);
  const drafts = await get('/fixes?status=DRAFT&limit=50');
  assert.equal(await attrs(page, '[data-table="fixes"] [data-fix]', 'data-fix'), drafts.fixes.map((f: any) => f.id));
  await page.selectOption('select[name="status"]', 'VERIFIED');
  await page.waitForURL(/status=VERIFIED/);
  await settled(page);
  assert.ok(await page.locator('[data-empty]').isVisible(), 'no verified fix yet: the empty state');
  await page.close();
});

test('a member sees the fix without actions, and the routes refuse them (403)', async () => {
  const page = await open(member, `/fixes/${fixId}`);
  assert.is(await shownStatus(page), (await get(`/fixes/${fixId}`)).status);
  assert.is(await page.locator('[data-admin-actions]').count(), 0);
  assert.ok(await page.locator('[data-member-note]').isVisible());
  await page.close();
  for (const action of ['advance', 'verify', 'submit', 'dismiss']) {
    const r = await http(route(`/fixes/${fixId}/${action}`), { method: 'POST', headers: { 'x-api-key': sys.memberKey }, body: {} });
    assert.is(r.status, 403, `${action}: ${r.text}`);
  }
});

test('an admin advances a fix to VERIFIED from the page; gate result and packet as the routes answer; delivered locally', async () => {
  const page = await open(admin, `/fixes/${fixId}`);
  // the button is disabled while its request runs (a click waits until it is enabled again)
  for (let i = 0; i < 60 && (await shownStatus(page)) !== 'VERIFIED'; i++) {
    await page.click('[data-action="advance"]');
    await page.locator('[data-action="advance"]:not([disabled])').waitFor();
    const errors = await page.locator('.error-box').allTextContents();
    assert.equal(errors, [], 'no action failed');
    await page.waitForTimeout(100);
  }
  const f = await get(`/fixes/${fixId}`);
  assert.is(f.status, 'VERIFIED', f.statusReason);
  await page.locator('[data-fix-status]', { hasText: 'VERIFIED' }).waitFor();
  const g = f.gateResult;
  assert.is(await page.locator('[data-verdict]').textContent(), g.verdict);
  assert.is(await page.locator('[data-wins]').textContent(), String(g.holdout.wins));
  assert.is(await page.locator('[data-losses]').textContent(), String(g.holdout.losses));
  assert.is(await page.locator('[data-noise]').textContent(), String(g.noiseFloor));
  assert.is(await page.locator('[data-abstained]').textContent(), String(g.abstained));
  const packet = await get(`/fixes/${fixId}/packet`);
  assert.is(await page.locator('[data-list="packet-evidence"] a').count(), packet.evidence.length);
  assert.ok(((await page.locator('[data-panel="packet"]').textContent()) ?? '').includes(packet.verify.command));
  await page.evaluate(() => scrollTo(0, 0));
  await page.screenshot({ path: join(shots, 'fix.png') });
  await page.selectOption('[data-admin-actions] select[name="channel"]', 'local_ref');
  await page.fill('[data-admin-actions] input[name="localRef"]', 'feature/refund-guidance');
  await page.click('[data-action="submit"]');
  await page.locator('[data-fix-status]', { hasText: 'APPLIED_LOCALLY' }).waitFor();
  assert.is((await get(`/fixes/${fixId}`)).status, 'APPLIED_LOCALLY');
  await page.close();
});

test('an admin dismisses a fix with a reason; the page shows the status the routes record', async () => {
  const page = await open(admin, `/fixes/${fix2}`);
  assert.ok(await page.locator('[data-action="dismiss"]').isDisabled(), 'dismiss needs a reason');
  await page.fill('[data-admin-actions] input[name="reason"]', 'the shipping address fix is handled by another team');
  await page.click('[data-action="dismiss"]');
  await page.locator('[data-action-result]').waitFor();
  const f = await get(`/fixes/${fix2}`);
  await page.locator('[data-fix-status]', { hasText: f.status }).waitFor();
  assert.ok(f.status !== 'DRAFT', f.status);
  await page.close();
});

if (!chromiumPath) {
  console.log('[skip] dashboard fixes suite: no Chromium found (looked at CHROMIUM_PATH and /usr/bin/chromium; `apt-get install chromium`)');
} else {
  test.run();
}
