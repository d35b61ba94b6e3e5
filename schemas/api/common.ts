/**
 * Building blocks shared by the data-API endpoint schemas (spec/data-api.md "Common query
 * parameters", "Pagination patterns", "Errors"). Every endpoint schema is a plain JSON Schema
 * object written `as const`; query/params.ts compiles it with ajv, query/openapi.ts publishes it.
 *
 * Numeric query parameters carry their allowed range as `minimum`/`maximum` plus the extension
 * keyword `x-clamp`: the range is then applied by clamping (spec: out-of-range values are clamped
 * to the nearest bound), and only the sign is validated (`positive` or `non_negative`).
 */
export type JsonSchema = Record<string, unknown>;

/** Where the data API is mounted; endpoint paths are relative to it. */
export const DATA_API_BASE = '/api/v1/data';

export const X_CLAMP = 'x-clamp';

export const TIME_RANGES = ['all', '1h', '24h', '3d', '7d', '30d', '90d'] as const;
export type TimeRange = (typeof TIME_RANGES)[number];
export const ENVIRONMENTS = ['all', 'development', 'staging', 'production'] as const;

export const timeRangeParam = {
  type: 'string',
  enum: TIME_RANGES,
  default: 'all',
  description: 'Window ending now; `all` applies no time filter.',
} as const;

export const environmentParam = {
  type: 'string',
  enum: ENVIRONMENTS,
  default: 'all',
  description: 'Restrict to one deployment environment; `all` applies no filter.',
} as const;

export const daysBackParam = (def: number) =>
  ({
    type: 'integer',
    minimum: 1,
    maximum: 90,
    default: def,
    [X_CLAMP]: 'non_negative',
    description: `Days before now, 1–90 (default ${def}); out-of-range values are clamped.`,
  }) as const;

/** ISO 8601 UTC with milliseconds and `Z`, e.g. `2024-05-01T10:00:00.000Z`. */
export const timestamp = { type: 'string', description: 'ISO 8601 UTC with milliseconds, e.g. 2024-05-01T10:00:00.000Z' } as const;
export const nullableTimestamp = { anyOf: [timestamp, { type: 'null' }] } as const;

export const offsetPagination = {
  type: 'object',
  required: ['limit', 'offset', 'total', 'has_more'],
  additionalProperties: false,
  properties: {
    limit: { type: 'integer' },
    offset: { type: 'integer' },
    total: { type: 'integer' },
    has_more: { type: 'boolean' },
  },
} as const;

export const limitPagination = {
  type: 'object',
  required: ['limit', 'returned', 'has_more'],
  additionalProperties: false,
  properties: {
    limit: { type: 'integer' },
    returned: { type: 'integer' },
    has_more: { type: 'boolean' },
  },
} as const;

export const cursorPagination = {
  type: 'object',
  required: ['limit', 'has_more', 'next_cursor'],
  additionalProperties: false,
  properties: {
    limit: { type: 'integer' },
    has_more: { type: 'boolean' },
    next_cursor: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  },
} as const;

export const errorBody = {
  type: 'object',
  required: ['message'],
  properties: {
    statusCode: { type: 'integer' },
    error: { type: 'string' },
    message: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
  },
} as const;

export interface EndpointSpec {
  readonly operationId: string;
  readonly method: 'get' | 'post';
  /** OpenAPI form, relative to /api/v1/data: `/conversations/{id}/context`. */
  readonly path: string;
  readonly summary: string;
  readonly description: string;
  readonly tag: string;
  readonly pathParams?: Readonly<Record<string, { readonly description: string; readonly schema: JsonSchema }>>;
  readonly query?: JsonSchema;
  readonly body?: JsonSchema;
  readonly response: JsonSchema;
  readonly status: 200 | 202;
  /** When the endpoint answers 404, what it means. */
  readonly notFound?: string;
}

export const defineEndpoint = <const E extends EndpointSpec>(e: E): E => e;

/** `limit` + `offset` of the offset pattern (spec "Pagination patterns" 1), both clamped. */
export const offsetPageParams = (defaultLimit: number, maxLimit: number) =>
  ({
    limit: { type: 'integer', minimum: 1, maximum: maxLimit, default: defaultLimit, [X_CLAMP]: 'non_negative', description: `1–${maxLimit}, default ${defaultLimit}; clamped.` },
    offset: { type: 'integer', minimum: 0, maximum: 10000, default: 0, [X_CLAMP]: 'non_negative', description: '0–10,000, default 0; clamped.' },
  }) as const;

/**
 * Frustration KPIs of a window (spec "GET /overview"), read from the per-conversation signals: a
 * conversation counts in the window of its last activity; `total_analyzed` counts conversations with
 * at least one user message, `frustrated` those with a frustration-family detection scored ≥ 0.5,
 * `at_risk` those not frustrated whose highest risk score is ≥ 0.5.
 */
export const frustrationsBlock = {
  type: 'object',
  required: ['total_analyzed', 'frustrated', 'at_risk', 'rate_pct'],
  additionalProperties: false,
  properties: {
    total_analyzed: { type: 'integer', description: 'Conversations of the window with at least one user message.' },
    frustrated: { type: 'integer', description: 'Of those, conversations with a frustration-family detection scored at least 0.5.' },
    at_risk: { type: 'integer', description: 'Of those, conversations not frustrated whose highest risk score is at least 0.5.' },
    rate_pct: { type: 'number', description: 'frustrated / total_analyzed × 100, one decimal; 0 when nothing was analyzed.' },
  },
} as const;

/** A percentage of a count, one decimal, 0 when the count is 0. */
export const ratePctField = (what: string) => ({ type: 'number', description: `${what}, one decimal; 0 when there is nothing to count.` }) as const;
