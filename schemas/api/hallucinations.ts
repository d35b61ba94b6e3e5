/**
 * GET /hallucinations (spec "Other endpoints": shapes decided here, docs/data-api.md
 * "GET /hallucinations"). Per message only contradicted and verified claims exist; unverified
 * claims appear only in `rates`.
 */
import { defineEndpoint, environmentParam, offsetPageParams, offsetPagination, ratePctField, timeRangeParam, timestamp } from './common.js';

export const VERDICTS = ['contradicted', 'verified'] as const;

export const hallucinationFinding = {
  type: 'object',
  required: ['conversation_id', 'message_index', 'timestamp', 'claim_type', 'claim', 'verdict', 'evidence'],
  additionalProperties: false,
  properties: {
    conversation_id: { type: 'string' },
    message_index: { type: 'integer', description: 'Zero-based index of the agent message making the claim (feeds the context endpoint).' },
    timestamp: { ...timestamp, description: 'Time of the message.' },
    claim_type: { type: 'string', description: 'Kind of claim, e.g. `tests_pass`, `file_created`, `command_succeeded`, `value_is`, `action_done`.' },
    claim: { type: 'string', description: 'Verbatim substring of the agent message.' },
    verdict: { type: 'string', enum: VERDICTS },
    evidence: {
      type: 'object',
      required: ['message_index', 'tool_use_id', 'quote'],
      additionalProperties: false,
      description: 'The recorded result the claim was checked against.',
      properties: {
        message_index: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'Message holding the result.' },
        tool_use_id: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'The call (its key within the conversation).' },
        quote: { type: 'string', description: 'Verbatim excerpt of the result.' },
      },
    },
  },
} as const;

export const listHallucinations = defineEndpoint({
  operationId: 'listHallucinations',
  method: 'get',
  path: '/hallucinations',
  tag: 'signals',
  summary: 'Contradicted and verified agent claims, with aggregate rates',
  description:
    'Agent claims checked against the recorded tool results, newest message first. Per message only contradictions and verified claims are stored; `rates` counts every checked claim, unverified ones included, over the conversations of `time_range` (by last activity), `environment` and `conversation_id` (`verdict` and `claim_type` do not apply to it).',
  status: 200,
  query: {
    type: 'object',
    properties: {
      verdict: { type: 'string', enum: VERDICTS, description: 'Restrict to one verdict; omit for both.' },
      claim_type: { type: 'string', maxLength: 100, description: 'Restrict to one claim type (exact match).' },
      conversation_id: { type: 'string', maxLength: 500, description: 'Restrict to one conversation.' },
      time_range: { ...timeRangeParam, description: 'Filters findings on the time of the message; `rates` on the last activity of the conversation.' },
      environment: environmentParam,
      ...offsetPageParams(20, 100),
    },
  },
  response: {
    type: 'object',
    required: ['findings', 'rates', 'pagination'],
    additionalProperties: false,
    properties: {
      findings: { type: 'array', items: hallucinationFinding },
      rates: {
        type: 'object',
        required: ['claims', 'verified', 'contradicted', 'unverified', 'contradiction_rate_pct', 'verified_rate_pct', 'unverified_rate_pct', 'conversations_with_contradictions'],
        additionalProperties: false,
        properties: {
          claims: { type: 'integer', description: 'Checked agent claims in the window.' },
          verified: { type: 'integer', description: 'Claims the recorded results confirm.' },
          contradicted: { type: 'integer', description: 'Claims the recorded results contradict.' },
          unverified: { type: 'integer', description: 'Claims no recorded result confirms or contradicts (not listed per message).' },
          contradiction_rate_pct: ratePctField('contradicted / claims × 100'),
          verified_rate_pct: ratePctField('verified / claims × 100'),
          unverified_rate_pct: ratePctField('unverified / claims × 100'),
          conversations_with_contradictions: { type: 'integer', description: 'Conversations with at least one contradicted claim.' },
        },
      },
      pagination: offsetPagination,
    },
  },
} as const);
