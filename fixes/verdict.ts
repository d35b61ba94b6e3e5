import type { GateResult } from './types.js';

/** Share of the holdout that may abstain in a passing verdict (spec Limits). */
export const MAX_ABSTAINED_SHARE = 0.3;

export interface VerdictInput {
  holdoutN: number;
  wins: number;
  losses: number;
  abstained: number;
  noiseFloor: number;
}

/**
 * spec "Verdict rules" (holdout cases only): more than 30% abstained is `inconclusive`, never
 * `pass`; `pass` needs wins − losses ≥ max(2, noiseFloor + 1), losses ≤ noiseFloor and abstained
 * ≤ 30% of the holdout; anything else is `fail`.
 */
export function verdictOf(v: VerdictInput): { verdict: GateResult['verdict']; reason: string } {
  const share = v.holdoutN > 0 ? v.abstained / v.holdoutN : 1;
  const margin = Math.max(2, v.noiseFloor + 1);
  if (share > MAX_ABSTAINED_SHARE) {
    return { verdict: 'inconclusive', reason: `${v.abstained} of ${v.holdoutN} holdout cases abstained (more than ${MAX_ABSTAINED_SHARE * 100}%)` };
  }
  if (v.wins - v.losses >= margin && v.losses <= v.noiseFloor) {
    return { verdict: 'pass', reason: `wins − losses = ${v.wins - v.losses} ≥ ${margin} and losses ${v.losses} ≤ noise floor ${v.noiseFloor}` };
  }
  const why: string[] = [];
  if (v.wins - v.losses < margin) why.push(`wins − losses = ${v.wins - v.losses} < ${margin}`);
  if (v.losses > v.noiseFloor) why.push(`losses ${v.losses} > noise floor ${v.noiseFloor}`);
  return { verdict: 'fail', reason: why.join('; ') };
}
