import { FRUSTRATION_MIN, OUTCOME_NEGATIVE_BELOW, OUTCOME_POSITIVE_FROM } from '../outcome.js';
import { defineEndpoint, environmentParam, offsetPagination, timeRangeParam, timestamp, X_CLAMP } from './common.js';

/** spec/data-api.md "Conversation row (list)". */
export const conversationRow = {
  type: 'object',
  required: ['conversation_id', 'summary', 'message_count', 'first_timestamp', 'last_timestamp', 'cluster_id', 'cluster_name', 'environment'],
  additionalProperties: false,
  properties: {
    conversation_id: { type: 'string' },
    summary: { type: 'string', description: 'Extractive trace summary (at most 300 characters, regenerated as the conversation grows); empty string until one is written (conversations with fewer than 2 messages have none).' },
    message_count: { type: 'integer' },
    first_timestamp: timestamp,
    last_timestamp: timestamp,
    cluster_id: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    cluster_name: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    environment: { type: 'string' },
  },
} as const;

export const listConversationsQuery = {
  type: 'object',
  properties: {
    search: {
      type: 'string',
      maxLength: 500,
      description:
        'Free text over summaries and message bodies. Keyword mode: the text is split into lower-cased alphanumeric terms; a conversation matches when its summary or one of its messages contains every term as a whole word. Hybrid mode (when `search` is the only filter and a taxonomy run exists): keyword matches and semantically close conversations fused by reciprocal rank.',
    },
    cluster_id: { type: 'string', maxLength: 200, description: 'Restrict to conversations with a segment in this node of the current taxonomy run (a category: in any of its clusters). Before the first run, or for an unknown node, nothing matches.' },
    user_id: { type: 'string', maxLength: 500, description: 'Restrict to one end user (exact match).' },
    time_range: { ...timeRangeParam, description: 'Filters on last activity (last message time).' },
    environment: environmentParam,
    world_state: {
      type: 'string',
      maxLength: 200,
      description:
        'Case-insensitive keyword match on world-state content: every comma-separated term must occur (as a substring) in a slot key or value the conversation held in a segment, or in a durable slot carried in. Free text, not key=value; blank terms are ignored; max 200 characters.',
    },
    outcome: {
      type: 'string',
      enum: ['any', 'positive', 'negative'],
      default: 'any',
      description: `\`positive\`: the blended step score (rollup) is at least ${OUTCOME_POSITIVE_FROM} and no frustration detection scores ${FRUSTRATION_MIN} or more; \`negative\`: the blended score is below ${OUTCOME_NEGATIVE_BELOW} or such a frustration detection exists. Conversations not scored yet are neither.`,
    },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20, [X_CLAMP]: 'non_negative', description: '1–100, default 20; clamped.' },
    offset: { type: 'integer', minimum: 0, maximum: 10000, default: 0, [X_CLAMP]: 'non_negative', description: '0–10,000, default 0; clamped.' },
  },
} as const;

export const listConversations = defineEndpoint({
  operationId: 'listConversations',
  method: 'get',
  path: '/conversations',
  tag: 'conversations',
  summary: 'List conversations, newest first',
  description:
    'Keyword mode: ordered by last activity, newest first (ties by conversation_id descending), `pagination.total` exact. Hybrid mode (`search` alone): ordered by fused rank, `pagination.total` is the size of the ranked candidate pool. `cluster_id`/`cluster_name`: the cluster holding most of the conversation\'s segments in the current run (null without one).',
  status: 200,
  query: listConversationsQuery,
  response: {
    type: 'object',
    required: ['conversations', 'search_mode', 'pagination'],
    additionalProperties: false,
    properties: {
      conversations: { type: 'array', items: conversationRow },
      search_mode: { type: 'string', enum: ['keyword', 'hybrid'] },
      pagination: offsetPagination,
    },
  },
} as const);

/** Characters kept of a tool input or tool result; longer text ends with `…` (see docs/data-api.md). */
export const TOOL_TEXT_MAX_CHARS = 1000;

export const contextMessage = {
  type: 'object',
  required: ['index', 'role', 'content', 'tool_calls', 'tool_results', 'timestamp'],
  additionalProperties: false,
  properties: {
    index: { type: 'integer' },
    role: { type: 'string' },
    content: { type: 'string' },
    tool_calls: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'input'],
        additionalProperties: false,
        properties: { id: { type: 'string' }, name: { type: 'string' }, input: { type: 'string', description: `JSON text, at most ${TOOL_TEXT_MAX_CHARS} characters.` } },
      },
    },
    tool_results: {
      type: 'array',
      items: {
        type: 'object',
        required: ['tool_use_id', 'content', 'is_error'],
        additionalProperties: false,
        properties: {
          tool_use_id: { type: 'string' },
          content: { type: 'string', description: `At most ${TOOL_TEXT_MAX_CHARS} characters.` },
          is_error: { type: 'boolean' },
        },
      },
    },
    timestamp,
  },
} as const;

export const conversationContext = defineEndpoint({
  operationId: 'getConversationContext',
  method: 'get',
  path: '/conversations/{id}/context',
  tag: 'conversations',
  summary: 'Message window around one message',
  description:
    'Messages are indexed from 0 in (timestamp, sequence, message id) order. An unknown conversation returns 200 with total_messages 0, null indexes and no messages.',
  status: 200,
  pathParams: { id: { description: 'Conversation (trace) id.', schema: { type: 'string' } } },
  query: {
    type: 'object',
    properties: {
      msg_index: {
        type: 'integer',
        minimum: 0,
        maximum: 2147483647,
        [X_CLAMP]: 'non_negative',
        description: 'Zero-based centre; default the middle message (index floor((n-1)/2)); beyond the last message it is clamped to the last.',
      },
      window: { type: 'integer', minimum: 1, maximum: 5, default: 2, [X_CLAMP]: 'positive', description: 'Messages per side, 1–5, default 2; clamped.' },
    },
  },
  response: {
    type: 'object',
    required: ['conversation_id', 'total_messages', 'summary', 'context'],
    additionalProperties: false,
    properties: {
      conversation_id: { type: 'string' },
      total_messages: { type: 'integer' },
      summary: { type: 'string' },
      context: {
        type: 'object',
        required: ['center_index', 'from_index', 'to_index', 'messages'],
        additionalProperties: false,
        properties: {
          center_index: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
          from_index: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
          to_index: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
          messages: { type: 'array', items: contextMessage },
        },
      },
    },
  },
} as const);
