/**
 * The checks behind hallucination detection (hallucinations.ts): each takes a claim of an agent
 * message and the calls recorded before it, and answers verified, contradicted or unverified with
 * the call it rests on. Conservative by construction: a missing or ambiguous record is
 * "unverified", never "contradicted".
 */
import type { ConversationSnapshot, SnapshotMessage, SnapshotToolCall } from './types.js';
import type { Claim } from './hallucinations-claims.js';
import { mentionedValues, moneyIn, normalizeForValues, type ParsedResult, type VocabularyValue } from './hallucinations-values.js';
import { contentTerms, stem, STOPWORDS, words } from './text/tokens.js';
import { capText, sliceText } from './text/prose.js';

export type Verdict = 'contradicted' | 'verified' | 'unverified';

export interface Check {
  verdict: Verdict;
  call: SnapshotToolCall | null;
  quote: string;
}

export const UNVERIFIED: Check = { verdict: 'unverified', call: null, quote: '' };

/** Tool-name stems that can perform each action family. */
const FAMILY_TOOLS: Record<string, RegExp> = {
  book: /book|reserv|purchas|order|creat/,
  cancel: /cancel|void|delet|remov/,
  update: /updat|modif|chang|edit|upgrad|set|patch|resched|move|renam|apply|write|replac/,
  add: /add|insert|append|attach|updat|creat|put|edit|write/,
  remove: /remov|delet|drop|cancel|unlink/,
  create: /creat|writ|save|new|add|put|insert|generat|make|touch|mkdir/,
  refund: /refund|cancel|pay|charg|credit|compensat|certificat|issue|updat/,
  send: /send|email|mail|notif|messag|post|slack|sms/,
  transfer: /transfer|escalat|handoff/,
  commit: /commit|push|merg|deploy|install|publish|release/,
};

/** Verbs and generic words that say nothing about a tool's object. */
const TOOL_VERBS = new Set(['get', 'set', 'update', 'create', 'delete', 'remove', 'add', 'list', 'search', 'find', 'read', 'write', 'edit', 'send', 'cancel', 'book', 'make', 'new', 'do', 'run', 'exec', 'execute', 'put', 'post', 'patch', 'multi', 'multiedit', 'notebook', 'tool', 'mcp', 'by', 'to', 'for', 'the']);

/** Object tokens of a tool name, memoized: a conversation calls few tools many times (bounded). */
const toolTokenMemo = new Map<string, string[]>();
function toolTokens(name: string): string[] {
  let t = toolTokenMemo.get(name);
  if (t === undefined) {
    if (toolTokenMemo.size >= 2000) toolTokenMemo.clear();
    toolTokenMemo.set(name, (t = toolTokensOnce(name)));
  }
  return t;
}

/** A call's input lower-cased, once per call object (each claim of a message reads the same calls). */
const lowerInputs = new WeakMap<SnapshotToolCall, string>();
function lowerInput(c: SnapshotToolCall): string {
  let t = lowerInputs.get(c);
  if (t === undefined) lowerInputs.set(c, (t = c.input.toLowerCase()));
  return t;
}

function toolTokensOnce(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length >= 3 && !TOOL_VERBS.has(t))
    .map(stem);
}

/** Object words of a claim: content stems, minus the claim's own verbs. */
function objectTerms(text: string): string[] {
  return contentTerms(text).filter((t) => t.length >= 3 && !/^(?:ha|been|successfully|now|your|you|has|have|was|were)$/.test(t));
}

export const TEST_CALL = /\b(?:test|tests|pytest|jest|vitest|mocha|spec|unittest|rspec|phpunit|tox|nox|go test|cargo test|npm (?:run )?test|yarn test|pnpm test|ctest)\b/i;
export const BUILD_CALL = /\b(?:build|tsc|compile|make|cargo build|go build|gradle|mvn|webpack|vite build|npm run build)\b/i;
export const SHELL_CALL = /^(?:bash|shell|exec|execute|run_command|terminal|exec_command|local_shell|sh|run)$/i;
const RUN_FAILED = /\b[1-9]\d* (?:failed|failing|failures?|errors?)\b|\bFAILED\b|\bFAIL\b|✗|✕|\bnpm ERR!|\berror TS\d+|\bTraceback\b|\bpanic:/;
const PAYMENT_VERB = /\b(?:processed|charged|paid|refunded|credited|debited|billed)\b/i;
const TOTAL_WORDS = /\b(?:total|sum|overall|altogether|combined|difference|saved|remaining|balance|per passenger|each|previously)\b/i;
const GENERIC_ERROR_WORDS = new Set(['error', 'issue', 'problem', 'fail', 'failed', 'unable', 'still', 'seem', 'system', 'encounter', 'available', 'not']);

/** Calls a claim is checked against: the latest ones only, so long conversations stay linear. */
export const MAX_LOOKBACK_CALLS = 200;

export interface Context {
  s: ConversationSnapshot;
  /** A call's result as numbers and fields (parsed on first use). */
  parsed(c: SnapshotToolCall): ParsedResult;
  /** Enumeration-like fields of the conversation's results and inputs (built on first use). */
  vocab(): Map<string, VocabularyValue[]>;
  /** Per thread, the calls whose result was recorded before the current message, in order. */
  done: Map<string, SnapshotToolCall[]>;
}

/** Calls of the message's thread whose result was recorded before the message (the latest 200). */
export function callsBefore(ctx: Context, m: SnapshotMessage): SnapshotToolCall[] {
  const all = ctx.done.get(m.threadId) ?? [];
  return all.length > MAX_LOOKBACK_CALLS ? all.slice(-MAX_LOOKBACK_CALLS) : all;
}

const snippet = (text: string, needle: string) => {
  const i = needle ? text.toLowerCase().indexOf(needle.toLowerCase()) : -1;
  const from = i < 0 ? 0 : Math.max(0, i - 60);
  return sliceText(text, from, from + 160).trim();
};

/** The latest call of `candidates` decides; a failure stands only if nothing later succeeded. */
function byLatest(candidates: readonly SnapshotToolCall[], needle = ''): Check {
  if (candidates.length === 0) return UNVERIFIED;
  const last = candidates[candidates.length - 1]!;
  if (last.success === true) return { verdict: 'verified', call: last, quote: snippet(last.resultText, needle) };
  if (last.success === false) return { verdict: 'contradicted', call: last, quote: snippet(last.resultText, needle) };
  return UNVERIFIED;
}

export function checkAction(ctx: Context, m: SnapshotMessage, claim: Claim, since: number): Check {
  const family = claim.action ?? 'update';
  const verbs = FAMILY_TOOLS[family]!;
  const objects = objectTerms(claim.text);
  const calls = callsBefore(ctx, m).filter((c) => c.effectClass !== 'read' && c.effectClass !== 'compute');
  const fits = (c: SnapshotToolCall) => verbs.test(c.toolName.toLowerCase()) || (family === 'commit' && verbs.test(c.command)) || (family === 'send' && c.effectClass === 'send');
  const names = (c: SnapshotToolCall) => {
    const tokens = toolTokens(c.toolName);
    if (tokens.length === 0) return true;
    const input = lowerInput(c);
    return objects.some((o) => tokens.some((t) => t.startsWith(o) || o.startsWith(t)) || (o.length >= 4 && input.includes(o)));
  };
  let candidates = calls.filter((c) => fits(c) && names(c));
  // payments and refunds are effects of other actions (a cancellation refunds): the verb suffices
  if (candidates.length === 0 && family === 'refund') candidates = calls.filter(fits);
  // a failure only contradicts when it answers the current request
  const check = byLatest(candidates);
  if (check.verdict === 'contradicted' && check.call!.messageIndex! < since) return UNVERIFIED;
  return check;
}

/** The file a call writes: a path-like field of its input (or a path in its shell command). */
function writtenPath(c: SnapshotToolCall): string {
  try {
    const input = JSON.parse(c.input) as Record<string, unknown>;
    for (const [k, v] of Object.entries(input)) if (typeof v === 'string' && /path|file|filename|target|dest/i.test(k)) return v.toLowerCase();
  } catch {
    // an input cut at the storage cap: fall back to the command
  }
  return c.command.toLowerCase();
}

export function checkFile(ctx: Context, m: SnapshotMessage, claim: Claim): Check {
  const file = /[\w./-]*[\w-]+\.[a-z]{1,6}\b/i.exec(claim.text.replace(/`/g, ''))?.[0];
  if (!file) return UNVERIFIED;
  const base = file.split('/').pop()!.toLowerCase();
  const calls = callsBefore(ctx, m).filter((c) => c.effectClass === 'write' && writtenPath(c).endsWith(base));
  return byLatest(calls, base);
}

export function checkRun(ctx: Context, m: SnapshotMessage, kind: RegExp): Check {
  const runs = callsBefore(ctx, m).filter((c) => kind.test(`${c.command} ${SHELL_CALL.test(c.toolName) ? c.input.slice(0, 300) : c.toolName}`));
  if (runs.length === 0) return UNVERIFIED;
  const last = runs[runs.length - 1]!;
  if (last.success === false || RUN_FAILED.test(last.resultText)) return { verdict: 'contradicted', call: last, quote: snippet(last.resultText, (RUN_FAILED.exec(last.resultText) ?? [''])[0]) };
  return last.success === true ? { verdict: 'verified', call: last, quote: snippet(last.resultText, '') } : UNVERIFIED;
}

/** "Ran successfully": the latest shell command decides. */
export function checkCommand(ctx: Context, m: SnapshotMessage): Check {
  const runs = callsBefore(ctx, m).filter((c) => SHELL_CALL.test(c.toolName) || c.command !== '');
  return byLatest(runs.slice(-1));
}

/** A reported error is verified by the latest call since the request failing on the same thing. */
export function checkFailure(ctx: Context, m: SnapshotMessage, claim: Claim, since: number): Check {
  const calls = callsBefore(ctx, m).filter((c) => c.messageIndex! >= since);
  const last = calls[calls.length - 1];
  if (!last || last.success !== false) return UNVERIFIED;
  const errorTerms = new Set(words(last.resultText.replace(/_/g, ' ')).map(stem));
  const shared = words(claim.text.replace(/_/g, ' ')).map(stem).filter((t) => !STOPWORDS.has(t) && !GENERIC_ERROR_WORDS.has(t) && t.length >= 3 && errorTerms.has(t));
  return shared.length ? { verdict: 'verified', call: last, quote: snippet(last.resultText, shared[0]!) } : UNVERIFIED;
}

/** "No flights found": verified when the latest lookup since the request came back empty. */
export function checkNothing(ctx: Context, m: SnapshotMessage, since: number): Check {
  const reads = callsBefore(ctx, m).filter((c) => c.messageIndex! >= since && c.effectClass === 'read');
  const last = reads[reads.length - 1];
  if (!last || last.success !== true) return UNVERIFIED;
  const empty = /^\s*(?:\[\s*\]|\{\s*\}|null|none|)\s*$/i.test(last.resultText) || /\bno (?:results|matches|records|items) found\b|^\s*0 results\b/i.test(last.resultText);
  return empty ? { verdict: 'verified', call: last, quote: capText(last.resultText.trim(), 160) || '(empty result)' } : UNVERIFIED;
}

/** Values named in a sentence must agree with the relevant result's fields of the same key. */
export function checkEnums(ctx: Context, sentence: string, result: ParsedResult | undefined): Check {
  if (!result) return UNVERIFIED;
  let agreed = '';
  const normalized = normalizeForValues(sentence);
  for (const [key, values] of ctx.vocab()) {
    const have = result.fields.get(key);
    if (!have) continue;
    const named = mentionedValues(normalized, values);
    if (named.size === 0) continue;
    const ok = [...named].filter((v) => have.has(v));
    if (ok.length === 0) {
      const actual = [...have].filter((v) => values.some((x) => x.value === v));
      if (actual.length === 0) continue;
      return { verdict: 'contradicted', call: result.call, quote: snippet(result.text, `"${key}": "${actual[0]}"`) };
    }
    agreed ||= ok[0]!;
  }
  return agreed ? { verdict: 'verified', call: result.call, quote: snippet(result.text, agreed) } : UNVERIFIED;
}

/**
 * Amounts of a sentence. Said to be paid, charged or refunded in a message reporting an action:
 * contradicted when no write result before it shows the amount (and the action's result records
 * amounts at all). Otherwise verified when any result before it (or the person) stated the
 * amount; never contradicted by a missing match (agents add numbers up).
 */
export function checkMoney(ctx: Context, m: SnapshotMessage, sentence: string, action: ParsedResult | undefined, personNumbers: ReadonlySet<number>): Check {
  const amounts = moneyIn(sentence);
  if (amounts.length === 0) return UNVERIFIED;
  const before = callsBefore(ctx, m).map((c) => ctx.parsed(c));
  const inWrites = (n: number) => before.some((p) => p.call.effectClass !== 'read' && p.call.effectClass !== 'compute' && p.call.success === true && p.amounts.has(n));
  if (action && PAYMENT_VERB.test(sentence) && !TOTAL_WORDS.test(sentence) && action.amounts.size > 0) {
    const missing = amounts.filter((n) => !inWrites(n));
    if (missing.length) return { verdict: 'contradicted', call: action.call, quote: snippet(action.text, 'amount') || capText(action.text, 160) };
    return { verdict: 'verified', call: action.call, quote: snippet(action.text, String(amounts[0])) };
  }
  // every amount must have come from somewhere: a result before the message, or the person
  let source: ParsedResult | undefined;
  for (const n of amounts) {
    const from = before.filter((p) => p.numbers.has(n)).pop();
    if (!from && !personNumbers.has(n)) return UNVERIFIED;
    source ??= from;
  }
  if (source) return { verdict: 'verified', call: source.call, quote: snippet(source.text, String(amounts[0])) };
  return { verdict: 'verified', call: null, quote: '' };
  return UNVERIFIED;
}

/** An id stated as "the id" is verified by a result showing it, contradicted when nothing before it (result, input, person) ever named it. */
/** Whether anything but the agent's own words named `id` before message `m`. */
function namedBefore(ctx: Context, m: SnapshotMessage, id: string): boolean {
  for (let i = 0; i < m.index; i++) {
    const x = ctx.s.messages[i]!;
    if (x.role !== 'assistant' && x.text.includes(id)) return true;
  }
  for (const calls of ctx.done.values()) if (calls.some((c) => c.input.includes(id) || c.resultText.includes(id))) return true;
  return false;
}

export function checkIds(ctx: Context, m: SnapshotMessage, sentence: string): Check {
  // the id must be what the sentence states ("your reservation ID is X", "confirmation: X")
  const stated = /\b(?:id|number|code|confirmation|reference)\b[^.\n]{0,20}?(?:\bis\b|:)\s*\**\s*([A-Za-z0-9][A-Za-z0-9_-]{4,15})\b/i.exec(sentence);
  if (!stated) return UNVERIFIED;
  const id = stated[1]!;
  if (!/\d/.test(id) && !/^[A-Z]{5,}$/.test(id)) return UNVERIFIED;
  const results = callsBefore(ctx, m);
  const from = results.filter((c) => c.resultText.includes(id)).pop();
  if (from) return { verdict: 'verified', call: from, quote: snippet(from.resultText, id) };
  // the evidence is an absence: no recorded result to cite
  if (!namedBefore(ctx, m, id)) return { verdict: 'contradicted', call: null, quote: '' };
  return UNVERIFIED;
}
