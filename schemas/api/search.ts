import { defineEndpoint, environmentParam, limitPagination, timeRangeParam, timestamp, X_CLAMP } from './common.js';

export const SEARCH_MODES = ['keyword', 'semantic', 'hybrid'] as const;
export const SEARCH_SORTS = ['recent', 'relevance'] as const;

export const searchMessages = defineEndpoint({
  operationId: 'searchMessages',
  method: 'get',
  path: '/search',
  tag: 'search',
  summary: 'Search over message anchors',
  description:
    'Keyword search over message bodies: `q` is split into lower-cased alphanumeric terms and a message matches when it contains every term as a whole word (ClickHouse text index, `hasAllTokens`). `semantic`: the taxonomy run\'s segments closest to the query (TF-IDF + LSA vectors of the tenant\'s own corpus), each giving its message closest to the query as the hit, scored by cosine similarity. `hybrid` (default): reciprocal rank fusion of keyword hits (by relevance) and semantic hits, scored by the fused score. Both need a taxonomy run and a query word in its vocabulary; otherwise keyword mode serves and `search_mode` says so. In semantic and hybrid mode the best hits are chosen by relevance and `sort=recent` orders them newest first. `sort=recent` (default) orders hits newest first and reads only the times and ids of the matches before reading the messages of the page, so its cost follows the page; `sort=relevance` orders by score, then newest first, and scores every matching message (its cost grows with the number of matches: a word in a third of all messages reads a third of all message text). `message_index` feeds the context endpoint.',
  status: 200,
  query: {
    type: 'object',
    required: ['q'],
    properties: {
      q: { type: 'string', minLength: 1, maxLength: 200, description: 'Search text, 1–200 characters.' },
      mode: { type: 'string', enum: SEARCH_MODES, default: 'hybrid', description: 'Requested mode; the mode actually used is `search_mode`.' },
      sort: { type: 'string', enum: SEARCH_SORTS, default: 'recent', description: 'Hit order: `recent` (newest first) or `relevance` (score, then newest first).' },
      limit: { type: 'integer', minimum: 1, maximum: 50, default: 20, [X_CLAMP]: 'non_negative', description: '1–50, default 20; clamped.' },
      conversation_id: { type: 'string', maxLength: 500, description: 'Restrict to one conversation.' },
      user_id: { type: 'string', maxLength: 500, description: 'Restrict to one end user.' },
      time_range: { ...timeRangeParam, description: 'Filters on the message time.' },
      environment: environmentParam,
    },
  },
  response: {
    type: 'object',
    required: ['query', 'requested_mode', 'search_mode', 'sort', 'hits', 'pagination'],
    additionalProperties: false,
    properties: {
      query: { type: 'string' },
      requested_mode: { type: 'string', enum: SEARCH_MODES },
      search_mode: { type: 'string', enum: SEARCH_MODES },
      sort: { type: 'string', enum: SEARCH_SORTS, description: 'The order of `hits`.' },
      hits: {
        type: 'array',
        items: {
          type: 'object',
          required: ['conversation_id', 'message_index', 'message_id', 'role', 'snippet', 'score', 'timestamp'],
          additionalProperties: false,
          properties: {
            conversation_id: { type: 'string' },
            message_index: { type: 'integer' },
            message_id: { type: 'string' },
            role: { type: 'string' },
            snippet: { type: 'string', description: 'Up to about 200 characters around the first matched term; `…` marks cut text.' },
            score: { type: 'number', description: 'Keyword mode: occurrences of the query terms among the message words; semantic: cosine similarity; hybrid: reciprocal-rank-fusion score.' },
            timestamp,
          },
        },
      },
      pagination: limitPagination,
    },
  },
} as const);
