/**
 * Readable label, likely cause and action hint of a category, written from its family and the
 * template's own words: the label is the masked statement with placeholders shown as such, and
 * cause and hint are fixed sentences per family that quote the label. Nothing is inferred that
 * the error text does not say.
 */
import type { FailureFamily } from '../types.js';
import { capText } from '../text/prose.js';

const SHOWN: Record<string, string> = {
  '<PATH>': '‹path›',
  '<Q>': '‹value›',
  '<ID>': '‹id›',
  '<HEX>': '‹hash›',
  '<UUID>': '‹id›',
  '<NUM>': 'N',
  '<TS>': '‹time›',
  '<DUR>': '‹duration›',
  '<URL>': '‹url›',
  '<EMAIL>': '‹email›',
  '<LOC>': '‹line›',
  '<*>': '…',
};

const MAX_LABEL = 80;

/** A label from a masked statement: placeholders shown, first letter upper case, capped at 80 characters. */
export function labelOf(masked: string): string {
  let s = masked
    .replace(/<\*>(?:\s*<\*>)+/g, '<*>')
    .replace(/⟦([^⟧]*)⟧/g, '$1')
    .replace(/<(?:PATH|Q|ID|HEX|UUID|NUM|TS|DUR|URL|EMAIL|LOC|\*)>/g, (p) => SHOWN[p] ?? p)
    .replace(/\s+/g, ' ')
    .replace(/[\s:;,.-]+$/, '')
    .trim();
  if (s.length > MAX_LABEL) s = capText(s, MAX_LABEL).replace(/\s+\S*$/, '') + '…';
  if (!s) return 'Failed';
  // a sentence starts upper case; a program name ("cd to …", "cat: …") keeps its spelling
  return /^[a-z][a-z'-]{2,} \S+ \S/.test(s) ? s[0]!.toUpperCase() + s.slice(1) : s;
}

/** Fixed labels of statements that are not an error line. */
export const CANONICAL_LABELS = {
  tests_failed: 'Test run failed',
  tests_none: 'Test run selected no tests',
  none: 'Failed without an error message',
  declined: 'Declined by the user',
  interrupted: 'Interrupted by the user',
} as const;

export function checkLabel(name: string): string {
  return labelOf(`${name} check failed`);
}

interface Texts {
  cause: (label: string) => string;
  hint: string;
}

const q = (label: string) => `“${label}”`;

const TEXTS: Record<FailureFamily, Texts> = {
  user_rejected: {
    cause: () => 'The user declined the call at the permission prompt.',
    hint: 'Ask what the user wants changed before trying again; do not repeat the same call.',
  },
  permission_denied: {
    cause: (l) => `A policy or permission setting refused the call: ${q(l)}.`,
    hint: 'Follow the policy the message states or use the alternative it names; ask for permission if the call is needed.',
  },
  not_found: {
    cause: (l) => `The call referred to something that does not exist: ${q(l)}.`,
    hint: 'Look the name, path or id up first (list, search, read) and retry with one that exists.',
  },
  invalid_input: {
    cause: (l) => `The tool rejected the call's arguments: ${q(l)}.`,
    hint: "Correct the arguments to the tool's expected form (its usage or schema) before retrying.",
  },
  precondition_failed: {
    cause: (l) => `The call was well-formed but the current state did not allow it: ${q(l)}.`,
    hint: 'Do first what the message requires (read, remove, initialise, switch environment), then retry.',
  },
  build_or_type_error: {
    cause: (l) => `A build, type check, lint or format step reported errors: ${q(l)}.`,
    hint: 'Fix the code or configuration the reported errors point to and run the same check again.',
  },
  test_failure: {
    cause: (l) => `The test run reported failures: ${q(l)}.`,
    hint: 'Read the first failing test and its assertion, fix the cause, then rerun the failing tests.',
  },
  command_failed: {
    cause: (l) => `The command exited with an error: ${q(l)}.`,
    hint: 'Check the command and its inputs; rerun it with its error output visible if the message is missing.',
  },
  business_rule: {
    cause: (l) => `The service refused the request under its rules: ${q(l)}.`,
    hint: 'Check the request against the rule the message states (amounts, availability, eligibility) and change it, or tell the user why it cannot be done.',
  },
  timeout: {
    cause: (l) => `The call ran out of time: ${q(l)}.`,
    hint: 'Narrow the work, run it in the background, or raise the time limit.',
  },
  resource_exhausted: {
    cause: (l) => `A size or resource limit was exceeded: ${q(l)}.`,
    hint: 'Work in smaller pieces (ranges, pages, filters) or free the resource first.',
  },
  rate_limited: {
    cause: (l) => `The service limited the request rate: ${q(l)}.`,
    hint: 'Back off and retry later; batch or space out the requests.',
  },
  auth_error: {
    cause: (l) => `Credentials or identity were rejected: ${q(l)}.`,
    hint: 'Check the credentials, keys or login the call relies on.',
  },
  network: {
    cause: (l) => `The connection to a remote service failed: ${q(l)}.`,
    hint: 'Check the address and connectivity; retry when the service is reachable.',
  },
  other: {
    cause: (l) => `The tool failed: ${q(l)}.`,
    hint: 'Read the error text and adjust the call.',
  },
};

export function likelyCause(family: FailureFamily, label: string, interrupted = false): string {
  if (family === 'user_rejected' && interrupted) return 'The user stopped the call while it was running.';
  return TEXTS[family].cause(label);
}

export function actionHint(family: FailureFamily): string {
  return TEXTS[family].hint;
}
