/** Verdict rules of spec/fix-pipeline.md, table-tested at their boundaries. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { verdictOf } from '../../../fixes/verdict.js';

const cases: Array<[string, { holdoutN: number; wins: number; losses: number; abstained: number; noiseFloor: number }, 'pass' | 'fail' | 'inconclusive']> = [
  // margin = max(2, noiseFloor + 1)
  ['wins − losses = 2 with noise 0 passes', { holdoutN: 10, wins: 2, losses: 0, abstained: 0, noiseFloor: 0 }, 'pass'],
  ['wins − losses = 1 with noise 0 fails', { holdoutN: 10, wins: 1, losses: 0, abstained: 0, noiseFloor: 0 }, 'fail'],
  ['noise 2: margin 3, delta 3 passes', { holdoutN: 10, wins: 4, losses: 1, abstained: 0, noiseFloor: 2 }, 'pass'],
  ['noise 2: delta 2 fails', { holdoutN: 10, wins: 3, losses: 1, abstained: 0, noiseFloor: 2 }, 'fail'],
  ['noise 1: margin 2, delta 2 passes', { holdoutN: 10, wins: 3, losses: 1, abstained: 0, noiseFloor: 1 }, 'pass'],
  // losses ≤ noiseFloor
  ['losses = noise floor passes', { holdoutN: 10, wins: 6, losses: 2, abstained: 0, noiseFloor: 2 }, 'pass'],
  ['losses = noise floor + 1 fails despite a large delta', { holdoutN: 12, wins: 9, losses: 3, abstained: 0, noiseFloor: 2 }, 'fail'],
  ['one loss with noise 0 fails', { holdoutN: 10, wins: 5, losses: 1, abstained: 0, noiseFloor: 0 }, 'fail'],
  // abstained share: ≤ 30% may pass, > 30% is inconclusive, never pass
  ['exactly 30% abstained can pass', { holdoutN: 10, wins: 5, losses: 0, abstained: 3, noiseFloor: 0 }, 'pass'],
  ['31% abstained is inconclusive even with all wins', { holdoutN: 100, wins: 69, losses: 0, abstained: 31, noiseFloor: 0 }, 'inconclusive'],
  ['4 of 10 abstained is inconclusive', { holdoutN: 10, wins: 6, losses: 0, abstained: 4, noiseFloor: 0 }, 'inconclusive'],
  ['> 30% abstained and failing deltas is inconclusive, not fail', { holdoutN: 10, wins: 0, losses: 3, abstained: 7, noiseFloor: 0 }, 'inconclusive'],
  ['30% abstained and a failing delta fails', { holdoutN: 10, wins: 1, losses: 0, abstained: 3, noiseFloor: 0 }, 'fail'],
  ['empty holdout is inconclusive', { holdoutN: 0, wins: 0, losses: 0, abstained: 0, noiseFloor: 0 }, 'inconclusive'],
  ['all ties fail', { holdoutN: 6, wins: 0, losses: 0, abstained: 0, noiseFloor: 0 }, 'fail'],
];

for (const [name, input, expected] of cases) {
  test(name, () => {
    const v = verdictOf(input);
    assert.is(v.verdict, expected, v.reason);
    assert.ok(v.reason.length > 0);
  });
}

test.run();
