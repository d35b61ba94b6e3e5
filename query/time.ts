import type { TimeRange } from '../schemas/api/common.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const RANGE_MS: Record<TimeRange, number> = {
  all: 0,
  '1h': HOUR_MS,
  '24h': 24 * HOUR_MS,
  '3d': 3 * DAY_MS,
  '7d': 7 * DAY_MS,
  '30d': 30 * DAY_MS,
  '90d': 90 * DAY_MS,
};

/** Start (Unix ms) of a `time_range` window ending at `nowMs`; 0 for `all`. */
export function timeRangeStartMs(range: TimeRange, nowMs: number): number {
  const span = RANGE_MS[range];
  return span === 0 ? 0 : nowMs - span;
}

/** Start (Unix ms) of a `days_back` window ending at `nowMs`. */
export function daysBackStartMs(days: number, nowMs: number): number {
  return nowMs - days * DAY_MS;
}

/**
 * Start (Unix ms) of the tool-failure window of `days` ending at `nowMs`: whole UTC days, i.e.
 * midnight UTC of the day `days` days before today, so the window is today and the previous
 * `days` days (the `days + 1` timeline entries). Whole days are what the daily rollup can answer
 * exactly (docs/data-api.md "GET /tool-failures").
 */
export function daysBackStartDayMs(days: number, nowMs: number): number {
  const d = new Date(nowMs - days * DAY_MS);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
}

/** UTC dates (YYYY-MM-DD) from the day of `fromMs` to the day of `toMs`, inclusive. */
export function utcDays(fromMs: number, toMs: number): string[] {
  const out: string[] = [];
  let d = Date.UTC(new Date(fromMs).getUTCFullYear(), new Date(fromMs).getUTCMonth(), new Date(fromMs).getUTCDate());
  for (; d <= toMs; d += DAY_MS) out.push(new Date(d).toISOString().slice(0, 10));
  return out;
}

/**
 * Any ClickHouse DateTime64 text (`2024-05-01T10:00:00.000Z`, `2024-05-01 10:00:00.000`) as the
 * API's timestamp form: ISO 8601 UTC with milliseconds and `Z`.
 */
export function isoTimestamp(value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  const text = String(value);
  const normalized = /[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text.replace(' ', 'T') : `${text.replace(' ', 'T')}Z`;
  const d = new Date(normalized);
  return Number.isNaN(d.getTime()) ? text : d.toISOString();
}

/** One decimal, e.g. 12.34 -> 12.3. */
export const oneDecimal = (x: number): number => Math.round(x * 10) / 10;
