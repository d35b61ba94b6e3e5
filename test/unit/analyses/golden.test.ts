import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { computeGolden, goldenDiff, readGolden } from '../../../eval/perf/golden.js';

/**
 * A subset of the golden datasets (eval/perf/golden-analyses.json): real tau-bench and Claude Code
 * conversations analyzed as `tracehouse analyze` does, generated coding and emotion sets, and the
 * 2,000-message conversation of the cost bench. `npm run golden:analyses` checks them all.
 */
const SUBSET = ['agent-trajectories', 'generated-laziness', 'generated-emotions', 'claude-code-viewer', 'tau-bench', 'bench-2000-message-conversation'];

test('every analyzer gives the recorded output on the golden datasets', () => {
  const expected = readGolden();
  const actual = computeGolden(SUBSET);
  assert.equal(Object.keys(actual).sort(), [...SUBSET].sort());
  for (const name of SUBSET) assert.ok(Number(actual[name]!.conversations) > 0, `${name} has conversations`);
  assert.equal(goldenDiff(expected, actual), []);
});

test.run();
