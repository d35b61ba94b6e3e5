/**
 * The build on its own thread: the same result as inline, an abort stops it with a typed error, and
 * the thread kept between builds still builds after an abort ended the one it ran.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildTaxonomy, type TaxonomySegment } from '../../../stream/analyses/taxonomy/build.js';
import { buildInWorker, TaxonomyBuildAbortedError } from '../../../stream/jobs/taxonomy-worker.js';

const segments: TaxonomySegment[] = Array.from({ length: 60 }, (_, i) => {
  const goal = i % 2 ? `please refund order ${i}, the parcel arrived damaged` : `reset the password of account ${i}, I am locked out`;
  return { segment_id: `s${i}`, conversation_id: `c${i}`, text: goal, goal };
});

test('a build on the worker thread equals the inline build', async () => {
  const inline = buildTaxonomy(segments);
  const threaded = await buildInWorker(segments, undefined, new AbortController().signal);
  assert.equal(threaded.nodes.map((n) => [n.node_id, n.label, n.segment_count]), inline.nodes.map((n) => [n.node_id, n.label, n.segment_count]));
  assert.equal(Array.from(threaded.vectors), Array.from(inline.vectors));
});

test('an aborted build rejects with TaxonomyBuildAbortedError', async () => {
  const ac = new AbortController();
  const running = buildInWorker(segments, undefined, ac.signal);
  ac.abort();
  try {
    await running;
    assert.unreachable('the build should have been aborted');
  } catch (err) {
    assert.instance(err, TaxonomyBuildAbortedError);
  }
});

test('builds after an abort: the next one runs on a new thread and equals the inline build; a running build aborted mid-way ends', async () => {
  const inline = buildTaxonomy(segments);
  const big: TaxonomySegment[] = Array.from({ length: 3000 }, (_, i) => ({ segment_id: `b${i}`, conversation_id: `c${i}`, text: `update the shipping address of order ${i} before dispatch`, goal: `update the shipping address of order ${i}` }));
  const ac = new AbortController();
  const running = buildInWorker(big, undefined, ac.signal);
  // once it runs on the thread (the first build starts the thread)
  await new Promise((r) => setTimeout(r, 300));
  ac.abort();
  const outcome = await running.then(
    () => 'built',
    (err: unknown) => (err instanceof TaxonomyBuildAbortedError ? 'aborted' : `other: ${String(err)}`),
  );
  assert.is(outcome, 'aborted');
  for (let i = 0; i < 2; i++) {
    const again = await buildInWorker(segments, undefined, new AbortController().signal);
    assert.equal(again.nodes.map((n) => [n.node_id, n.label, n.segment_count]), inline.nodes.map((n) => [n.node_id, n.label, n.segment_count]));
  }
});

test.run();
