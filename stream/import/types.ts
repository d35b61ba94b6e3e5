/** Direct-ingest events (standard form, spec/ingestion.md) produced by the importers. */
export type DirectBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'tool_use'; tool_name: string; tool_use_id: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: unknown; is_error: boolean }
  | { type: 'image'; source: unknown };

export interface DirectEvent {
  conversation_id: string;
  role: 'user' | 'assistant' | 'system';
  message?: string;
  content?: DirectBlock[];
  timestamp: string;
  message_id: string;
  thread_id?: string;
  parent_message_id?: string;
  user_id?: string;
  model?: string;
  input_tokens?: number;
  output_tokens?: number;
  metadata?: Record<string, unknown>;
}

export interface ImportStats {
  conversations: number;
  messages: number;
  toolCalls: number;
  toolErrors: number;
  /** Lines or records that could not be read. */
  skipped: number;
}

/** Counts of a converted set of events, as the import summary prints them. */
export function statsOf(events: readonly DirectEvent[], skipped = 0): ImportStats {
  const conversations = new Set<string>();
  const calls = new Set<string>();
  let toolErrors = 0;
  for (const e of events) {
    conversations.add(e.conversation_id);
    for (const b of e.content ?? []) {
      if (b.type === 'tool_use') calls.add(`${e.conversation_id}\u0000${b.tool_use_id}`);
      if (b.type === 'tool_result' && b.is_error) toolErrors++;
    }
  }
  return { conversations: conversations.size, messages: events.length, toolCalls: calls.size, toolErrors, skipped };
}
