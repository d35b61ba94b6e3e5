/**
 * Lifecycle of leaf problems after feedback (docs/analyses.md "Problems"): evidence first attributed
 * after a fix reopens a fixed or resolved problem (once per mark_fixed); a fixed problem with no
 * recurrence for the clean period is resolved, which confirms its audited evidence.
 */
import type { RunState } from './run-state.js';
import type { Attribution } from './types.js';

/** Reopens or resolves the leaves by their rows of this run. */
export function advanceLifecycles(run: RunState, rowsOf: ReadonlyMap<string, Attribution[]>): void {
  const { cfg, nowIso, problems, event, confirm } = run;
  for (const p of problems.values()) {
    if (p.status === 'merged' || p.rubric.tier !== 'leaf') continue;
    const list = rowsOf.get(p.problem_id) ?? [];
    if ((p.lifecycle === 'fixed_monitoring' || p.lifecycle === 'resolved') && p.reopen_armed && p.fixed_at) {
      const fixedAt = p.fixed_at;
      const recurred = list.filter((r) => r.first_assigned_at > fixedAt);
      if (recurred.length > 0) {
        const from = p.lifecycle;
        p.lifecycle = 'reopened';
        p.reopen_armed = false;
        p.updated_at = nowIso;
        const convs = new Set(recurred.map((r) => r.conversation_id));
        const ref = p.fix_ref ? ` after fix ${String((p.fix_ref as Record<string, unknown>).short_ref ?? (p.fix_ref as Record<string, unknown>).fix_id ?? '')}`.trimEnd() : '';
        event(p, 'lifecycle', `${from} -> reopened: the cause recurred${ref} in ${convs.size} conversation(s) (${[...convs].slice(0, 3).join(', ')})`);
        continue;
      }
    }
    if (p.lifecycle === 'fixed_monitoring' && p.fixed_at && run.now - Date.parse(p.fixed_at) >= cfg.cleanPeriodMs) {
      p.lifecycle = 'resolved';
      p.updated_at = nowIso;
      event(p, 'lifecycle', `fixed_monitoring -> resolved: no recurrence for ${Math.round(cfg.cleanPeriodMs / 86_400_000)} days since the fix`);
      confirm(p, `confirmed: the fix held, no recurrence for ${Math.round(cfg.cleanPeriodMs / 86_400_000)} days after it`);
    }
  }
}
