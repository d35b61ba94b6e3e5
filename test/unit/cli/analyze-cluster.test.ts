/** `tracehouse analyze` builds the input's own taxonomy: `cluster` per segment from 50 segments on. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../../helpers/cli.js';
import { dataPath } from '../../helpers/shared.js';

const lines = (stdout: string) => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));

test('tau-bench (≥ 50 segments): every segment has a cluster or null; conversations of one task share clusters', async () => {
  const r = await runCli(['analyze', dataPath('tau-bench', 'gpt-4o-airline.json'), '--format', 'openai-chat'], {}, { timeoutMs: 120_000 });
  assert.is(r.code, 0, r.stderr);
  const out = lines(r.stdout);
  const segments = out.flatMap((o) => o.segments);
  assert.ok(segments.every((s: any) => 'cluster' in s));
  assert.ok(out.every((o) => !('segment_goals' in o)), 'goal texts are not printed');
  const clustered = segments.filter((s: any) => s.cluster);
  assert.ok(clustered.length >= segments.length * 0.8, `${clustered.length} of ${segments.length} clustered`);
  for (const s of clustered) {
    assert.match(s.cluster.node_id, /^cl_/);
    assert.match(s.cluster.category_id, /^cat_/);
    assert.ok(s.cluster.label.length > 0 && s.cluster.category_label.length > 0);
  }
  // the first segment of the four trials of task 0 is in one cluster
  const firsts = out.filter((o) => /:task-0:/.test(o.conversation_id)).map((o) => o.segments[0].cluster?.node_id);
  assert.is(firsts.length, 4);
  assert.is(new Set(firsts).size, 1, JSON.stringify(firsts));
  assert.match(r.stderr, /\d+ use-case clusters/);
});

test('below 50 segments: no cluster field', async () => {
  const events = Array.from({ length: 10 }, (_, i) => ({ conversation_id: `c${i}`, role: 'user', message: `please refund order ${i}` }));
  const r = await runCli(['analyze', '-', '--quiet'], {}, { input: events.map((e) => JSON.stringify(e)).join('\n') });
  assert.is(r.code, 0, r.stderr);
  assert.ok(lines(r.stdout).every((o) => o.segments.every((s: any) => !('cluster' in s))));
});

test.run();
