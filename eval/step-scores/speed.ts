/**
 * CPU time of the world-state and step-score analyses: per 30-message conversation (windows of
 * the real tau-bench conversations) and on generated conversations of 250 to 2,000 messages, to
 * show the growth stays linear. CPU time of this process (`process.cpuUsage`), not wall time.
 */
import { snapshotsFromDirectEvents } from '../../stream/analyses/direct-input.js';
import { emptyAnalysis } from '../../stream/analyses/pipeline.js';
import { segmentConversation } from '../../stream/analyses/segments.js';
import { scoreSteps } from '../../stream/analyses/step-scores.js';
import type { ConversationSnapshot } from '../../stream/analyses/types.js';
import { buildWorldState } from '../../stream/analyses/world-state.js';
import { rng } from '../segments/random.js';

export interface SpeedRow {
  label: string;
  messages: number;
  worldStateUs: number;
  stepScoresUs: number;
}

/** Mean CPU µs of `fn` over the inputs, after a warm-up pass. */
function cpuUs<T>(inputs: readonly T[], fn: (x: T) => unknown, reps: number): number {
  for (const x of inputs) fn(x);
  const start = process.cpuUsage();
  for (let r = 0; r < reps; r++) for (const x of inputs) fn(x);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / reps / inputs.length;
}

function measure(label: string, snapshots: readonly ConversationSnapshot[], reps: number): SpeedRow {
  const prepared = snapshots.map((s) => {
    const a = emptyAnalysis(s.conversationId);
    a.segments = segmentConversation(s);
    return { s, a };
  });
  const worldStateUs = cpuUs(prepared, ({ s, a }) => (a.world_state = buildWorldState(s, a.segments)), reps);
  const stepScoresUs = cpuUs(prepared, ({ s, a }) => scoreSteps(s, a), reps);
  const messages = snapshots.reduce((n, s) => n + s.messages.length, 0) / snapshots.length;
  return { label, messages, worldStateUs, stepScoresUs };
}

/** A generated support conversation: requests with ids, calls with JSON arguments and results, replies. */
export function longConversation(messages: number, seed = 5): ConversationSnapshot {
  const r = rng(seed);
  const events: Record<string, unknown>[] = [];
  const t0 = Date.parse('2025-05-01T00:00:00.000Z');
  let k = 0;
  while (events.length < messages) {
    const at = new Date(t0 + events.length * 1000).toISOString();
    const step = events.length % 4;
    if (step === 0) events.push({ conversation_id: 'long', role: 'user', message: r.pick([`Please update order #W${r.int(1000, 9999)} to size ${r.pick(['S', 'M', 'L'])}.`, `My user id is user_${r.int(1, 50)}, can you check reservation K${r.int(10, 99)}Z${r.int(1, 9)}Q?`, 'Thanks, that works. Another question: what about my refund?', 'No, that is not what I asked for.']), timestamp: at });
    else if (step === 1) events.push({ conversation_id: 'long', role: 'assistant', content: [{ type: 'text', text: 'Let me check that.' }, { type: 'tool_use', tool_use_id: `c${k}`, tool_name: r.pick(['get_order_details', 'update_order', 'cancel_reservation']), input: { order_id: `#W${r.int(1000, 9999)}`, size: r.pick(['S', 'M']), items: [{ item_id: `i${r.int(1, 9)}` }] } }], timestamp: at });
    else if (step === 2) events.push({ conversation_id: 'long', role: 'user', content: [{ type: 'tool_result', tool_use_id: `c${k++}`, content: r.chance(0.15) ? 'Error: not allowed' : JSON.stringify({ order_id: `#W${r.int(1000, 9999)}`, status: 'ok', confirmation_id: `C${r.int(100, 999)}X` }), is_error: false }], timestamp: at });
    else events.push({ conversation_id: 'long', role: 'assistant', message: r.pick(['Done, it is updated.', 'Could you give me your user ID?', 'I am unable to change that, unfortunately.']), timestamp: at });
  }
  return snapshotsFromDirectEvents(events).snapshots[0]!;
}

/** 30-message windows of real conversations, then generated conversations of growing length. */
export function speedRows(real: readonly ConversationSnapshot[]): SpeedRow[] {
  const windows = real.filter((s) => s.messages.length >= 30).map((s) => ({ ...s, messages: s.messages.slice(0, 30), toolCalls: s.toolCalls.filter((c) => (c.resultIndex ?? c.messageIndex ?? 0) < 30) }));
  const rows = [measure('tau-bench, first 30 messages', windows, 20)];
  for (const n of [250, 500, 1000, 2000]) rows.push(measure(`generated, ${n} messages`, [longConversation(n)], n >= 1000 ? 3 : 10));
  return rows;
}
