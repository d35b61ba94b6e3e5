/**
 * The signature of one failed call: its family and the masked tokens of its statement, the input
 * of template matching. Declines and interruptions, test sessions, failed checks and outputs
 * without a statement get fixed statements, so their categories do not depend on the wording a
 * harness or runner happens to use.
 */
import type { FailureFamily, SnapshotToolCall } from '../types.js';
import { familyOf, isShellTool, rejectionKind } from './families.js';
import { CANONICAL_LABELS, checkLabel, labelOf } from './labels.js';
import { mask, tokenize } from './masking.js';
import { extractStatement } from './statement.js';
import { withFields } from '../../../core/own.js';

/** Statements longer than this many tokens are compared on their first tokens only. */
export const MAX_TOKENS = 24;

export interface Signature {
  family: FailureFamily;
  /** Tokens as written (the template shows them). */
  display: string[];
  /** Lower-cased tokens (what compares). */
  keys: string[];
  /** Label a new category of this statement gets. */
  label: string;
  interrupted: boolean;
}

/** A call that did not do its work: it failed, or the user declined it. */
export const isFailedCall = (c: SnapshotToolCall): boolean => c.success === false || c.decision === 'reject';

function fromText(family: FailureFamily, label: string, masked: string, interrupted = false): Signature {
  const display = tokenize(masked, MAX_TOKENS);
  return { family, display, keys: display.map((t) => (t.startsWith('<') ? t : t.toLowerCase())), label, interrupted };
}

export function signatureOf(call: SnapshotToolCall): Signature {
  const st = extractStatement(call.resultText, isShellTool(call.toolName));
  const rejected = rejectionKind(call, st.body);
  if (rejected) return fromText('user_rejected', CANONICAL_LABELS[rejected], CANONICAL_LABELS[rejected], rejected === 'interrupted');
  const family = familyOf(call, st);
  switch (st.kind) {
    case 'tests_failed':
    case 'tests_none':
    case 'none':
      return fromText(family, CANONICAL_LABELS[st.kind], CANONICAL_LABELS[st.kind]);
    case 'check_failed': {
      const masked = `${mask(st.text)} check failed`;
      return fromText(family, checkLabel(mask(st.text)), masked);
    }
    default: {
      const masked = mask(st.text);
      const sig = fromText(family, labelOf(masked), masked);
      // a statement of placeholders only names no cause: it is output without a message
      if (sig.keys.every((k) => k.startsWith('<'))) {
        const none = familyOf(call, withFields(st, { kind: 'none', text: '' }));
        return fromText(none, CANONICAL_LABELS.none, CANONICAL_LABELS.none);
      }
      return sig;
    }
  }
}
