/**
 * The offered rates of the end-to-end phase: ×1.6 per step from 1,000 events/s while steps are
 * sustained; after the first step that is not, one step at the geometric mean of it and the last
 * sustained one (×1.26 above that), so the figure lands within a quarter of the limit instead of
 * within 60%. The ladder ends there, or after `maxSteps` steps.
 */
export const FIRST_RATE = 1000;
export const RATE_FACTOR = 1.6;

export interface Rung {
  offered: number;
  sustained: boolean;
}

/** The next offered rate after `done`, or undefined when the ladder ends. */
export function nextRate(done: readonly Rung[], maxSteps: number): number | undefined {
  if (done.length >= maxSteps) return undefined;
  const last = done.at(-1);
  if (!last) return FIRST_RATE;
  const missed = done.filter((r) => !r.sustained);
  if (missed.length === 0) return Math.round(last.offered * RATE_FACTOR);
  // one step between the first miss and the last sustained step below it, then the end
  const firstMiss = missed[0]!;
  if (done.indexOf(firstMiss) !== done.length - 1) return undefined;
  const below = done.filter((r) => r.sustained && r.offered < firstMiss.offered).at(-1);
  return below ? Math.round(Math.sqrt(below.offered * firstMiss.offered)) : undefined;
}
