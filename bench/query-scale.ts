/**
 * How the data API's reads scale with the dataset, without HTTP or a running system: bulk-loads
 * the bench workload's rows (messages, tool_calls, conversations — the data API never reads
 * `events`) into an embedded store at DATA_DIR (kept, so larger runs can reuse it), then times
 * interleaved, in one process: the query repos as the API runs them ("after"), the bench's bare
 * queries ("bare") and, with --before <commit>, that commit's single-query SQL ("before").
 * Usage: node dist/bench/query-scale.js --dir /tmp/qs-1m --events 1000000 [--copies 10] [--runs 15] [--before c4885f1] [--rebuild] [--only a,b]
 * (--copies copies the loaded rows inside the engine, as the bench's query phase does above 1M events;
 * --only runs the named cases)
 * (--rebuild times rebuildToolFailureRollup over the loaded dataset before the rounds)
 */
import { execFileSync } from 'node:child_process';
import { loadConfig } from '../core/config.js';
import { createStore, namedQuery, type Store } from '../core/clickhouse.js';
import { migrate } from '../core/migrations.js';
import { DEFAULT_CONVERSATION_OPTIONS, conversations } from './workload/conversation.js';
import { conversationRows, type ConversationRows } from './workload/rows.js';
import { createContextRepo } from '../query/repo/context.js';
import { createSearchRepo } from '../query/repo/search.js';
import { createToolFailuresRepo } from '../query/repo/tool-failures.js';
import { createOverviewRepo } from '../query/repo/overview.js';
import { rebuildToolFailureRollup } from '../stream/analyze/tool-failures.js';
import { daysBackStartDayMs } from '../query/time.js';
import { createConversationsRepo } from '../query/repo/conversations.js';
import { replicateTables } from './lib/replicate.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const DAY = 86_400_000;
const SPAN = 10 * DAY;
const TABLES = ['messages', 'tool_calls', 'conversations'] as const;

async function load(store: Store, events: number, log: (s: string) => void) {
  const count = Math.round(events / 31);
  const have = Number((await store.query<{ n: string }>('SELECT count() AS n FROM {{db}}.conversations'))[0]?.n ?? 0);
  if (have >= count) return;
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
  await rollup(store, log);
}

/** Copies the loaded rows inside the engine until the dataset holds `copies` times them (once). */
async function copy(store: Store, copies: number, log: (s: string) => void) {
  const done = Number((await store.query<{ n: string }>("SELECT count() AS n FROM {{db}}.conversations WHERE conversation_id LIKE '%~r%'"))[0]?.n ?? 0);
  if (copies < 2 || done > 0) return;
  const count = Number((await store.query<{ n: string }>('SELECT count() AS n FROM {{db}}.conversations'))[0]?.n ?? 1);
  await replicateTables(store, TABLES, copies, Math.floor(SPAN / count) / copies, log);
  await rollup(store, log);
}

async function rollup(store: Store, log: (s: string) => void) {
  // rows went straight into tool_calls: fill the tool-failure rollup the stream role would have written
  const t0 = performance.now();
  await rebuildToolFailureRollup(store);
  log(`tool-failure rollup rebuilt in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

type Fn = () => Promise<unknown>;

function cases(store: Store, longId: string, before: ((name: string) => string) | undefined) {
  const t = 't00';
  const now = Date.now();
  const ctx = createContextRepo(store), search = createSearchRepo(store), tf = createToolFailuresRepo(store), ov = createOverviewRepo(store);
  const q = (sql: string, p: Record<string, unknown> = {}): Fn => () => store.query(sql, { t, ...p });
  const old = (name: string, p: Record<string, unknown>): Fn => () => store.query(before!(name), p);
  const has = (name: string) => {
    try {
      return !!before?.(name);
    } catch {
      return false;
    }
  };
  const since = now - 7 * DAY;
  const toolSince = daysBackStartDayMs(7, now);
  const conv = createConversationsRepo(store);
  const listFilter = { tenant: t, environment: 'all', userId: '', sinceMs: 0, search: '' };
  const listSql = (where: string) => `SELECT conversation_id, summary, message_count, first_ts, last_ts, environment FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String} ${where} ORDER BY last_ts DESC LIMIT 20`;
  const countSql = (where: string) => `SELECT count() AS n FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String} ${where}`;
  const out: Record<string, { after: Fn; bare: Fn; before?: Fn }> = {
    conversations: {
      after: () => conv.list(listFilter, 21, 0),
      bare: () => Promise.all([q(listSql(''))(), q(countSql(''))()]),
    },
    'conversations?search': {
      after: () => conv.list({ ...listFilter, search: 'deploy' }, 21, 0),
      bare: q("SELECT conversation_id, count() AS hits FROM {{db}}.messages WHERE tenant_id = {t:String} AND positionCaseInsensitive(content, 'deploy') > 0 GROUP BY conversation_id ORDER BY max(ts) DESC LIMIT 20"),
    },
    context: {
      after: () => ctx.window(t, longId, undefined, 2),
      bare: q('SELECT role, content, tool_calls, tool_results, ts FROM {{db}}.messages FINAL WHERE tenant_id = {t:String} AND conversation_id = {id:String} ORDER BY ts, seq, message_id', { id: longId }),
      before: has('query-context-window') ? () => Promise.all([old('query-context-window', { tenant: t, id: longId, has_index: 0, msg_index: 0, window: 2 })(), store.query(namedQuery('query-conversation-summary'), { tenant: t, id: longId })]) : undefined,
    },
    'tool-failures': {
      after: () => tf.stats({ tenant: t, environment: 'all', sinceMs: since, tool: '' }),
      bare: q('SELECT tool_name, count() AS calls, countIf(success = 0) AS failures FROM {{db}}.tool_calls WHERE tenant_id = {t:String} AND ts >= toStartOfDay(now64(3, \'UTC\') - INTERVAL 7 DAY) GROUP BY tool_name ORDER BY failures DESC, calls DESC LIMIT 50'),
      before: before && old('query-tool-failures-stats', { tenant: t, environment: 'all', since_ms: since, tool: '' }),
    },
    'tool-failures/Bash': {
      after: () => tf.detail({ tenant: t, environment: 'all', sinceMs: since, tool: 'Bash', limit: 10 }),
      bare: q("SELECT toDate(ts) AS day, count() AS calls, countIf(success = 0) AS failures FROM {{db}}.tool_calls WHERE tenant_id = {t:String} AND tool_name = 'Bash' AND ts >= toStartOfDay(now64(3, 'UTC') - INTERVAL 7 DAY) GROUP BY day ORDER BY day"),
      before: before && (() => Promise.all([
        old('query-tool-failures-stats', { tenant: t, environment: 'all', since_ms: since, tool: 'Bash' })(),
        old('query-tool-failures-errors', { tenant: t, environment: 'all', since_ms: since, tool: 'Bash', limit: 10 })(),
      ])),
    },
    overview: {
      after: () => ov.read({ tenant: t, environment: 'all', currentMs: since, previousMs: now - 14 * DAY, toolSinceMs: toolSince, recentSinceMs: since, recentLimit: 10 }),
      bare: () => Promise.all([
        q('SELECT countIf(last_ts >= now64(3) - INTERVAL 7 DAY) AS cur, countIf(last_ts < now64(3) - INTERVAL 7 DAY AND last_ts >= now64(3) - INTERVAL 14 DAY) AS prev FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String}')(),
        q('SELECT count() AS failures, uniqExact(conversation_id) AS convs, uniqExact(tool_name) AS tools FROM {{db}}.tool_calls WHERE tenant_id = {t:String} AND success = 0 AND ts >= toStartOfDay(now64(3, \'UTC\') - INTERVAL 7 DAY)')(),
        q('SELECT conversation_id, summary, last_ts FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String} AND last_ts >= now64(3) - INTERVAL 7 DAY ORDER BY last_ts DESC LIMIT 10')(),
      ]),
      before: before && (() => Promise.all([old('query-overview-kpis', { tenant: t, environment: 'all', current_ms: since, previous_ms: now - 14 * DAY })(), store.query(namedQuery('query-overview-recent'), { tenant: t, environment: 'all', since_ms: since, limit: 10 })])),
    },
    search: {
      after: () => search.keyword({ tenant: t, q: 'deploy', limit: 21, conversationId: '', userId: '', environment: 'all', sinceMs: 0, sort: 'recent' }),
      bare: q("SELECT conversation_id, seq, substring(content, 1, 200) AS snippet FROM {{db}}.messages WHERE tenant_id = {t:String} AND hasToken(lower(content), 'deploy') ORDER BY ts DESC LIMIT 20"),
      before: before && old('query-search-messages', { tenant: t, q: 'deploy', conversation_id: '', user_id: '', environment: 'all', since_ms: 0, limit: 21 }),
    },
    'search (relevance)': {
      after: () => search.keyword({ tenant: t, q: 'deploy', limit: 21, conversationId: '', userId: '', environment: 'all', sinceMs: 0, sort: 'relevance' }),
      bare: q("SELECT conversation_id, seq, countSubstrings(lower(content), 'deploy') AS score, substring(content, 1, 200) AS snippet FROM {{db}}.messages WHERE tenant_id = {t:String} AND hasToken(lower(content), 'deploy') ORDER BY score DESC, ts DESC LIMIT 20"),
      before: before && old('query-search-messages', { tenant: t, q: 'deploy', conversation_id: '', user_id: '', environment: 'all', since_ms: 0, limit: 21 }),
    },
  };
  return out;
}

const pct = (a: number[], p: number) => a[Math.min(a.length - 1, Math.max(0, Math.ceil(p * a.length) - 1))]!;

async function main() {
  const dir = arg('dir', '/tmp/th-query-scale');
  const runs = Number(arg('runs', '15'));
  const commit = arg('before', '');
  const log = (s: string) => process.stderr.write(`[query-scale] ${s}\n`);
  const store = createStore(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }));
  try {
    await migrate(store);
    await load(store, Number(arg('events', '1000000')), log);
    await copy(store, Number(arg('copies', '1')), log);
    if (process.argv.includes('--rebuild')) {
      const t0 = performance.now();
      await rebuildToolFailureRollup(store);
      log(`tool-failure rollup rebuilt in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    // a query file missing at that commit (renamed since) leaves that case without "before"
    const before = commit
      ? (name: string) => execFileSync('git', ['show', `${commit}:sql/queries/${name}.sql`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      : undefined;
    const long = await store.query<{ conversation_id: string }>("SELECT conversation_id, count() AS n FROM {{db}}.messages WHERE tenant_id = 't00' GROUP BY conversation_id ORDER BY n DESC, conversation_id LIMIT 1");
    const sizes = await store.query('SELECT table, sum(rows) AS rows FROM system.parts WHERE database = {db:String} AND active GROUP BY table ORDER BY table', { db: store.database });
    console.log(`dataset ${JSON.stringify(sizes)}; ${runs} rounds after 2 warm-ups; p50 / p90 / max ms`);
    const only = arg('only', '').split(',').filter(Boolean);
    for (const [name, c] of Object.entries(cases(store, long[0]?.conversation_id ?? '', before)).filter(([n]) => only.length === 0 || only.includes(n))) {
      const variants = Object.entries(c).filter((e): e is [string, Fn] => typeof e[1] === 'function');
      const samples = new Map(variants.map(([k]) => [k, [] as number[]]));
      for (const [, fn] of variants) for (let i = 0; i < 2; i++) await fn();
      for (let i = 0; i < runs; i++) {
        for (const [k, fn] of variants) {
          const t0 = performance.now();
          await fn();
          samples.get(k)!.push(performance.now() - t0);
        }
      }
      for (const [k, a] of samples) {
        a.sort((x, y) => x - y);
        console.log(`${name.padEnd(14)} ${k.padEnd(7)} ${pct(a, 0.5).toFixed(1)} / ${pct(a, 0.9).toFixed(1)} / ${a[a.length - 1]!.toFixed(1)}`);
      }
    }
  } finally {
    await store.close();
  }
}

await main();
