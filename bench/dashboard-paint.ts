/**
 * First meaningful paint of the dashboard's overview: headless Chromium (playwright-core with the
 * system's Chromium) opens `/` with a key already in session storage, in a fresh browser context
 * per run (nothing cached), and the page records when the KPI values are first on screen
 * (a MutationObserver on `[data-kpi] [data-value]`, then the next animation frame). Also reported:
 * first contentful paint (the shell) and the `/overview` request's own duration (Resource Timing).
 *
 * The store: the bench workload's rows (messages, tool_calls, conversations — 1M events' worth by
 * default, the dataset of bench/query-scale.ts) bulk-loaded into DATA_DIR, which is kept so later
 * runs reuse it, with the tool-failure rollup rebuilt; only the query role runs (the rows are
 * stored, not re-analyzed), on the bench's own nats-server. The page reads workload tenant `t00`
 * (about 30% of the rows).
 *
 * Usage: npm run build && node dist/bench/dashboard-paint.js [--dir /tmp/paint-1m] [--events 1000000] [--runs 9] [--days 7]
 * Not asserted anywhere; docs/dashboard.md records the figures measured.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { chromium } from 'playwright-core';
import { loadConfig } from '../core/config.js';
import { createLogger } from '../core/log.js';
import { startManagedNats } from '../core/nats.js';
import type { Store } from '../core/clickhouse.js';
import { startSystem } from '../cli/system.js';
import { DEFAULT_CONVERSATION_OPTIONS, conversations, tenantName } from './workload/conversation.js';
import { conversationRows, type ConversationRows } from './workload/rows.js';
import { rebuildToolFailureRollup } from '../stream/analyze/tool-failures.js';
import { percentile } from './lib/stats.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const DAY = 86_400_000;
const SPAN = 10 * DAY;
const TABLES = ['messages', 'tool_calls', 'conversations'] as const;
const log = (s: string) => process.stderr.write(`[paint] ${s}\n`);

/** Loads the workload's rows up to `events` (≈31 events per conversation), once per data dir. */
async function load(store: Store, events: number) {
  const count = Math.round(events / 31);
  const have = Number((await store.query<{ n: string }>('SELECT count() AS n FROM {{db}}.conversations'))[0]?.n ?? 0);
  if (have >= count) return log(`store holds ${have} conversations: reused`);
  const opts = { ...DEFAULT_CONVERSATION_OPTIONS, seed: 49, startMs: Date.now() - SPAN, spacingMs: Math.max(1, Math.floor(SPAN / count)) };
  for (let from = have; from < count; from += 2000) {
    const rows: Pick<ConversationRows, (typeof TABLES)[number]> = { messages: [], tool_calls: [], conversations: [] };
    for (const c of conversations(opts, Math.min(2000, count - from), from)) {
      const r = conversationRows(c);
      for (const t of TABLES) for (const x of r[t]) rows[t].push(x);
    }
    for (const t of TABLES) for (let i = 0; i < rows[t].length; i += 50_000) await store.insert(t, rows[t].slice(i, i + 50_000));
    log(`loaded ${Math.min(count, from + 2000)}/${count} conversations`);
  }
  await rebuildToolFailureRollup(store);
  log('tool-failure rollup rebuilt');
}

const dir = arg('dir', '/tmp/tracehouse-paint-1m');
const events = Number(arg('events', '1000000'));
const runs = Number(arg('runs', '9'));
const days = arg('days', '7');
mkdirSync(dir, { recursive: true });
const nats = await startManagedNats({ storeDir: join(dir, 'nats-bench'), bin: process.env.NATS_SERVER_BIN || 'nats-server' });
const config = loadConfig({
  DATA_DIR: dir,
  NATS_URL: nats.url,
  QUERY_PORT: '0',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  TRACEHOUSE_SECRET: `paint-${randomBytes(8).toString('hex')}`,
  TRACEHOUSE_BOOTSTRAP_KEY: `paint-${randomBytes(12).toString('hex')}`,
});
const system = await startSystem(config, { roles: ['query'], log: createLogger(config.logLevel, {}, process.stderr) });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
try {
  await load(system.rt.store, events);
  const tenant = tenantName(0);
  const key = (await system.rt.keys.create({ tenant, role: 'member', scopes: ['read'], label: 'paint bench' })).key;
  const stored = (await system.rt.store.query<{ n: string }>('SELECT count() AS n FROM {{db}}.messages'))[0]?.n;
  log(`${stored} messages stored; query role at ${system.queryUrl}; tenant ${tenant}`);
  const samples: Array<{ fmp: number; fcp: number; overview: number; conversations: string }> = [];
  for (let i = 0; i < runs; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await ctx.addInitScript((k: string) => {
      sessionStorage.setItem('tracehouse.api-key', k);
      const w = window as unknown as { __fmp?: number };
      new MutationObserver((_, obs) => {
        if (w.__fmp === undefined && document.querySelector('[data-kpi="conversations"] [data-value]')) {
          obs.disconnect();
          requestAnimationFrame(() => (w.__fmp = performance.now()));
        }
      }).observe(document, { childList: true, subtree: true });
    }, key);
    const page = await ctx.newPage();
    await page.goto(`${system.queryUrl}/?days_back=${days}`);
    await page.waitForFunction(() => (window as unknown as { __fmp?: number }).__fmp !== undefined, undefined, { timeout: 60_000 });
    const m = await page.evaluate(() => {
      const overview = performance.getEntriesByType('resource').find((e) => e.name.includes('/api/v1/data/overview')) as PerformanceResourceTiming | undefined;
      return {
        fmp: (window as unknown as { __fmp: number }).__fmp,
        fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
        overview: overview ? overview.responseEnd - overview.startTime : NaN,
        conversations: document.querySelector('[data-kpi="conversations"] [data-value]')?.textContent ?? '',
      };
    });
    samples.push(m);
    log(`run ${i + 1}: first meaningful paint ${m.fmp.toFixed(0)} ms (FCP ${m.fcp.toFixed(0)} ms, /overview ${m.overview.toFixed(0)} ms), ${m.conversations} conversations`);
    await ctx.close();
  }
  const stat = (k: 'fmp' | 'fcp' | 'overview') => {
    const v = samples.slice(1).map((s) => s[k]);
    return { first: Math.round(samples[0]![k]), p50: Math.round(percentile(v, 50)), p90: Math.round(percentile(v, 90)), max: Math.round(Math.max(...v)) };
  };
  const result = { events, messages: Number(stored), tenant, days_back: Number(days), runs, first_meaningful_paint_ms: stat('fmp'), first_contentful_paint_ms: stat('fcp'), overview_request_ms: stat('overview') };
  console.log(JSON.stringify(result, null, 2));
} finally {
  await browser.close();
  await system.stop();
  await nats.stop();
}
