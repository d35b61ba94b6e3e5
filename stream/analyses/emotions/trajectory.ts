/**
 * Trajectory and risk over the conversation, from the sequence of negative intensities across user
 * turns (the strongest frustration, distrust, impatience or disappointment score of each turn, 0
 * when none) and later satisfaction.
 *
 * For a negative detection at user turn t (prev = the stronger of the two turns before, next = the
 * turn after):
 *   resolved   satisfaction within the next three turns, with no turn ≥ 0.5 in between;
 *   sustained  prev ≥ 0.3 and next ≥ 0.3 (negativity on both sides);
 *   building   next is stronger than t (rising toward a peak);
 *   peak       t is at least as strong as its neighbours, and one of them is negative too;
 *   none       an isolated signal.
 * A satisfaction detection is `resolved` when one of the three turns before it was negative
 * (≥ 0.3), else `none`.
 */
import type { EmotionFamily, Trajectory } from '../types.js';

export interface TurnScores {
  /** Strongest negative score of the turn (0 when none). */
  negative: number;
  /** Strongest satisfaction score of the turn (0 when none). */
  satisfaction: number;
}

export function trajectoryAt(seq: readonly TurnScores[], t: number, family: EmotionFamily): Trajectory {
  const neg = (i: number) => (i >= 0 && i < seq.length ? seq[i]!.negative : 0);
  if (family === 'satisfaction') return neg(t - 1) >= 0.3 || neg(t - 2) >= 0.3 || neg(t - 3) >= 0.3 ? 'resolved' : 'none';
  for (let j = t + 1; j <= t + 3 && j < seq.length; j++) {
    if (seq[j]!.satisfaction >= 0.4) return 'resolved';
    if (neg(j) >= 0.5) break;
  }
  const prev = Math.max(neg(t - 1), neg(t - 2));
  const next = neg(t + 1);
  const here = neg(t);
  if (prev >= 0.3 && next >= 0.3) return 'sustained';
  if (next > here && here > 0) return 'building';
  if (here >= prev && here >= next && (prev > 0 || next > 0)) return 'peak';
  return 'none';
}

/** Base risk and how much intensity adds, by signal: giving up and lost trust lead to abandonment. */
const RISK: Record<string, [number, number]> = {
  resignation: [0.5, 0.4],
  loss_of_trust: [0.45, 0.4],
  disappointment: [0.3, 0.4],
  skepticism: [0.15, 0.35],
  impatience: [0.25, 0.4],
  urgency: [0.2, 0.3],
  overwhelm: [0.25, 0.4],
  confusion: [0.1, 0.3],
  uncertainty: [0.05, 0.25],
};

/**
 * Risk of abandonment or escalation, 0–1: the signal's base risk plus its intensity, more when the
 * negativity is building or sustained, when the agent failed repeatedly before the turn, or when
 * the user complains about repetition; halved once the conversation recovered; satisfaction is 0.
 */
export function riskOf(family: EmotionFamily, signal: string, score: number, trajectory: Trajectory, failures: number): number {
  if (family === 'satisfaction') return 0;
  let risk: number;
  if (family === 'frustration') {
    risk = 0.6 * score;
    if (signal === 'exasperation' || signal === 'hostility') risk += 0.1;
  } else {
    const [base, slope] = RISK[signal] ?? [0.2, 0.4];
    risk = base + slope * score;
  }
  if (trajectory === 'building' || trajectory === 'sustained') risk += 0.15;
  if (failures >= 2) risk += 0.1;
  if (trajectory === 'resolved') risk *= 0.5;
  return Math.round(Math.min(0.99, Math.max(0, risk)) * 1000) / 1000;
}
