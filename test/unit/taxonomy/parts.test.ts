/** The pieces of the taxonomy and search: SVD, features, ranking, phrases, goal texts, triggers. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { embedText } from '../../../core/vectors/model.js';
import { editDistance, fuzzySimilarity, reciprocalRankFusion } from '../../../core/vectors/ranking.js';
import { termCounts } from '../../../core/vectors/features.js';
import { randomizedSvd, symmetricEigen, type Csr } from '../../../stream/analyses/taxonomy/svd.js';
import { fitTextModel } from '../../../stream/analyses/taxonomy/fit.js';
import { verbObjectPhrases } from '../../../stream/analyses/taxonomy/phrases.js';
import { cleanRequest, segmentGoals } from '../../../stream/analyses/segment-goals.js';
import { rebuildTrigger, DEFAULT_POLICY } from '../../../stream/jobs/taxonomy.js';
import { TAXONOMY_VERSION } from '../../../stream/analyses/taxonomy/build.js';
import { ancestorPath, rankNodes } from '../../../query/cluster-search.js';
import type { ConversationSnapshot } from '../../../stream/analyses/types.js';

test('symmetric eigen-decomposition reproduces the matrix', () => {
  const a = Float64Array.from([4, 1, 2, 1, 3, 0.5, 2, 0.5, 5]);
  const { values, vectors } = symmetricEigen(a, 3);
  for (let i = 0; i < 3; i++)
    for (let j = 0; j < 3; j++) {
      let s = 0;
      for (let k = 0; k < 3; k++) s += vectors[i * 3 + k]! * values[k]! * vectors[j * 3 + k]!;
      assert.ok(Math.abs(s - a[i * 3 + j]!) < 1e-9, `(${i},${j})`);
    }
  assert.ok(values[0]! >= values[1]! && values[1]! >= values[2]!);
});

test('randomized SVD finds the singular values of a low-rank sparse matrix', () => {
  // rank 2: rows are mixtures of two fixed patterns over 40 columns
  const rows = 60;
  const cols = 40;
  const p1 = Array.from({ length: cols }, (_, j) => (j < 20 ? 1 : 0));
  const p2 = Array.from({ length: cols }, (_, j) => (j % 3 === 0 ? 2 : 0));
  const dense = Array.from({ length: rows }, (_, i) => p1.map((v, j) => ((i % 5) + 1) * v + ((i % 7) + 1) * p2[j]!));
  const indptr = new Int32Array(rows + 1);
  const indices: number[] = [];
  const values: number[] = [];
  dense.forEach((r, i) => {
    r.forEach((v, j) => {
      if (v) {
        indices.push(j);
        values.push(v);
      }
    });
    indptr[i + 1] = indices.length;
  });
  const x: Csr = { rows, cols, indptr, indices: Int32Array.from(indices), values: Float32Array.from(values) };
  const svd = randomizedSvd(x, 4);
  // Frobenius norm² = sum of squared singular values; rank 2 → the rest ≈ 0
  const frob = dense.flat().reduce((s, v) => s + v * v, 0);
  const top = svd.singular[0]! ** 2 + svd.singular[1]! ** 2;
  assert.ok(Math.abs(top - frob) / frob < 1e-4, `${top} vs ${frob}`);
  assert.ok(svd.singular[2]! < 1e-3 * svd.singular[0]!);
});

test('features: stopwords and request framing are left out; character grams relate word forms', () => {
  const a = termCounts('Could you please cancel my reservation?');
  const b = termCounts('cancel reservation');
  assert.equal([...a.words.keys()].sort(), [...b.words.keys()].sort());
  const m = fitTextModel(['cancel my reservation', 'cancellation of a reservation', 'book a new flight', 'booking flights to Denver', 'cancelled reservation refund', 'flight booking'].map((text, i) => ({ id: String(i), text })));
  const q = embedText(m, 'cancelling')!;
  assert.ok(q, 'an unseen word form still has a vector through its character grams');
  assert.is(embedText(m, 'zzqx wvvy'), null, 'no known feature: no vector');
});

test('fuzzy similarity tolerates typos and prefixes; RRF favours items high in both lists', () => {
  assert.is(editDistance('reservation', 'reservaton'), 1);
  assert.ok(fuzzySimilarity('reservaton', 'Change flight reservation') > 0.85);
  assert.ok(fuzzySimilarity('refnd', 'Refund order') >= 0.5);
  assert.ok(fuzzySimilarity('car', 'cat food') < 0.5);
  assert.equal(reciprocalRankFusion([['a', 'b', 'c'], ['c', 'a', 'd']]).map((x) => x.id), ['a', 'c', 'b', 'd']);
});

test('verb–object phrases: request positions, determiners skipped, objects end on a noun', () => {
  const keys = (t: string) => verbObjectPhrases(t).map((p) => p.surface);
  assert.ok(keys("Hi! I'd like to change my flight reservation to Friday.").includes('change flight reservation'));
  assert.ok(keys('Can you fix the failing unit tests?').includes('fix failing unit tests'));
  assert.ok(keys('Please set up the deployment pipeline').includes('set up deployment pipeline'));
  assert.equal(keys('I need to change my upcoming'), [], 'a modifier does not end a phrase');
  assert.equal(keys('The weather is nice today'), []);
});

test('segment goals: the person\'s requests with code and pasted output removed, summary appended', () => {
  assert.is(cleanRequest('Fix this error:\n```\nTypeError: x is undefined\n```\nat Object.<anonymous> (/app/a.js:1:2)\nplease'), 'Fix this error: please');
  const s: ConversationSnapshot = {
    tenantId: 't',
    conversationId: 'c',
    userId: '',
    environment: 'production',
    toolCalls: [],
    messages: [
      { index: 0, messageId: 'm0', role: 'user', text: 'Refund order 12', blocks: [], ts: 0, threadId: '' },
      { index: 1, messageId: 'm1', role: 'assistant', text: 'Done', blocks: [], ts: 1, threadId: '' },
      { index: 2, messageId: 'm2', role: 'user', text: '/cost', blocks: [], ts: 2, threadId: '' },
    ],
  };
  const [g] = segmentGoals(s, [{ segment_id: 's', start_index: 0, end_index: 2 }], 'A refund was issued.');
  assert.equal([g!.goal, g!.text], ['Refund order 12', 'Refund order 12\nA refund was issued.']);
  assert.match(g!.text_hash, /^[0-9a-f]{16}$/);
});

test('rebuild triggers: version, growth, held aside, drift, each after the minimum interval', () => {
  const run = { taxonomy_version: TAXONOMY_VERSION, num_segments: 200, mean_similarity: 0.7, completed_at: new Date(0).toISOString() };
  const quiet = { segments: 210, assigned: 10, heldAside: 1, meanSimilarity: 0.7, ms: 3_600_000 };
  assert.is(rebuildTrigger(run, quiet), null);
  assert.is(rebuildTrigger({ ...run, taxonomy_version: TAXONOMY_VERSION - 1 }, { ...quiet, ms: 1 }), 'version');
  assert.is(rebuildTrigger(run, { ...quiet, segments: 250 }), 'growth');
  assert.is(rebuildTrigger(run, { ...quiet, segments: 250, ms: DEFAULT_POLICY.minIntervalMs - 1 }), null, 'not before the minimum interval');
  assert.is(rebuildTrigger(run, { ...quiet, heldAside: 10 }), 'held_aside');
  assert.is(rebuildTrigger(run, { ...quiet, assigned: 40, meanSimilarity: 0.55 }), 'drift');
  assert.is(rebuildTrigger(run, { ...quiet, assigned: 20, meanSimilarity: 0.3 }), null, 'drift needs 30 assignments');
});

test('cluster search: fallback to fuzzy without a vector; ancestor path from the root', () => {
  const nodes = [
    { node_id: 'c1', parent_id: '', depth: 0, label: 'Reservations', summary: '', keywords: ['flight'], centroid: [1, 0] },
    { node_id: 'l1', parent_id: 'c1', depth: 1, label: 'Change flight reservation', summary: '', keywords: ['change'], centroid: [1, 0] },
    { node_id: 'l2', parent_id: 'c1', depth: 1, label: 'Refund order', summary: '', keywords: ['refund'], centroid: [0, 1] },
  ];
  assert.equal(rankNodes('refund', null, nodes, 'hybrid'), { mode: 'fuzzy', ranked: [{ node_id: 'l2' }] });
  const sem = rankNodes('x', [0, 1], nodes, 'semantic');
  assert.is(sem.mode, 'semantic');
  assert.equal(sem.ranked.map((r) => r.node_id), ['l2']);
  const hybrid = rankNodes('reservation', [1, 0], nodes, 'hybrid');
  assert.equal(hybrid.ranked.slice(0, 2).map((r) => r.node_id).sort(), ['c1', 'l1']);
  assert.ok(hybrid.ranked.every((r) => typeof r.similarity === 'number'));
  const byId = new Map(nodes.map((n) => [n.node_id, n]));
  assert.equal(ancestorPath('l1', byId), { path: [{ nodeId: 'c1', label: 'Reservations', depth: 0 }], truncated: false });
  assert.equal(ancestorPath('c1', byId), { path: [], truncated: false });
});

test.run();
