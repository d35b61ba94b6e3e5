import type { Attributes } from '../../schemas/events.js';
import { RecordError } from './types.js';
import { setOwn } from '../../core/own.js';

const MAX_DEPTH = 32;

/**
 * OTLP AnyValue (JSON mapping, or protobuf decoded with the same camelCase names) to a plain JSON
 * value. int64 may be a number or a decimal string; values beyond 2^53 stay decimal strings so no
 * digit is lost. bytesValue stays base64. `{}` (unset) is null. Throws RecordError on a wrong shape.
 */
export function anyValue(v: unknown, depth = 0): unknown {
  if (depth > MAX_DEPTH) throw new RecordError('AnyValue nested too deeply');
  if (v === null || v === undefined) return null;
  if (typeof v !== 'object' || Array.isArray(v)) throw new RecordError('AnyValue must be an object');
  const o = v as Record<string, unknown>;
  if ('stringValue' in o && o.stringValue !== undefined) {
    if (typeof o.stringValue !== 'string') throw new RecordError('stringValue must be a string');
    return o.stringValue;
  }
  if ('boolValue' in o && o.boolValue !== undefined) {
    if (typeof o.boolValue !== 'boolean') throw new RecordError('boolValue must be a boolean');
    return o.boolValue;
  }
  if ('intValue' in o && o.intValue !== undefined) return int64(o.intValue, 'intValue');
  if ('doubleValue' in o && o.doubleValue !== undefined) return double(o.doubleValue);
  if ('arrayValue' in o && o.arrayValue !== undefined) {
    const values = listOf(o.arrayValue, 'arrayValue');
    return values.map((x) => anyValue(x, depth + 1));
  }
  if ('kvlistValue' in o && o.kvlistValue !== undefined) {
    return keyValues(listOf(o.kvlistValue, 'kvlistValue'), depth + 1);
  }
  if ('bytesValue' in o && o.bytesValue !== undefined) {
    if (typeof o.bytesValue !== 'string') throw new RecordError('bytesValue must be a base64 string');
    return o.bytesValue;
  }
  return null;
}

function listOf(container: unknown, what: string): unknown[] {
  if (!container || typeof container !== 'object' || Array.isArray(container)) {
    throw new RecordError(`${what} must be an object with a "values" array`);
  }
  const values = (container as { values?: unknown }).values;
  if (values === undefined || values === null) return [];
  if (!Array.isArray(values)) throw new RecordError(`${what}.values must be an array`);
  return values;
}

/** A repeated KeyValue to an attribute map; the last of duplicate keys wins. */
export function keyValues(list: unknown, depth = 0): Attributes {
  if (list instanceof ReadAttributes) return list.take();
  const out: Attributes = {};
  if (list === undefined || list === null) return out;
  if (!Array.isArray(list)) throw new RecordError('attributes must be an array of {key, value}');
  for (const kv of list) addKeyValue(out, kv, depth);
  return out;
}

function addKeyValue(out: Attributes, kv: unknown, depth: number): void {
  if (!kv || typeof kv !== 'object') throw new RecordError('attribute must be an object {key, value}');
  const { key, value } = kv as { key?: unknown; value?: unknown };
  if (typeof key !== 'string') throw new RecordError('attribute key must be a string');
  // `__proto__` and friends as keys must not touch the prototype
  setOwn(out, key, anyValue(value, depth));
}

/**
 * An `attributes` list the protobuf reader turned into its map while reading the bytes
 * (proto-reader.ts, `mapAttributes`): what `keyValues` gives for the list in the OTLP/JSON shape,
 * without building a KeyValue and an AnyValue object per attribute first. The error `keyValues`
 * would throw for the list is kept and thrown when the map is taken, so a broken attribute still
 * rejects only its record. The map is the taker's own: a second taker (a resource shared by the
 * scopes under it) gets a copy, as `keyValues` gives each call a new map.
 */
export class ReadAttributes {
  readonly map: Attributes = {};
  /** The message of the first RecordError of the list; the entries after it are not converted. */
  error: string | undefined;
  private taken = false;

  /** One attribute of a scalar value (string, boolean, integer, double, base64 bytes); '' or no key is refused as `keyValues` refuses it. */
  addScalar(key: string | undefined, value: unknown): void {
    if (this.error !== undefined) return;
    if (!key) this.error = 'attribute key must be a string';
    else setOwn(this.map, key, value);
  }

  /** One attribute as a KeyValue in the OTLP/JSON shape (the reader's general path). */
  addKeyValue(kv: unknown): void {
    if (this.error !== undefined) return;
    try {
      addKeyValue(this.map, kv, 0);
    } catch (err) {
      if (!(err instanceof RecordError)) throw err;
      this.error = err.message;
    }
  }

  take(): Attributes {
    if (this.error !== undefined) throw new RecordError(this.error);
    if (!this.taken) {
      this.taken = true;
      return this.map;
    }
    return { ...this.map };
  }
}

/** int64 as JSON number or decimal string; safe integers become numbers. */
export function int64(v: unknown, what: string): number | string {
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || !Number.isInteger(v)) throw new RecordError(`${what} must be an integer`);
    return v;
  }
  if (typeof v === 'string' && /^-?\d{1,20}$/.test(v.trim())) {
    const n = Number(v.trim());
    return Number.isSafeInteger(n) ? n : v.trim();
  }
  throw new RecordError(`${what} must be an integer or a decimal string`);
}

function double(v: unknown): number | string | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    if (v === 'NaN' || v === 'Infinity' || v === '-Infinity') return v;
    const n = Number(v);
    if (v.trim() !== '' && Number.isFinite(n)) return n;
  }
  // a known desktop-client bug sends {"doubleValue": {}}: an unset value, not a broken record
  if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0) return null;
  throw new RecordError('doubleValue must be a number');
}

/** fixed64 nanoseconds (number or decimal string) to a decimal string; '' when unset or zero. */
export function nanos(v: unknown, what: string): string {
  if (v === undefined || v === null || v === '' || v === 0 || v === '0') return '';
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v < 0) throw new RecordError(`${what} must be a non-negative integer`);
    return BigInt(Math.round(v)).toString();
  }
  if (typeof v === 'string' && /^\d{1,20}$/.test(v)) return v.replace(/^0+(?=\d)/, '');
  throw new RecordError(`${what} must be an integer or a decimal string`);
}

/** trace/span ids: hex strings (case-insensitive) of the right length, or empty. Lower-cased. */
export function hexId(v: unknown, bytes: number, what: string): string {
  if (v === undefined || v === null || v === '') return '';
  if (typeof v !== 'string' || !/^[0-9a-fA-F]*$/.test(v) || v.length !== bytes * 2) {
    throw new RecordError(`${what} must be ${bytes * 2} hex characters`);
  }
  return /^0+$/.test(v) ? '' : v.toLowerCase();
}

export function str(v: unknown, what: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new RecordError(`${what} must be a string`);
  return v;
}

export function intField(v: unknown, what: string): number {
  if (v === undefined || v === null) return 0;
  const n = int64(v, what);
  return typeof n === 'number' ? n : 0;
}
