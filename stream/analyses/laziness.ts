/**
 * Laziness: an agent doing less than it was asked while presenting it as done. Pattern families
 * (laziness-patterns.ts) with a confidence each, over agent messages and the code their tool
 * calls write:
 *
 * - placeholder_code — comments standing in for code ("// ... rest of the code", "# TODO: implement");
 * - left_as_exercise;
 * - unverified_completion — "fixed" / "works now" / "all tests pass" with no tool call since the
 *   request, or "tests pass" with no test or build run;
 * - skipped_tests — says tests were not run or written, adds skip markers, or reports done on a
 *   request for tests without running any;
 * - truncated_output — "I'll stop here", "for brevity", "rest omitted";
 * - handed_back — "you'll need to implement…" on work the person asked the agent to do;
 * - refusal_deferral — "I can't do that", "let's do that later" (weak alone);
 * - truncated_data / truncated_input — the output or the input was cut (stored, not counted).
 *
 * Not triggered by quoted text, code blocks in prose patterns, code the person pasted, or
 * placeholders and skips the person asked for. Rule: a detection with confidence ≥ 0.5 counts
 * alone; weaker ones count only when two or more families co-occur in the conversation.
 */
import type { ContentBlock } from '../../schemas/events.js';
import type { ConversationSnapshot, LazinessDetection, SnapshotMessage } from './types.js';
import {
  CODE_REQUEST,
  CODE_RULES,
  COMPLETION_CLAIM,
  EVIDENCE_IN_REQUEST,
  PROSE_RULES,
  REQUESTED_PLACEHOLDER,
  SKIP_MARKER,
  TEST_OR_BUILD_CALL,
  TEST_REQUEST,
  TRUNCATED_RESULT,
  type PatternRule,
} from './laziness-patterns.js';
import { LiteralGates } from './text/gate.js';
import { capText, codeBlocks, maskQuoted, sentenceSpans } from './text/prose.js';
import { isToolResultOnly } from './text/turns.js';

export const LAZINESS_VERSION = 1;
/** A detection at or above this confidence counts alone. */
export const COUNTS_ALONE = 0.5;
const MAX_QUOTE = 240;

/** Input fields of file-writing tools that hold the new content. */
const CONTENT_FIELDS = ['content', 'new_string', 'new_str', 'file_text', 'contents', 'code', 'patch', 'diff', 'insert_text', 'source', 'body'];

interface WrittenCode {
  text: string;
  /** Text being replaced (an edit), where an existing placeholder would already be. */
  replaced: string;
}

/** Code a tool call writes: content fields of its input, and every edit of a multi-edit. */
function writtenCode(input: unknown): WrittenCode[] {
  if (!input || typeof input !== 'object') return [];
  const o = input as Record<string, unknown>;
  const out: WrittenCode[] = [];
  const old = typeof o.old_string === 'string' ? o.old_string : typeof o.old_str === 'string' ? o.old_str : '';
  for (const f of CONTENT_FIELDS) if (typeof o[f] === 'string') out.push({ text: o[f] as string, replaced: old });
  if (Array.isArray(o.edits)) for (const e of o.edits) out.push(...writtenCode(e));
  return out;
}

/** Per thread: the request being worked on and what was run since. */
interface ThreadState {
  request: string;
  pasted: Set<string>;
  calls: number;
  testCalls: number;
  /** The current request asks for tests. */
  askedTests: boolean;
  /** Some request of the thread asked for placeholders, stubs or skipped tests. */
  askedPlaceholders: boolean;
  /** The current request asks the agent for work and carries no evidence of its own. */
  workRequest: boolean;
}

const newThread = (): ThreadState => ({ request: '', pasted: new Set(), calls: 0, testCalls: 0, askedTests: false, askedPlaceholders: false, workRequest: false });

/** Code in the agent's prose is often an illustration, where eliding is normal. */
const PROSE_CODE_CONFIDENCE = 0.4;

/** The sentence of `text` around offset `at`, or the match itself when the sentence is long. */
function quoteAt(text: string, at: number, match: string): string {
  for (const sp of sentenceSpans(text)) {
    if (sp.start <= at && at < sp.end) return sp.end - sp.start <= MAX_QUOTE ? text.slice(sp.start, sp.end) : capText(match, MAX_QUOTE);
  }
  return capText(match, MAX_QUOTE);
}

class Collector {
  readonly out: LazinessDetection[] = [];
  private readonly byKey = new Map<string, LazinessDetection>();
  add(message_index: number, pattern: string, confidence: number, quote: string, truncated_data = false): void {
    const q = quote.trim();
    if (!q) return;
    const key = `${message_index}\u0000${pattern}`;
    const prev = this.byKey.get(key);
    if (prev && prev.confidence >= confidence) return;
    const d: LazinessDetection = { message_index, pattern, confidence: Math.round(confidence * 100) / 100, quote: q, truncated_data };
    if (prev) this.out[this.out.indexOf(prev)] = d;
    else this.out.push(d);
    this.byKey.set(key, d);
  }
}

/** Adds the trimmed lines of `text` of at least 8 characters to `into` (no intermediate arrays). */
function addLines(into: Set<string>, text: string): void {
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end - start >= 8) {
      const l = text.slice(start, end).trim();
      if (l.length >= 8) into.add(l);
    }
    start = end + 1;
  }
}

/** Which patterns can match a text at all (one pass each), so the others are not run. */
const CODE_GATES = new LiteralGates([...CODE_RULES.map((r) => r.re), SKIP_MARKER]);
const PROSE_GATES = new LiteralGates([...PROSE_RULES.map((r) => r.re), COMPLETION_CLAIM]);
const REQUEST_GATES = new LiteralGates([TEST_REQUEST, CODE_REQUEST, REQUESTED_PLACEHOLDER]);
const RESULT_GATES = new LiteralGates([TRUNCATED_RESULT]);

/** Placeholders in code the agent wrote, unless asked for, pasted by the person or already there. */
function checkCode(c: Collector, m: SnapshotMessage, code: string, replaced: string, t: ThreadState, inProse: boolean): void {
  if (t.askedPlaceholders) return;
  const may = CODE_GATES.scan(code);
  for (let k = 0; k < CODE_RULES.length; k++) {
    if (!may[k]) continue;
    const rule = CODE_RULES[k]!;
    const hit = rule.re.exec(code);
    if (!hit) continue;
    const line = hit[0].trim();
    if (t.pasted.has(line) || (replaced && replaced.includes(line))) continue;
    c.add(m.index, rule.pattern, inProse ? Math.min(rule.confidence, PROSE_CODE_CONFIDENCE) : rule.confidence, capText(line, MAX_QUOTE));
  }
  if (may[CODE_RULES.length] && SKIP_MARKER.test(code)) {
    const hit = SKIP_MARKER.exec(code)!;
    if (!replaced.includes(hit[0])) c.add(m.index, 'skipped_tests', 0.55, hit[0]);
  }
}

function sentenceAt(text: string, at: number): string {
  for (const sp of sentenceSpans(text)) if (sp.start <= at && at < sp.end) return text.slice(sp.start, sp.end);
  return '';
}

const isQuestionAt = (text: string, at: number) => /\?\s*\)?\s*$/.test(sentenceAt(text, at));

/** A step of a plan or checklist ("Confirm: all tests pass", "Verify that it works"). */
const isInstructionAt = (text: string, at: number) => /^(?:\W*)(?:confirm|verify|check|ensure|make sure|run|expected|goal|step \d+)\b/i.test(sentenceAt(text, at));

function proseConfidence(rule: PatternRule, t: ThreadState): number {
  if (rule.pattern === 'handed_back' && CODE_REQUEST.test(t.request)) return rule.confidence + 0.15;
  if (rule.pattern === 'skipped_tests' && t.askedTests) return 0.6;
  return rule.confidence;
}

/** Words one of the prose rules needs; a message without any skips them all. */
const PROSE_HINT = /exercise|stop (?:here|there|at)|brevity|short|omit|left out|truncat|elided|skipped|not shown|so on|so forth|same (?:pattern|approach|step|thing)|similarly|\bleav|\blet\b|need to|have to|you can|up to you|left to you|can'?t|cannot|unable|not able|later|follow-?up|n'?t|did not|have not|has not|could not|will not|without|skip|cut off|clipped|incomplete|too (?:long|large)/i;

function checkProse(c: Collector, m: SnapshotMessage, t: ThreadState, canAct: boolean): void {
  const masked = maskQuoted(m.text);
  const may = PROSE_GATES.scan(masked);
  if (PROSE_HINT.test(masked)) checkProseRules(c, m, t, masked, may);
  if (may[PROSE_RULES.length]) checkCompletion(c, m, t, canAct, masked);
}

function checkProseRules(c: Collector, m: SnapshotMessage, t: ThreadState, masked: string, may: Uint8Array): void {
  for (let k = 0; k < PROSE_RULES.length; k++) {
    if (!may[k]) continue;
    const rule = PROSE_RULES[k]!;
    const hit = rule.re.exec(masked);
    if (!hit) continue;
    if (rule.pattern === 'skipped_tests' && t.askedPlaceholders) continue;
    // questions and checklists ("Do all tests pass?") are not statements
    if (rule.pattern !== 'truncated_data' && isQuestionAt(m.text, hit.index)) continue;
    c.add(m.index, rule.pattern, proseConfidence(rule, t), quoteAt(m.text, hit.index, m.text.slice(hit.index, hit.index + hit[0].length)), rule.truncatedData ?? false);
  }
}

/** Completion claimed on a request for work, checked against what ran since the request. */
function checkCompletion(c: Collector, m: SnapshotMessage, t: ThreadState, canAct: boolean, masked: string): void {
  if (!canAct || !t.workRequest) return;
  const claim = COMPLETION_CLAIM.exec(masked);
  if (!claim) return;
  if (isQuestionAt(m.text, claim.index) || isInstructionAt(m.text, claim.index)) return;
  const quote = quoteAt(m.text, claim.index, m.text.slice(claim.index, claim.index + claim[0].length));
  const aboutTests = /\btests?\b/i.test(claim[0]);
  if (t.calls === 0) c.add(m.index, 'unverified_completion', /\bshould\b/i.test(claim[0]) ? 0.5 : 0.6, quote);
  else if (t.askedTests && t.testCalls === 0 && !t.askedPlaceholders) c.add(m.index, 'skipped_tests', 0.6, quote);
  else if (aboutTests && t.testCalls === 0) c.add(m.index, 'unverified_completion', 0.55, quote);
}

function blockInput(b: ContentBlock): unknown {
  return (b as { input?: unknown }).input;
}

export function detectLaziness(s: ConversationSnapshot): LazinessDetection[] {
  const c = new Collector();
  const threads = new Map<string, ThreadState>();
  const canAct = s.toolCalls.some((x) => x.messageIndex !== null);
  const callByUse = new Map(s.toolCalls.filter((x) => x.messageIndex !== null).map((x) => [`${x.messageIndex}\u0000${x.toolUseId}`, x]));
  for (const m of s.messages) {
    let t = threads.get(m.threadId);
    if (!t) threads.set(m.threadId, (t = newThread()));
    if (m.role === 'user' && m.text.trim()) {
      // a request (the person's turn, or a sub-agent's prompt) starts a new unit of work
      t.request = m.text;
      t.calls = 0;
      t.testCalls = 0;
      const may = REQUEST_GATES.scan(m.text);
      t.askedTests = !!may[0] && TEST_REQUEST.test(m.text);
      t.workRequest = !!may[1] && CODE_REQUEST.test(m.text) && !EVIDENCE_IN_REQUEST.test(m.text);
      t.askedPlaceholders ||= !!may[2] && REQUESTED_PLACEHOLDER.test(m.text);
      addLines(t.pasted, m.text);
    } else if (m.role === 'user' && isToolResultOnly(m)) {
      for (const b of m.blocks) {
        if (b.type !== 'tool_result') continue;
        const text = typeof b.content === 'string' ? b.content : JSON.stringify(b.content ?? '');
        const hit = RESULT_GATES.scan(text)[0] ? TRUNCATED_RESULT.exec(text) : null;
        if (hit) c.add(m.index, 'truncated_input', 0.5, hit[0], true);
      }
    } else if (m.role === 'assistant') {
      for (const b of m.blocks) {
        if (b.type !== 'tool_use') continue;
        t.calls++;
        const call = callByUse.get(`${m.index}\u0000${b.tool_use_id}`);
        // what ran: the tool, its command, and for non-writing tools the head of the input
        if (call && TEST_OR_BUILD_CALL.test(`${call.toolName} ${call.command} ${call.effectClass === 'write' ? '' : call.input.slice(0, 300)}`)) t.testCalls++;
        for (const w of writtenCode(blockInput(b))) checkCode(c, m, w.text, w.replaced, t, false);
      }
      if (m.text.trim()) {
        for (const cb of codeBlocks(m.text)) checkCode(c, m, m.text.slice(cb.start, cb.end), '', t, true);
        checkProse(c, m, t, canAct);
      }
    }
  }
  return c.out;
}

/** The headline rule: any counted detection ≥ 0.5, or weaker ones from two or more families. */
export function isLazyConversation(d: readonly LazinessDetection[]): boolean {
  const counted = d.filter((x) => !x.truncated_data);
  if (counted.some((x) => x.confidence >= COUNTS_ALONE)) return true;
  return new Set(counted.map((x) => x.pattern)).size >= 2;
}

/** Detections that count toward headline figures under the rule above. */
export function countedDetections(d: readonly LazinessDetection[]): LazinessDetection[] {
  const counted = d.filter((x) => !x.truncated_data);
  const cooccur = new Set(counted.map((x) => x.pattern)).size >= 2;
  return counted.filter((x) => x.confidence >= COUNTS_ALONE || cooccur);
}
