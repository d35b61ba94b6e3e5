/**
 * The offered rates of the end-to-end phase: ×1.6 per step from 1,000 events/s while steps are
 * sustained; after the first step that is not, two steps that halve the interval between the highest
 * sustained rate and the lowest missed one (geometric means: ×1.26, then ×1.12), so the figure
 * lands within about 12% of the limit instead of within 60%. The ladder ends there, or after
 * `maxSteps` steps.
 */
export const FIRST_RATE = 1000;
export const RATE_FACTOR = 1.6;
/** Steps between the last sustained and the first missed rate, after the first miss. */
export const REFINE_STEPS = 2;

export interface Rung {
  offered: number;
  sustained: boolean;
}

/** The next offered rate after `done`, or undefined when the ladder ends. */
export function nextRate(done: readonly Rung[], maxSteps: number): number | undefined {
  if (done.length >= maxSteps) return undefined;
  const last = done.at(-1);
  if (!last) return FIRST_RATE;
  const firstMiss = done.findIndex((r) => !r.sustained);
  if (firstMiss < 0) return Math.round(last.offered * RATE_FACTOR);
  if (done.length - 1 - firstMiss >= REFINE_STEPS) return undefined;
  // between the highest sustained rate and the lowest missed one above it
  const missed = Math.min(...done.filter((r) => !r.sustained).map((r) => r.offered));
  const below = done.filter((r) => r.sustained && r.offered < missed).map((r) => r.offered);
  return below.length ? Math.round(Math.sqrt(Math.max(...below) * missed)) : undefined;
}
