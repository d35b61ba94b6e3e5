/**
 * The analyst dashboard in headless Chromium against the whole system: a dataset posted to
 * /v1/ingest and analyzed by the stream role, then every page compared with what the data API
 * answers for the same key and filters (never hard-coded numbers): overview, conversation list and
 * its filters in the URL, conversation pages (timeline, emotions, contradictions, step scores,
 * world-state replay), use cases, tool failures, the API reference without a key (data API and fix
 * routes, each curl against its own base URL), sign-in with a wrong key, member and admin keys. Writes a 1280×800 screenshot of every page to
 * <tmp>/tracehouse-screenshots (SCREENSHOT_DIR overrides).
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { taxonomyJob } from '../../../stream/jobs/taxonomy.js';
import { eventually, startTestSystem, toolRollupSettled, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { findChromium, launchChromium, screenshotDir } from '../../helpers/browser.js';
import { CODING_ID, dashboardEvents, TAU_IDS } from './dataset.js';

const chromiumPath = findChromium();
let ts: TestSystem;
let browser: Browser;
let member: BrowserContext;
let admin: BrowserContext;
let memberKey: string;
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
  await ctx.addInitScript((k: string) => {
    if (!sessionStorage.getItem('tracehouse.api-key')) sessionStorage.setItem('tracehouse.api-key', k);
  }, key);
  return ctx;
}

/** Waits until the page has rendered and nothing is loading. */
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

const shot = (page: Page, name: string) => page.screenshot({ path: join(shots, `${name}.png`) });
const texts = (page: Page, selector: string) => page.locator(selector).allTextContents();
const attrs = (page: Page, selector: string, name: string) => page.locator(selector).evaluateAll((els, n) => els.map((e) => e.getAttribute(n as string) ?? ''), name);
const kpi = async (page: Page, id: string) => (await page.locator(`[data-kpi="${id}"] [data-value]`).textContent())?.trim();

// uvu does not print an error thrown by a hook: print it here
test.before(async () => {
  try {
    await setup();
  } catch (e) {
    console.error('setup failed:', e);
    throw e;
  }
});
async function setup() {
  ts = await startTestSystem({ env: { JOB_INTERVAL_MS: '400' }, stream: { tenantJobs: [taxonomyJob()] } });
  memberKey = (await ts.system.rt.keys.create({ tenant: 'default', role: 'member', scopes: ['read'] })).key;
  for (const events of dashboardEvents(Date.now())) {
    const r = await http(`${ts.ingestUrl}/v1/ingest`, { headers: { authorization: `Bearer ${ts.adminKey}` }, body: { events } });
    assert.is(r.status, 200, r.text);
  }
  // every analysis the pages show has run
  const ready = await eventually(
    async () => {
      const [clusters, emotions, hallucinations, list, ...rest] = await Promise.all([
        api('/clusters'),
        api(`/emotions?conversation_id=${CODING_ID}&family=frustration`),
        api(`/hallucinations?conversation_id=${CODING_ID}&verdict=contradicted`),
        api('/conversations?limit=100'),
        ...TAU_IDS.flatMap((id) => [api(`/conversations/${encodeURIComponent(id)}/step-scores`), api(`/conversations/${encodeURIComponent(id)}/world-state?summary_only=1`)]),
      ]);
      const summaries = list.conversations.filter((c: any) => c.summary).length;
      return clusters.cluster_run && emotions.detections.length && hallucinations.findings.length && list.pagination.total === 63 && summaries === 63 && rest.every((b: any) => b.rollup || b.hasData) && list.conversations.every((c: any) => c.cluster_id || !/^(refund|password|flight|tests)-/.test(c.conversation_id));
    },
    { timeoutMs: 150_000, intervalMs: 500 },
  );
  assert.ok(ready, 'the dataset is stored and analyzed (taxonomy, emotions, findings, step scores, world state, summaries)');
  assert.ok(await toolRollupSettled(ts.system.rt.store), 'the tool-failure rollup caught up');
  browser = await launchChromium(chromiumPath!);
  member = await contextWithKey(memberKey);
  admin = await contextWithKey(ts.adminKey);
}

test.after(async () => {
  await browser?.close();
  await ts?.stop({ withNats: true });
});

test('without a key the dashboard asks for one; a wrong key shows the sign-in page with the server message', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: ts.queryUrl });
  const page = await ctx.newPage();
  await page.goto('/conversations?environment=staging');
  await page.getByRole('heading', { name: 'Sign in to Tracehouse' }).waitFor();
  const wrong = 'th.d3Jvbmc.bm90LWEta2V5.AAAAAAAAAAAAAAAAAAAAAAAA';
  const server = await http(`${ts.queryUrl}/api/v1/data/whoami`, { headers: { 'x-api-key': wrong } });
  assert.is(server.status, 401);
  await page.fill('input[name="api-key"]', wrong);
  await page.click('button[type="submit"]');
  const message = page.locator('[data-sign-in-error]');
  await message.waitFor();
  assert.is((await message.textContent())?.trim(), server.body.message);
  await shot(page, 'sign-in');
  // a key revoked while signed in: the next request shows the sign-in page with the server's words
  const { key, record } = await ts.system.rt.keys.create({ tenant: 'default', role: 'member', scopes: ['read'] });
  await page.fill('input[name="api-key"]', key);
  await page.click('button[type="submit"]');
  await page.locator('[data-role="member"]').waitFor();
  assert.match(page.url(), /\/conversations\?environment=staging$/, 'signing in keeps the page asked for');
  // the page's own reads done first: the click below is the next request, not a list still loading
  await page.waitForLoadState('networkidle');
  await ts.system.rt.keys.revoke(record.id);
  await page.getByRole('link', { name: 'Use cases' }).click();
  await message.waitFor();
  assert.is((await message.textContent())?.trim(), 'API key has been revoked');
  await ctx.close();
});

test('API reference: /openapi.json without a key, every endpoint (data API and fix routes) on the page with a curl example against its own base URL', async () => {
  const doc = await http(`${ts.queryUrl}/openapi.json`);
  assert.is(doc.status, 200);
  // each operation with the server it is relative to: its path's `servers` entry, else the document's
  const ops = Object.entries(doc.body.paths as Record<string, Record<string, any>>).flatMap(([p, item]) =>
    Object.keys(item)
      .filter((m) => m !== 'servers')
      .map((m) => ({ id: `${m.toUpperCase()} ${p}`, path: p, base: (item.servers ?? doc.body.servers)[0].url as string, keyless: Array.isArray(item[m].security) && item[m].security.length === 0 })),
  );
  assert.ok(ops.some((o) => o.base === '/api' && o.path.startsWith('/tenants/')), 'the document lists the fix routes');
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: ts.queryUrl });
  const page = await open(ctx, '/api');
  assert.is((await page.locator('h1').textContent())?.includes(doc.body.info.title), true);
  assert.equal((await attrs(page, '[data-endpoint]', 'data-endpoint')).sort(), ops.map((o) => o.id).sort());
  for (const o of ops) {
    const card = page.locator(`[data-endpoint="${o.id}"]`);
    assert.is(await card.getAttribute('data-base'), o.base, o.id);
    const curl = (await card.locator('pre').textContent()) ?? '';
    const prefix = `${ts.queryUrl}${o.base}${o.path.split('{')[0]}`;
    assert.ok(curl.includes(`"${prefix}`), `${o.id}: ${curl}`);
    assert.is(curl.includes('x-api-key'), !o.keyless, `${o.id}: ${curl}`);
  }
  // both base URLs are named at the top of the page
  assert.equal((await attrs(page, '[data-servers] [data-server]', 'data-server')).sort(), [...new Set(ops.map((o) => o.base))].sort());
  await shot(page, 'api-reference');
  await ctx.close();
});

test('overview: the KPIs, top use cases and recent activity of GET /overview; pickers change the URL and the numbers', async () => {
  const page = await open(member, '/');
  for (const [days, env] of [['7', 'all'], ['1', 'all'], ['1', 'staging']] as const) {
    const o = await api(`/overview?days_back=${days}${env === 'all' ? '' : `&environment=${env}`}`);
    assert.is(await kpi(page, 'conversations'), int(o.conversations.total), `conversations ${days} ${env}`);
    assert.is(await kpi(page, 'frustration'), pct(o.frustrations.rate_pct));
    assert.is(await page.locator('[data-kpi="frustration"] [data-frustrated]').textContent(), int(o.frustrations.frustrated));
    assert.is(await page.locator('[data-kpi="frustration"] [data-analyzed]').textContent(), int(o.frustrations.total_analyzed));
    assert.is(await kpi(page, 'tool-failures'), int(o.tool_failures.total));
    assert.is(await page.locator('[data-kpi="tool-failures"] [data-tools]').textContent(), int(o.tool_failures.tools));
    assert.equal(await attrs(page, '[data-table="top-clusters"] [data-node]', 'data-node'), o.top_clusters.map((c: any) => c.node_id));
    assert.equal(await texts(page, '[data-table="top-clusters"] [data-count]'), o.top_clusters.map((c: any) => int(c.segment_count)));
    assert.equal(await attrs(page, '[data-list="recent"] [data-conversation]', 'data-conversation'), o.recent_activity.map((r: any) => r.conversation_id));
    // the daily chart: one point per day of the API's timeline, series totals as the API's
    assert.is(await page.locator('[data-chart] .series.s1 circle').count(), o.timeline.length);
    const sum = (k: string) => String(o.timeline.reduce((a: number, t: any) => a + t[k], 0));
    assert.equal(await attrs(page, '[data-chart] [data-series]', 'data-total'), [sum('conversations'), sum('frustrated'), sum('tool_failures')]);
    if (days === '7' && env === 'all') {
      assert.ok(o.conversations.total > 0 && o.tool_failures.total > 0 && o.frustrations.frustrated > 0);
      await shot(page, 'overview');
      await page.selectOption('select[name="days_back"]', '1');
      await page.waitForURL(/days_back=1/);
    } else if (env === 'all') {
      await page.selectOption('select[name="environment"]', 'staging');
      await page.waitForURL(/days_back=1&environment=staging/);
    }
    await settled(page);
  }
  await page.close();
});

test('conversations: rows and total of GET /conversations; every filter goes to the URL and changes the list', async () => {
  const page = await open(member, '/conversations');
  const check = async (query: string) => {
    await settled(page);
    const r = await api(`/conversations${query}`);
    assert.equal(await attrs(page, '[data-table="conversations"] [data-conversation]', 'data-conversation'), r.conversations.map((c: any) => c.conversation_id), query);
    assert.is(await page.locator('[data-summary] [data-count]').textContent(), int(r.pagination.total), query);
    return r;
  };
  const all = await check('');
  assert.is(all.pagination.total, 63);
  await shot(page, 'conversations');
  await page.selectOption('select[name="environment"]', 'staging');
  await page.waitForURL(/\/conversations\?environment=staging$/);
  const staging = await check('?environment=staging');
  assert.ok(staging.pagination.total > 0 && staging.pagination.total < all.pagination.total);
  await page.fill('input[name="search"]', 'refund');
  await page.click('.text-filters button[type="submit"]');
  await page.waitForURL(/search=refund/);
  const searched = await check('?environment=staging&search=refund');
  assert.is(await page.locator('[data-search-mode]').textContent(), searched.search_mode);
  // the search alone may run hybrid; the page says which mode served it
  await page.goto('/conversations?search=refund');
  const alone = await check('?search=refund');
  assert.is(await page.locator('[data-search-mode]').textContent(), alone.search_mode);
  for (const q of ['?user_id=alice', '?outcome=negative', '?time_range=24h&environment=development', `?world_state=${encodeURIComponent('denver')}`]) {
    await page.goto(`/conversations${q}`);
    await check(q);
  }
  // a cluster link on a row filters by that use case
  await page.goto('/conversations?limit=10');
  await settled(page);
  const first = await api('/conversations?limit=10');
  const clustered = first.conversations.find((c: any) => c.cluster_id);
  await page.locator(`[data-conversation="${clustered.conversation_id}"] a[title="Show this use case only"]`).click();
  await page.waitForURL(new RegExp(`cluster_id=${clustered.cluster_id}`));
  await check(`?limit=10&cluster_id=${clustered.cluster_id}`);
  // pagination
  await page.goto('/conversations?limit=10');
  await settled(page);
  await page.getByRole('button', { name: 'Next →' }).click();
  await page.waitForURL(/offset=10/);
  const second = await check('?limit=10&offset=10');
  assert.is(await page.locator('[data-range]').textContent(), `11–20 of ${int(second.pagination.total)}`);
  await page.close();
});

test('conversation page: timeline with folded tool calls, errors highlighted, emotions and contradictions on their messages, message anchors', async () => {
  const id = CODING_ID;
  const page = await open(member, `/conversations/${id}`);
  await page.locator('[data-msg-index]').first().waitFor();
  const ctx = await api(`/conversations/${id}/context?msg_index=5&window=5`);
  const messages = ctx.context.messages;
  assert.is(await page.locator('[data-total-messages]').textContent(), int(ctx.total_messages));
  assert.equal(await attrs(page, '[data-msg-index]', 'data-msg-index'), messages.map((m: any) => String(m.index)));
  const errors = messages.flatMap((m: any) => m.tool_results.filter((r: any) => r.is_error));
  assert.is(await page.locator('[data-tool-result="error"]').count(), errors.length);
  assert.is(await page.locator('.msg.has-error').count(), messages.filter((m: any) => m.tool_results.some((r: any) => r.is_error)).length);
  assert.is(await page.locator('details[data-tool-call][open]').count(), 0, 'tool calls are folded');
  const emotions = await api(`/emotions?conversation_id=${id}&limit=100`);
  for (const d of emotions.detections) assert.ok(await page.locator(`#m-${d.message_index} [data-emotion="${d.family}/${d.signal}"]`).count(), `${d.family}/${d.signal} on #${d.message_index}`);
  assert.is(await page.locator('[data-emotion]').count(), emotions.detections.length);
  const findings = await api(`/hallucinations?conversation_id=${id}&limit=100`);
  for (const f of findings.findings) assert.ok(await page.locator(`#m-${f.message_index} [data-claim="${f.verdict}"]`).count(), `claim on #${f.message_index}`);
  assert.is(await page.locator('[data-claim="contradicted"]').count(), findings.findings.filter((f: any) => f.verdict === 'contradicted').length);
  await shot(page, 'conversation');
  // an anchor opens the message: ?msg=N selects and shows it
  await page.goto(`/conversations/${id}?msg=8`);
  await settled(page);
  const target = page.locator('#m-8');
  await target.waitFor();
  assert.match((await target.getAttribute('class')) ?? '', /selected/);
  assert.ok(await target.isVisible());
  const box = await target.boundingBox();
  assert.ok(box && box.y >= 0 && box.y < 800, `message 8 is in view (${JSON.stringify(box)})`);
  await page.close();
});

test('conversation page: step scores per step with the first bad step, world-state replay slider and snapshots', async () => {
  const id = TAU_IDS[1]!;
  const page = await open(member, `/conversations/${encodeURIComponent(id)}`);
  const scores = await api(`/conversations/${encodeURIComponent(id)}/step-scores`);
  const steps = scores.segments.flatMap((g: any) => g.steps);
  assert.ok(steps.length > 0);
  assert.is(await page.locator('[data-panel="step-scores"] [data-step]').count(), steps.length);
  assert.equal((await attrs(page, '[data-panel="step-scores"] [data-step]', 'data-progress')).map(Number), steps.map((s: any) => s.progress_score));
  assert.is(Number(await page.locator('[data-blended]').getAttribute('data-blended')), scores.rollup.blended_score);
  // the marked step: the most likely first bad step of each segment that failed or has strong evidence
  const expected = scores.segments
    .map((g: any) => g.steps.reduce((a: any, b: any) => (b.first_bad_step_probability > a.first_bad_step_probability ? b : a), g.steps[0]))
    .filter((s: any, i: number) => s && (scores.segments[i].failure_type || s.first_bad_step_probability >= 0.25));
  assert.equal(await attrs(page, '[data-first-bad]', 'data-first-bad'), expected.map((s: any) => String(s.message_index)));
  assert.is(await page.locator('.step.first-bad').count(), expected.length);
  const replay = await api(`/conversations/${encodeURIComponent(id)}/world-state/replay`);
  const slider = page.locator('input[name="replay"]');
  assert.is(await slider.getAttribute('max'), String(replay.frames.length - 1));
  assert.is(await page.locator('[data-snapshot]').count(), replay.frames.filter((f: any) => f.hasSnapshot).length);
  const rich = replay.frames.findIndex((f: any) => Object.keys(f.slots).length >= 2);
  assert.ok(rich >= 0, 'some frame holds facts');
  for (const k of [rich, replay.frames.length - 1]) {
    await slider.fill(String(k));
    await page.locator('[data-frame-msg]', { hasText: `#${replay.frames[k].msgIndex}` }).waitFor();
    assert.equal(await attrs(page, '[data-table="slots"] [data-slot]', 'data-slot'), Object.keys(replay.frames[k].slots));
    // the snapshot endpoint at that frame, as the page shows it
    const f = replay.frames[k];
    const snap = await api(`/conversations/${encodeURIComponent(id)}/world-state/snapshot?msg_index=${f.msgIndex}&block_index=${f.blockIndex}&segment_index=${f.segmentIndex}`);
    await page.locator(`[data-snapshot-at="${f.msgIndex}:${f.blockIndex}"]`).waitFor();
    assert.is(await page.locator('[data-snapshot-facts]').textContent(), String(Object.keys(snap.slots).length));
  }
  await page.locator('[data-snapshot]').first().click();
  const firstSnap = replay.frames.find((f: any) => f.hasSnapshot);
  assert.is(await page.locator('[data-frame-msg]').textContent(), `#${firstSnap.msgIndex}`);
  await page.locator('[data-panel="world-state"]').scrollIntoViewIfNeeded();
  await shot(page, 'conversation-world-state');
  await page.close();
});

test('use cases: the tree with sizes, breadcrumb, a node with its conversations, search with the mode used', async () => {
  const page = await open(member, '/use-cases');
  const root = await api('/clusters');
  assert.equal(await attrs(page, '[data-table="clusters"] [data-node]', 'data-node'), root.clusters.map((c: any) => c.node_id));
  assert.equal(await texts(page, '[data-table="clusters"] [data-count]'), root.clusters.map((c: any) => int(c.segment_count)));
  await shot(page, 'use-cases');
  const category = root.clusters[0];
  await page.locator(`[data-node="${category.node_id}"] a`).first().click();
  await page.waitForURL(new RegExp(`node=${category.node_id}`));
  await settled(page);
  const children = await api(`/clusters?parent_id=${category.node_id}`);
  assert.match((await page.locator('[data-breadcrumb]').textContent()) ?? '', category.label);
  assert.equal(await attrs(page, '[data-table="clusters"] [data-node]', 'data-node'), children.clusters.map((c: any) => c.node_id));
  const leaf = children.clusters[0];
  await page.locator(`[data-node="${leaf.node_id}"] a`).first().click();
  await page.waitForURL(new RegExp(`node=${leaf.node_id}`));
  await settled(page);
  const conv = await api(`/clusters/${leaf.node_id}/conversations?limit=20`);
  assert.equal(await attrs(page, '[data-table="node-conversations"] [data-conversation]', 'data-conversation'), conv.conversations.map((c: any) => c.conversation_id));
  assert.ok(conv.conversations.length > 0);
  assert.match((await page.locator('[data-breadcrumb]').textContent()) ?? '', leaf.label);
  for (const mode of ['fuzzy', 'semantic', 'hybrid']) {
    await page.goto(`/use-cases?q=refund${mode === 'hybrid' ? '' : `&mode=${mode}`}`);
    await settled(page);
    const r = await api(`/task-clusters/search?q=refund&mode=${mode}`);
    assert.is(await page.locator('[data-search-mode]').textContent(), r.search_mode, mode);
    assert.equal(await attrs(page, '[data-list="matches"] [data-node]', 'data-node'), r.matches.map((m: any) => m.node_id), mode);
  }
  await page.selectOption('select[name="mode"]', 'fuzzy');
  await page.waitForURL(/q=refund&mode=fuzzy/);
  await page.close();
});

test('tool failures: totals, categories with family, cause and hint, tools; a tool page with its errors', async () => {
  const page = await open(member, '/tool-failures');
  const r = await api('/tool-failures?days_back=7');
  assert.is(await kpi(page, 'failures'), int(r.totals.failures));
  assert.is(await kpi(page, 'failure-rate'), pct(r.totals.failure_rate_pct));
  assert.is(await kpi(page, 'failed-conversations'), int(r.totals.conversations));
  assert.equal(await attrs(page, '[data-table="categories"] [data-category]', 'data-category'), r.categories.map((c: any) => c.category_id));
  assert.ok(r.categories.length > 0);
  for (const c of r.categories) {
    const row = page.locator(`[data-category="${c.category_id}"]`);
    const text = (await row.textContent()) ?? '';
    assert.ok(text.includes(c.label) && text.includes(c.family.replace(/_/g, ' ')) && text.includes(c.likely_cause) && text.includes(c.action_hint), text);
  }
  assert.equal(await attrs(page, '[data-table="tools"] [data-tool]', 'data-tool'), r.tools.map((t: any) => t.tool_name));
  await shot(page, 'tool-failures');
  await page.selectOption('select[name="family"]', r.by_family[0].family);
  await page.waitForURL(new RegExp(`family=${r.by_family[0].family}`));
  await settled(page);
  const fam = await api(`/tool-failures?days_back=7&family=${r.by_family[0].family}`);
  assert.equal(await attrs(page, '[data-table="categories"] [data-category]', 'data-category'), fam.categories.map((c: any) => c.category_id));
  await page.goto('/tool-failures');
  await settled(page);
  await page.locator('[data-tool="Bash"] a').click();
  await page.waitForURL(/\/tool-failures\/Bash/);
  await settled(page);
  const bash = await api('/tool-failures/Bash?days_back=7');
  assert.is(await kpi(page, 'failures'), int(bash.totals.failures));
  assert.equal((await attrs(page, '[data-table="errors"] [data-error-count]', 'data-error-count')).map(Number), bash.errors.map((e: any) => e.count));
  await shot(page, 'tool-failures-tool');
  await page.close();
});

test('member and admin keys: the role is shown; at phone width no page scrolls sideways', async () => {
  const m = await open(member, '/');
  assert.is(await m.locator('[data-role]').getAttribute('data-role'), 'member');
  await m.close();
  const a = await open(admin, '/');
  assert.is(await a.locator('[data-role]').getAttribute('data-role'), 'admin');
  await a.setViewportSize({ width: 390, height: 844 });
  await settled(a);
  await a.screenshot({ path: join(shots, 'overview-phone.png') });
  // wide tables scroll inside their box; the page itself never scrolls sideways on a phone
  for (const path of ['/', '/conversations', `/conversations/${CODING_ID}`, `/conversations/${encodeURIComponent(TAU_IDS[1]!)}`, '/use-cases', '/tool-failures', '/tool-failures/Bash', '/api']) {
    await a.goto(path);
    await settled(a);
    const overflow = await a.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `${path}: no horizontal scroll on a phone (${overflow} px)`);
  }
  await a.close();
});

test('a workspace without data: empty states with the copy-paste ingest command for this host', async () => {
  const key = (await ts.system.rt.keys.create({ tenant: 'empty-team', role: 'member', scopes: ['ingest', 'read'] })).key;
  const ctx = await contextWithKey(key);
  const host = new URL(ts.queryUrl).hostname;
  for (const path of ['/', '/conversations']) {
    const page = await open(ctx, path);
    const empty = page.locator('[data-empty]').first();
    assert.ok(await empty.isVisible(), path);
    const command = (await empty.locator('pre').textContent()) ?? '';
    assert.ok(command.includes(`http://${host}:`) && command.includes('/v1/ingest') && command.includes('Authorization: Bearer'), command);
    await page.close();
  }
  const uc = await open(ctx, '/use-cases');
  assert.match((await uc.locator('[data-empty]').first().textContent()) ?? '', /50 analyzed segments/);
  await ctx.close();
});

if (!chromiumPath) {
  console.log('[skip] dashboard browser suite: no Chromium found (looked at CHROMIUM_PATH and /usr/bin/chromium; `apt-get install chromium`)');
} else {
  test.run();
}
