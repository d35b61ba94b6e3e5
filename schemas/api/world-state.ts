/**
 * The world-state endpoints (spec/data-api.md "World-state objects"; camelCase as the spec writes
 * them). The objects are those of schemas/world-state.ts; replay frames and snapshots are folds of
 * the state events.
 */
import { STATE_EVENT_TYPES, THREAD_STATUSES } from '../world-state.js';
import { defineEndpoint, timestamp, X_CLAMP } from './common.js';

/** Longest response: frames in `frames` format; events of the world-state endpoint at most. */
export const MAX_REPLAY_FRAMES = 5000;
export const MAX_EVENT_LIMIT = 5000;
export const DEFAULT_EVENT_LIMIT = 2000;

const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] }) as const;
const idParam = { id: { description: 'Conversation (trace) id.', schema: { type: 'string' } } } as const;

export const slotProvenance = {
  type: 'object',
  required: ['source', 'msgIndex', 'blockIndex'],
  additionalProperties: false,
  properties: {
    source: { type: 'string', enum: ['user_text', 'tool_input', 'tool_result', 'carry_in'], description: 'Who established the value: the person, a call argument, a call result, or the user memory.' },
    msgIndex: { type: 'integer', description: 'Message of the statement (for `carry_in`, in the conversation `conversationId`).' },
    blockIndex: { type: 'integer', description: '0 is the message text; its tool_use blocks follow (1, 2, …), then its tool_result blocks.' },
    tool: { type: 'string' },
    conversationId: { type: 'string' },
  },
} as const;

export const slotValue = {
  type: 'object',
  required: ['value', 'source', 'durable', 'updatedAt'],
  additionalProperties: false,
  properties: {
    value: { type: 'string' },
    source: slotProvenance,
    durable: { type: 'boolean', description: 'About the user (carried to later conversations), not to the segment.' },
    updatedAt: timestamp,
  },
} as const;

export const slotMap = { type: 'object', additionalProperties: slotValue, description: 'Slot key to value.' } as const;

export const thread = {
  type: 'object',
  required: ['id', 'status', 'summary', 'goal', 'timeline', 'subgoals'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    status: { type: 'string', enum: THREAD_STATUSES },
    summary: { type: 'string' },
    goal: { type: 'string' },
    timeline: {
      type: 'array',
      items: {
        type: 'object',
        required: ['msgIndex', 'kind', 'text'],
        additionalProperties: false,
        properties: {
          msgIndex: { type: 'integer' },
          kind: { type: 'string', enum: ['opened', 'request', 'action', 'action_failed', 'handoff', 'resolved', 'cancelled', 'deferred', 'reopened'] },
          text: { type: 'string' },
        },
      },
    },
    subgoals: {
      type: 'array',
      items: { type: 'object', required: ['msgIndex', 'text'], additionalProperties: false, properties: { msgIndex: { type: 'integer' }, text: { type: 'string' } } },
    },
  },
} as const;

export const worldSegment = {
  type: 'object',
  required: ['segmentIndex', 'segmentId', 'startMsgIdx', 'endMsgIdx', 'slots', 'carryIn', 'openThreads', 'slotCounts'],
  additionalProperties: false,
  properties: {
    segmentIndex: { type: 'integer' },
    segmentId: { type: 'string' },
    startMsgIdx: { type: 'integer' },
    endMsgIdx: { type: 'integer' },
    slots: { ...slotMap, description: 'Every slot at the end of the segment.' },
    carryIn: { ...slotMap, description: 'Durable slots carried into the segment.' },
    openThreads: { type: 'array', items: thread, description: 'Threads open at some point of the segment, with their status at its end.' },
    slotCounts: {
      type: 'object',
      required: ['durable', 'segmentLocal', 'total'],
      additionalProperties: false,
      properties: { durable: { type: 'integer' }, segmentLocal: { type: 'integer' }, total: { type: 'integer' } },
    },
  },
} as const;

export const stateEvent = {
  type: 'object',
  required: ['eventId', 'segmentIndex', 'segmentId', 'msgIndex', 'blockIndex', 'eventType', 'slotKey', 'oldValue', 'newValue', 'provenance', 'durable', 'at'],
  additionalProperties: false,
  properties: {
    eventId: { type: 'string' },
    segmentIndex: { type: 'integer' },
    segmentId: { type: 'string' },
    msgIndex: { type: 'integer' },
    blockIndex: { type: 'integer' },
    eventType: { type: 'string', enum: STATE_EVENT_TYPES },
    slotKey: { type: 'string', description: 'The slot, or the thread id for thread events.' },
    oldValue: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    newValue: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    provenance: slotProvenance,
    durable: { type: 'boolean' },
    at: timestamp,
  },
} as const;

export const durableProfile = {
  type: 'object',
  required: ['slots', 'updatedAt', 'slotCount'],
  additionalProperties: false,
  properties: { slots: slotMap, updatedAt: nullable(timestamp), slotCount: { type: 'integer' } },
} as const;

export const worldStateSummary = {
  type: 'object',
  required: ['eventCount', 'segmentCount', 'lastUpdatedAt'],
  additionalProperties: false,
  properties: { eventCount: { type: 'integer' }, segmentCount: { type: 'integer' }, lastUpdatedAt: nullable(timestamp) },
} as const;

export const segmentSummary = {
  type: 'object',
  required: ['segmentIndex', 'durableCount', 'topSlots'],
  additionalProperties: false,
  properties: {
    segmentIndex: { type: 'integer' },
    durableCount: { type: 'integer' },
    topSlots: {
      type: 'array',
      description: 'Up to 5 slots of the segment end state, most recently set first.',
      items: { type: 'object', required: ['key', 'value'], additionalProperties: false, properties: { key: { type: 'string' }, value: { type: 'string' } } },
    },
  },
} as const;

export const conversationWorldState = defineEndpoint({
  operationId: 'getConversationWorldState',
  method: 'get',
  path: '/conversations/{id}/world-state',
  tag: 'world-state',
  summary: 'World state: segments with their slots and threads, state events, warm start',
  description:
    '`hasData` is false (every block empty or null) until the world state was built. `events` are the first `event_limit` state events in fold order; `summary.eventCount` counts them all.',
  status: 200,
  pathParams: idParam,
  query: {
    type: 'object',
    properties: {
      summary_only: { type: 'string', enum: ['0', '1', 'true', 'false'], description: '`1` (or `true`) returns `segments` and `events` as empty arrays and adds `segmentSummaries`.' },
      event_limit: { type: 'integer', minimum: 1, maximum: MAX_EVENT_LIMIT, default: DEFAULT_EVENT_LIMIT, [X_CLAMP]: 'non_negative', description: `1–${MAX_EVENT_LIMIT}, default ${DEFAULT_EVENT_LIMIT}; clamped.` },
    },
  },
  response: {
    type: 'object',
    required: ['hasData', 'userId', 'userDurableProfile', 'conversationWarmstart', 'segments', 'events', 'summary'],
    additionalProperties: false,
    properties: {
      hasData: { type: 'boolean' },
      userId: nullable({ type: 'string' }),
      userDurableProfile: { ...nullable(durableProfile), description: 'The user durable slots after this conversation (carried in, overlaid by what it stated).' },
      conversationWarmstart: { ...nullable(durableProfile), description: 'Durable slots loaded from the user memory at the start; null when none were.' },
      segments: { type: 'array', items: worldSegment },
      events: { type: 'array', items: stateEvent },
      summary: worldStateSummary,
      segmentSummaries: { type: 'array', items: segmentSummary },
    },
  },
} as const);

export const replayFrame = {
  type: 'object',
  required: ['msgIndex', 'segmentIndex', 'blockIndex', 'slots', 'slotsJson', 'openThreads', 'hasSnapshot'],
  additionalProperties: false,
  properties: {
    msgIndex: { type: 'integer' },
    segmentIndex: { type: 'integer' },
    blockIndex: { type: 'integer', description: 'Last block at which the message changed the state (0 when it did not).' },
    slots: slotMap,
    slotsJson: { type: 'string', description: '`slots` serialized (keys sorted).' },
    openThreads: { type: 'array', items: { type: 'string' }, description: 'Ids of the threads open after the message.' },
    hasSnapshot: { type: 'boolean', description: 'The state changed at this message.' },
  },
} as const;

export const keyframe = {
  type: 'object',
  required: ['segmentIndex', 'msgIndex', 'eventIndex', 'slots', 'openThreads'],
  additionalProperties: false,
  properties: {
    segmentIndex: { type: 'integer' },
    msgIndex: { type: 'integer', description: 'First message of the segment.' },
    eventIndex: { type: 'integer', description: 'Index in `events` of the first event after this keyframe.' },
    slots: slotMap,
    openThreads: { type: 'array', items: { type: 'string' } },
  },
} as const;

export const worldStateReplay = defineEndpoint({
  operationId: 'getConversationWorldStateReplay',
  method: 'get',
  path: '/conversations/{id}/world-state/replay',
  tag: 'world-state',
  summary: 'Replay the world state message by message',
  description: `\`frames\`: one folded frame per message of the first \`messageCount\` messages, at most ${MAX_REPLAY_FRAMES}. \`fold_inputs\`: the state at each segment start (keyframes) and every event of those messages, uncapped; folding events from a keyframe gives every frame.`,
  status: 200,
  pathParams: idParam,
  query: {
    type: 'object',
    properties: {
      message_count: { type: 'integer', minimum: 0, maximum: 2147483647, default: 0, [X_CLAMP]: 'non_negative', description: 'Replay the first N messages; 0 (default) replays all history.' },
      format: { type: 'string', enum: ['frames', 'fold_inputs'], default: 'frames' },
    },
  },
  response: {
    type: 'object',
    required: ['hasData', 'messageCount'],
    additionalProperties: false,
    properties: {
      hasData: { type: 'boolean' },
      messageCount: { type: 'integer', description: 'Messages replayed.' },
      frames: { type: 'array', maxItems: MAX_REPLAY_FRAMES, items: replayFrame },
      keyframes: { type: 'array', items: keyframe },
      events: { type: 'array', items: stateEvent },
    },
  },
} as const);

export const worldStateSnapshot = defineEndpoint({
  operationId: 'getConversationWorldStateSnapshot',
  method: 'get',
  path: '/conversations/{id}/world-state/snapshot',
  tag: 'world-state',
  summary: 'The slots at one message and block',
  description:
    'The state after every event at or before (`msg_index`, `block_index`). `msg_index` past the last message is clamped to it. With `segment_index`, `found` is false unless the message belongs to that segment; without world state, `found` is false.',
  status: 200,
  pathParams: idParam,
  query: {
    type: 'object',
    required: ['msg_index', 'block_index'],
    properties: {
      msg_index: { type: 'integer', minimum: 0, maximum: 2147483647, [X_CLAMP]: 'non_negative' },
      block_index: { type: 'integer', minimum: 0, maximum: 2147483647, [X_CLAMP]: 'non_negative' },
      segment_index: { type: 'integer', minimum: 0, maximum: 2147483647, [X_CLAMP]: 'non_negative' },
    },
  },
  response: {
    type: 'object',
    required: ['found', 'segmentIndex', 'msgIndex', 'blockIndex', 'slots'],
    additionalProperties: false,
    properties: {
      found: { type: 'boolean' },
      segmentIndex: nullable({ type: 'integer' }),
      msgIndex: { type: 'integer' },
      blockIndex: { type: 'integer' },
      slots: slotMap,
    },
  },
} as const);
