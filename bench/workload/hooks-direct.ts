import type { Conversation } from './conversation.js';

/** Agent A hook payloads for one conversation: session start, prompts, tool pre/post, stop. */
export function agentAHooks(c: Conversation): Record<string, unknown>[] {
  const base = { session_id: c.id, cwd: '/repo', user_id: c.userId, transcript_path: `/home/dev/.claude/projects/repo/${c.id}.jsonl` };
  const iso = (t: number) => new Date(t).toISOString();
  const out: Record<string, unknown>[] = [{ hook: 'SessionStart', hook_event_name: 'SessionStart', timestamp: iso(c.startMs), source: 'startup', model: c.messages[1]?.model, ...base }];
  let last = c.startMs;
  for (const m of c.messages) {
    last = m.timeMs;
    if (m.role === 'user') {
      out.push({ hook: 'UserPromptSubmit', hook_event_name: 'UserPromptSubmit', timestamp: iso(m.timeMs), user_prompt: m.text, permission_mode: 'default', ...base });
      continue;
    }
    for (const tc of m.toolCalls) {
      out.push({ hook: 'PreToolUse', hook_event_name: 'PreToolUse', timestamp: iso(m.timeMs), tool_name: tc.name, tool_use_id: tc.id, tool_input: tc.input, ...base });
      const t = m.timeMs + tc.durationMs;
      last = t;
      if (tc.success) {
        out.push({ hook: 'PostToolUse', hook_event_name: 'PostToolUse', timestamp: iso(t), tool_name: tc.name, tool_use_id: tc.id, tool_input: tc.input, tool_output: { stdout: 'ok', stderr: '', interrupted: false }, success: true, duration_ms: tc.durationMs, ...base });
      } else {
        out.push({ hook: 'PostToolUseFailure', hook_event_name: 'PostToolUseFailure', timestamp: iso(t), tool_name: tc.name, tool_use_id: tc.id, tool_input: tc.input, success: false, duration_ms: tc.durationMs, error: { type: 'tool_error', message: tc.error }, ...base });
      }
    }
  }
  out.push({ hook: 'Stop', hook_event_name: 'Stop', timestamp: iso(last + 500), stop_hook_active: false, ...base });
  return out;
}

/**
 * Direct-ingest events for one conversation. Every fifth conversation uses the camelCase channel
 * form with `messageType: tool_call` events for its tool calls; the rest use the standard form with
 * content blocks (thinking, text, tool_use) and a tool-result message per assistant turn with calls.
 */
export function directEvents(c: Conversation): { events: Record<string, unknown>[]; messageEvents: number } {
  const iso = (t: number) => new Date(t).toISOString();
  const events: Record<string, unknown>[] = [];
  let messageEvents = 0;
  const channel = c.index % 5 === 0;
  c.messages.forEach((m, n) => {
    if (channel) {
      events.push({ messageType: 'channel', id: `${c.id}-m${n}`, conversationId: c.id, role: m.role, message: m.text, userId: c.userId, timestamp: iso(m.timeMs), metadata: { channel: 'support' } });
      messageEvents++;
      for (const tc of m.toolCalls) {
        events.push({
          messageType: 'tool_call',
          id: tc.id,
          conversationId: c.id,
          name: tc.name,
          toolCallRequest: tc.input,
          toolCallResponse: tc.success ? { ok: true } : { error: tc.error, is_error: true },
          timestamp: iso(m.timeMs + 1),
        });
      }
      return;
    }
    if (m.role === 'user') {
      events.push({ conversation_id: c.id, role: 'user', message: m.text, timestamp: iso(m.timeMs), user_id: c.userId });
      messageEvents++;
      return;
    }
    const blocks: Record<string, unknown>[] = [];
    if (m.thinking) blocks.push({ type: 'thinking', text: m.thinking });
    blocks.push({ type: 'text', text: m.text });
    for (const tc of m.toolCalls) blocks.push({ type: 'tool_use', tool_name: tc.name, tool_use_id: tc.id, input: tc.input });
    events.push({
      conversation_id: c.id,
      role: 'assistant',
      content: blocks,
      timestamp: iso(m.timeMs),
      user_id: c.userId,
      model: m.model,
      provider: 'anthropic',
      input_tokens: m.inputTokens,
      output_tokens: m.outputTokens,
    });
    messageEvents++;
    if (m.toolCalls.length) {
      events.push({
        conversation_id: c.id,
        role: 'user',
        content: m.toolCalls.map((tc) => ({ type: 'tool_result', tool_use_id: tc.id, content: tc.success ? 'ok' : tc.error, is_error: !tc.success })),
        timestamp: iso(m.timeMs + 3),
        user_id: c.userId,
      });
      messageEvents++;
    }
  });
  return { events, messageEvents };
}
