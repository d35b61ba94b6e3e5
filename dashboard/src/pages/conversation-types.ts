// Response shapes of GET /conversations/:id/context, /step-scores, /world-state and its replay, and of
// GET /emotions and /hallucinations, as the conversation page reads them.
export interface Message {
  index: number;
  role: string;
  content: string;
  tool_calls: Array<{ id: string; name: string; input: string }>;
  tool_results: Array<{ tool_use_id: string; content: string; is_error: boolean }>;
  timestamp: string;
}
export interface ContextResponse {
  conversation_id: string;
  total_messages: number;
  summary: string;
  context: { center_index: number | null; from_index: number | null; to_index: number | null; messages: Message[] };
}
export interface Detection {
  message_index: number;
  family: string;
  signal: string;
  score: number;
  risk_score: number;
  trajectory: string;
  elicitor: string;
  cause: { kind: string; message_index: number; tool_use_id?: string } | null;
  quotes: string[];
}
export interface Finding {
  message_index: number;
  claim_type: string;
  claim: string;
  verdict: 'contradicted' | 'verified';
  evidence: { message_index: number | null; tool_use_id: string | null; quote: string };
}
export interface Step {
  unit_id: string;
  message_index: number;
  unit_index: number;
  node_type: string;
  progress_score: number;
  first_bad_step_probability: number;
  first_bad_step_reason: string | null;
}
export interface StepSegment {
  segment_id: string;
  segment_status_at_scoring: string;
  segment_unit_count: number;
  feature_mode: string;
  failure_type: { failure_type: string; score: number } | null;
  steps: Step[];
}
export interface StepScores {
  segments: StepSegment[];
  rollup: { blended_score: number; segment_count: number; weighted_segment_count: number; total_weight: number } | null;
}
export interface Slot {
  value: unknown;
  source?: { source?: string; tool?: string; msgIndex?: number };
}
export interface WorldState {
  hasData: boolean;
  userId: string | null;
  segments: Array<{ segmentIndex: number; startMsgIdx: number; endMsgIdx: number; openThreads: Array<{ id: string; status: string; summary?: string; goal?: string }> }>;
  events: Array<{ eventId: string; msgIndex: number; blockIndex: number; eventType: string; slotKey: string | null; oldValue: unknown; newValue: unknown; provenance: { source?: string; tool?: string } | null }>;
  summary: { eventCount: number; segmentCount: number; lastUpdatedAt: string | null };
}
export interface Frame {
  msgIndex: number;
  segmentIndex: number;
  blockIndex: number;
  slots: Record<string, Slot | unknown>;
  openThreads: string[];
  hasSnapshot: boolean;
}
