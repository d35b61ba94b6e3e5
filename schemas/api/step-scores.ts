import { defineEndpoint, timestamp } from './common.js';

const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] }) as const;

/** spec/data-api.md "Step-score segment": one step. */
export const stepScoreStep = {
  type: 'object',
  required: ['unit_id', 'message_index', 'unit_index', 'node_type', 'progress_score', 'first_bad_step_probability', 'first_bad_step_reason', 'graph_id', 'node_index'],
  additionalProperties: false,
  properties: {
    unit_id: { type: 'string', description: '`call:<call key>` for a tool call with its result, `msg:<message index>` for an agent message; stable as the conversation grows.' },
    message_index: { type: 'integer', description: 'Message holding the unit (for a telemetry call, the last message at or before it).' },
    unit_index: { type: 'integer', description: 'Position of the unit within its segment.' },
    node_type: { type: 'string', description: '`agent_message`, `tool_read`, `tool_write`, `tool_send`, `tool_spawn`, `tool_compute` or `handoff`.' },
    progress_score: { type: 'number', description: 'Estimated chance, 0–1, that the segment goal is still on track after this unit.' },
    first_bad_step_probability: { type: 'number', description: 'Chance, 0–1, that this unit is where the segment went wrong.' },
    first_bad_step_reason: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'The main evidence against the unit; null when there is none beyond the per-step base rate.' },
    graph_id: { type: 'string', description: 'The conversation step graph.' },
    node_index: { type: 'integer', description: 'Position of the unit in the conversation step graph (across segments).' },
  },
} as const;

export const stepScoreSegment = {
  type: 'object',
  required: ['segment_id', 'thread_id', 'segment_status_at_scoring', 'segment_unit_count', 'member_hash', 'model_id', 'feature_mode', 'scored_at', 'failure_type', 'steps'],
  additionalProperties: false,
  properties: {
    segment_id: { type: 'string' },
    thread_id: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'The world-state thread the segment serves (null when no person turn opened one).' },
    segment_status_at_scoring: { type: 'string', enum: ['open', 'closed'], description: '`open` for the last segment of the conversation (it may still grow).' },
    segment_unit_count: { type: 'integer' },
    member_hash: { type: 'string', description: 'Changes when the segment membership changes.' },
    model_id: { type: 'string', description: 'The scorer and its version.' },
    feature_mode: { type: 'string', description: '`structural`, plus `+emotions` / `+hallucinations` when those detections exist for the conversation.' },
    scored_at: { ...timestamp, description: 'Time of the segment last message.' },
    failure_type: {
      anyOf: [
        {
          type: 'object',
          required: ['failure_type', 'score'],
          additionalProperties: false,
          properties: {
            failure_type: { type: 'string', description: 'The evidence family weighing most: `tool_failure`, `repeated_call`, `risky_action`, `user_correction`, `frustration`, `hallucination`, `abandonment`, `no_progress`, `base`.' },
            score: { type: 'number', description: '1 − the segment final progress score.' },
          },
        },
        { type: 'null' },
      ],
      description: 'Set when the segment final progress score is below 0.5.',
    },
    steps: { type: 'array', items: stepScoreStep },
  },
} as const;

export const stepScoreRollup = {
  type: 'object',
  required: ['blended_score', 'segment_count', 'weighted_segment_count', 'total_weight'],
  additionalProperties: false,
  properties: {
    blended_score: { type: 'number', description: 'Half the segments weighted mean score, half the conversation survival (docs/analyses.md "Step scores").' },
    segment_count: { type: 'integer' },
    weighted_segment_count: { type: 'integer', description: 'Segments with at least one unit.' },
    total_weight: { type: 'number' },
  },
} as const;

export const conversationStepScores = defineEndpoint({
  operationId: 'getConversationStepScores',
  method: 'get',
  path: '/conversations/{id}/step-scores',
  tag: 'conversations',
  summary: 'Outcome step scores per segment, with the rollup',
  description:
    'The newest scoring pass of every segment, and the weighted rollup (null until a segment has a unit). These scores back the `outcome` filter of the conversation list. An unknown conversation returns 200 with no segments and a null rollup. The legacy whole-trace fields `model`, `failure_type`, `first_bad_step` are null and `steps` empty: every trace is scored at segment grain.',
  status: 200,
  pathParams: { id: { description: 'Conversation (trace) id.', schema: { type: 'string' } } },
  response: {
    type: 'object',
    required: ['conversation_id', 'segments', 'rollup', 'model', 'failure_type', 'first_bad_step', 'steps'],
    additionalProperties: false,
    properties: {
      conversation_id: { type: 'string' },
      segments: { type: 'array', items: stepScoreSegment },
      rollup: nullable(stepScoreRollup),
      model: { type: 'null' },
      failure_type: { type: 'null' },
      first_bad_step: { type: 'null' },
      steps: { type: 'array', maxItems: 0, items: {} },
    },
  },
} as const);
