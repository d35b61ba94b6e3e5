import type { Store } from '../../core/clickhouse.js';
import { DEFAULT_CONVERSATION_OPTIONS, conversationAt, type ConversationOptions } from '../workload/conversation.js';
import { zipfWeights } from '../workload/rng.js';
import { TABLES, insertRows, rowsFor } from '../ceilings/clickhouse.js';
import { countRows, replicateTables, type ReplicateResult } from '../lib/replicate.js';
import { rebuildToolFailureRollup } from '../../stream/analyze/tool-failures.js';
import { measureReads, recordStatements, type ReadProfile } from '../lib/read-profile.js';
import { summarize, ratio, type LatencySummary } from '../lib/stats.js';
import type { BenchSystem } from '../lib/system.js';
import type { BenchOptions } from '../options.js';

/** Conversations whose rows are generated up front to estimate events per conversation. */
const PROBE_CONVERSATIONS = 1000;
const SPAN_MS = 10 * 86_400_000;

export interface DatasetResult {
  events: number;
  rows: number;
  conversations: number;
  load_seconds: number;
  load_events_per_s: number;
  /** Events generated and inserted through the client; the rest are in-engine copies. */
  generated_events?: number;
  generated_seconds?: number;
  generated_conversations?: number;
  /** Events already in the tables from earlier phases (ingested through the system). */
  ingested_events?: number;
  /** 1 = no copies (absent in results of older runs). */
  copies?: number;
  copy_tables?: ReplicateResult[];
  /** Rebuild of the tool-failure rollup from the loaded tool_calls (stream/analyze/tool-failures.ts). */
  rollup_seconds?: number;
}

/**
 * Loads the query dataset by bulk insert straight into the system's tables (events, messages,
 * tool_calls, conversations), derived from the generator: the same conversations the workload
 * sends, spread over the last 10 days; the rows follow bench/workload/rows.ts. Much faster than
 * ingesting them. Beyond `--generate` events (default 1M) the generated events are copied inside the
 * engine (lib/replicate.ts: new conversation ids, times interleaved) until the dataset has the
 * requested size — what makes 10M events load in minutes instead of an hour.
 */
export async function loadDataset(store: Store, o: BenchOptions, log: (s: string) => void): Promise<{ result: DatasetResult; opts: ConversationOptions }> {
  const target = o.events;
  const generated = Math.min(target, o.generateEvents);
  // events per conversation of this seed, from its first conversations (their sizes do not depend
  // on the spacing): sizes the dataset close to the request whatever the mix
  const probe = rowsFor({ ...DEFAULT_CONVERSATION_OPTIONS, seed: o.seed + 7, startMs: 0, spacingMs: 1 }, PROBE_CONVERSATIONS);
  const count = Math.max(1, Math.round(generated / (probe.events / PROBE_CONVERSATIONS)));
  const spacingMs = Math.max(1, Math.floor(SPAN_MS / count));
  const opts: ConversationOptions = { ...DEFAULT_CONVERSATION_OPTIONS, seed: o.seed + 7, startMs: Date.now() - SPAN_MS, spacingMs };
  const t0 = performance.now();
  let events = 0;
  const chunk = 2000;
  let loaded = 0;
  for (let from = 0; from < count && events < generated * 1.05; from += chunk) {
    const part = rowsFor(opts, Math.min(chunk, count - from), from);
    // as if each conversation had been stored when it happened: the stream role's reconcile sweep
    // then reads only what was inserted in its last minutes (by inserted_at), not the whole dataset
    for (const r of part.rows.events) r.inserted_at = r.receive_time;
    await insertRows(store.client, store.database, part.rows);
    events += part.events;
    loaded = Math.min(count, from + chunk);
    if ((from / chunk) % 25 === 0) log(`dataset: ${events} events loaded`);
  }
  const generatedSeconds = (performance.now() - t0) / 1000;
  // the tables also hold what earlier phases ingested (edge, end to end, freshness): the dataset is
  // everything in them, so sizes and copies are counted from the tables, not from the generator
  const present = await countRows(store, 'events', true);
  let copies = 1;
  let copied: ReplicateResult[] = [];
  if (target > present * 1.05) {
    copies = Math.round(target / present);
    copied = await replicateTables(store, TABLES, copies, spacingMs / copies, log);
  }
  // rows written straight into tool_calls: derive the tool-failure rollup the stream role would keep
  const r0 = performance.now();
  await rebuildToolFailureRollup(store);
  const rollupSeconds = Math.round((performance.now() - r0) / 100) / 10;
  log(`dataset: tool-failure rollup rebuilt in ${rollupSeconds} s`);
  const s = (performance.now() - t0) / 1000;
  const total = await countRows(store, 'events', true);
  const result: DatasetResult = {
    rollup_seconds: rollupSeconds,
    events: total,
    rows: (await Promise.all(TABLES.map((t) => countRows(store, t, true)))).reduce((a, b) => a + b, 0),
    conversations: await countRows(store, 'conversations', true),
    load_seconds: Math.round(s * 10) / 10,
    load_events_per_s: Math.round((total - present + events) / s),
    generated_events: events,
    generated_seconds: Math.round(generatedSeconds * 10) / 10,
    generated_conversations: loaded,
    ingested_events: present - events,
    copies,
    copy_tables: copied,
  };
  return { result, opts };
}

export interface EndpointRow {
  name: string;
  path: string;
  missing?: string;
  status?: number;
  api?: LatencySummary;
  bare?: LatencySummary;
  api_vs_bare_p99?: number;
  /** What the statements of one API request read (lib/read-profile.ts). */
  reads?: ReadProfile;
}

type Bare = (store: Store) => Promise<unknown>;

/** Endpoint paths of spec/data-api.md with parameters filled from the dataset, and their bare queries. */
function endpoints(ctx: { tenant: string; longId: string; shortId: string; userId: string }): Array<{ name: string; path: string; bare?: Bare }> {
  const p = { t: ctx.tenant };
  const q = (sql: string, extra: Record<string, unknown> = {}) => (s: Store) => s.query(sql, { ...p, ...extra });
  const listSql = (where: string) => `SELECT conversation_id, summary, message_count, first_ts, last_ts, environment FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String} ${where} ORDER BY last_ts DESC LIMIT 20`;
  const countSql = (where: string) => `SELECT count() AS n FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String} ${where}`;
  const both = (where: string, extra: Record<string, unknown> = {}): Bare => (s) => Promise.all([q(listSql(where), extra)(s), q(countSql(where), extra)(s)]);
  const context = (id: string): Bare => q(`SELECT role, content, tool_calls, tool_results, ts FROM {{db}}.messages FINAL WHERE tenant_id = {t:String} AND conversation_id = {id:String} ORDER BY ts, seq, message_id`, { id });
  const uuid = '00000000-0000-4000-8000-000000000000';
  return [
    { name: 'conversations', path: '/conversations', bare: both('') },
    { name: 'conversations?search', path: '/conversations?search=deploy', bare: q(`SELECT conversation_id, count() AS hits FROM {{db}}.messages WHERE tenant_id = {t:String} AND positionCaseInsensitive(content, 'deploy') > 0 GROUP BY conversation_id ORDER BY max(ts) DESC LIMIT 20`) },
    { name: 'conversations?user_id', path: `/conversations?user_id=${encodeURIComponent(ctx.userId)}`, bare: both('AND user_id = {u:String}', { u: ctx.userId }) },
    { name: 'conversations?time_range=24h', path: '/conversations?time_range=24h', bare: both('AND last_ts >= now64(3) - INTERVAL 1 DAY') },
    { name: 'context (long)', path: `/conversations/${encodeURIComponent(ctx.longId)}/context`, bare: context(ctx.longId) },
    { name: 'context (short)', path: `/conversations/${encodeURIComponent(ctx.shortId)}/context`, bare: context(ctx.shortId) },
    { name: 'step-scores', path: `/conversations/${encodeURIComponent(ctx.longId)}/step-scores` },
    { name: 'world-state', path: `/conversations/${encodeURIComponent(ctx.longId)}/world-state` },
    { name: 'world-state/replay', path: `/conversations/${encodeURIComponent(ctx.longId)}/world-state/replay` },
    { name: 'world-state/snapshot', path: `/conversations/${encodeURIComponent(ctx.longId)}/world-state/snapshot?msg_index=0&block_index=0` },
    {
      name: 'overview', path: '/overview',
      bare: (s) => Promise.all([
        q(`SELECT countIf(last_ts >= now64(3) - INTERVAL 7 DAY) AS cur, countIf(last_ts < now64(3) - INTERVAL 7 DAY AND last_ts >= now64(3) - INTERVAL 14 DAY) AS prev FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String}`)(s),
        q(`SELECT count() AS failures, uniqExact(conversation_id) AS convs, uniqExact(tool_name) AS tools FROM {{db}}.tool_calls WHERE tenant_id = {t:String} AND success = 0 AND ts >= toStartOfDay(now64(3), 'UTC') - INTERVAL 7 DAY`)(s),
        q(`SELECT conversation_id, summary, last_ts FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String} AND last_ts >= now64(3) - INTERVAL 7 DAY ORDER BY last_ts DESC LIMIT 10`)(s),
      ]),
    },
    { name: 'tool-failures', path: '/tool-failures', bare: q(`SELECT tool_name, count() AS calls, countIf(success = 0) AS failures FROM {{db}}.tool_calls WHERE tenant_id = {t:String} AND ts >= toStartOfDay(now64(3), 'UTC') - INTERVAL 7 DAY GROUP BY tool_name ORDER BY failures DESC, calls DESC LIMIT 50`) },
    { name: 'tool-failures/{tool}', path: '/tool-failures/Bash', bare: q(`SELECT toDate(ts) AS day, count() AS calls, countIf(success = 0) AS failures FROM {{db}}.tool_calls WHERE tenant_id = {t:String} AND tool_name = 'Bash' AND ts >= toStartOfDay(now64(3), 'UTC') - INTERVAL 7 DAY GROUP BY day ORDER BY day`) },
    // keyword mode against the bare keyword query; the default mode (hybrid: keyword and semantic
    // hits fused, when a taxonomy run exists) has no bare equivalent and is timed on its own row
    { name: 'search', path: '/search?q=deploy&mode=keyword', bare: q(`SELECT conversation_id, seq, substring(content, 1, 200) AS snippet FROM {{db}}.messages WHERE tenant_id = {t:String} AND hasToken(lower(content), 'deploy') ORDER BY ts DESC LIMIT 20`) },
    { name: 'search (relevance)', path: '/search?q=deploy&mode=keyword&sort=relevance', bare: q(`SELECT conversation_id, seq, arrayCount(w -> w = 'deploy', tokens(lower(content), 'splitByNonAlpha')) AS score, substring(content, 1, 200) AS snippet FROM {{db}}.messages WHERE tenant_id = {t:String} AND hasToken(lower(content), 'deploy') ORDER BY score DESC, ts DESC LIMIT 20`) },
    { name: 'search (hybrid, the default)', path: '/search?q=deploy' },
    { name: 'clusters', path: '/clusters' },
    { name: 'clusters/{id}/conversations', path: '/clusters/none/conversations' },
    { name: 'task-clusters/search', path: '/task-clusters/search?q=deploy' },
    { name: 'problems', path: '/problems' },
    { name: 'problems/{id}', path: `/problems/${uuid}` },
    { name: 'problems/{id}/reports', path: `/problems/${uuid}/reports` },
    { name: 'problems/{id}/conversations', path: `/problems/${uuid}/conversations` },
    { name: 'problems/{id}/evidence', path: `/problems/${uuid}/evidence` },
    { name: 'problems/{id}/feedback', path: `/problems/${uuid}/feedback` },
  ];
}

/** n timed calls after 3 warm-ups; stops early (at ≥ 5 samples) once `budgetMs` is spent. */
async function timeIt(n: number, fn: () => Promise<unknown>, budgetMs: number): Promise<LatencySummary> {
  for (let i = 0; i < Math.min(3, n); i++) await fn(); // warm-up
  const samples: number[] = [];
  const until = performance.now() + budgetMs;
  for (let i = 0; i < n; i++) {
    if (i >= 5 && performance.now() > until) break;
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return summarize(samples);
}

/** p50/p95/p99 of every data API endpoint (sequential requests, one client) beside its bare query. */
export async function measureQueries(sys: BenchSystem, o: BenchOptions, opts: ConversationOptions, conversationsLoaded: number, log: (s: string) => void): Promise<EndpointRow[]> {
  const budgetMs = o.quick ? 2000 : 20_000;
  // a long and a short conversation of tenant t00 from the loaded range
  let longId = '';
  let shortId = '';
  let userId = '';
  let best = 0;
  const weights = zipfWeights(opts.tenants, opts.tenantSkew);
  for (let i = 0; i < Math.min(conversationsLoaded, 3000); i++) {
    const c = conversationAt(opts, i, weights);
    if (c.tenant !== 't00') continue;
    userId ||= c.userId;
    if (c.messages.length > best) [best, longId] = [c.messages.length, c.id];
    if (!shortId && c.messages.length <= 4) shortId = c.id;
  }
  const key = sys.keys.t00!;
  const rows: EndpointRow[] = [];
  for (const e of endpoints({ tenant: 't00', longId, shortId: shortId || longId, userId })) {
    const url = `${sys.queryUrl}/api/v1/data${e.path}`;
    const get = async () => {
      try {
        const r = await fetch(url, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(30_000) });
        await r.arrayBuffer();
        return r.status;
      } catch {
        return 0; // timed out: the sample counts as the time spent
      }
    };
    let status = 0;
    const statements = sys.queryUrl ? await recordStatements(sys.system.rt.store, async () => (status = await get())) : [];
    const row: EndpointRow = { name: e.name, path: e.path, status };
    if (status === 404 || status === 405 || status === 501 || status === 0) {
      row.missing = `n/a (not implemented: ${status || 'no answer'})`;
    } else {
      row.api = await timeIt(o.queryRequests, get, budgetMs);
      row.reads = await measureReads(sys.system.rt.store, statements);
      if (e.bare) {
        row.bare = await timeIt(o.queryRequests, () => e.bare!(sys.system.rt.store), budgetMs);
        row.api_vs_bare_p99 = ratio(row.api.p99_ms, row.bare.p99_ms);
      }
    }
    log(`query ${e.name}: ${row.missing ?? `p99 ${row.api!.p99_ms} ms (${row.api!.count} requests), bare p99 ${row.bare?.p99_ms ?? 'n/a'} ms`}`);
    rows.push(row);
  }
  return rows;
}
