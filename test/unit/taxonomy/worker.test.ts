/** The build on its own thread: the same result as inline, and an abort stops it with a typed error. */
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

test.run();
