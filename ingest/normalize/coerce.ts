import type { Attributes } from '../../schemas/events.js';
import { setOwn } from '../../core/own.js';
import { timeUnits } from '../../core/utc-time.js';

/**
 * Attribute values are coerced by key, never by wire type: agents send numbers as stringValue,
 * intValue (number or decimal string) or doubleValue, and booleans as "true"/"false" or boolValue.
 * A value that does not parse is kept as received rather than dropped.
 */
const NUMBER_KEYS = new Set([
  'prompt_length', 'response_length', 'duration_ms', 'status_code', 'attempt', 'event.sequence', 'cost_usd', 'cost_usd_micros',
  'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_creation_tokens', 'ttft_ms', 'tool_input_size_bytes',
  'tool_result_size_bytes', 'total_tokens', 'total_tool_uses', 'pre_tokens', 'post_tokens', 'total_attempts',
  'total_retry_duration_ms', 'body_length', 'server_fallback_hop', 'num_hooks', 'num_success', 'num_blocking',
  'num_non_blocking_error', 'num_cancelled', 'total_duration_ms', 'input_token_count', 'output_token_count',
  'cached_token_count', 'reasoning_token_count', 'tool_token_count', 'http.response.status_code', 'context_window',
  'auto_compact_token_limit', 'reasoning_tokens', 'timeout',
  'gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens', 'gen_ai.usage.cache_read.input_tokens',
  'gen_ai.usage.cache_creation.input_tokens', 'gen_ai.usage.reasoning.output_tokens', 'gen_ai.usage.prompt_tokens',
  'gen_ai.usage.completion_tokens',
]);

const BOOLEAN_KEYS = new Set([
  'success', 'is_plugin', 'safe_mode', 'skill.activated', 'is_error', 'is_built_in', 'is_async', 'model_swapped',
  'body_truncated', 'has_category', 'has_explanation', 'auth.header_attached', 'auth.connection_reused', 'is_interrupt',
  'stop_hook_active', 'mcp', 'interrupted',
]);

/** Keys that are identifiers: an intValue there is still text. */
const STRING_KEYS = new Set([
  'session.id', 'conversation.id', 'user.id', 'user.account_uuid', 'user.account_id', 'user.email', 'organization.id',
  'prompt.id', 'request_id', 'client_request_id', 'tool_use_id', 'call_id', 'message.uuid', 'app.version', 'model',
]);

export function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '' && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(v.trim())) {
    // "1e999" matches the pattern but is no number the store can hold
    const n = Number(v.trim());
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/**
 * A count (tokens): a non-negative integer JavaScript holds exactly. Those land in UInt64 columns,
 * which refuse a sign or a fraction (the whole insert fails) and wrap values past 2^64; anything
 * else is left out of the facet (the attribute keeps the value as received).
 */
export function toCount(v: unknown): number | undefined {
  const n = toNumber(v);
  return n !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * Times the store holds: ClickHouse DateTime64 covers 1900-01-01 to 2299-12-31 (UTC). A time
 * outside is treated as unparseable (docs/ingestion.md "What the store would refuse").
 */
export const STORABLE_TIME_MS = { min: Date.UTC(1900, 0, 1), max: Date.UTC(2300, 0, 1) - 1 } as const;

const storable = (d: Date): Date | undefined => {
  const t = d.getTime();
  return Number.isNaN(t) || t < STORABLE_TIME_MS.min || t > STORABLE_TIME_MS.max ? undefined : d;
};

export function toBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v === 1 ? true : v === 0 ? false : undefined;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true' || s === '1' || s === 'yes') return true;
    if (s === 'false' || s === '0' || s === 'no') return false;
  }
  return undefined;
}

export function toText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** Coerces one attribute by its key. */
export function coerceValue(key: string, v: unknown): unknown {
  if (NUMBER_KEYS.has(key)) return toNumber(v) ?? v;
  if (BOOLEAN_KEYS.has(key)) return toBoolean(v) ?? v;
  if (STRING_KEYS.has(key)) return toText(v) ?? v;
  return v;
}

/**
 * Coerces every known key of `attrs` in place and returns it: for attribute maps the request owns
 * (decoded from its body), where a copy would only cost an object per event.
 */
export function coerceAttributesInPlace(attrs: Attributes): Attributes {
  // for…in: no array of keys per event (a key deleted before its turn is skipped, as with a copy)
  for (const k in attrs) {
    if (k === '__proto__') continue;
    const v = attrs[k];
    const c = coerceValue(k, v);
    if (c !== v) attrs[k] = c;
  }
  return attrs;
}

/** A copy of `attrs` with every known key coerced. */
export function coerceAttributes(attrs: Attributes): Attributes {
  const out: Attributes = {};
  for (const k of Object.keys(attrs)) {
    setOwn(out, k, coerceValue(k, attrs[k]));
  }
  return out;
}

/** ISO 8601 date or date-time; group 1 is the time of day, group 2 the offset (Z or ±hh[:]mm). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/**
 * Parses a timestamp: ISO 8601, Unix seconds or Unix milliseconds (number or digit string), within
 * STORABLE_TIME_MS. A date-time without an offset is UTC: `Date` would read it in the server's
 * local time zone, so the same payload would land at another instant on another server.
 */
export function parseTimestamp(v: unknown): Date | undefined {
  if (typeof v === 'number' || (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v.trim()))) {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) return undefined;
    // below 1e11 a value is seconds (1e11 s is year 5138); above, milliseconds
    const ms = n < 1e11 ? n * 1000 : n;
    return storable(new Date(Math.round(ms)));
  }
  if (typeof v !== 'string') return undefined;
  const s = v.trim();
  const m = ISO_TIME.exec(s);
  if (!m) return undefined;
  // a bare date is already read as UTC; a time of day without an offset is not
  return storable(new Date(m[1] !== undefined && m[2] === undefined ? `${s}Z` : s));
}

/**
 * `v` itself when it is already the text `parseTimestamp(v)` would be stored as: the canonical
 * `YYYY-MM-DDThh:mm:ss.sssZ` (what `Date#toISOString` writes) of a real instant of 1970–2261,
 * inside STORABLE_TIME_MS. Agents send their times so; the edge then keeps the text instead of a
 * regular expression, a `Date` and its formatting per event (about 1.2 µs → 0.1).
 */
export function canonicalTimestamp(v: unknown): string | undefined {
  return typeof v === 'string' && v.length === 24 && timeUnits(v, 3) !== undefined ? v : undefined;
}

/** A timestamp as stored (`parseTimestamp`'s time as ISO 8601 text), the canonical text kept as sent. */
export function storedTimestamp(v: unknown): string | undefined {
  return canonicalTimestamp(v) ?? parseTimestamp(v)?.toISOString();
}

/** OTLP nanoseconds (decimal string) to a Date; undefined when unset or outside STORABLE_TIME_MS. */
export function fromNanos(nanos: string): Date | undefined {
  if (!nanos) return undefined;
  const ms = Number(BigInt(nanos) / 1_000_000n);
  return storable(new Date(ms));
}
