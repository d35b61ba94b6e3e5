/**
 * What the agent did since the user last spoke: the calls that failed or were declined, calls
 * repeated identically, the agent's last words, and claims contradicted by the record. A user turn
 * is read against this; it also names the primary cause of what the user feels.
 */
import type { CauseRef, ConversationSnapshot, HallucinationFinding, SnapshotMessage, SnapshotToolCall } from '../types.js';

/**
 * Results that say the user declined or stopped a call. These are the agents' own fixed wordings
 * (Claude Code: "No (tell Claude what to do differently)", "User rejected …", "The user doesn't
 * want to proceed with this tool use"), the same ones the importers and failure families use.
 */
const DECLINED = /^(no \(tell \w+ what to do differently\)|user rejected|the user doesn'?t want to proceed|interrupted by user|\[request interrupted|.*tool use was rejected)/i;

export interface TurnContext {
  /** Index of the previous user turn (−1 when this is the first). */
  previousTurn: number;
  failed: readonly SnapshotToolCall[];
  declined: readonly SnapshotToolCall[];
  /** Identical calls (same tool, same input) that failed more than once since the previous turn. */
  repeatedFailures: number;
  /** The agent's last message with text since the previous turn. */
  lastAgentMessage: SnapshotMessage | undefined;
  /** A claim of the agent since the previous turn that the record contradicts. */
  contradictedClaim: HallucinationFinding | undefined;
}

export const isDeclined = (c: SnapshotToolCall): boolean => c.decision === 'reject' || DECLINED.test(c.resultText.trimStart());

/** A user message with the user's own words: main thread, with text (not only tool results). */
export const isUserSpeech = (m: SnapshotMessage): boolean => m.role === 'user' && m.threadId === '' && m.text.trim() !== '';

/**
 * Context of every user turn, in one pass over messages and calls (calls are sorted by position):
 * linear in the size of the conversation.
 */
export function turnContexts(
  s: ConversationSnapshot,
  turns: readonly number[],
  hallucinations: readonly HallucinationFinding[] = [],
): Map<number, TurnContext> {
  const out = new Map<number, TurnContext>();
  const contradicted = hallucinations.filter((h) => h.verdict === 'contradicted').sort((a, b) => a.message_index - b.message_index);
  let callAt = 0;
  let claimAt = 0;
  let previous = -1;
  for (const t of turns) {
    const failed: SnapshotToolCall[] = [];
    const declined: SnapshotToolCall[] = [];
    const seen = new Map<string, number>();
    let repeatedFailures = 0;
    while (callAt < s.toolCalls.length && s.toolCalls[callAt]!.position < t) {
      const c = s.toolCalls[callAt++]!;
      if (c.position <= previous) continue;
      if (c.success !== false && c.decision !== 'reject') continue;
      (isDeclined(c) ? declined : failed).push(c);
      // the same failing call again: the agent is stuck in a loop the user watches
      const sig = `${c.toolName}\u0000${c.input}`;
      const n = (seen.get(sig) ?? 0) + 1;
      seen.set(sig, n);
      if (n === 2) repeatedFailures++;
    }
    let claim: HallucinationFinding | undefined;
    while (claimAt < contradicted.length && contradicted[claimAt]!.message_index < t) {
      const h = contradicted[claimAt++]!;
      if (h.message_index > previous) claim = h;
    }
    let lastAgentMessage: SnapshotMessage | undefined;
    for (let i = t - 1; i > previous; i--) {
      const m = s.messages[i]!;
      if (m.role === 'assistant' && m.text.trim() !== '') {
        lastAgentMessage = m;
        break;
      }
    }
    out.set(t, { previousTurn: previous, failed, declined, repeatedFailures, lastAgentMessage, contradictedClaim: claim });
    previous = t;
  }
  return out;
}

/**
 * The primary cause of a negative signal: a contradicted claim, else the last declined call, else
 * the last failed call, else the agent message the turn answers.
 */
export function causeOf(ctx: TurnContext, negative: boolean): CauseRef | null {
  if (negative && ctx.contradictedClaim) return { kind: 'claim', message_index: ctx.contradictedClaim.message_index };
  const call = negative ? (ctx.declined[ctx.declined.length - 1] ?? ctx.failed[ctx.failed.length - 1]) : undefined;
  if (call) return { kind: 'tool_failure', message_index: call.resultIndex ?? call.messageIndex, tool_use_id: call.key };
  if (ctx.lastAgentMessage) return { kind: 'agent_message', message_index: ctx.lastAgentMessage.index };
  return null;
}
