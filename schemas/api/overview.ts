import { daysBackParam, defineEndpoint, environmentParam, frustrationsBlock, timestamp } from './common.js';

export const RECENT_ACTIVITY_DAYS = 7;
export const RECENT_ACTIVITY_LIMIT = 10;
export const TOP_CLUSTERS = 10;

export const overview = defineEndpoint({
  operationId: 'getOverview',
  method: 'get',
  path: '/overview',
  tag: 'overview',
  summary: 'Headline KPIs',
  description:
    'Conversation, frustration and tool-failure KPIs over the last `days_back` days. A conversation counts in the window of its last activity (the last `days_back` × 24 hours), for `conversations` and `frustrations` alike; tool failures count calls of whole UTC days (today and the previous `days_back` days), as GET /tool-failures does. `top_clusters`: the 10 largest clusters (use cases) of the current taxonomy run, empty before the first run. `recent_activity` always covers the last 7 days.',
  status: 200,
  query: {
    type: 'object',
    properties: {
      days_back: daysBackParam(7),
      environment: environmentParam,
    },
  },
  response: {
    type: 'object',
    required: ['period', 'conversations', 'frustrations', 'tool_failures', 'top_clusters', 'recent_activity', 'timeline'],
    additionalProperties: false,
    properties: {
      period: { type: 'object', required: ['days'], additionalProperties: false, properties: { days: { type: 'integer' } } },
      conversations: {
        type: 'object',
        required: ['total', 'trend_pct'],
        additionalProperties: false,
        properties: {
          total: { type: 'integer' },
          trend_pct: { type: 'number', description: 'Change versus the previous equal window, one decimal; 0 when the previous window is empty.' },
        },
      },
      frustrations: frustrationsBlock,
      tool_failures: {
        type: 'object',
        required: ['total', 'conversations', 'tools'],
        additionalProperties: false,
        properties: {
          total: { type: 'integer', description: 'Failed tool calls started in the window.' },
          conversations: { type: 'integer', description: 'Conversations with at least one failed call in the window.' },
          tools: { type: 'integer', description: 'Distinct tools with at least one failed call in the window.' },
        },
      },
      top_clusters: {
        type: 'array',
        maxItems: 10,
        items: {
          type: 'object',
          required: ['node_id', 'label', 'summary', 'keywords', 'segment_count'],
          additionalProperties: false,
          properties: {
            node_id: { type: 'string' },
            label: { type: 'string' },
            summary: { type: 'string' },
            keywords: { type: 'array', items: { type: 'string' } },
            segment_count: { type: 'integer' },
          },
        },
      },
      recent_activity: {
        type: 'array',
        maxItems: 10,
        items: {
          type: 'object',
          required: ['conversation_id', 'summary', 'timestamp'],
          additionalProperties: false,
          properties: { conversation_id: { type: 'string' }, summary: { type: 'string' }, timestamp },
        },
      },
      timeline: {
        type: 'array',
        description:
          'One entry per UTC day of the tool-failure window (`days_back` + 1 days, oldest first): `conversations` and `frustrated` by the day of their last activity within the KPI window (they sum to `conversations.total` and `frustrations.frustrated`), `tool_failures` by the day the call started (they sum to `tool_failures.total`).',
        items: {
          type: 'object',
          required: ['date', 'conversations', 'frustrated', 'tool_failures'],
          additionalProperties: false,
          properties: { date: { type: 'string', description: 'UTC day, YYYY-MM-DD.' }, conversations: { type: 'integer' }, frustrated: { type: 'integer' }, tool_failures: { type: 'integer' } },
        },
      },
    },
  },
} as const);

export const whoami = defineEndpoint({
  operationId: 'whoami',
  method: 'get',
  path: '/whoami',
  tag: 'meta',
  summary: 'The tenant, role and scopes of the presented key',
  description: 'Useful to check a key before other calls.',
  status: 200,
  response: {
    type: 'object',
    required: ['tenant', 'role', 'scopes'],
    additionalProperties: false,
    properties: { tenant: { type: 'string' }, role: { type: 'string' }, scopes: { type: 'array', items: { type: 'string' } } },
  },
} as const);

export const openapiDocument = defineEndpoint({
  operationId: 'getOpenApi',
  method: 'get',
  path: '/openapi.json',
  tag: 'meta',
  summary: 'This OpenAPI 3.1 document',
  description: 'Generated from the same schemas that validate requests.',
  status: 200,
  response: { type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { type: 'string' } } },
} as const);
