/**
 * The use-case taxonomy through the real system: conversations posted to /v1/ingest, analyzed by
 * the stream role (segment goal texts), the first taxonomy built by the leased `taxonomy` job once
 * 50 segments exist, then every taxonomy endpoint of the data API — with tenant isolation, the
 * search modes and their fallback, new segments held aside and grouped at the next rebuild with
 * the ids of unchanged clusters kept, and reads during a rebuild that see the previous run.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Ajv } from 'ajv';
import { ENDPOINTS } from '../../../schemas/api/index.js';
import { taxonomyJob, rebuild } from '../../../stream/jobs/taxonomy.js';
import { createTaxonomyStore } from '../../../stream/jobs/taxonomy-store.js';
import type { TenantJobContext } from '../../../stream/analyze/scheduler.js';
import { namedQuery, type Store } from '../../../core/clickhouse.js';
import { eventually, startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';

let ts: TestSystem;
let otherKey: string;
const OTHER = 'acme';

const ajv = new Ajv({ strict: false, allErrors: true });
const validators = ENDPOINTS.map((e) => ({ re: new RegExp(`^${e.path.replace(/\{\w+\}/g, '[^/]+')}$`), method: e.method, validate: ajv.compile(e.response) }));
const get = async (path: string, key = ts.adminKey) => {
  const r = await http(`${ts.queryUrl}/api/v1/data${path}`, { headers: { 'x-api-key': key } });
  if (r.status === 200) {
    const v = validators.find((x) => x.method === 'get' && x.re.test(path.split('?')[0]!));
    assert.ok(v, `no schema for ${path}`);
    assert.ok(v.validate(r.body), `${path} does not match its response schema: ${JSON.stringify(v.validate.errors)}`);
  }
  return r;
};

// four use cases, fifteen conversations each, each request a different mix of wordings
const OPENERS = ['Hi,', 'Hello there.', 'Good morning!', 'Hey,'];
const TOPICS: Record<string, { core: string[]; detail: string[] }> = {
  refund: {
    core: ['I want a refund for order {n}', 'please refund my order {n}', 'can you refund order {n} and give my money back'],
    detail: ['the package arrived damaged.', 'the item was broken on arrival.', 'it came damaged in the box.', 'the parcel was crushed.', 'the screen was cracked when it arrived.'],
  },
  password: {
    core: ['I need to reset my password for account {n}', 'please reset the password of account {n}', 'help me reset my account password ({n})'],
    detail: ['I am locked out.', 'the login keeps failing.', 'I forgot it and cannot log in.', 'the reset email never arrives.', 'it says my credentials are wrong.'],
  },
  flight: {
    core: ['I want to book a flight from Boston to Denver on May {n}', 'please book a flight to Denver from Boston for May {n}', 'can you book me a one-way flight Boston to Denver, May {n}'],
    detail: ['economy is fine.', 'a window seat if possible.', 'morning departure preferred.', 'I have one checked bag.', 'the cheapest fare please.'],
  },
  tests: {
    core: ['fix the failing unit tests in the parser module, build {n}', 'please fix the failing tests of the parser, CI run {n}', 'the parser unit tests are failing since commit {n}, can you fix them'],
    detail: ['the tokenizer assertions break.', 'it started after the refactor.', 'two snapshot tests differ.', 'the CI log shows a null pointer.', 'locally they pass but not in CI.'],
  },
};
const NEW_TOPIC = {
  core: ['translate the user manual into Spanish for edition {n}', 'please translate our user manual to Spanish, version {n}', 'can you translate the manual into Spanish for release {n}'],
  detail: ['keep the screenshots.', 'the glossary is attached.', 'use formal Spanish.', 'the deadline is Friday.', 'chapter two changed.'],
};
const request = (t: { core: string[]; detail: string[] }, i: number, n: number) => `${OPENERS[i % 4]} ${t.core[i % 3]!.replace('{n}', String(n))}, ${t.detail[i % 5]}`;

function conversation(id: string, request: string, at: number) {
  return [
    { conversation_id: id, role: 'user', message: request, timestamp: new Date(at).toISOString() },
    { conversation_id: id, role: 'assistant', message: 'Sure, I will take care of that right away.', timestamp: new Date(at + 1000).toISOString() },
  ];
}

async function post(events: unknown[], key = ts.adminKey) {
  const r = await http(`${ts.ingestUrl}/v1/ingest`, { headers: { authorization: `Bearer ${key}` }, body: { events } });
  assert.ok(r.status >= 200 && r.status < 300, r.text);
}

const segmentTexts = async (tenant: string) =>
  Number((await ts.system.rt.store.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.segment_texts FINAL WHERE tenant_id = {t:String} AND text != ''`, { t: tenant }))[0]!.n);

/** Leaf id → category id, read through /clusters. */
async function leafParents(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const c of (await get('/clusters')).body.clusters) for (const leaf of (await get(`/clusters?parent_id=${c.node_id}`)).body.clusters) out.set(leaf.node_id, c.node_id);
  return out;
}

const tstore = () => createTaxonomyStore(ts.system.rt.store);
const never = new AbortController().signal;

/**
 * The taxonomy job, held until every posted conversation has its segment: the job builds the first
 * taxonomy as soon as 50 segments exist, so left to itself it could start with 59 of the 60.
 */
let jobOpen = false;
const job = taxonomyJob();
const heldJob = { ...job, run: (...a: Parameters<typeof job.run>) => (jobOpen ? job.run(...a) : Promise.resolve()) };

test.before(async () => {
  ts = await startTestSystem({ env: { JOB_INTERVAL_MS: '400' }, stream: { tenantJobs: [heldJob] } });
  otherKey = (await ts.system.rt.keys.create({ tenant: OTHER, role: 'member', scopes: ['ingest', 'read'] })).key;
  const t0 = Date.now() - 3_600_000;
  const events: unknown[] = [];
  let k = 0;
  for (const [topic, t] of Object.entries(TOPICS)) {
    for (let i = 0; i < 15; i++) events.push(...conversation(`${topic}-${i}`, request(t, i, 1000 + i * 7), t0 + k++ * 10_000));
  }
  await post(events);
  // the other tenant: a few conversations, fewer than the 50 segments a taxonomy needs
  await post(Array.from({ length: 5 }, (_, i) => conversation(`acme-${i}`, request(TOPICS.refund!, i, i), t0 + i * 1000)).flat(), otherKey);
  const all = await eventually(async () => ((await segmentTexts('default')) === 60 ? true : undefined), { timeoutMs: 60_000, intervalMs: 200 });
  assert.ok(all, `every conversation has its segment (segments: ${await segmentTexts('default')})`);
  jobOpen = true;
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

test('the leased job builds the first taxonomy once 50 segments exist; the other tenant has none', async () => {
  const r = await eventually(async () => {
    const x = await get('/clusters');
    return x.body.cluster_run ? x : undefined;
  }, { timeoutMs: 60_000, intervalMs: 300 });
  assert.ok(r, `a run exists (segments: ${await segmentTexts('default')})`);
  assert.is(r!.body.cluster_run.num_segments, 60);
  assert.ok(r!.body.cluster_run.num_clusters >= 4, JSON.stringify(r!.body.clusters));
  assert.is(r!.body.breadcrumb.length, 0);
  assert.ok(r!.body.clusters.every((c: any) => c.depth === 0 && c.node_type === 'category' && c.has_children));
  assert.is(r!.body.meta.total_clusters, r!.body.clusters.length);
  // every topic is one category, and every cluster (cluster_id on the list rows) holds one topic
  const parentOf = await leafParents();
  const list = await get('/conversations?limit=100');
  const categories = new Map<string, Set<string>>();
  const topics = new Map<string, Set<string>>();
  for (const c of list.body.conversations) {
    assert.type(c.cluster_id, 'string', `${c.conversation_id} has a cluster`);
    assert.type(c.cluster_name, 'string');
    const topic = c.conversation_id.split('-')[0];
    categories.set(topic, (categories.get(topic) ?? new Set()).add(parentOf.get(c.cluster_id)!));
    topics.set(c.cluster_id, (topics.get(c.cluster_id) ?? new Set()).add(topic));
  }
  for (const [topic, ids] of categories) assert.is(ids.size, 1, `${topic} in one category`);
  assert.is(new Set([...categories.values()].map((s) => [...s][0])).size, 4, 'four distinct categories');
  for (const [leaf, t] of topics) assert.is(t.size, 1, `cluster ${leaf} holds one topic`);
  const other = await get('/clusters', otherKey);
  assert.equal(other.body, { cluster_run: null, breadcrumb: [], clusters: [], meta: { total_clusters: 0, total_segments: 0 } });
});

test('a job tick of a built run reads neither its model nor, within the minimum interval, the rebuild counts', async () => {
  const statements: string[] = [];
  const store = ts.system.rt.store;
  const counting: Store = new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (prop !== 'query' || typeof v !== 'function') return v;
      return (sql: string, ...rest: unknown[]) => {
        statements.push(sql);
        return (v as (...a: unknown[]) => unknown).call(target, sql, ...rest);
      };
    },
  });
  const ctx = { store: counting, log: ts.system.rt.log, signal: never } as unknown as TenantJobContext;
  // the first tick may load the run (the leased job's own ticks normally have); the second finds it in memory
  await job.run(ctx, 'default');
  statements.length = 0;
  await job.run(ctx, 'default');
  assert.ok(statements.includes(namedQuery('taxonomy-current-run')), `the tick reads the current run: ${statements.join('\n---\n')}`);
  for (const table of ['cluster_models', 'cluster_nodes']) assert.not.ok(statements.some((s) => s.includes(`{{db}}.${table} `)), `${table} is not read again`);
  assert.not.ok(statements.some((s) => /count\(\) AS n FROM \{\{db\}\}\.segment_texts/.test(s)), 'segments are not counted within the minimum interval');
  assert.not.ok(statements.some((s) => s.includes(namedQuery('stream-taxonomy-incremental'))), 'assignment statistics are not read within the minimum interval');
});

test('children, breadcrumb, cluster conversations and the cluster_id filter agree; unknown node → cluster null', async () => {
  const root = await get('/clusters');
  const category = root.body.clusters[0];
  const children = await get(`/clusters?parent_id=${category.node_id}`);
  assert.equal(children.body.breadcrumb, [{ node_id: category.node_id, label: category.label }]);
  assert.ok(children.body.clusters.length >= 1);
  const leaf = children.body.clusters[0];
  assert.is(leaf.depth, 1);
  assert.is(leaf.has_children, false);
  const conv = await get(`/clusters/${leaf.node_id}/conversations?limit=100`);
  assert.is(conv.body.cluster.node_id, leaf.node_id);
  assert.is(conv.body.cluster.segment_count, leaf.segment_count);
  assert.is(conv.body.pagination.total, leaf.segment_count);
  const filtered = await get(`/conversations?cluster_id=${leaf.node_id}&limit=100`);
  assert.equal(filtered.body.conversations.map((c: any) => c.conversation_id).sort(), conv.body.conversations.map((c: any) => c.conversation_id).sort());
  assert.ok(filtered.body.conversations.every((c: any) => c.cluster_id === leaf.node_id && c.cluster_name === leaf.label));
  const page = await get(`/clusters/${leaf.node_id}/conversations?limit=2&offset=1`);
  assert.equal(page.body.pagination, { limit: 2, offset: 1, total: leaf.segment_count, has_more: leaf.segment_count > 3 });
  assert.equal(await get('/clusters/no-such-node/conversations').then((r) => r.body), { cluster: null, conversations: [], pagination: { limit: 10, offset: 0, total: 0, has_more: false } });
  // another tenant cannot reach this tenant's node
  assert.is((await get(`/clusters/${leaf.node_id}/conversations`, otherKey)).body.cluster, null);
  assert.is((await get(`/conversations?cluster_id=${leaf.node_id}`, otherKey)).body.pagination.total, 0);
  const unknownParent = await get('/clusters?parent_id=nope');
  assert.equal([unknownParent.body.clusters, unknownParent.body.breadcrumb], [[], []]);
});

test('overview lists the largest clusters, at most 10', async () => {
  const r = await get('/overview?days_back=7');
  assert.ok(r.body.top_clusters.length >= 4 && r.body.top_clusters.length <= 10);
  const sizes = r.body.top_clusters.map((c: any) => c.segment_count);
  assert.equal(sizes, [...sizes].sort((a: number, b: number) => b - a));
  assert.is((await get('/overview', otherKey)).body.top_clusters.length, 0);
  // every conversation is from the last hour: the previous window is empty, so the trend is 0
  for (const days of [1, 7]) assert.equal((await get(`/overview?days_back=${days}`)).body.conversations, { total: 60, trend_pct: 0 }, `days_back ${days}`);
});

test('GET /clusters: time_range has no effect once a taxonomy exists', async () => {
  const root = (await get('/clusters')).body;
  const parent = root.clusters[0].node_id;
  const children = (await get(`/clusters?parent_id=${parent}`)).body;
  // the oldest conversations are more than an hour old: a filter on 1h would drop their segments
  for (const range of ['1h', '24h', 'all']) {
    assert.equal((await get(`/clusters?time_range=${range}`)).body, root, range);
    assert.equal((await get(`/clusters?parent_id=${parent}&time_range=${range}`)).body, children, `${range}, children`);
  }
});

test('task-cluster search: hybrid by default, fuzzy and semantic, fallback to fuzzy, node_id lookup', async () => {
  const hybrid = await get('/task-clusters/search?q=refund%20damaged%20order');
  assert.is(hybrid.body.search_mode, 'hybrid');
  const top = hybrid.body.matches[0];
  assert.match(top.label.toLowerCase() + ' ' + top.keywords.join(' '), /refund/);
  assert.type(top.similarity, 'number');
  const fuzzy = await get('/task-clusters/search?q=refnd&mode=fuzzy');
  assert.is(fuzzy.body.search_mode, 'fuzzy');
  assert.ok(fuzzy.body.matches.length >= 1, 'a misspelling still matches');
  assert.ok(fuzzy.body.matches.every((m: any) => m.similarity === undefined));
  const semantic = await get('/task-clusters/search?q=money%20back%20for%20a%20broken%20parcel&mode=semantic');
  assert.is(semantic.body.search_mode, 'semantic');
  assert.match(semantic.body.matches[0].keywords.join(' '), /refund|damaged|broken/);
  // no word of the query in the vocabulary: semantic is unavailable, fuzzy ran
  const fallback = await get('/task-clusters/search?q=zzqx%20wvvy&mode=semantic');
  assert.is(fallback.body.search_mode, 'fuzzy');
  const lookup = await get(`/task-clusters/search?node_id=${top.node_id}`);
  assert.is(lookup.body.matches.length, 1);
  // an exact lookup computes no vector: it reports the mode without vectors, whatever mode asked
  assert.is(lookup.body.search_mode, 'fuzzy');
  assert.is(lookup.body.matches[0].similarity, undefined);
  assert.is((await get(`/task-clusters/search?node_id=${top.node_id}&q=refund&mode=semantic`)).body.search_mode, 'fuzzy');
  assert.is(lookup.body.matches[0].node_id, top.node_id);
  assert.is(lookup.body.matches[0].ancestor_path.length, top.depth);
  assert.is(lookup.body.matches[0].path_truncated, false);
  assert.is((await get('/task-clusters/search')).status, 400);
  assert.is((await get('/task-clusters/search?q=a')).status, 400);
  assert.is((await get('/task-clusters/search?q=ab&mode=keyword')).status, 400);
  assert.is((await get('/task-clusters/search?q=refund&limit=99')).body.matches.length <= 50, true);
  const other = await get('/task-clusters/search?q=refund', otherKey);
  assert.equal([other.body.clusterRunId, other.body.matches, other.body.search_mode], [null, [], 'fuzzy'], 'no taxonomy run: semantic unavailable, fuzzy ran');
  assert.is((await get('/task-clusters/search?q=refund&mode=semantic', otherKey)).body.search_mode, 'fuzzy');
});

test('conversation search is hybrid when search is the only filter; anchor search has three modes', async () => {
  const hybrid = await get('/conversations?search=refund%20broken&limit=20');
  assert.is(hybrid.body.search_mode, 'hybrid');
  assert.ok(hybrid.body.conversations.length > 0);
  assert.ok(hybrid.body.conversations.slice(0, 5).every((c: any) => c.conversation_id.startsWith('refund-')), JSON.stringify(hybrid.body.conversations.map((c: any) => c.conversation_id)));
  const keyword = await get('/conversations?search=refund%20broken&environment=production');
  assert.is(keyword.body.search_mode, 'keyword');
  // hybrid total is the size of the fused candidate pool: keyword matches plus semantic neighbours
  const exact = await get('/conversations?search=refund%20broken&time_range=90d&limit=100');
  assert.is(exact.body.search_mode, 'keyword');
  assert.is(exact.body.pagination.total, exact.body.conversations.length);
  const pool = await get('/conversations?search=refund%20broken&limit=100');
  assert.is(pool.body.search_mode, 'hybrid');
  const ids = pool.body.conversations.map((c: any) => c.conversation_id);
  assert.is(pool.body.pagination.total, ids.length, 'the whole pool is listed');
  assert.ok(exact.body.conversations.every((c: any) => ids.includes(c.conversation_id)), 'keyword matches are in the pool');
  assert.ok(pool.body.pagination.total > exact.body.pagination.total, `pool ${pool.body.pagination.total} vs exact ${exact.body.pagination.total}`);
  const first = await get('/conversations?search=refund%20broken&limit=2');
  assert.equal([first.body.pagination.total, first.body.pagination.has_more, first.body.conversations.length], [ids.length, true, 2]);
  const semantic = await get('/search?q=money%20back%20damaged%20parcel&mode=semantic&limit=5');
  assert.is(semantic.body.search_mode, 'semantic');
  assert.ok(semantic.body.hits.length > 0 && semantic.body.hits.every((h: any) => h.conversation_id.startsWith('refund-') && h.message_index === 0), JSON.stringify(semantic.body.hits));
  const both = await get('/search?q=reset%20password&limit=5');
  assert.is(both.body.search_mode, 'hybrid');
  assert.ok(both.body.hits.every((h: any) => h.conversation_id.startsWith('password-')));
  const other = await get('/search?q=refund&mode=semantic', otherKey);
  assert.is(other.body.search_mode, 'keyword', 'no taxonomy for the other tenant: keyword served');
  assert.ok(other.body.hits.every((h: any) => h.conversation_id.startsWith('acme-')));
});

test('new segments of a new use case are held aside, then become a node at the next rebuild; unchanged clusters keep their ids; reads during the rebuild see the previous run', async () => {
  const before = await get('/clusters');
  const run1 = before.body.cluster_run.id;
  const leaves1 = new Map<string, string>();
  for (const c of (await get('/conversations?limit=100')).body.conversations) leaves1.set(c.conversation_id, c.cluster_id);
  const t0 = Date.now() - 60_000;
  await post(Array.from({ length: 6 }, (_, i) => conversation(`manual-${i}`, request(NEW_TOPIC, i, 2020 + i), t0 + i * 1000)).flat());
  const held = await eventually(async () => {
    const rows = await ts.system.rt.store.query<{ node_id: string }>(`SELECT node_id FROM {{db}}.cluster_assignments FINAL WHERE tenant_id = 'default' AND run_id = {r:String} AND startsWith(conversation_id, 'manual-')`, { r: run1 });
    return rows.length === 6 ? rows : undefined;
  }, { timeoutMs: 30_000, intervalMs: 300 });
  assert.ok(held, 'the new segments were assigned');
  assert.ok(held!.every((r) => r.node_id === ''), `held aside: ${JSON.stringify(held)}`);

  const store = tstore();
  const seen: string[] = [];
  const { runId } = await rebuild(store, 'default', await store.currentRun('default'), 'held_aside', never, {
    inWorker: true,
    beforeSwitch: async () => {
      seen.push((await get('/clusters')).body.cluster_run.id);
      seen.push((await get('/task-clusters/search?q=refund')).body.clusterRunId);
    },
  });
  assert.equal(seen, [run1, run1], 'reads during the rebuild see the previous run');
  const after = await get('/clusters');
  assert.is(after.body.cluster_run.id, runId);
  const rows = (await get('/conversations?limit=100')).body.conversations;
  const parentOf = await leafParents();
  const manual = rows.filter((c: any) => c.conversation_id.startsWith('manual-'));
  assert.is(manual.length, 6);
  const oldIds = new Set(leaves1.values());
  for (const c of manual) assert.ok(c.cluster_id && !oldIds.has(c.cluster_id), `${c.conversation_id} is in a new node`);
  assert.is(new Set(manual.map((c: any) => parentOf.get(c.cluster_id))).size, 1, 'the held-aside segments form one new category');
  // a cluster with the same members as before keeps its id (most do: only the new use case changed)
  const groups = (m: Map<string, string>) => {
    const g = new Map<string, string[]>();
    for (const [conv, leaf] of m) g.set(leaf, [...(g.get(leaf) ?? []), conv]);
    return new Map([...g].map(([leaf, convs]) => [convs.sort().join(','), leaf]));
  };
  const now = new Map<string, string>(rows.filter((c: any) => leaves1.has(c.conversation_id)).map((c: any) => [c.conversation_id, c.cluster_id]));
  const old = groups(leaves1);
  let unchanged = 0;
  for (const [members, leaf] of groups(now)) {
    if (!old.has(members)) continue;
    unchanged++;
    assert.is(leaf, old.get(members), `cluster of ${members.slice(0, 40)}… keeps its id`);
  }
  assert.ok(unchanged >= old.size / 2, `${unchanged} of ${old.size} clusters unchanged`);
});

test.run();
