/**
 * Canonical UTC time text (`YYYY-MM-DDThh:mm:ss[.f…]Z`, what `Date#toISOString` writes) read
 * without `Date.parse`: the edge recognizes times already in that form, the stream turns them into
 * a DateTime64's units for Native inserts, the attribute references compare them to a column.
 */

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** 10^n for the digits of a DateTime64 (0–9): `**` calls the engine's general power, a table is one load. */
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
const pow10 = (n: number) => POW10[n] ?? 10 ** n;

/** The number written by `len` digits of `s` from `at`, or -1. */
function digits(s: string, at: number, len: number): number {
  let v = 0;
  for (let i = at; i < at + len; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/**
 * The last calendar day read (`YYYY-MM-DD`, already checked) and its midnight in ms: the times of a
 * message, and of the messages after it, mostly fall on one day, so its date is checked and turned
 * into a time once, not for every value.
 */
let lastDay = '';
let lastDayMs = 0;

/** Midnight (ms since the epoch) of the day `s` starts with, or -1 when it is not a real day of 1970–2261. */
function dayMs(s: string): number {
  if (lastDay.length === 10) {
    let same = true;
    for (let i = 0; i < 10; i++) {
      if (s.charCodeAt(i) !== lastDay.charCodeAt(i)) {
        same = false;
        break;
      }
    }
    if (same) return lastDayMs;
  }
  if (s[4] !== '-' || s[7] !== '-') return -1;
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 2);
  const d = digits(s, 8, 2);
  if (y < 1970 || y > 2261 || mo < 1 || mo > 12) return -1;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d < 1 || d > (mo === 2 && leap ? 29 : DAYS[mo - 1]!)) return -1;
  lastDay = s.slice(0, 10);
  lastDayMs = Date.UTC(y, mo - 1, d);
  return lastDayMs;
}

/**
 * Units of 10^-scale s since the epoch of a canonical `YYYY-MM-DDThh:mm:ss[.f…]Z` time (fraction
 * of at most `scale` digits, a real calendar day, years 1970–2261), or undefined for any other text.
 */
export function timeUnits(s: string, scale: number): number | undefined {
  const len = s.length;
  if (len < 20 || s.charCodeAt(len - 1) !== 90 /* Z */) return undefined;
  if (s[10] !== 'T' || s[13] !== ':' || s[16] !== ':') return undefined;
  const h = digits(s, 11, 2);
  const mi = digits(s, 14, 2);
  const sec = digits(s, 17, 2);
  let frac = 0;
  if (len > 20) {
    const places = len - 21;
    if (s[19] !== '.' || places < 1 || places > scale) return undefined;
    frac = digits(s, 20, places);
    if (frac < 0) return undefined;
    frac *= pow10(scale - places);
  }
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59) return undefined;
  const day = dayMs(s);
  if (day < 0) return undefined;
  const units = ((day + h * 3_600_000 + mi * 60_000 + sec * 1000) / 1000) * pow10(scale) + frac;
  return units <= Number.MAX_SAFE_INTEGER ? units : undefined;
}

/** Renders time units as the canonical text they were read from (tests, diagnostics). */
export function timeText(units: number, scale: number): string {
  const per = 10 ** scale;
  const seconds = Math.floor(units / per);
  const frac = scale ? `.${String(units - seconds * per).padStart(scale, '0')}` : '';
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}${frac}Z`;
}
