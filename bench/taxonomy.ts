/**
 * Taxonomy rebuild at scale: `node dist/bench/taxonomy.js [--segments 100000] [--dir DIR] [--tenant bench]`.
 * Generates segment goal texts (a few hundred use cases worded many ways, over a Zipf vocabulary),
 * loads them into `segment_texts` of an embedded store at DIR (kept for reuse), then times one
 * rebuild through the job's own code (load → build on its worker thread → write → switch), with
 * the process's peak resident memory; then the continuous assignment of 5,000 new segments, and
 * the semantic scan over the run's vectors with and without a vector index.
 */
import { loadConfig } from '../core/config.js';
import { createStore, namedQuery, type Store } from '../core/clickhouse.js';
import { migrate } from '../core/migrations.js';
import { embedText } from '../core/vectors/model.js';
import { assignPending, rebuild } from '../stream/jobs/taxonomy.js';
import { createTaxonomyStore } from '../stream/jobs/taxonomy-store.js';
import { textHash } from '../stream/analyses/segment-goals.js';
import { createRng, zipfWeights } from './workload/rng.js';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : def;
};
const N = Number(arg('segments', '100000'));
const dir = arg('dir', '/tmp/tracehouse-taxonomy-bench');
const tenant = arg('tenant', 'bench');

const VERBS = 'add book cancel change check configure create debug delete deploy downgrade explain export fix generate import install migrate refactor refund remove rename reset review schedule search send update upgrade upload write'.split(' ');
const NOUNS = 'account api bag booking branch build cache certificate chart config container dashboard database dependency deployment docs email endpoint export feature file flight form gift hook index invoice job key log login migration model module order page password payment permission pipeline plan policy profile query queue report repository reservation role route schema script seat secret server service session settings subscription table test ticket token user voucher webhook workflow'.split(' ');
const FRAMES = ['please {v} the {o}', 'I need to {v} my {o}', 'can you {v} the {o} for me', 'help me {v} our {o}', "I'd like to {v} the {o}", '{v} {o} now'];

/** A sampler of index i with probability ∝ weights[i] (cumulative sums, binary search). */
function sampler(weights: readonly number[], next: () => number): () => number {
  const cum: number[] = [];
  let total = 0;
  for (const w of weights) cum.push((total += w));
  return () => {
    const r = next() * total;
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cum[mid]! > r) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
}

/** Use case u: a verb and a one- or two-word object; text = a framing plus detail words. */
function generate(n: number): Array<{ id: string; conv: string; text: string }> {
  const rng = createRng(42);
  const vocab = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}x`);
  const word = sampler(zipfWeights(vocab.length, 1.1), rng.next);
  const cases = Array.from({ length: 400 }, (_, u) => ({ v: VERBS[u % VERBS.length]!, o: `${NOUNS[(u * 7) % NOUNS.length]}${u % 3 === 0 ? ' ' + NOUNS[(u * 13 + 5) % NOUNS.length] : ''}` }));
  const useCase = sampler(zipfWeights(cases.length, 0.8), rng.next);
  const out: Array<{ id: string; conv: string; text: string }> = [];
  for (let i = 0; i < n; i++) {
    const c = cases[useCase()]!;
    const frame = rng.pick(FRAMES).replace('{v}', c.v).replace('{o}', c.o);
    const details = Array.from({ length: rng.int(8, 50) }, () => vocab[word()]!).join(' ');
    out.push({ id: `seg_${i.toString(16).padStart(8, '0')}`, conv: `conv-${Math.floor(i / 2)}`, text: `${frame}. ${details}` });
  }
  return out;
}

async function load(store: Store, from: number, count: number): Promise<void> {
  const rows = generate(from + count).slice(from);
  for (let i = 0; i < rows.length; i += 20_000) {
    await store.insert(
      'segment_texts',
      rows.slice(i, i + 20_000).map((r, k) => ({ tenant_id: tenant, conversation_id: r.conv, item_key: r.id, version: 1, is_deleted: 0, analyzer_version: 1, segment_index: k % 2, goal: r.text.split('.')[0], text: r.text, text_hash: textHash(r.text), last_ts: new Date().toISOString() })),
    );
  }
}

async function timed<T>(fn: () => Promise<T>, runs: number): Promise<{ value: T; medianMs: number }> {
  const times: number[] = [];
  let value!: T;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    value = await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { value, medianMs: Math.round(times[Math.floor(times.length / 2)]! * 10) / 10 };
}

async function main() {
  const store = createStore(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }));
  await migrate(store);
  const have = Number((await store.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.segment_texts FINAL WHERE tenant_id = {t:String}`, { t: tenant }))[0]!.n);
  if (have < N) {
    const t = Date.now();
    await load(store, have, N - have);
    console.log(`loaded ${N - have} segment texts in ${Date.now() - t} ms`);
  }
  await store.command(`OPTIMIZE TABLE {{db}}.segment_texts FINAL`);
  const ts = createTaxonomyStore(store);
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  const rssBefore = process.memoryUsage().rss;
  const phases: Record<string, number> = {};
  const t0 = Date.now();
  const { runId, build } = await rebuild(ts, tenant, await ts.currentRun(tenant), 'growth', new AbortController().signal, { onPhase: (p, ms) => (phases[p] = ms) });
  const total = Date.now() - t0;
  clearInterval(sampler);
  const mb = (b: number) => Math.round(b / 1048576);
  console.log(`rebuild of ${N} segments: ${total} ms (load ${phases.load}, build ${phases.build}, write ${phases.write}, switch ${phases.switch}); ${build.nodes.filter((n) => n.node_type === 'cluster').length} clusters, ${build.nodes.filter((n) => n.node_type === 'category').length} categories, ${build.stats.heldAside} held aside, ${build.stats.dims} dims, leaf cut ${build.stats.leafCut}`);
  console.log(`resident memory: ${mb(rssBefore)} MB before, peak ${mb(peak)} MB during the rebuild`);
  console.log(`labels: ${build.nodes.filter((n) => n.node_type === 'cluster').slice(0, 8).map((n) => `${n.label} (${n.segment_count})`).join(' | ')}`);

  // continuous assignment of new segments
  await load(store, N, 5000);
  const run = (await ts.currentRun(tenant))!;
  const ta = Date.now();
  const assigned = await assignPending(ts, tenant, run, 5000, new AbortController().signal);
  console.log(`assignment of ${assigned} new segments: ${Date.now() - ta} ms`);

  // semantic scan: top 100 segments by similarity, brute force and with an HNSW vector index
  const model = (await ts.loadModel(tenant, runId))!;
  const q = Array.from(embedText(model, 'please reset the password of the login')!);
  const brute = await timed(() => store.query(`SELECT segment_id, dotProduct(vector, {q:Array(Float32)}) AS sim FROM {{db}}.segment_vectors WHERE tenant_id = {t:String} AND run_id = {r:String} ORDER BY sim DESC LIMIT 100`, { t: tenant, r: runId, q }), 7);
  const perConversation = await timed(() => store.query(namedQuery('query-semantic-conversations'), { tenant, run: runId, q, floor: 0.2, limit: 100 }), 7);
  console.log(`semantic scan, brute force: top 100 segments ${brute.medianMs} ms, top 100 conversations (FINAL, grouped) ${perConversation.medianMs} ms (median of 7)`);
  try {
    await store.command(`ALTER TABLE {{db}}.segment_vectors ADD INDEX IF NOT EXISTS bench_vec vector TYPE vector_similarity('hnsw', 'cosineDistance', ${model.dims})`);
    const tm = Date.now();
    await store.command(`ALTER TABLE {{db}}.segment_vectors MATERIALIZE INDEX bench_vec SETTINGS mutations_sync = 2`);
    const built = Date.now() - tm;
    const indexed = await timed(() => store.query(`SELECT segment_id, cosineDistance(vector, {q:Array(Float32)}) AS d FROM {{db}}.segment_vectors WHERE tenant_id = {t:String} AND run_id = {r:String} ORDER BY d ASC LIMIT 100`, { t: tenant, r: runId, q }), 7);
    const overlap = new Set(brute.value.map((r: any) => r.segment_id));
    const recall = indexed.value.filter((r: any) => overlap.has(r.segment_id)).length / Math.max(1, brute.value.length);
    console.log(`HNSW index: materialized in ${built} ms; top 100 by cosine distance ${indexed.medianMs} ms (median of 7), overlap with the exact top 100: ${recall.toFixed(2)}`);
  } catch (err) {
    console.log(`vector index not measured: ${(err as Error).message.split('\n')[0]}`);
  } finally {
    await store.command(`ALTER TABLE {{db}}.segment_vectors DROP INDEX IF EXISTS bench_vec`).catch(() => undefined);
  }
  await store.close();
}

await main();
