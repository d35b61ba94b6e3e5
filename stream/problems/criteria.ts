/**
 * Rubric criteria of the problems engine: the cause a signal belongs to, the criterion a discovered
 * problem matches by, and whether a criterion matches a signal (a field a criterion leaves out
 * matches anything).
 */
import type { Criterion, Signal } from './types.js';

/** The cause a signal belongs to: unexplained signals of one key are grouped into one problem. */
export function causeKeyOf(s: Signal): string {
  if (s.kind === 'tool_failure') return `tool_failure|${s.tool_name ?? ''}|${s.family}`;
  if (s.kind === 'laziness') return 'laziness';
  if (s.kind === 'step_score') return `step_score|${s.cluster_id ?? ''}|${s.type}`;
  return `hallucination|${s.type}`;
}

/** The criterion of a problem discovered from signals like `s`. */
export function criterionOf(s: Signal): Criterion {
  if (s.kind === 'tool_failure') return { kind: 'tool_failure', tool_name: s.tool_name ?? '', family: s.family };
  if (s.kind === 'laziness') return { kind: 'laziness' };
  if (s.kind === 'step_score') return { kind: 'step_score', cluster_id: s.cluster_id ?? '', type: s.type };
  return { kind: 'hallucination', type: s.type };
}

/** Whether criterion `c` matches signal `s`. */
export function matches(c: Criterion, s: Signal): boolean {
  return c.kind === s.kind && (c.family === undefined || c.family === s.family) && (c.tool_name === undefined || c.tool_name === s.tool_name) && (c.type === undefined || c.type === s.type) && (c.cluster_id === undefined || c.cluster_id === s.cluster_id);
}

/** How many fields a criterion fixes: the more specific rule is tried first. */
export const specificity = (c: Criterion) => (c.family !== undefined ? 1 : 0) + (c.tool_name !== undefined ? 1 : 0) + (c.type !== undefined ? 1 : 0) + (c.cluster_id !== undefined ? 1 : 0);
