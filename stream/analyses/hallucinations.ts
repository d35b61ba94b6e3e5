/**
 * Hallucination detection: agent claims checked against the tool calls and results recorded in
 * the conversation. Claims (hallucinations-claims.ts): an action done ("the reservation has been
 * cancelled"), a file written, tests passing, a build or command succeeding, something sent, a
 * value (amount, id, status), an error or empty result reported. Each is checked against the
 * calls before its message in the same thread (hallucinations-checks.ts):
 *
 * - an action is matched to calls whose tool name fits the verb family and names its object (or
 *   whose input does); the latest decides: success → verified, failure with no later success
 *   since the request → contradicted, none → unverified;
 * - values named in a message reporting an action must agree with that action's result: an
 *   enumeration field (status, class…) naming another value than the result's, or an amount said
 *   to be paid / charged / refunded that no write result shows, contradicts;
 * - other amounts and ids are verified when a result (or the person) stated them; an id said to
 *   be "the id" that appears nowhere contradicts;
 * - tests / build / command claims follow the latest run of that kind;
 * - a reported error or empty result is verified by the latest call showing it.
 *
 * Per message only contradicted and verified claims become findings; unverified claims are only
 * counted in `stats`. Precision over recall: what cannot be checked stays unverified.
 */
import { extractClaims, type Claim } from './hallucinations-claims.js';
import {
  BUILD_CALL,
  checkAction,
  checkCommand,
  checkEnums,
  checkFailure,
  checkFile,
  checkIds,
  checkMoney,
  checkNothing,
  checkRun,
  callsBefore,
  TEST_CALL,
  UNVERIFIED,
  type Check,
  type Context,
} from './hallucinations-checks.js';
import { compileVocabulary, enumVocabulary, numbersIn, parseResult, type ParsedResult, type VocabularyValue } from './hallucinations-values.js';
import type { ConversationSnapshot, HallucinationFinding, HallucinationStats, SnapshotMessage, SnapshotToolCall } from './types.js';
import { isHumanTurn } from './text/turns.js';

export const HALLUCINATIONS_VERSION = 1;

/** Contradicted wins over verified, verified over unverified. */
function combine(checks: readonly Check[]): Check {
  return checks.find((c) => c.verdict === 'contradicted') ?? checks.find((c) => c.verdict === 'verified') ?? UNVERIFIED;
}

/** "Your reservation is…", "you are currently…": a statement about the person's present state. */
const ABOUT_CURRENT_STATE = /\b(?:your|you are|you're|you have|currently|at the moment|right now)\b/i;

/** A plain statement that a recorded value spoke to is a value claim. */
const claimType = (c: Claim): string => (c.type === 'statement' ? 'value_is' : c.type);

/** The latest successful result of the thread with fields (a JSON record), if any. */
function latestRecord(ctx: Context, m: SnapshotMessage): ParsedResult | undefined {
  const calls = callsBefore(ctx, m);
  for (let i = calls.length - 1; i >= Math.max(0, calls.length - 20); i--) {
    const p = ctx.parsed(calls[i]!);
    if (p.call.success && p.fields.size) return p;
  }
  return undefined;
}

function checkClaim(ctx: Context, m: SnapshotMessage, claim: Claim, state: MessageState): Check {
  const checks: Check[] = [];
  switch (claim.type) {
    case 'action_done':
    case 'sent': {
      const c = checkAction(ctx, m, claim, state.since);
      checks.push(c);
      if (c.verdict !== 'unverified' && c.call?.success) state.action = ctx.parsed(c.call);
      break;
    }
    case 'file_written':
      checks.push(checkFile(ctx, m, claim));
      break;
    case 'tests_pass':
      checks.push(checkRun(ctx, m, TEST_CALL));
      break;
    case 'build_succeeded':
      checks.push(checkRun(ctx, m, BUILD_CALL));
      break;
    case 'command_succeeded':
      checks.push(checkCommand(ctx, m));
      break;
    case 'failure_reported':
    case 'nothing_found': {
      const c = claim.type === 'failure_reported' ? checkFailure(ctx, m, claim, state.since) : checkNothing(ctx, m, state.since);
      if (c.verdict === 'verified') return c;
      break;
    }
    default:
      break;
  }
  // values of the sentence: against the action this message reports; a sentence about the
  // person's current state may only be confirmed by the latest result (roles of a value in a
  // sentence are too varied for a missing match to mean a contradiction)
  if (state.action) checks.push(checkEnums(ctx, claim.text, state.action));
  else if (ABOUT_CURRENT_STATE.test(claim.text)) {
    const c = checkEnums(ctx, claim.text, latestRecord(ctx, m));
    if (c.verdict === 'verified') checks.push(c);
  }
  checks.push(checkMoney(ctx, m, claim.text, state.action, state.personNumbers));
  checks.push(checkIds(ctx, m, claim.text));
  return combine(checks);
}

interface MessageState {
  /** Index of the person turn the agent is answering (or of its thread's prompt). */
  since: number;
  /** The action result a message reports (set by its first verified action claim). */
  action: ParsedResult | undefined;
  personNumbers: Set<number>;
}

export function detectHallucinations(s: ConversationSnapshot): { findings: HallucinationFinding[]; stats: HallucinationStats } {
  const cache = new Map<SnapshotToolCall, ParsedResult>();
  const parsed = (c: SnapshotToolCall) => {
    let p = cache.get(c);
    if (!p) cache.set(c, (p = parseResult(c)));
    return p;
  };
  let vocab: Map<string, VocabularyValue[]> | undefined;
  const done = new Map<string, SnapshotToolCall[]>();
  const ctx: Context = { s, parsed, vocab: () => (vocab ??= compileVocabulary(enumVocabulary(s.toolCalls.map(parsed), s.toolCalls.map((c) => c.input)))), done };
  const findings: HallucinationFinding[] = [];
  const stats: HallucinationStats = { claims: 0, verified: 0, contradicted: 0, unverified: 0 };
  const personNumbers = new Set<number>();
  const since = new Map<string, number>();
  // calls by the message holding their result: they become evidence once that message is passed
  const resultsAt = new Map<number, SnapshotToolCall[]>();
  for (const c of s.toolCalls) {
    if (c.resultIndex === null || c.messageIndex === null) continue;
    const list = resultsAt.get(c.resultIndex);
    if (list) list.push(c);
    else resultsAt.set(c.resultIndex, [c]);
  }
  for (const m of s.messages) {
    if (m.role === 'assistant' && m.text.trim()) {
      const state: MessageState = { since: since.get(m.threadId) ?? 0, action: undefined, personNumbers };
      for (const claim of extractClaims(m.text)) {
        const check = checkClaim(ctx, m, claim, state);
        // a plain statement is a claim only when a recorded value spoke to it
        if (claim.type === 'statement' && check.verdict === 'unverified') continue;
        stats.claims++;
        stats[check.verdict]++;
        if (check.verdict === 'unverified') continue;
        findings.push({
          message_index: m.index,
          claim_type: claimType(claim),
          claim: claim.text,
          verdict: check.verdict,
          evidence: { message_index: check.call?.resultIndex ?? null, tool_use_id: check.call?.key ?? null, quote: check.quote },
        });
      }
    } else if (m.role !== 'assistant' && m.text.trim()) {
      if (isHumanTurn(m) || (m.role === 'user' && m.threadId !== '')) since.set(m.threadId, m.index);
      if (m.role === 'user') for (const n of numbersIn(m.text)) personNumbers.add(n);
    }
    for (const c of resultsAt.get(m.index) ?? []) {
      const thread = s.messages[c.messageIndex!]!.threadId;
      const list = done.get(thread);
      if (list) list.push(c);
      else done.set(thread, [c]);
    }
  }
  return { findings, stats };
}
