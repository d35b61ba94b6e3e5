/**
 * A small builder of conversations for the analysis tests: direct-ingest events in the standard
 * form, turned into a snapshot by the same code the stream role and `tracehouse analyze` use.
 */
import { snapshotsFromDirectEvents } from '../../../stream/analyses/direct-input.js';
import type { ConversationSnapshot } from '../../../stream/analyses/types.js';

type Block = Record<string, unknown>;

export class Conversation {
  private events: Record<string, unknown>[] = [];
  private t = Date.parse('2025-06-01T10:00:00.000Z');
  private calls = 0;
  constructor(readonly id = 'conv-1') {}

  private push(role: string, body: Record<string, unknown>, gapMs = 10_000): number {
    this.t += gapMs;
    this.events.push({ conversation_id: this.id, role, timestamp: new Date(this.t).toISOString(), message_id: `${this.id}:m${this.events.length}`, ...body });
    return this.events.length - 1;
  }

  user(text: string, gapMs?: number): number {
    return this.push('user', { message: text }, gapMs);
  }

  agent(text: string): number {
    return this.push('assistant', { message: text });
  }

  system(text: string): number {
    return this.push('system', { message: text });
  }

  /** A sub-agent prompt (a user-role message of a sidechain thread). */
  sidechain(role: 'user' | 'assistant', text: string, thread = 'side-1'): number {
    return this.push(role, { message: text, thread_id: thread });
  }

  /** A tool call and its result; returns [call message index, result message index, call id]. */
  tool(name: string, input: unknown, result: string, isError = false, text = ''): [number, number, string] {
    const id = `call_${this.calls++}`;
    const blocks: Block[] = text ? [{ type: 'text', text }] : [];
    blocks.push({ type: 'tool_use', tool_name: name, tool_use_id: id, input });
    const a = this.push('assistant', { content: blocks });
    const b = this.push('user', { content: [{ type: 'tool_result', tool_use_id: id, content: result, is_error: isError }] });
    return [a, b, id];
  }

  snapshot(): ConversationSnapshot {
    return snapshotsFromDirectEvents(this.events).snapshots[0]!;
  }

  /** The snapshot of the first `k` events (what the store held before the rest arrived). */
  prefix(k: number): ConversationSnapshot {
    return snapshotsFromDirectEvents(this.events.slice(0, k)).snapshots[0]!;
  }

  get length(): number {
    return this.events.length;
  }
}
