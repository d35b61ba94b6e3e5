/**
 * Merges (docs/analyses.md "Problems"): two live trusted leaves whose cause signals come from the
 * same conversations (Jaccard at least `mergeJaccard`, at least `minSupport` shared) are one cause.
 * The larger absorbs the smaller's criteria, counter-examples and scope; the merged-away id (and
 * the ids merged into it before) become aliases of the survivor, and its evidence moves over.
 */
import type { AttributionState } from './attribute.js';
import type { DiscoveryCounts } from './discover.js';
import type { RunState } from './run-state.js';
import { CAUSE_KINDS, type ProblemState } from './types.js';

/** Merges the live leaves explaining the same conversations; counts them in `discovery.merged`. */
export function mergeProblems(run: RunState, st: AttributionState, previous: readonly ProblemState[], discovery: DiscoveryCounts): void {
  const { cfg, nowIso, problems, aliases, event, bump } = run;
  const { explained, sigById } = st;
  const causeConvs = new Map<string, Set<string>>();
  for (const [sid, e] of explained) {
    const sig = sigById(sid);
    if (!CAUSE_KINDS.has(sig.kind)) continue;
    let set = causeConvs.get(e.problem);
    if (!set) causeConvs.set(e.problem, (set = new Set()));
    set.add(sig.conversation_id);
  }
  const convsOf = (id: string) => new Set(causeConvs.get(id) ?? []);
  const live = [...problems.values()].filter((p) => p.status === 'active' && p.rubric.tier === 'leaf' && !p.rubric.provisional);
  const convSets = new Map(live.map((p) => [p.problem_id, convsOf(p.problem_id)]));
  const mergedAway = new Set<string>();
  const bySize = [...live].sort((a, b) => convSets.get(b.problem_id)!.size - convSets.get(a.problem_id)!.size || (a.created_at < b.created_at ? -1 : 1));
  for (let i = 0; i < bySize.length; i++) {
    const a = bySize[i]!;
    if (mergedAway.has(a.problem_id)) continue;
    for (let j = i + 1; j < bySize.length; j++) {
      const b = bySize[j]!;
      if (mergedAway.has(b.problem_id)) continue;
      const A = convSets.get(a.problem_id)!;
      const B = convSets.get(b.problem_id)!;
      let inter = 0;
      for (const c of B) if (A.has(c)) inter++;
      const union = A.size + B.size - inter;
      if (inter < cfg.minSupport || union === 0 || inter / union < cfg.mergeJaccard) continue;
      // b merges into a
      mergedAway.add(b.problem_id);
      a.rubric.match_criteria.any_of.push(...b.rubric.match_criteria.any_of);
      a.rubric.counter_examples.push(...b.rubric.counter_examples);
      a.rubric.scope_hints = [...new Set([...a.rubric.scope_hints, ...b.rubric.scope_hints])];
      b.status = 'merged';
      b.merged_into = a.problem_id;
      b.updated_at = nowIso;
      aliases.push({ alias_id: b.problem_id, problem_id: a.problem_id });
      for (const al of previous) if (al.merged_into === b.problem_id) aliases.push({ alias_id: al.problem_id, problem_id: a.problem_id });
      event(a, 'merged', `absorbed "${b.rubric.display_name}" (${inter} of ${union} conversations shared)`, b.problem_id);
      event(b, 'merged', `merged into "${a.rubric.display_name}"`, a.problem_id);
      bump(a, `merged with ${b.problem_id}`, true);
      for (const [sid, e] of explained) if (e.problem === b.problem_id) explained.set(sid, { ...e, problem: a.problem_id });
      discovery.merged += 1;
      if (a.lifecycle === 'fixed_monitoring' || b.lifecycle === 'open' || b.lifecycle === 'reopened') {
        // the survivor inherits the more urgent state of the two
        if (b.lifecycle === 'open' || b.lifecycle === 'reopened') {
          if (a.lifecycle === 'resolved' || a.lifecycle === 'fixed_monitoring') {
            const from = a.lifecycle;
            a.lifecycle = 'reopened';
            event(a, 'lifecycle', `${from} -> reopened: merged with open problem ${b.problem_id}`);
          }
        }
      }
    }
  }
}
