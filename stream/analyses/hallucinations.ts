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
  TEST_CALL,
  UNVERIFIED,
  type Check,
  type Context,
} from './hallucinations-checks.js';
import { enumVocabulary, numbersIn, parseResult, type ParsedResult } from './hallucinations-values.js';
import type { ConversationSnapshot, HallucinationFinding, HallucinationStats, SnapshotMessage } from './types.js';
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

/** Tokens an identifier could have been copied from: results, inputs, the person's and system text (not the agent's own words). */
function addIdTokens(known: Set<string>, text: string): void {
  for (const m of text.matchAll(/[A-Za-z0-9][A-Za-z0-9_-]{4,}/g)) known.add(m[0]);
}

function checkClaim(ctx: Context, m: SnapshotMessage, claim: Claim, state: MessageState): Check {
  const checks: Check[] = [];
  switch (claim.type) {
    case 'action_done':
    case 'sent': {
      const c = checkAction(ctx, m, claim, state.since);
      checks.push(c);
      if (c.verdict !== 'unverified' && c.call?.success) state.action = ctx.parsed.get(c.call);
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
    const c = checkEnums(ctx, claim.text, state.latestWithFields);
    if (c.verdict === 'verified') checks.push(c);
  }
  checks.push(checkMoney(ctx, m, claim.text, state.action, state.personNumbers));
  checks.push(checkIds(ctx, m, claim.text, state.known));
  return combine(checks);
}

interface MessageState {
  /** Index of the person turn the agent is answering (or of its thread's prompt). */
  since: number;
  /** The action result a message reports (set by its first verified action claim). */
  action: ParsedResult | undefined;
  latestWithFields: ParsedResult | undefined;
  personNumbers: Set<number>;
  known: Set<string>;
}

export function detectHallucinations(s: ConversationSnapshot): { findings: HallucinationFinding[]; stats: HallucinationStats } {
  const parsed = new Map(s.toolCalls.map((c) => [c, parseResult(c)] as const));
  const ctx: Context = { s, parsed, vocab: enumVocabulary([...parsed.values()], s.toolCalls.map((c) => c.input)) };
  const findings: HallucinationFinding[] = [];
  const stats: HallucinationStats = { claims: 0, verified: 0, contradicted: 0, unverified: 0 };
  const personNumbers = new Set<number>();
  const known = new Set<string>();
  const since = new Map<string, number>();
  // results by the message that holds them, to keep "the latest result with fields" in order
  const resultsAt = new Map<number, ParsedResult[]>();
  for (const p of parsed.values()) if (p.call.resultIndex !== null) resultsAt.set(p.call.resultIndex, [...(resultsAt.get(p.call.resultIndex) ?? []), p]);
  let latestWithFields: ParsedResult | undefined;
  for (const m of s.messages) {
    for (const p of resultsAt.get(m.index) ?? []) {
      addIdTokens(known, `${p.text} ${p.call.input}`);
      if (p.call.success && p.fields.size) latestWithFields = p;
    }
    if (m.role !== 'assistant') {
      if (m.text.trim()) {
        addIdTokens(known, m.text);
        if (isHumanTurn(m) || (m.role === 'user' && m.threadId !== '')) since.set(m.threadId, m.index);
        if (m.role === 'user') for (const n of numbersIn(m.text)) personNumbers.add(n);
      }
      continue;
    }
    if (m.text.trim()) {
      const state: MessageState = { since: since.get(m.threadId) ?? 0, action: undefined, latestWithFields, personNumbers, known };
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
    }
  }
  return { findings, stats };
}
