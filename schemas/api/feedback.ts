import { defineEndpoint, timestamp } from './common.js';

export const FEEDBACK_CATEGORIES = [
  'bad_cluster_label',
  'mismatched_frustration',
  'missing_data',
  'noisy_data',
  'wrong_tool_failure',
  'incorrect_loop',
  'api_quirk',
  'other',
] as const;
export const FEEDBACK_SEVERITIES = ['info', 'low', 'medium', 'high'] as const;
export const FEEDBACK_SOURCES = ['cli', 'sdk', 'ui'] as const;
/** Request bodies above this size are refused with 413 before parsing. */
export const FEEDBACK_MAX_BODY_BYTES = 64 * 1024;

export const feedbackBody = {
  type: 'object',
  required: ['category'],
  additionalProperties: false,
  properties: {
    category: { type: 'string', enum: FEEDBACK_CATEGORIES },
    severity: { type: 'string', enum: FEEDBACK_SEVERITIES, default: 'low' },
    note: { type: 'string', maxLength: 4000 },
    source: { type: 'string', enum: FEEDBACK_SOURCES },
    agent: { type: 'string', maxLength: 64 },
    cli_version: { type: 'string', maxLength: 32 },
    refs: { type: 'object', description: 'Free-form references (e.g. conversation_id, message_index).' },
    command_context: { type: 'object', description: 'Free-form context of the command that produced the data.' },
  },
} as const;

export const submitFeedback = defineEndpoint({
  operationId: 'submitFeedback',
  method: 'post',
  path: '/feedback',
  tag: 'feedback',
  summary: 'General data-quality feedback',
  description:
    'Stores one feedback record (durably, before answering) and returns 202. Every call creates a new record with a random id: not idempotent, do not retry automatically. Unknown body fields are rejected with 400; bodies over 64 KB with 413.',
  status: 202,
  body: feedbackBody,
  response: {
    type: 'object',
    required: ['feedback_id', 'submitted_at'],
    additionalProperties: false,
    properties: { feedback_id: { type: 'string', description: 'Random UUID.' }, submitted_at: timestamp },
  },
} as const);
