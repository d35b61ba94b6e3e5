/**
 * The prefix-stability property of segments: for every prefix of a conversation, the segments
 * computed on the prefix are the full conversation's segments cut at the prefix (same ids, same
 * starts; only the last one ends earlier). A prefix of a snapshot is its first k messages, as the
 * store would hold them before the rest arrived.
 */
import { segmentConversation } from '../../stream/analyses/segments.js';
import type { ConversationSnapshot, Segment } from '../../stream/analyses/types.js';

export function prefixOf(s: ConversationSnapshot, k: number): ConversationSnapshot {
  return { ...s, messages: s.messages.slice(0, k), toolCalls: s.toolCalls.filter((c) => c.position < k) };
}

/** The full segmentation cut at k messages: what any prefix of length k must produce. */
export function cutAt(full: readonly Segment[], k: number): Segment[] {
  return full.filter((g) => g.start_index < k).map((g) => ({ ...g, end_index: Math.min(g.end_index, k - 1) }));
}

/**
 * Checks every prefix of conversations up to `fullUpTo` messages; longer ones (quadratic work)
 * every `stride`-th prefix plus the last few.
 */
export function prefixStability(
  snapshots: readonly ConversationSnapshot[],
  fullUpTo = 400,
  stride = 9,
): { conversations: number; prefixes: number; messages: number; violations: number; example: string } {
  let prefixes = 0;
  let violations = 0;
  let messages = 0;
  let example = '';
  for (const s of snapshots) {
    const full = segmentConversation(s);
    messages += s.messages.length;
    const n = s.messages.length;
    for (let k = 1; k <= n; k++) {
      if (n > fullUpTo && k % stride !== 0 && k < n - 3) continue;
      prefixes++;
      const got = segmentConversation(prefixOf(s, k));
      const want = cutAt(full, k);
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        violations++;
        example ||= `${s.conversationId} at ${k} messages`;
      }
    }
  }
  return { conversations: snapshots.length, prefixes, messages, violations, example };
}
