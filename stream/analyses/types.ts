/**
 * The contract of the analysis layer: what every analyzer reads (one snapshot of a conversation)
 * and what it returns. Analyzers are pure functions of a snapshot (plus, for tool-failure
 * categories, the tenant's category registry); the framework (stream/analyze/) owns loading,
 * Piscina, writing, retries and backfill, and `tracehouse analyze` runs the same functions on files.
 * Output field names are the wire names of `tracehouse analyze` and of the data API (snake_case).
 */
import type { ContentBlock } from '../../schemas/events.js';
import type { SlotProvenance, WorldState } from '../../schemas/world-state.js';
import type { EffectClass } from '../effect-class.js';

export type Role = 'user' | 'assistant' | 'system' | 'tool';

/** One message of a conversation; `index` is its zero-based position (conversation order). */
export interface SnapshotMessage {
  index: number;
  messageId: string;
  role: Role;
  /** `message` as sent, else the text of the `text` blocks joined by "\n". Tool blocks are not in it. */
  text: string;
  blocks: readonly ContentBlock[];
  /** Milliseconds since the epoch. */
  ts: number;
  /** '' for the main thread; a sub-agent sidechain has its own id. */
  threadId: string;
}

/**
 * One tool call: a `tool_use` paired in order with the `tool_result` that answers it, or a call
 * recorded by telemetry (hooks, OTLP logs and spans) without messages.
 */
export interface SnapshotToolCall {
  /** Unique within the conversation: the tool_use id, then `id#2`, `id#3`, … when an id is reused. */
  key: string;
  /** The id as the producer sent it (may repeat within a conversation). */
  toolUseId: string;
  toolName: string;
  /** Input as JSON text, capped at 4,096 characters. */
  input: string;
  /** Shell command when known ('' otherwise). */
  command: string;
  /** Message holding the tool_use; null for a telemetry call. */
  messageIndex: number | null;
  /** Message holding the tool_result; null when there is none (yet) or for a telemetry call. */
  resultIndex: number | null;
  /** Index of the last message at or before the call (−1 when none): its place in the timeline. */
  position: number;
  /** Start of the call, ms since the epoch. */
  ts: number;
  /** null: no result recorded. */
  success: boolean | null;
  /** Result text, capped at 2,048 characters: the error text when the call failed. */
  resultText: string;
  /** Error type when the source gave one (hooks, OTLP), else ''. */
  errorType: string;
  /** `accept` / `reject` when a permission decision was recorded, else ''. */
  decision: string;
  effectClass: EffectClass;
}

export interface ConversationSnapshot {
  tenantId: string;
  conversationId: string;
  userId: string;
  environment: string;
  messages: readonly SnapshotMessage[];
  toolCalls: readonly SnapshotToolCall[];
  /** The user's memory as it stood before this analysis (absent: none loaded). */
  userMemory?: UserMemoryDocument;
}

/** One remembered value of a durable slot, with where it was stated (user-memory.ts). */
export interface MemoryEntry {
  /** null: the conversation cleared the slot. */
  value: string | null;
  conversationId: string;
  msgIndex: number;
  blockIndex: number;
  source: SlotProvenance['source'];
  tool?: string;
  /** ms since the epoch of the message that stated it. */
  at: number;
}

/** The compact per-user memory: per durable slot key, its latest values (newest first, one per conversation). */
export interface UserMemoryDocument {
  userId: string;
  slots: Record<string, MemoryEntry[]>;
  /** ms since the epoch of the newest entry (0 when empty). */
  updatedAt: number;
}

// ---------------------------------------------------------------------------------------------
// Results (wire shapes of `tracehouse analyze`; tables add tenant, conversation and versions)

export interface Segment {
  /** Stable as the conversation grows: derived from the conversation and the first message. */
  segment_id: string;
  start_index: number;
  /** Inclusive. */
  end_index: number;
  /**
   * The use-case cluster of the segment (`tracehouse analyze` with at least 50 segments in the input;
   * null when held aside). Absent when no taxonomy was built.
   */
  cluster?: SegmentCluster | null;
}

/** A segment's place in the use-case taxonomy (docs/analyses.md "Use-case taxonomy"). */
export interface SegmentCluster {
  node_id: string;
  label: string;
  category_id: string;
  category_label: string;
  /** Cosine similarity of the segment to the cluster's centroid. */
  similarity: number;
}

/** The text a segment's user goal is read from (segment-goals analyzer). */
export interface SegmentGoal {
  segment_id: string;
  /** The person's requests in the segment, code and pasted output removed. */
  goal: string;
  /** Goal plus the conversation summary: what vectors are computed from. */
  text: string;
  /** 16 hex characters of SHA-1 of `text`. */
  text_hash: string;
}

export const EMOTION_FAMILIES = ['frustration', 'confusion', 'distrust', 'impatience', 'disappointment', 'satisfaction'] as const;
export type EmotionFamily = (typeof EMOTION_FAMILIES)[number];

/** The fixed taxonomy: 6 families, 16 signals (schemas/emotions.json is the same list). */
export const EMOTION_SIGNALS: Readonly<Record<EmotionFamily, readonly string[]>> = {
  frustration: ['annoyance', 'anger', 'exasperation', 'hostility'],
  confusion: ['confusion', 'uncertainty', 'overwhelm'],
  distrust: ['skepticism', 'loss_of_trust'],
  impatience: ['urgency', 'impatience'],
  disappointment: ['disappointment', 'resignation'],
  satisfaction: ['gratitude', 'relief', 'delight'],
};

export type Trajectory = 'none' | 'building' | 'peak' | 'resolved' | 'sustained';
export type Elicitor = 'agent' | 'external' | 'user' | 'ambiguous';

/** What a signal reacts to, by reference. */
export interface CauseRef {
  kind: 'tool_failure' | 'agent_message' | 'claim' | 'user_message';
  message_index: number | null;
  /** The call's key for `tool_failure`. */
  tool_use_id?: string;
}

export interface EmotionDetection {
  message_index: number;
  family: EmotionFamily;
  signal: string;
  /** Intensity 0–1: a plain correction stays below 0.5, explicit frustration is ≥ 0.5. */
  score: number;
  /** Risk of abandonment or escalation, 0–1. */
  risk_score: number;
  trajectory: Trajectory;
  elicitor: Elicitor;
  cause: CauseRef | null;
  /** Verbatim substrings of the message. */
  quotes: string[];
}

export const FAILURE_FAMILIES = [
  'user_rejected',
  'permission_denied',
  'not_found',
  'invalid_input',
  'precondition_failed',
  'build_or_type_error',
  'test_failure',
  'command_failed',
  'business_rule',
  'timeout',
  'resource_exhausted',
  'rate_limited',
  'auth_error',
  'network',
  'other',
] as const;
export type FailureFamily = (typeof FAILURE_FAMILIES)[number];

/** A workspace-specific failure category; its id never changes once issued. */
export interface FailureCategory {
  id: string;
  label: string;
  family: FailureFamily;
  likely_cause: string;
  action_hint: string;
}

export interface ToolCallResult {
  message_index: number | null;
  /** The call's key (unique within the conversation). */
  tool_use_id: string;
  tool_name: string;
  success: boolean | null;
  effect_class: EffectClass;
  category: FailureCategory | null;
}

export interface LazinessDetection {
  message_index: number;
  /** Pattern family, e.g. `placeholder_code`, `left_as_exercise`, `unverified_completion`. */
  pattern: string;
  confidence: number;
  /** Verbatim substring of the message. */
  quote: string;
  /** Patterns about truncated data are stored but excluded from headline counts. */
  truncated_data: boolean;
}

export interface HallucinationFinding {
  message_index: number;
  /** e.g. `tests_pass`, `file_created`, `command_succeeded`, `value_is`, `action_done`. */
  claim_type: string;
  /** Verbatim substring of the agent message. */
  claim: string;
  verdict: 'contradicted' | 'verified';
  /** The recorded result the claim was checked against. */
  evidence: { message_index: number | null; tool_use_id: string | null; quote: string };
}

/** Unverified claims appear only here. */
export interface HallucinationStats {
  claims: number;
  verified: number;
  contradicted: number;
  unverified: number;
}

/** One unit of a segment: a tool call with its result, or an agent message (spec "Step-score segment"). */
export interface StepScoreStep {
  /** `call:<call key>` or `msg:<message index>`; stable as the conversation grows. */
  unit_id: string;
  message_index: number;
  /** Position within the segment. */
  unit_index: number;
  /** `agent_message`, `tool_<effect class>` (`tool_read`, `tool_write`, …) or `handoff`. */
  node_type: string;
  /** Estimated chance the segment's goal is still on track after this unit, 0–1. */
  progress_score: number;
  /** Chance this unit is the first bad step of the segment, 0–1. */
  first_bad_step_probability: number;
  /** The main evidence against the unit, null when there is none beyond the per-step base rate. */
  first_bad_step_reason: string | null;
  /** The conversation's step graph. */
  graph_id: string;
  /** Position of the unit in the conversation's step graph. */
  node_index: number;
}

export interface StepScoreSegment {
  segment_id: string;
  /** The world-state thread the segment serves. */
  thread_id: string | null;
  /** `open` for the conversation's last segment (it may still grow), else `closed`. */
  segment_status_at_scoring: 'open' | 'closed';
  segment_unit_count: number;
  /** Hash of the ids of the segment's messages: changes when its membership changes. */
  member_hash: string;
  /** The scorer and its version. */
  model_id: string;
  /** The evidence families the scorer had: `structural`, plus `emotions` / `hallucinations` when present. */
  feature_mode: string;
  /** ISO time of the segment's last message. */
  scored_at: string;
  /** Set when the segment's final progress score is below 0.5. */
  failure_type: { failure_type: string; score: number } | null;
  steps: StepScoreStep[];
}

export interface StepScoreRollup {
  blended_score: number;
  segment_count: number;
  weighted_segment_count: number;
  total_weight: number;
}

/** The body of GET /conversations/:id/step-scores without `conversation_id`. */
export interface StepScores {
  segments: StepScoreSegment[];
  /** null until some segment carries weight (has a unit). */
  rollup: StepScoreRollup | null;
  /** Legacy whole-trace fields: null (and `steps` empty) for traces scored at segment grain. */
  model: null;
  failure_type: null;
  first_bad_step: null;
  steps: [];
}

export interface ConversationAnalysis {
  conversation_id: string;
  summary: string;
  segments: Segment[];
  emotions: EmotionDetection[];
  tool_calls: ToolCallResult[];
  laziness: LazinessDetection[];
  hallucinations: HallucinationFinding[];
  hallucination_stats: HallucinationStats;
  /** Step scores per segment and their rollup (absent when the analyzer did not run). */
  step_scores?: StepScores;
  /** The conversation's world state (absent when the analyzer did not run). */
  world_state?: WorldState;
  /** Goal text per segment, for the taxonomy and semantic search (not part of the analyze output). */
  segment_goals?: SegmentGoal[];
}
