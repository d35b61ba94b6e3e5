/** Small builders of snapshots for the analysis unit tests (direct events, as `tracehouse analyze` reads them). */
import { snapshotsFromDirectEvents } from '../../../stream/analyses/direct-input.js';
import type { ConversationSnapshot } from '../../../stream/analyses/types.js';

export const T0 = Date.parse('2025-03-01T09:00:00.000Z');

export type Turn =
  | { user: string }
  | { agent: string }
  | { call: string; input: Record<string, unknown>; result?: string | Record<string, unknown>; error?: boolean; text?: string };

/** A conversation of turns one second apart; a call turn is an agent message with its tool_use, then the result. */
export function conversation(turns: readonly Turn[], opts: { id?: string; userId?: string; startMs?: number } = {}): ConversationSnapshot {
  const id = opts.id ?? 'conv-1';
  const start = opts.startMs ?? T0;
  const events: Record<string, unknown>[] = [];
  let n = 0;
  const at = () => new Date(start + 1000 * n++).toISOString();
  turns.forEach((t, k) => {
    const base = { conversation_id: id, ...(opts.userId ? { user_id: opts.userId } : {}) };
    if ('user' in t) events.push({ ...base, role: 'user', message: t.user, timestamp: at(), message_id: `m${events.length}` });
    else if ('agent' in t) events.push({ ...base, role: 'assistant', message: t.agent, timestamp: at(), message_id: `m${events.length}` });
    else {
      const callId = `call-${k}`;
      const content = [...(t.text ? [{ type: 'text', text: t.text }] : []), { type: 'tool_use', tool_use_id: callId, tool_name: t.call, input: t.input }];
      events.push({ ...base, role: 'assistant', content, timestamp: at(), message_id: `m${events.length}` });
      if (t.result !== undefined) {
        const result = typeof t.result === 'string' ? t.result : JSON.stringify(t.result);
        events.push({ ...base, role: 'user', content: [{ type: 'tool_result', tool_use_id: callId, content: result, is_error: t.error === true }], timestamp: at(), message_id: `m${events.length}` });
      }
    }
  });
  return snapshotsFromDirectEvents(events).snapshots[0]!;
}
