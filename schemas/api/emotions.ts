/**
 * GET /emotions (spec "Other endpoints": shapes decided here, docs/data-api.md "GET /emotions").
 * The taxonomy is the analysis contract's (stream/analyses/types.ts): 6 families, 16 signals.
 */
import { EMOTION_FAMILIES, EMOTION_SIGNALS } from '../../stream/analyses/types.js';
import { defineEndpoint, environmentParam, frustrationsBlock, offsetPageParams, offsetPagination, timeRangeParam, timestamp, X_CLAMP } from './common.js';

export { EMOTION_FAMILIES };
export const EMOTION_SIGNAL_NAMES = EMOTION_FAMILIES.flatMap((f) => EMOTION_SIGNALS[f]);
export const TRAJECTORIES = ['none', 'building', 'peak', 'resolved', 'sustained'] as const;
export const ELICITORS = ['agent', 'external', 'user', 'ambiguous'] as const;
export const CAUSE_KINDS = ['tool_failure', 'agent_message', 'claim', 'user_message'] as const;

const score01 = (what: string) => ({ type: 'number', minimum: 0, maximum: 1, description: `${what}, 0–1, three decimals.` }) as const;

export const emotionDetection = {
  type: 'object',
  required: ['conversation_id', 'message_index', 'timestamp', 'family', 'signal', 'score', 'risk_score', 'trajectory', 'elicitor', 'cause', 'quotes'],
  additionalProperties: false,
  properties: {
    conversation_id: { type: 'string' },
    message_index: { type: 'integer', description: 'Zero-based index of the user message (feeds the context endpoint).' },
    timestamp: { ...timestamp, description: 'Time of the message.' },
    family: { type: 'string', enum: EMOTION_FAMILIES },
    signal: { type: 'string', enum: EMOTION_SIGNAL_NAMES },
    score: score01('Intensity: a plain correction stays below 0.5, explicit frustration is at least 0.5'),
    risk_score: score01('Risk of abandonment or escalation'),
    trajectory: { type: 'string', enum: TRAJECTORIES, description: 'Course of the signal over the conversation.' },
    elicitor: { type: 'string', enum: ELICITORS, description: 'What provoked it: the agent, an external factor, the user, or ambiguous.' },
    cause: {
      description: 'The primary cause by reference, or null when none was found.',
      anyOf: [
        {
          type: 'object',
          required: ['kind', 'message_index'],
          additionalProperties: false,
          properties: {
            kind: { type: 'string', enum: CAUSE_KINDS },
            message_index: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'Message the signal reacts to.' },
            tool_use_id: { type: 'string', description: 'The failed call (its key within the conversation), for `tool_failure`.' },
          },
        },
        { type: 'null' },
      ],
    },
    quotes: { type: 'array', items: { type: 'string' }, description: 'Verbatim substrings of the user message.' },
  },
} as const;

export const listEmotions = defineEndpoint({
  operationId: 'listEmotions',
  method: 'get',
  path: '/emotions',
  tag: 'signals',
  summary: 'Emotion detections with aggregate counts',
  description:
    'Emotion detections on user messages, newest message first, with `aggregates` over every detection matching the same filters (not paginated) and `frustrations`, the frustration KPIs of the overview for the same `time_range`, `environment` and `conversation_id` (conversations counted in the window of their last activity; `family`, `signal` and `min_score` do not apply to it). A `signal` outside the given `family` matches nothing.',
  status: 200,
  query: {
    type: 'object',
    properties: {
      family: { type: 'string', enum: EMOTION_FAMILIES, description: 'Restrict to one family; omit for all.' },
      signal: { type: 'string', enum: EMOTION_SIGNAL_NAMES, description: 'Restrict to one signal; omit for all.' },
      conversation_id: { type: 'string', maxLength: 500, description: 'Restrict to one conversation.' },
      time_range: { ...timeRangeParam, description: 'Filters on the time of the detected message.' },
      environment: environmentParam,
      min_score: { type: 'number', minimum: 0, maximum: 1, default: 0, [X_CLAMP]: 'non_negative', description: 'Lowest `score` listed, a decimal 0–1 (default 0); above 1 is clamped to 1, a negative value gives 400.' },
      ...offsetPageParams(20, 100),
    },
  },
  response: {
    type: 'object',
    required: ['detections', 'aggregates', 'frustrations', 'pagination'],
    additionalProperties: false,
    properties: {
      detections: { type: 'array', items: emotionDetection },
      aggregates: {
        type: 'object',
        required: ['total', 'by_family', 'by_signal'],
        additionalProperties: false,
        properties: {
          total: { type: 'integer', description: 'Detections matching the filters (equals pagination.total).' },
          by_family: {
            type: 'array',
            description: 'Families with at least one detection, most detections first.',
            items: {
              type: 'object',
              required: ['family', 'count', 'conversations'],
              additionalProperties: false,
              properties: {
                family: { type: 'string', enum: EMOTION_FAMILIES },
                count: { type: 'integer' },
                conversations: { type: 'integer', description: 'Distinct conversations with such a detection.' },
              },
            },
          },
          by_signal: {
            type: 'array',
            description: 'Signals with at least one detection, most detections first.',
            items: {
              type: 'object',
              required: ['family', 'signal', 'count'],
              additionalProperties: false,
              properties: { family: { type: 'string', enum: EMOTION_FAMILIES }, signal: { type: 'string', enum: EMOTION_SIGNAL_NAMES }, count: { type: 'integer' } },
            },
          },
        },
      },
      frustrations: frustrationsBlock,
      pagination: offsetPagination,
    },
  },
} as const);
