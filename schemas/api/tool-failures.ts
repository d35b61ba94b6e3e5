import { FAILURE_FAMILIES } from '../../stream/analyses/types.js';
import { daysBackParam, defineEndpoint, environmentParam, nullableTimestamp, X_CLAMP } from './common.js';

export const EFFECT_CLASSES = ['read', 'write', 'send', 'spawn', 'compute'] as const;
export { FAILURE_FAMILIES };

const rate = { type: 'number', description: 'failures / calls × 100, one decimal; 0 when there are no calls.' } as const;

const counts = {
  type: 'object',
  required: ['calls', 'failures', 'failure_rate_pct', 'conversations'],
  additionalProperties: false,
  properties: {
    calls: { type: 'integer', description: 'Tool calls started in the window.' },
    failures: { type: 'integer', description: 'Calls whose result reported failure.' },
    failure_rate_pct: rate,
    conversations: { type: 'integer', description: 'Conversations with at least one failed call.' },
  },
} as const;

const effectRow = {
  type: 'object',
  required: ['effect_class', 'calls', 'failures', 'failure_rate_pct'],
  additionalProperties: false,
  properties: {
    effect_class: { type: 'string', description: 'read, write, send, spawn, compute, or `unknown` when not recorded.' },
    calls: { type: 'integer' },
    failures: { type: 'integer' },
    failure_rate_pct: rate,
  },
} as const;

const dayRow = {
  type: 'object',
  required: ['date', 'calls', 'failures'],
  additionalProperties: false,
  properties: { date: { type: 'string', description: 'UTC day, YYYY-MM-DD.' }, calls: { type: 'integer' }, failures: { type: 'integer' } },
} as const;

/** A workspace failure category with its failed calls in the window (docs/data-api.md "Failure categories"). */
const categoryRow = {
  type: 'object',
  required: ['category_id', 'label', 'family', 'likely_cause', 'action_hint', 'failures', 'conversations', 'tools', 'last_seen', 'example_error'],
  additionalProperties: false,
  properties: {
    category_id: { type: 'string', description: 'Stable id: never changes once issued.' },
    label: { type: 'string', description: 'Short name of the error template.' },
    family: { type: 'string', enum: FAILURE_FAMILIES, description: 'Failure family (fixed vocabulary).' },
    likely_cause: { type: 'string' },
    action_hint: { type: 'string' },
    failures: { type: 'integer', description: 'Failed calls of this category started in the window.' },
    conversations: { type: 'integer', description: 'Distinct conversations with such a failure (exact).' },
    tools: { type: 'array', items: { type: 'string' }, description: 'Tools with such a failure, most failures first.' },
    last_seen: nullableTimestamp,
    example_error: { type: 'string', description: 'Error text of the newest such failure.' },
  },
} as const;

const familyRow = {
  type: 'object',
  required: ['family', 'failures'],
  additionalProperties: false,
  properties: { family: { type: 'string', enum: FAILURE_FAMILIES }, failures: { type: 'integer' } },
} as const;

const categoryBlocks = {
  categories: {
    type: 'array',
    items: categoryRow,
    description: 'Failure categories ordered by failures, then newest, then id (at most `category_limit`). Failed calls without a category (stored before the classification, or analyzed without the workspace registry) are counted in `totals` only.',
  },
  by_family: { type: 'array', items: familyRow, description: 'Categorized failures per failure family, most first (every category of the window, not only those listed).' },
} as const;

const commonQuery = {
  days_back: daysBackParam(7),
  environment: environmentParam,
  family: { type: 'string', enum: FAILURE_FAMILIES, description: 'Restrict `categories` and `by_family` to one failure family; the other blocks are not filtered.' },
  category_limit: { type: 'integer', minimum: 1, maximum: 100, default: 50, [X_CLAMP]: 'non_negative', description: 'Categories listed, 1–100, default 50; clamped.' },
} as const;

export const toolFailureOverview = defineEndpoint({
  operationId: 'getToolFailureOverview',
  method: 'get',
  path: '/tool-failures',
  tag: 'tool-failures',
  summary: 'Tool-failure counts and rates by tool, effect class and day',
  description:
    'Counts tool calls that started in the window: whole UTC days, today and the previous `days_back` days. Tools are ordered by failures, then calls, then name; `timeline` has one entry per UTC day of the window, zero-filled. `categories` lists the workspace-specific failure categories (label, family, likely cause, action hint) of the failed calls, `by_family` their failures per family.',
  status: 200,
  query: {
    type: 'object',
    properties: {
      ...commonQuery,
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 50, [X_CLAMP]: 'non_negative', description: 'Tools listed, 1–100, default 50; clamped.' },
    },
  },
  response: {
    type: 'object',
    required: ['period', 'totals', 'tools', 'by_effect_class', 'timeline', 'categories', 'by_family'],
    additionalProperties: false,
    properties: {
      period: { type: 'object', required: ['days'], additionalProperties: false, properties: { days: { type: 'integer' } } },
      totals: { ...counts, required: [...counts.required, 'tools'], properties: { ...counts.properties, tools: { type: 'integer', description: 'Distinct tools with a failure.' } } },
      tools: {
        type: 'array',
        items: {
          type: 'object',
          required: ['tool_name', 'calls', 'failures', 'failure_rate_pct', 'conversations', 'last_failure_at', 'example_errors'],
          additionalProperties: false,
          properties: {
            tool_name: { type: 'string' },
            calls: { type: 'integer' },
            failures: { type: 'integer' },
            failure_rate_pct: rate,
            conversations: { type: 'integer', description: 'Conversations with a failed call of this tool.' },
            last_failure_at: nullableTimestamp,
            example_errors: { type: 'array', maxItems: 3, items: { type: 'string' }, description: 'Up to 3 frequent error texts.' },
          },
        },
      },
      by_effect_class: { type: 'array', items: effectRow },
      timeline: { type: 'array', items: dayRow },
      ...categoryBlocks,
    },
  },
} as const);

export const toolFailureDetail = defineEndpoint({
  operationId: 'getToolFailureDetail',
  method: 'get',
  path: '/tool-failures/{tool}',
  tag: 'tool-failures',
  summary: 'Failures of one tool',
  description:
    'Counts and rates of one tool (exact name) by effect class and day, with its most frequent error texts and example calls, and its failure categories (counts of this tool only). An unknown tool returns 200 with zero counts and empty lists.',
  status: 200,
  pathParams: { tool: { description: 'Tool name, URL-encoded.', schema: { type: 'string' } } },
  query: {
    type: 'object',
    properties: {
      ...commonQuery,
      limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, [X_CLAMP]: 'non_negative', description: 'Distinct error texts listed, 1–50, default 10; clamped.' },
    },
  },
  response: {
    type: 'object',
    required: ['tool_name', 'period', 'totals', 'by_effect_class', 'timeline', 'errors', 'categories', 'by_family'],
    additionalProperties: false,
    properties: {
      tool_name: { type: 'string' },
      period: { type: 'object', required: ['days'], additionalProperties: false, properties: { days: { type: 'integer' } } },
      totals: counts,
      by_effect_class: { type: 'array', items: effectRow },
      timeline: { type: 'array', items: dayRow },
      errors: {
        type: 'array',
        items: {
          type: 'object',
          required: ['error', 'error_type', 'count', 'last_seen', 'examples'],
          additionalProperties: false,
          properties: {
            error: { type: 'string', description: 'Error text as stored (redacted, at most 2,048 bytes at ingest).' },
            error_type: { type: 'string' },
            count: { type: 'integer' },
            last_seen: nullableTimestamp,
            examples: {
              type: 'array',
              maxItems: 3,
              items: {
                type: 'object',
                required: ['conversation_id', 'call_id', 'timestamp'],
                additionalProperties: false,
                properties: { conversation_id: { type: 'string' }, call_id: { type: 'string' }, timestamp: nullableTimestamp },
              },
            },
          },
        },
      },
      ...categoryBlocks,
    },
  },
} as const);
