import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nextRate, type Rung } from '../../../bench/lib/ladder.js';

/** Runs the ladder against a system that sustains every rate up to `limit`. */
function climb(limit: number, maxSteps: number): number[] {
  const done: Rung[] = [];
  for (let r = nextRate(done, maxSteps); r !== undefined; r = nextRate(done, maxSteps)) done.push({ offered: r, sustained: r <= limit });
  return done.map((d) => d.offered);
}

test('the rate grows ×1.6 from 1,000 while steps are sustained, up to the step limit', () => {
  assert.equal(climb(1e9, 7), [1000, 1600, 2560, 4096, 6554, 10486, 16778]);
});

test('after the first miss, two steps that halve the interval between the last sustained and the lowest missed rate', () => {
  // 16,778 sustained, 26,845 missed: their geometric mean, sustained, then the mean of it and the miss
  assert.equal(climb(22_000, 13), [1000, 1600, 2560, 4096, 6554, 10486, 16778, 26845, 21223, 23869]);
  // the first middle step missed too: the next one lies below it
  assert.equal(climb(20_000, 13), [1000, 1600, 2560, 4096, 6554, 10486, 16778, 26845, 21223, 18870]);
  // both sustained: the figure is within ×1.12 of the miss
  assert.equal(climb(25_000, 13).slice(-3), [26845, 21223, 23869]);
});

test('a first step that misses ends the ladder; the step limit holds the refinement too', () => {
  assert.equal(climb(500, 13), [1000]);
  assert.equal(climb(22_000, 8), [1000, 1600, 2560, 4096, 6554, 10486, 16778, 26845]);
  assert.equal(climb(22_000, 9), [1000, 1600, 2560, 4096, 6554, 10486, 16778, 26845, 21223]);
});

test.run();
