/**
 * Claim extraction for hallucination detection: sentences of agent text that assert a fact the
 * recorded tool calls can speak to. Proposals, questions, conditionals and plans are not claims.
 * Phrasings are generic English; verbs map to families of tool-name stems, so "cancelled" is
 * checked against calls named like cancel/delete/remove whatever the domain.
 */
import { maskQuoted, sentenceSpans } from './text/prose.js';

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

/** "has been cancelled", "was successfully booked", "is now updated", "I have sent", "I've added". */
const ACTION = new RegExp(
  String.raw`\b(?:has|have|had) (?:now |just |also |already )?(?:been )?(?:successfully |fully )?(${VERB_ALT})\b|\b(?:was|were|is|are|got) (?:now |just |also |already )?(?:successfully |fully )?(${VERB_ALT})\b|\b(?:i|we)(?:'ve| have)? (?:now |just |also |already )?(?:successfully )?(${VERB_ALT})\b|\bsuccessfully (${VERB_ALT})\b|\b(?:will be|is being) (processed|refunded|credited|charged|returned)\b`,
  'i',
);

const FILE_TOKEN = String.raw`(?:\x60?[\w./-]*[\w-]+\.(?:[a-z]{1,6})\x60?|\x60[\w./-]+\x60)`;
const FILE_WRITTEN = new RegExp(String.raw`\b(?:(?:i|we)(?:'ve| have)? (?:now |successfully |also )?(?:created|updated|written|wrote|modified|edited|added|saved)\b[^.!?\n]{0,40}${FILE_TOKEN}|${FILE_TOKEN}[^.!?\n]{0,30}\b(?:has|have) been (?:successfully )?(?:created|updated|written|modified|edited|saved)\b)`, 'i');
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

/** The claims of one agent message, at most one per sentence (the most specific type wins). */
export function extractClaims(text: string): Claim[] {
  const masked = maskQuoted(text);
  const out: Claim[] = [];
  for (const sp of sentenceSpans(masked)) {
    const s = masked.slice(sp.start, sp.end);
    if (s.length < 8) continue;
    const original = text.slice(sp.start, sp.end);
    const claim = (type: ClaimType, action?: string): Claim => ({ type, text: original.slice(0, MAX_TEXT).trim(), start: sp.start, ...(action ? { action } : {}) });
    // errors and empty results are reported facts even when phrased negatively
    if (FAILURE.test(s) && !/\?\s*$/.test(s) && !/^\W*(?:if|once|when|unless)\b/i.test(s)) {
      out.push(claim('failure_reported'));
      continue;
    }
    if (NOTHING.test(s) && !NOT_ASSERTIVE.test(s)) {
      out.push(claim('nothing_found'));
      continue;
    }
    if (NOT_ASSERTIVE.test(s) && !/\bwill be (?:processed|refunded|credited|charged|returned)\b/i.test(s)) continue;
    if (NEGATED.test(s) && !MONEY.test(s)) continue;
    if (TESTS_PASS.test(s)) out.push(claim('tests_pass'));
    else if (BUILD_OK.test(s)) out.push(claim('build_succeeded'));
    else if (FILE_WRITTEN.test(s)) out.push(claim('file_written'));
    else if (COMMAND_OK.test(s)) out.push(claim('command_succeeded'));
    else {
      const a = ACTION.exec(s);
      if (a) {
        const verb = (a[1] ?? a[2] ?? a[3] ?? a[4] ?? a[5] ?? '').toLowerCase();
        const family = ACTION_VERBS[verb] ?? 'refund';
        out.push(claim(family === 'send' ? 'sent' : 'action_done', family));
      } else if (MONEY.test(s) || (VALUE_CUE.test(s) && /\b[A-Z0-9]{5,}\b/.test(s) && /\d/.test(s))) {
        out.push(claim('value_is'));
      } else if (/\b(?:is|are|was|were|has|have)\b/i.test(s) && !/\b(?:will|would|can|could|may|might|unless)\b/i.test(s)) {
        // a plain statement: a claim only if a recorded value speaks to it (checked later)
        out.push(claim('statement'));
      }
    }
  }
  return out;
}
