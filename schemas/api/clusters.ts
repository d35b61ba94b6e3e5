/** spec/data-api.md "Cluster node", GET /clusters, /clusters/:nodeId/conversations, /task-clusters/search. */
import { defineEndpoint, offsetPagination, timeRangeParam, timestamp, X_CLAMP } from './common.js';

export const CLUSTER_SEARCH_MODES = ['fuzzy', 'semantic', 'hybrid'] as const;

const nullable = <S extends object>(s: S) => ({ anyOf: [s, { type: 'null' }] }) as const;

export const clusterRun = {
  type: 'object',
  required: ['id', 'num_categories', 'num_clusters', 'num_segments', 'completed_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    num_categories: { type: 'integer' },
    num_clusters: { type: 'integer' },
    num_segments: { type: 'integer', description: 'Segments the run was built from.' },
    completed_at: timestamp,
  },
} as const;

export const clusterNode = {
  type: 'object',
  required: ['node_id', 'label', 'summary', 'keywords', 'node_type', 'segment_count', 'has_children', 'depth'],
  additionalProperties: false,
  properties: {
    node_id: { type: 'string' },
    label: { type: 'string', description: 'The members\' most representative verb–object phrase, e.g. "Change flight reservation".' },
    summary: { type: 'string' },
    keywords: { type: 'array', items: { type: 'string' } },
    node_type: { type: 'string', enum: ['category', 'cluster'], description: '`category` (depth 0) groups `cluster` nodes (depth 1, the use cases).' },
    segment_count: { type: 'integer', description: 'Segments assigned now, including those assigned since the run was built.' },
    has_children: { type: 'boolean' },
    depth: { type: 'integer' },
  },
} as const;

export const listClusters = defineEndpoint({
  operationId: 'listClusters',
  method: 'get',
  path: '/clusters',
  tag: 'clusters',
  summary: 'One level of the use-case taxonomy',
  description:
    'Root level (categories) without `parent_id`, else the children of that node, largest first (ties by label). Always the current cluster run; `cluster_run` is null (and `clusters` empty) before the first taxonomy. An unknown `parent_id` gives an empty level with an empty breadcrumb. `meta` counts the listed level.',
  status: 200,
  query: {
    type: 'object',
    properties: {
      parent_id: { type: 'string', maxLength: 200, description: 'Children of this node; omit for the root level.' },
      time_range: { ...timeRangeParam, description: 'Validated but has no effect: the latest run is always used (spec).' },
    },
  },
  response: {
    type: 'object',
    required: ['cluster_run', 'breadcrumb', 'clusters', 'meta'],
    additionalProperties: false,
    properties: {
      cluster_run: nullable(clusterRun),
      breadcrumb: {
        type: 'array',
        description: 'From the root down to `parent_id` itself; empty without `parent_id`.',
        items: { type: 'object', required: ['node_id', 'label'], additionalProperties: false, properties: { node_id: { type: 'string' }, label: { type: 'string' } } },
      },
      clusters: { type: 'array', items: clusterNode },
      meta: {
        type: 'object',
        required: ['total_clusters', 'total_segments'],
        additionalProperties: false,
        properties: { total_clusters: { type: 'integer', description: 'Nodes at this level.' }, total_segments: { type: 'integer', description: 'Segments under the listed nodes.' } },
      },
    },
  },
} as const);

export const clusterConversations = defineEndpoint({
  operationId: 'listClusterConversations',
  method: 'get',
  path: '/clusters/{nodeId}/conversations',
  tag: 'clusters',
  summary: 'Conversations with a segment in one node',
  description:
    'Conversations with at least one segment assigned to the node (a category: to any of its clusters) in the current run, newest last activity first. An unknown node (or no taxonomy yet) answers 200 with `cluster: null` and an empty list.',
  status: 200,
  pathParams: { nodeId: { description: 'Node id from /clusters or /task-clusters/search.', schema: { type: 'string' } } },
  query: {
    type: 'object',
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 10, [X_CLAMP]: 'non_negative', description: '1–100, default 10; clamped.' },
      offset: { type: 'integer', minimum: 0, maximum: 10000, default: 0, [X_CLAMP]: 'non_negative', description: '0–10,000, default 0; clamped.' },
    },
  },
  response: {
    type: 'object',
    required: ['cluster', 'conversations', 'pagination'],
    additionalProperties: false,
    properties: {
      cluster: nullable({
        type: 'object',
        required: ['node_id', 'label', 'summary', 'segment_count'],
        additionalProperties: false,
        properties: { node_id: { type: 'string' }, label: { type: 'string' }, summary: { type: 'string' }, segment_count: { type: 'integer' } },
      }),
      conversations: {
        type: 'array',
        items: {
          type: 'object',
          required: ['conversation_id', 'summary', 'message_count'],
          additionalProperties: false,
          properties: { conversation_id: { type: 'string' }, summary: { type: 'string' }, message_count: { type: 'integer' } },
        },
      },
      pagination: offsetPagination,
    },
  },
} as const);

const ancestor = {
  type: 'object',
  required: ['nodeId', 'label', 'depth'],
  additionalProperties: false,
  properties: { nodeId: { type: 'string' }, label: { type: 'string' }, depth: { type: 'integer' } },
} as const;

export const searchTaskClusters = defineEndpoint({
  operationId: 'searchTaskClusters',
  method: 'get',
  path: '/task-clusters/search',
  tag: 'clusters',
  summary: 'Search the nodes of the current taxonomy',
  description:
    '`fuzzy`: edit distance and character trigrams of the query against label, keywords and summary. `semantic`: cosine similarity of the query\'s vector (the run\'s own TF-IDF + LSA model) to each node\'s centroid. `hybrid` (default): reciprocal rank fusion of both. `search_mode` is the mode that ran: `fuzzy` when semantic search is unavailable (no taxonomy run yet, no model, or no word of the query is in the run\'s vocabulary), whatever `mode` asked. `node_id` looks one node up exactly, with its ancestors; no vector is computed, so `search_mode` is `fuzzy` and the match has no `similarity`. `clusterRunId` is null and `matches` empty before the first run.',
  status: 200,
  query: {
    type: 'object',
    properties: {
      q: { type: 'string', minLength: 2, maxLength: 200, description: '2–200 characters; required unless `node_id` is given.' },
      node_id: { type: 'string', maxLength: 200, description: 'Exact lookup of one node with its ancestor path; makes `q` optional.' },
      mode: { type: 'string', enum: CLUSTER_SEARCH_MODES, default: 'hybrid' },
      limit: { type: 'integer', minimum: 1, maximum: 50, default: 30, [X_CLAMP]: 'non_negative', description: '1–50, default 30; clamped.' },
    },
  },
  response: {
    type: 'object',
    required: ['clusterRunId', 'query', 'search_mode', 'matches'],
    additionalProperties: false,
    properties: {
      clusterRunId: nullable({ type: 'string' }),
      query: { type: 'string', description: 'The `q` sent (empty for a `node_id` lookup without `q`).' },
      search_mode: { type: 'string', enum: CLUSTER_SEARCH_MODES, description: 'The mode that ran (`fuzzy` when semantic search is unavailable, and for a `node_id` lookup).' },
      matches: {
        type: 'array',
        items: {
          type: 'object',
          required: ['node_id', 'label', 'description', 'keywords', 'node_type', 'segment_count', 'has_children', 'depth', 'parent_id', 'ancestor_path', 'path_truncated'],
          additionalProperties: false,
          properties: {
            node_id: { type: 'string' },
            label: { type: 'string' },
            description: { type: 'string', description: 'The node summary.' },
            keywords: { type: 'array', items: { type: 'string' } },
            node_type: { type: 'string', enum: ['category', 'cluster'] },
            segment_count: { type: 'integer' },
            has_children: { type: 'boolean' },
            depth: { type: 'integer' },
            parent_id: nullable({ type: 'string' }),
            ancestor_path: { type: 'array', items: ancestor, description: 'From the root down to the parent (empty for a root node).' },
            path_truncated: { type: 'boolean', description: 'True when the ancestor path was cut to its last 5 nodes.' },
            similarity: { type: 'number', description: 'Cosine similarity of the query to the node (semantic and hybrid matches only).' },
          },
        },
      },
    },
  },
} as const);
