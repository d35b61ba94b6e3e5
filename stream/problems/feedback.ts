/**
 * A problem feedback body (spec/data-api.md "Problem feedback"): its shape, the receipt, and the
 * rules it is checked against before anything is stored. Pure.
 */
import { InvalidProblemFeedbackError } from './errors.js';
import { UUID_RE } from './text.js';
import { FEEDBACK_ACTIONS, type FeedbackAction, type FixRef } from './types.js';

export interface FeedbackInput {
  action: FeedbackAction;
  reason?: string;
  attribution_id?: string;
  new_display_name?: string;
  actor?: string;
  fix_ref?: FixRef;
}

export interface FeedbackReceipt {
  feedback_id: string;
  problem_id: string;
  action: FeedbackAction;
  status: 'pending';
  duplicate: boolean;
}

/**
 * Length of a text in characters as the limits count them: Unicode code points (an emoji is one),
 * the way the request schema's `maxLength` counts, so a body the schema accepts is never refused here.
 */
export const charCount = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

/** Checks a feedback body against the rules of spec/data-api.md; returns it normalized. */
export function validateFeedback(problemId: string, input: FeedbackInput): Required<Omit<FeedbackInput, 'fix_ref'>> & { fix_ref: FixRef | null } {
  if (!UUID_RE.test(problemId)) throw new InvalidProblemFeedbackError('problem id must be a UUID');
  const errors: string[] = [];
  const str = (v: unknown, name: string, max: number) => {
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') {
      errors.push(`${name} must be a string`);
      return '';
    }
    if (charCount(v) > max) errors.push(`${name} must be at most ${max} characters`);
    return v;
  };
  if (!FEEDBACK_ACTIONS.includes(input.action)) errors.push(`action must be one of ${FEEDBACK_ACTIONS.join(', ')}`);
  const reason = str(input.reason, 'reason', 2000);
  const attribution = str(input.attribution_id, 'attribution_id', 64);
  const name = str(input.new_display_name, 'new_display_name', 255);
  const actor = str(input.actor, 'actor', 255) || 'data-api';
  if ((input.action === 'dismiss' || input.action === 'flag_attribution') && !reason.trim()) errors.push(`reason is required for ${input.action}`);
  if (input.action === 'flag_attribution') {
    if (!attribution) errors.push('attribution_id is required for flag_attribution');
    else if (!UUID_RE.test(attribution)) errors.push('attribution_id must be a UUID');
  }
  if (input.action === 'rename' && !name.trim()) errors.push('new_display_name is required for rename');
  let fixRef: FixRef | null = null;
  if (input.fix_ref !== undefined && input.fix_ref !== null) {
    if (typeof input.fix_ref !== 'object' || Array.isArray(input.fix_ref)) errors.push('fix_ref must be an object');
    else {
      fixRef = {};
      for (const k of ['fix_id', 'short_ref', 'pr_url', 'merge_commit', 'prompt_version_id'] as const) {
        const v = (input.fix_ref as Record<string, unknown>)[k];
        if (v === undefined || v === null) continue;
        if (typeof v !== 'string' || charCount(v) > 2000) errors.push(`fix_ref.${k} must be a string of at most 2000 characters`);
        else fixRef[k] = v;
      }
    }
  }
  if (errors.length) throw new InvalidProblemFeedbackError(errors.join('; '));
  return {
    action: input.action,
    reason,
    attribution_id: input.action === 'flag_attribution' ? attribution.toLowerCase() : '',
    new_display_name: input.action === 'rename' ? name : '',
    actor,
    fix_ref: input.action === 'mark_fixed' ? fixRef : null,
  };
}
