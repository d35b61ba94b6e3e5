/**
 * The taxonomy build as a pure function: use cases found without being told how many, readable
 * labels, held-aside segments that become a node at the next rebuild, node ids kept for clusters
 * that continue across rebuilds, and the continuous assignment of new segments.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { embedText } from '../../../core/vectors/model.js';
import { assignVector } from '../../../stream/analyses/taxonomy/assign.js';
import { buildTaxonomy, type PreviousTree, type TaxonomyBuild, type TaxonomySegment } from '../../../stream/analyses/taxonomy/build.js';

const OPENERS = ['Hi,', 'Hello.', 'Good morning!', 'Hey,', ''];
const TOPICS: Record<string, { core: string[]; detail: string[] }> = {
  refund: { core: ['I want a refund for order {n}', 'please refund my order {n}', 'can you refund order {n}'], detail: ['the package arrived damaged.', 'the item was broken.', 'the box was crushed.', 'it never worked.', 'the screen was cracked.'] },
  password: { core: ['I need to reset my password for account {n}', 'please reset the password of account {n}', 'help me reset my account password {n}'], detail: ['I am locked out.', 'login keeps failing.', 'I forgot it.', 'the reset email never arrives.', 'it says my credentials are wrong.'] },
  flight: { core: ['I want to book a flight from Boston to Denver on May {n}', 'please book a flight to Denver from Boston on May {n}', 'book me a flight Boston to Denver May {n}'], detail: ['economy is fine.', 'window seat please.', 'morning departure.', 'one checked bag.', 'cheapest fare.'] },
  tests: { core: ['fix the failing unit tests in the parser module, build {n}', 'please fix the failing parser tests, run {n}', 'the parser unit tests fail since commit {n}, fix them'], detail: ['assertions break.', 'after the refactor.', 'snapshots differ.', 'null pointer in CI.', 'they pass locally.'] },
  translate: { core: ['translate the user manual into Spanish for edition {n}', 'please translate our user manual to Spanish, version {n}', 'translate the manual into Spanish for release {n}'], detail: ['keep the screenshots.', 'glossary attached.', 'formal tone.', 'due Friday.', 'chapter two changed.'] },
};

function segments(topic: string, count: number, from = 0): TaxonomySegment[] {
  const t = TOPICS[topic]!;
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    const goal = `${OPENERS[i % 5]} ${t.core[i % 3]!.replace('{n}', String(100 + i * 13))}, ${t.detail[i % 5]}`.trim();
    return { segment_id: `${topic}-${i}`, conversation_id: `c-${topic}-${i}`, text: goal, goal };
  });
}

const leafOf = (b: TaxonomyBuild, id: string) => b.assignments.find((a) => a.segment_id === id)!.node_id;
const previousOf = (b: TaxonomyBuild): PreviousTree => ({
  leafOf: new Map(b.assignments.filter((a) => a.node_id).map((a) => [a.segment_id, a.node_id])),
  categoryOf: new Map(b.assignments.filter((a) => a.node_id).map((a) => [a.segment_id, a.category_id])),
});

const base = ['refund', 'password', 'flight', 'tests'].flatMap((t) => segments(t, 15));

const categoryOf = (b: TaxonomyBuild, id: string) => b.assignments.find((a) => a.segment_id === id)!.category_id;
const topicOf = (segmentId: string) => segmentId.split('-')[0]!;

test('four use cases are four categories of pure clusters, named by their verb–object phrases', () => {
  const b = buildTaxonomy(base);
  const categories = b.nodes.filter((n) => n.node_type === 'category');
  assert.is(categories.length, 4, categories.map((l) => l.label).join(' | '));
  for (const topic of ['refund', 'password', 'flight', 'tests']) {
    assert.is(new Set(base.filter((s) => topicOf(s.segment_id) === topic).map((s) => categoryOf(b, s.segment_id))).size, 1, topic);
  }
  // every cluster holds one use case
  for (const leaf of b.nodes.filter((n) => n.node_type === 'cluster')) {
    assert.is(new Set(b.assignments.filter((a) => a.node_id === leaf.node_id).map((a) => topicOf(a.segment_id))).size, 1, leaf.label);
    assert.ok(leaf.keywords.length > 0 && leaf.summary.length > 0);
    assert.ok(categories.some((c) => c.node_id === leaf.parent_id));
  }
  const labels = categories.map((l) => l.label.toLowerCase());
  for (const want of [/refund/, /reset password/, /book flight/, /fix .*(tests|parser)/]) assert.ok(labels.some((l) => want.test(l)), `${want} in ${labels.join(' | ')}`);
  assert.ok(categories.every((c) => c.segment_count === 15));
  assert.is(b.stats.heldAside, 0);
});

test('a build is deterministic', () => {
  const a = buildTaxonomy(base);
  const b = buildTaxonomy(base);
  assert.equal(a.nodes.map((n) => [n.node_id, n.label, n.segment_count]), b.nodes.map((n) => [n.node_id, n.label, n.segment_count]));
  assert.equal(Array.from(a.vectors.slice(0, 50)), Array.from(b.vectors.slice(0, 50)));
});

test('a new use case is held aside by the assignment, then becomes a node at the next rebuild; unchanged clusters keep their ids', () => {
  const first = buildTaxonomy(base);
  const leaves = first.nodes.filter((n) => n.node_type === 'cluster');
  const fresh = segments('translate', 6);
  // continuous assignment: the new use case matches no node
  for (const s of fresh) assert.is(assignVector(embedText(first.model, s.text), leaves).node_id, '', s.text);
  // a known request worded as before joins the node of its twins
  const again = { ...base[0]!, segment_id: 'refund-again' };
  assert.is(assignVector(embedText(first.model, again.text), leaves).node_id, leafOf(first, 'refund-0'));
  const second = buildTaxonomy([...base, ...fresh], previousOf(first));
  const oldIds = new Set(first.nodes.map((n) => n.node_id));
  for (const s of fresh) {
    assert.ok(leafOf(second, s.segment_id) !== '', `${s.segment_id} is in a node`);
    assert.not.ok(oldIds.has(leafOf(second, s.segment_id)), 'a new node');
  }
  assert.is(new Set(fresh.map((s) => categoryOf(second, s.segment_id))).size, 1, 'one new category');
  // every node with the same members as a node of the first run has that node's id
  const membersOf = (b: TaxonomyBuild, id: string) => b.assignments.filter((a) => a.node_id === id || a.category_id === id).map((a) => a.segment_id).sort().join(',');
  const before = new Map(first.nodes.map((n) => [`${n.node_type}:${membersOf(first, n.node_id)}`, n.node_id]));
  let unchanged = 0;
  for (const n of second.nodes) {
    const old = before.get(`${n.node_type}:${membersOf(second, n.node_id)}`);
    if (old === undefined) continue;
    unchanged++;
    assert.is(n.node_id, old, `${n.label}: same members, same id`);
  }
  assert.ok(unchanged >= first.nodes.length / 2, `${unchanged} of ${first.nodes.length} nodes unchanged`);
  // the categories of the four use cases all continue
  for (const topic of ['refund', 'password', 'flight', 'tests']) assert.is(categoryOf(second, `${topic}-0`), categoryOf(first, `${topic}-0`), topic);
});

test('surviving members keep their node id; fresh ids derive from the members', () => {
  const first = buildTaxonomy(base);
  // a rebuild where some refund segments are gone: a node whose surviving members stay together keeps its id
  const fewer = buildTaxonomy(base.filter((s) => s.segment_id !== 'refund-14' && s.segment_id !== 'refund-13'), previousOf(first));
  assert.is(categoryOf(fewer, 'refund-0'), categoryOf(first, 'refund-0'), 'surviving members keep the id');
  const unrelated = buildTaxonomy(base, { leafOf: new Map(), categoryOf: new Map() });
  assert.equal(unrelated.nodes.map((n) => n.node_id).sort(), first.nodes.map((n) => n.node_id).sort(), 'fresh ids derive from the members');
});

test('segments without any known text are held aside, not clustered', () => {
  const b = buildTaxonomy([...base, { segment_id: 'noise', conversation_id: 'c-noise', text: '!!! ???', goal: '' }]);
  const a = b.assignments.find((x) => x.segment_id === 'noise')!;
  assert.equal([a.node_id, a.category_id], ['', '']);
});

test.run();
