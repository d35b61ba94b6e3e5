/**
 * Feedback applied at the start of a pass, oldest first (docs/analyses.md "Problems", Feedback):
 * mark_fixed starts fix monitoring, dismiss takes a problem out, rename writes a new rubric version,
 * flag_attribution adds a counter-example. Feedback on a merged-away id applies to its survivor.
 */
import type { EngineInput } from './engine-contract.js';
import type { RunState } from './run-state.js';
import type { FeedbackOutcome, PendingFeedback } from './types.js';

/** Applies `feedback` to the pass's problems; one outcome per feedback, in the order applied. */
export function applyFeedback(run: RunState, feedback: readonly PendingFeedback[], previousAttributions: EngineInput['previousAttributions']): FeedbackOutcome[] {
  const { nowIso, event, bump, confirm, survivor, groundTruth } = run;
  const feedbackOut: FeedbackOutcome[] = [];
  for (const f of [...feedback].sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.feedback_id < b.feedback_id ? -1 : 1))) {
    const p = survivor(f.problem_id);
    if (!p) {
      feedbackOut.push({ feedback_id: f.feedback_id, applied: false, outcome: 'problem_missing' });
      continue;
    }
    const who = f.actor || 'data-api';
    if (f.feedback_kind === 'mark_fixed') {
      const ref = f.fix_ref ? ` (fix ${[f.fix_ref.short_ref, f.fix_ref.pr_url, f.fix_ref.merge_commit, f.fix_ref.prompt_version_id, f.fix_ref.fix_id].filter(Boolean).join(', ')})` : '';
      const from = p.lifecycle;
      p.lifecycle = 'fixed_monitoring';
      p.fixed_at = nowIso;
      p.fix_ref = f.fix_ref ? { ...f.fix_ref } : null;
      p.reopen_armed = true;
      p.updated_at = nowIso;
      event(p, 'lifecycle', `${from} -> fixed_monitoring: marked fixed by ${who}${ref}${f.reason ? `: ${f.reason}` : ''}`);
      confirm(p, `confirmed: the problem was marked fixed by ${who}${ref} and the judge found this evidence matching`);
    } else if (f.feedback_kind === 'dismiss') {
      p.status = 'dismissed';
      p.dismissed_reason = f.reason;
      p.updated_at = nowIso;
      event(p, 'dismissed', `dismissed by ${who}: ${f.reason}`);
    } else if (f.feedback_kind === 'rename') {
      const old = p.rubric.display_name;
      p.rubric.display_name = f.new_display_name;
      p.rubric.renamed = true;
      confirm(p, `confirmed: ${who} renamed the problem after reviewing it and the judge found this evidence matching`);
      event(p, 'renamed', `renamed by ${who} from "${old}" to "${f.new_display_name}"`);
      bump(p, `rename by ${who}`, false);
    } else if (f.feedback_kind === 'flag_attribution') {
      const a = previousAttributions.get(f.attribution_id);
      if (!a) {
        feedbackOut.push({ feedback_id: f.feedback_id, applied: false, outcome: 'attribution_missing' });
        continue;
      }
      p.rubric.counter_examples.push({ attribution_id: f.attribution_id, conversation_id: a.conversation_id, signal_family: a.signal_family, signal_type: a.signal_type, reason: f.reason });
      groundTruth.push({ problem_id: p.problem_id, attribution_id: f.attribution_id, conversation_id: a.conversation_id, segment_id: a.segment_id, reason: f.reason });
      event(p, 'attribution_flagged', `attribution ${f.attribution_id} flagged by ${who}: ${f.reason}`);
      bump(p, `counter-example added: ${f.reason}`, true);
    }
    feedbackOut.push({ feedback_id: f.feedback_id, applied: true, outcome: f.feedback_kind });
  }
  return feedbackOut;
}
