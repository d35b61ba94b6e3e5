/**
 * The ranking formula of trusted problems (docs/analyses.md "Problems", Ranking):
 *
 *   rank_score = ln(1 + family_weighted_count)
 *              × (1 + ln(1 + affected_conversations) + 0.5 · ln(1 + affected_users))
 *              × (1 + max(0, −agg_prm_delta))
 *              × (1 + abandonment_rate)
 *              × (0.5 + 0.5 · recency_score)
 *              × (1 + 0.25 · trend_score)
 *
 * rounded to 4 decimals. Only problems whose verification status is `current` are ranked.
 */
import type { ProblemMetrics } from './types.js';

/** Weight of one signal by family (else by kind): how much a user feels it. */
export const FAMILY_WEIGHTS: Readonly<Record<string, number>> = {
  frustration: 1.5,
  distrust: 1.3,
  disappointment: 1.2,
  impatience: 1.0,
  confusion: 0.8,
  abandonment: 2.0,
  hallucination: 1.2,
  laziness: 1.0,
  step_score: 1.0,
  tool_failure: 1.0,
  user_rejected: 1.2,
};

export function rankScore(m: Pick<ProblemMetrics, 'family_weighted_count' | 'affected_conversations' | 'affected_users' | 'agg_prm_delta' | 'abandonment_rate' | 'recency_score' | 'trend_score'>): number {
  const score =
    Math.log1p(m.family_weighted_count) *
    (1 + Math.log1p(m.affected_conversations) + 0.5 * Math.log1p(m.affected_users)) *
    (1 + Math.max(0, -m.agg_prm_delta)) *
    (1 + m.abandonment_rate) *
    (0.5 + 0.5 * m.recency_score) *
    (1 + 0.25 * m.trend_score);
  return Math.round(score * 10_000) / 10_000;
}
