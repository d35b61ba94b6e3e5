/**
 * Hierarchy (docs/analyses.md "Problems"): trusted leaves failing the same way (one failure family)
 * on different tools are grouped under a macro problem, created the first time two such leaves
 * exist; each leaf records its parent.
 */
import { emptyMetrics } from './metrics.js';
import { clone, type RunState } from './run-state.js';
import { uuidFrom } from './text.js';
import type { ProblemState, Rubric } from './types.js';

/** Creates the macro problems and sets the leaves' parents. */
export function groupMacroProblems(run: RunState): void {
  const { tenant, nowIso, problems, definitions, event, bump } = run;
  const macroGroups = new Map<string, ProblemState[]>();
  for (const p of problems.values()) {
    if (p.status !== 'active' || p.rubric.tier !== 'leaf' || p.rubric.provisional) continue;
    const c = p.rubric.match_criteria.any_of[0];
    if (!c || c.kind !== 'tool_failure' || !c.family) continue;
    const k = `macro|tool_failure|${c.family}`;
    let g = macroGroups.get(k);
    if (!g) macroGroups.set(k, (g = []));
    g.push(p);
  }
  for (const [k, leaves] of macroGroups) {
    if (leaves.length < 2) continue;
    const id = uuidFrom('problem', tenant, k);
    const family = k.split('|')[2]!;
    let m = problems.get(id);
    if (!m) {
      const rubric: Rubric = {
        version: 1,
        causal_content_version: 1,
        display_name: `Tool calls failing with ${family.replace(/_/g, ' ')}`,
        cause_statement: `Several tools fail the same way (${family.replace(/_/g, ' ')}).`,
        display_description: `Groups the problems whose calls fail with ${family.replace(/_/g, ' ')} on different tools.`,
        change_reason: `grouped ${leaves.length} leaf problems sharing the failure family ${family}`,
        match_criteria: { any_of: [{ kind: 'tool_failure', family }] },
        counter_examples: [],
        scope_hints: [`failure_family=${family}`],
        tier: 'macro',
        provisional: false,
        affected_surface: 'tools',
        parent_problem_id: null,
        updated_at: nowIso,
        renamed: false,
      };
      m = { ...clone(leaves[0]!), problem_id: id, cause_key: k, status: 'active', merged_into: null, lifecycle: 'open', rubric, created_at: nowIso, updated_at: nowIso, fixed_at: null, fix_ref: null, reopen_armed: false, dismissed_reason: null, verification_status: 'unverified', verified_causal_version: null, verified_total: 0, samples: [], metrics: emptyMetrics(), dossier: null, support_at_verification: 0 };
      problems.set(id, m);
      definitions.push({ problem_id: id, rubric: clone(rubric) });
      event(m, 'created', rubric.change_reason);
    }
    for (const leaf of leaves) {
      if (leaf.rubric.parent_problem_id === id) continue;
      leaf.rubric.parent_problem_id = id;
      event(leaf, 'parented', `grouped under "${m.rubric.display_name}"`, id);
      bump(leaf, `parent set to ${id}`, false);
    }
  }
}
