import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { BadRequestError } from '../core/errors.js';
import { ENVIRONMENTS, TIME_RANGES, X_CLAMP, type JsonSchema } from '../schemas/api/common.js';

/**
 * Schema-driven request validation (spec/data-api.md "Errors"): the endpoint's JSON Schema gives
 * types, enums, lengths and defaults. Numeric query parameters marked `x-clamp` are validated only
 * for being integers (or, typed `number`, plain decimals such as `min_score=0.5`) of the required
 * sign (`window` positive, others non-negative) and then clamped into [minimum, maximum], because
 * the spec clamps out-of-range values instead of rejecting them.
 */
const ajv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, strict: true });
ajv.addKeyword({ keyword: X_CLAMP, schemaType: 'string' });
// OpenAPI-only annotations used in the schemas
const bodyAjv = new Ajv({ allErrors: true, coerceTypes: false, useDefaults: true, strict: true });
bodyAjv.addKeyword({ keyword: X_CLAMP, schemaType: 'string' });

type Props = Record<string, Record<string, unknown>>;

interface Clamp {
  name: string;
  min: number;
  max: number;
}

/** The schema ajv sees: clamped properties keep only their sign bound. */
function validationSchema(schema: JsonSchema): { schema: JsonSchema; clamps: Clamp[] } {
  const props = (schema.properties ?? {}) as Props;
  const clamps: Clamp[] = [];
  const out: Props = {};
  for (const [name, p] of Object.entries(props)) {
    const sign = p[X_CLAMP];
    if (!sign) {
      out[name] = p;
      continue;
    }
    clamps.push({ name, min: Number(p.minimum), max: Number(p.maximum) });
    const { minimum: _min, maximum: _max, ...rest } = p;
    out[name] = { ...rest, minimum: sign === 'positive' ? 1 : 0 };
  }
  return { schema: { ...schema, properties: out }, clamps };
}

/** `limit must be integer`, `environment must be one of: all, development, ...`. `numbers`: fields typed `number`, whose sign errors say so. */
export function formatErrors(errors: ErrorObject[] | null | undefined, where: string, numbers: ReadonlySet<string> = new Set()): string[] {
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    const field = e.instancePath ? e.instancePath.slice(1).replaceAll('/', '.') : '';
    let msg: string;
    if (e.keyword === 'required') msg = `${(e.params as { missingProperty: string }).missingProperty} is required`;
    else if (e.keyword === 'additionalProperties') msg = `${field ? field + '.' : ''}${(e.params as { additionalProperty: string }).additionalProperty} is not allowed`;
    else if (e.keyword === 'enum') msg = `${field} must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    else if (e.keyword === 'minimum' && (e.params as { limit: number }).limit === 1) msg = `${field} must be a positive integer`;
    else if (e.keyword === 'minimum' && (e.params as { limit: number }).limit === 0) msg = `${field} must be a non-negative ${numbers.has(field) ? 'number' : 'integer'}`;
    else if (e.keyword === 'type' && e.params && (e.params as { type: string }).type === 'integer') msg = `${field} must be an integer`;
    else msg = `${field || where} ${e.message ?? 'is invalid'}`;
    seen.add(msg);
  }
  return [...seen];
}

export type RawQuery = Record<string, string | string[] | undefined>;

/**
 * The common enum parameters (spec: "Common query parameters"): a value outside the set gives 400 on
 * every endpoint, also where the endpoint applies no such filter (there a valid value is ignored).
 */
const COMMON_ENUMS: Record<string, readonly string[]> = { time_range: TIME_RANGES, environment: ENVIRONMENTS };

/** Compiles a query-string validator: returns typed, defaulted, clamped parameters or throws 400. */
export function compileQuery<T>(schema: JsonSchema | undefined): (raw: RawQuery) => T {
  if (!schema) return () => ({}) as T;
  const { schema: s, clamps } = validationSchema(schema);
  const validate: ValidateFunction = ajv.compile(s);
  const props = (schema.properties ?? {}) as Props;
  const known = new Set(Object.keys(props));
  const integers = new Set(Object.keys(props).filter((k) => props[k]?.type === 'integer'));
  const numbers = new Set(Object.keys(props).filter((k) => props[k]?.type === 'number'));
  return (raw) => {
    const input: Record<string, unknown> = {};
    const problems: string[] = [];
    for (const [k, v] of Object.entries(raw)) {
      if (v === undefined) continue;
      if (!known.has(k)) {
        // unknown parameters are ignored (docs/data-api.md), common ones checked all the same
        const allowed = COMMON_ENUMS[k];
        if (allowed && v !== '' && (Array.isArray(v) || !allowed.includes(v))) problems.push(Array.isArray(v) ? `${k} must be given once` : `${k} must be one of: ${allowed.join(', ')}`);
        continue;
      }
      // repeated known parameters are ambiguous
      if (Array.isArray(v)) {
        problems.push(`${k} must be given once`);
        continue;
      }
      if (v === '') continue; // `?limit=` means "not given"
      // plain decimal only: ajv's coercion would also take `1e2`, `0x10` or ` 5`
      if (integers.has(k) && !/^[+-]?\d+$/.test(v)) {
        problems.push(`${k} must be an integer`);
        continue;
      }
      // decimals written plainly (`0.5`, `.5`, `1`); no exponents, hex, `NaN` or `Infinity`
      if (numbers.has(k) && !/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(v)) {
        problems.push(`${k} must be a number`);
        continue;
      }
      input[k] = v;
    }
    if (!validate(input)) problems.push(...formatErrors(validate.errors, 'query', numbers));
    if (problems.length) throw validationError(problems);
    for (const c of clamps) {
      const v = input[c.name];
      if (typeof v === 'number') input[c.name] = Math.min(c.max, Math.max(c.min, v));
    }
    return input as T;
  };
}

/** Compiles a JSON-body validator (no type coercion: a body states its types). */
export function compileBody<T>(schema: JsonSchema): (body: unknown) => T {
  const validate = bodyAjv.compile(schema);
  return (body) => {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw validationError(['body must be a JSON object']);
    if (!validate(body)) throw validationError(formatErrors(validate.errors, 'body'));
    return body as T;
  };
}

export function validationError(messages: string[]): BadRequestError {
  return new BadRequestError(messages.join('; '), { code: 'validation_failed', details: messages });
}
