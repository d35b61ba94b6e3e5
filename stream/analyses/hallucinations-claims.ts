/**
 * Claim extraction for hallucination detection: sentences of agent text that assert a fact the
 * recorded tool calls can speak to. Proposals, questions, conditionals and plans are not claims.
 * Phrasings are generic English; verbs map to families of tool-name stems, so "cancelled" is
 * checked against calls named like cancel/delete/remove whatever the domain.
 */
import { LiteralGates } from './text/gate.js';
import { capText, maskQuoted, sentenceSpans } from './text/prose.js';

export type ClaimType = 'action_done' | 'file_written' | 'tests_pass' | 'build_succeeded' | 'command_succeeded' | 'sent' | 'value_is' | 'failure_reported' | 'nothing_found' | 'statement';

export interface Claim {
  type: ClaimType;
  /** Verbatim sentence of the message (trimmed to 240 characters). */
  text: string;
  start: number;
  /** For actions: the action family (`book`, `cancel`, `update`, `add`, `remove`, `create`, `refund`, `send`, `transfer`, `commit`). */
  action?: string;
}

/** Past-tense action verbs and the action family each belongs to. */
const ACTION_VERBS: Record<string, string> = {
  booked: 'book', reserved: 'book', rebooked: 'book', purchased: 'book', ordered: 'book',
  cancelled: 'cancel', canceled: 'cancel', voided: 'cancel',
  updated: 'update', changed: 'update', modified: 'update', upgraded: 'update', downgraded: 'update', adjusted: 'update', rescheduled: 'update', scheduled: 'update', moved: 'update', applied: 'update', renamed: 'update', set: 'update',
  added: 'add', inserted: 'add', appended: 'add', attached: 'add', included: 'add',
  removed: 'remove', deleted: 'remove', dropped: 'remove',
  created: 'create', generated: 'create', saved: 'create', written: 'create', wrote: 'create', made: 'create',
  processed: 'refund', refunded: 'refund', issued: 'refund', credited: 'refund', charged: 'refund', paid: 'refund', covered: 'refund',
  sent: 'send', emailed: 'send', mailed: 'send', notified: 'send', messaged: 'send', posted: 'send', forwarded: 'send',
  transferred: 'transfer', escalated: 'transfer',
  committed: 'commit', pushed: 'commit', merged: 'commit', deployed: 'commit', installed: 'commit', published: 'commit',
};

const VERB_ALT = Object.keys(ACTION_VERBS).join('|');

/** A past-tense action verb of the list; whether it is asserted is read from the words before it. */
const ACTION_VERB = new RegExp(String.raw`\b(${VERB_ALT})\b`, 'gi');
/** What must precede the verb: "has been", "was successfully", "is now", "I have", "we", "successfully". */
const ACTION_LEAD = /(?:\b(?:has|have|had) (?:now |just |also |already )?(?:been )?(?:successfully |fully )?|\b(?:was|were|is|are|got) (?:now |just |also |already )?(?:successfully |fully )?|\b(?:i|we)(?:'ve| have)? (?:now |just |also |already )?(?:successfully )?|\bsuccessfully )$/i;
/** A refund or charge stated as committed in the future tense. */
const ACTION_FUTURE = /\b(?:will be|is being) (processed|refunded|credited|charged|returned)\b/gi;

/** Asserted action verbs of a text with their offsets, and the verb found. */
function actionHits(text: string): Array<{ index: number; verb: string }> {
  const out: Array<{ index: number; verb: string }> = [];
  ACTION_VERB.lastIndex = 0;
  for (let m = ACTION_VERB.exec(text); m; m = ACTION_VERB.exec(text)) {
    if (ACTION_LEAD.test(text.slice(Math.max(0, m.index - 40), m.index))) out.push({ index: m.index, verb: m[1]!.toLowerCase() });
  }
  ACTION_FUTURE.lastIndex = 0;
  for (let m = ACTION_FUTURE.exec(text); m; m = ACTION_FUTURE.exec(text)) out.push({ index: m.index, verb: m[1]!.toLowerCase() });
  return out;
}

const FILE_TOKEN = String.raw`(?:\x60?[\w./-]*[\w-]+\.(?:[a-z]{1,6})\x60?|\x60[\w./-]+\x60)`;
const FILE_WRITTEN = new RegExp(String.raw`\b(?:(?:i|we)(?:'ve| have)? (?:now |successfully |also )?(?:created|updated|written|wrote|modified|edited|added|saved)\b[^.!?\n]{0,40}${FILE_TOKEN}|${FILE_TOKEN}[^.!?\n]{0,30}\b(?:has|have) been (?:successfully )?(?:created|updated|written|modified|edited|saved)\b)`, 'i');
/**
 * FILE_WRITTEN without its second branch ("<file> has been created"): the same matches on a text
 * without "been", where that branch cannot match, at a fraction of the cost (the branch tries a
 * file token at every word).
 */
const FILE_WRITTEN_BY_SPEAKER = new RegExp(String.raw`\b(?:(?:i|we)(?:'ve| have)? (?:now |successfully |also )?(?:created|updated|written|wrote|modified|edited|added|saved)\b[^.!?\n]{0,40}${FILE_TOKEN})`, 'gi');
const TESTS_PASS = /\b(?:all (?:the |of the )?(?:\w+ )?tests (?:now |still )?(?:pass|passed|are passing|are green)|tests (?:are |now )?(?:passing|pass|passed)\b|\d+ tests? passed|test suite (?:is )?(?:green|passes|passed))\b/i;
const BUILD_OK = /\b(?:build (?:succeeded|succeeds|passes|passed|is successful|completed successfully|is green)|compiles? (?:cleanly|successfully|without errors)|type ?check(?:ing)? (?:passes|passed))\b/i;
const COMMAND_OK = /\b(?:ran|executed|completed|finished|installed|ended) successfully\b|\bcommand (?:succeeded|completed|worked)\b|\bexited with (?:code )?0\b/i;
const FAILURE = /\b(?:not available|unavailable|not enough|insufficient|not found|doesn'?t exist|does not exist|failed|an error|the error|errors? (?:occurred|says|indicates)|(?:was|were) (?:declined|rejected|denied)|not allowed|not permitted|cannot be|could not be|couldn'?t be|(?:is|are) (?:still )?(?:encountering|having) (?:an? )?(?:issue|problem)|there (?:was|is) (?:still )?an? (?:issue|problem))\b/i;
const NOTHING = /\bthere (?:are|were) no\b|\bno (?:\w+ ){0,3}(?:were |are )?(?:found|available|match(?:ing|ed)?|results?)\b|\bcould(?:n'?t| not) find any\b/i;
const MONEY = /(?:\$|€|£)\s?\d[\d,]*(?:\.\d+)?|\b\d[\d,]*(?:\.\d+)? (?:dollars|usd|eur|euros)\b/i;
const VALUE_CUE = /\b(?:is|are|was|were|of|:|totals?|costs?|comes to|amounts? to)\b|\*\*[^*]+:\*\*/i;

/** Sentences that do not assert: questions, offers, conditions, plans, instructions. */
const NOT_ASSERTIVE = /\?\s*$|^\W*(?:if|once|when|after|before|unless|whether|to (?:proceed|confirm|complete)|please|let me|i'?ll|i will|i can|i could|we can|we could|would you|do you|shall|should i|could you|can you|you can|you could|you may|you might|you'?ll need|make sure|try|confirm|verify|check)\b|\b(?:would you like|do you want|shall i|please confirm|let me know if|once (?:you|i|we)|if you)\b/i;
/** Claims the other way round ("has not been cancelled") are not checked. */
const NEGATED = /\b(?:not|n't|never|no longer) (?:yet )?(?:been )?(?:successfully )?(?:\w+ed)\b|\bunable to\b|\bfailed to\b|\bcould not\b|\bcouldn'?t\b/i;

const MAX_TEXT = 240;

/** Statements worth checking without a claim verb: about the person's present state, or stating an id. */
const STATEMENT_HINT = /\b(?:your|you are|you're|you have|currently|at the moment|right now)\b|\b(?:id|number|code|confirmation|reference)\b[^.\n]{0,20}?(?:\bis\b|:)/i;

/** Cheap test for sentences that could hold any claim at all. */
const ANY_HINT = /\d|[$€£]|ed\b|\bnot\b|n't\b|\bno\b|unable|success|pass|green|build|compil|error|issue|problem|fail|sent|wrote|made|\bset\b|paid|your|you are|currently|\bid\b|number|code|confirmation/i;

const global = (re: RegExp) => new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g');
/** Each detector with a cheap keyword test that must pass before the full pattern runs. */
const DETECTORS: Array<[Exclude<keyof Marks, 'action'>, RegExp, RegExp]> = [
  ['failure', /not|unavail|insufficient|fail|error|declin|reject|denied|cannot|could|issue|problem/i, global(FAILURE)],
  ['nothing', /\bno\b|find any/i, global(NOTHING)],
  ['tests', /test/i, global(TESTS_PASS)],
  ['build', /build|compil|type ?check/i, global(BUILD_OK)],
  // a file-like token first ("config.yaml"): the full pattern is costly
  ['file', /[\w-]\.[a-z]{1,6}\b/, global(FILE_WRITTEN)],
  ['command', /successfully|command|exited/i, global(COMMAND_OK)],
  ['money', /[$€£]|dollar|usd|eur/i, global(MONEY)],
];

const BEEN = /been/i;
/** Most detectors need words a message does not contain: one pass finds which can match at all. */
const DETECTOR_GATES = new LiteralGates(DETECTORS.map(([, , re]) => re));

const NO_MARKS: Readonly<Marks> = Object.freeze({});

interface Marks {
  failure?: true;
  nothing?: true;
  tests?: true;
  build?: true;
  file?: true;
  command?: true;
  action?: string;
  money?: true;
}

/**
 * The claims of one agent message, at most one per sentence (the most specific type wins). Each
 * pattern runs once over the whole message; its matches are assigned to sentences.
 */
export function extractClaims(text: string): Claim[] {
  const masked = maskQuoted(text);
  if (!ANY_HINT.test(masked)) return [];
  const spans = sentenceSpans(masked);
  // one record per sentence, made when a pattern first marks it (most sentences stay unmarked)
  const marks: Array<Marks | undefined> = new Array<Marks | undefined>(spans.length);
  const sentenceOf = (at: number) => {
    let lo = 0;
    let hi = spans.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (spans[mid]!.end <= at) lo = mid + 1;
      else if (spans[mid]!.start > at) hi = mid - 1;
      else return mid;
    }
    return -1;
  };
  const may = DETECTOR_GATES.scan(masked);
  for (let d = 0; d < DETECTORS.length; d++) {
    const [name, hint] = DETECTORS[d]!;
    let re = DETECTORS[d]![2];
    if (!may[d] || !hint.test(masked)) continue;
    if (name === 'file' && !BEEN.test(masked)) re = FILE_WRITTEN_BY_SPEAKER;
    re.lastIndex = 0;
    for (let hit = re.exec(masked); hit; hit = re.exec(masked)) {
      const k = sentenceOf(hit.index);
      if (k >= 0) (marks[k] ??= {})[name] = true as never;
      if (hit[0].length === 0) re.lastIndex++;
    }
  }
  for (const a of actionHits(masked)) {
    const k = sentenceOf(a.index);
    if (k >= 0) (marks[k] ??= {}).action ??= a.verb;
  }
  // in a message reporting an action, any statement may name a value of the action's result
  let reportsAction = false;
  for (let k = 0; k < marks.length && !reportsAction; k++) reportsAction = !!(marks[k]?.action || marks[k]?.file);
  const out: Claim[] = [];
  spans.forEach((sp, k) => {
    const s = masked.slice(sp.start, sp.end);
    if (s.length < 8) return;
    const mk = marks[k] ?? NO_MARKS;
    const claim = (type: ClaimType, action?: string): Claim => ({ type, text: capText(text.slice(sp.start, sp.end), MAX_TEXT).trim(), start: sp.start, ...(action ? { action } : {}) });
    // errors and empty results are reported facts even when phrased negatively
    if (mk.failure && !/\?\s*$/.test(s) && !/^\W*(?:if|once|when|unless)\b/i.test(s)) return void out.push(claim('failure_reported'));
    const hasClaim = mk.nothing || mk.tests || mk.build || mk.file || mk.command || mk.action || mk.money;
    if (!hasClaim && !reportsAction && !STATEMENT_HINT.test(s)) return;
    const assertive = !NOT_ASSERTIVE.test(s);
    if (mk.nothing && assertive) return void out.push(claim('nothing_found'));
    if (!assertive && !/\bwill be (?:processed|refunded|credited|charged|returned)\b/i.test(s)) return;
    if (NEGATED.test(s) && !mk.money) return;
    if (mk.tests) out.push(claim('tests_pass'));
    else if (mk.build) out.push(claim('build_succeeded'));
    else if (mk.file) out.push(claim('file_written'));
    else if (mk.command) out.push(claim('command_succeeded'));
    else if (mk.action) {
      const family = ACTION_VERBS[mk.action] ?? 'refund';
      out.push(claim(family === 'send' ? 'sent' : 'action_done', family));
    } else if (mk.money || (VALUE_CUE.test(s) && /\b[A-Z0-9]{5,}\b/.test(s) && /\d/.test(s))) out.push(claim('value_is'));
    else if (/\b(?:is|are|was|were|has|have)\b/i.test(s) && !/\b(?:will|would|can|could|may|might|unless)\b/i.test(s)) {
      // a plain statement: a claim only if a recorded value speaks to it (checked later)
      out.push(claim('statement'));
    }
  });
  return out;
}
