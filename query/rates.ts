import { oneDecimal } from './time.js';

/** part / whole × 100, one decimal; 0 when the whole is 0. */
export const pct = (part: number, whole: number): number => (whole === 0 ? 0 : oneDecimal((part / whole) * 100));

/** The frustration KPIs (overview, /emotions) from the counts of the per-conversation signals. */
export function frustrationKpis(analyzed: number, frustrated: number, atRisk: number) {
  return { total_analyzed: analyzed, frustrated, at_risk: atRisk, rate_pct: pct(frustrated, analyzed) };
}

/** Scores are stored as Float32 (0.7 reads back as 0.699999988…): three decimals are what was written. */
export const score3 = (x: unknown): number => Math.round(Number(x) * 1000) / 1000;
