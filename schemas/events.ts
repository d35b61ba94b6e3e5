/**
 * The contract between the ingest role (producer) and the stream role (consumer): what one
 * normalized event looks like on the bus. Versioned by `IngestBatch.v`; fields are only added,
 * optional, never repurposed.
 */

/** spec/ingestion.md "Stored event types". */
export const STORED_TYPES = [
  'prompt',
  'tool_decision',
  'tool_result',
  'api_request',
  'api_error',
  'skill_activated',
  'session_start',
  'session_end',
  'stream_event',
  'permission_request',
  'file_changed',
  'workspace_snapshot',
  'hook',
  'unknown',
] as const;
export type StoredType = (typeof STORED_TYPES)[number];

/**
 * Direct ingest adds `message` (standard and channel events) and `tool_call` (`messageType:
 * tool_call`); OTLP traces add `span`. These are stored in `events` too.
 */
export type EventType = StoredType | 'message' | 'tool_call' | 'span';

/** Path segment of the agent routes, `otlp` for the generic OTLP routes, `direct` for /v1/ingest. */
export type AgentId = 'agent-a' | 'agent-b' | 'agent-c' | 'otlp' | 'direct';
export const AGENTS: readonly AgentId[] = ['agent-a', 'agent-b', 'agent-c'];

/** The route an event came in on. `import` is `tracehouse import`. */
export type SourceRoute = 'logs' | 'traces' | 'metrics' | 'hooks' | 'ingest' | 'import';

export type Environment = 'development' | 'staging' | 'production';

/** Attribute maps keep JSON values; numbers/booleans already coerced by key. */
export type Attributes = Record<string, unknown>;

export interface ToolFacet {
  name: string;
  /** `tool_use_id` (agent A, hooks, direct) or `call_id` (agent B). Joins decision and result. */
  call_id: string;
  /** accept or reject; agent B's approved, denied and abort values are mapped, the original stays in attributes. */
  decision?: 'accept' | 'reject';
  decision_source?: string;
  success?: boolean;
  duration_ms?: number;
  /** Redacted and capped to 2,048 bytes. */
  error?: string;
  error_type?: string;
  error_truncated?: boolean;
  /** Tool input as JSON text, redacted, capped (4,096 bytes). */
  input?: string;
  /** Shell command when the tool ran one: redacted, capped to 4,096 bytes. */
  command?: string;
  command_truncated?: boolean;
  mcp_server?: string;
}

export interface ApiFacet {
  model?: string;
  input_tokens?: number;
  output_tokens?: number;
  cache_read_tokens?: number;
  cache_creation_tokens?: number;
  reasoning_tokens?: number;
  cost_usd?: number;
  duration_ms?: number;
  status_code?: number;
  /** api_error text: redacted, capped to 2,048 bytes. */
  error?: string;
  /** True when `error` was cut at the 2,048-byte cap. */
  error_truncated?: boolean;
}

export interface PromptFacet {
  /** Capped to 8 KB; empty when the agent redacted it (prompt logging off). */
  text: string;
  length: number;
  truncated: boolean;
}

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'tool_use'; tool_name: string; tool_use_id: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: unknown; is_error: boolean }
  | { type: 'image'; source: unknown };

export interface MessageFacet {
  /** Stable per message: channel `id`, or derived from the event content. */
  message_id: string;
  role: 'user' | 'assistant' | 'system' | 'tool';
  /** Text for search: `message`, else the text of `text` blocks. */
  content: string;
  content_blocks: ContentBlock[];
  model?: string;
  provider?: string;
  input_tokens?: number;
  output_tokens?: number;
  reasoning_tokens?: number;
  prompt_id?: string;
  prompt_name?: string;
  prompt_version?: string;
  /** `standard` (snake_case), `channel` (camelCase), `tool_call`, or an import format. */
  format: string;
  metadata?: Attributes;
  /** Sub-agent sidechains imported from session logs are their own threads. */
  thread_id?: string;
  parent_message_id?: string;
}

export interface SpanFacet {
  name: string;
  kind: number;
  parent_span_id: string;
  start_time: string;
  end_time: string;
  duration_ms: number;
  status_code: number;
  status_message: string;
  /** GenAI semantic-convention attributes lifted into columns where present. */
  gen_ai?: {
    operation?: string;
    provider?: string;
    request_model?: string;
    response_model?: string;
    conversation_id?: string;
    input_tokens?: number;
    output_tokens?: number;
    tool_name?: string;
    tool_call_id?: string;
  };
  events?: Array<{ name: string; time: string; attributes: Attributes }>;
}

export interface IngestEvent {
  /** Content-derived and stable across retries of the same request (dedup key in ClickHouse). */
  event_id: string;
  tenant_id: string;
  agent: AgentId;
  source: SourceRoute;
  type: EventType;
  /** Original event, hook or span name as received (prefix kept). */
  name: string;
  /** Session id (agent A), conversation id (agents B/C), direct conversation_id; '' when absent. */
  conversation_id: string;
  user_id: string;
  environment: Environment;
  /** ISO 8601 UTC with milliseconds. */
  event_time: string;
  receive_time: string;
  /** `event.sequence` when the agent sends one, else the position in the request. */
  sequence: number;
  trace_id: string;
  span_id: string;
  attributes: Attributes;
  resource: Attributes;
  scope: { name: string; version: string; attributes: Attributes };
  prompt?: PromptFacet;
  tool?: ToolFacet;
  api?: ApiFacet;
  message?: MessageFacet;
  span?: SpanFacet;
}

/** One JetStream message on `ingest.<tenant>.<source>`; its Nats-Msg-Id is derived from `events`. */
export interface IngestBatch {
  /**
   * 1: every event holds its own `resource` and `scope`; 2: an event may name its `group` instead;
   * 3: also what all events of the request share is the message's (`receive_time`, `event_id_prefix`,
   * and `tenant_id`, `agent`, `source` for an event that leaves them out).
   */
  v: 1 | 2 | 3;
  tenant_id: string;
  source: SourceRoute;
  request_id: string;
  /** v2, v3: the resource and scope of the events whose `group` is the entry's index (an OTLP ResourceLogs/ScopeLogs group). */
  groups?: Array<Pick<IngestEvent, 'resource' | 'scope'>>;
  /** v3: the agent of an event that leaves it out. */
  agent?: AgentId;
  /** v3: every event's receive time. */
  receive_time?: string;
  /** v3: an event's id is this and its position in `events` as 8 hex digits. */
  event_id_prefix?: string;
  events: IngestEvent[];
}

/** An event as a v2 IngestBatch carries it: its resource and scope may be those of a group of the message. */
export type WireEvent = IngestEvent & { group?: number };
