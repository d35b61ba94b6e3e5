/**
 * Discovery of problems (docs/analyses.md "Problems"): unexplained cause signals are grouped by
 * cause; a group seen in enough conversations becomes a trusted problem, a smaller one an emerging
 * (provisional) problem, promoted once the evidence it explains reaches the support. Groups below
 * the emerging support stay in the remainder backlog.
 */
import type { AttributionState } from './attribute.js';
import { causeKeyOf, criterionOf } from './criteria.js';
import { emptyMetrics } from './metrics.js';
import { clone, type RunState } from './run-state.js';
import { describeCause, uuidFrom } from './text.js';
import type { ProblemState, Rubric, Signal } from './types.js';

/** What discovery did this run (RunStats.discovery; `merged` is counted by the merges). */
export interface DiscoveryCounts {
  candidate_groups: number;
  created: number;
  provisional: number;
  promoted: number;
  merged: number;
}

export interface Discovery {
  /** Conversations a problem needs to be trusted: `minSupport`, or `minShare` of the tenant's. */
  support: number;
  counts: DiscoveryCounts;
  /** Groups (and their signals) too small to become even an emerging problem. */
  backlog: { pending_groups: number; pending_mass: number };
  /** Problems from the unexplained signals of `list` that share a cause. */
  discover(list: readonly Signal[]): void;
  /** Emerging problems whose evidence grew to the support become trusted. */
  promote(): void;
}

export function createDiscovery(run: RunState, st: AttributionState, conversationCount: number | undefined): Discovery {
  const { cfg, tenant, nowIso, problems, definitions, event, bump } = run;
  const { conversations, explained, flaggedAway, sigById } = st;
  const support = Math.max(cfg.minSupport, Math.ceil(cfg.minShare * Math.max(conversations.size, conversationCount ?? 0)));
  const discovery: DiscoveryCounts = { candidate_groups: 0, created: 0, provisional: 0, promoted: 0, merged: 0 };
  const backlog = { pending_groups: 0, pending_mass: 0 };
  const discover = (list: readonly Signal[]) => {
    const groups = new Map<string, Signal[]>();
    for (const s of list) {
      if (explained.has(s.signal_id) || flaggedAway.has(s.signal_id)) continue;
      const k = causeKeyOf(s);
      let g = groups.get(k);
      if (!g) groups.set(k, (g = []));
      g.push(s);
    }
    discovery.candidate_groups += groups.size;
    for (const [key, group] of [...groups].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const convs = new Set(group.map((s) => s.conversation_id)).size;
      if (convs < cfg.emergingSupport) {
        backlog.pending_groups += 1;
        backlog.pending_mass += group.length;
        continue;
      }
      const first = group[0]!;
      const id = uuidFrom('problem', tenant, key);
      if (problems.has(id)) continue; // an existing problem of this cause no longer matching (merged away): leave unexplained
      const t = describeCause(first.kind, first.family, { tool_name: first.tool_name, type: first.kind === 'tool_failure' ? undefined : first.type, cluster_label: first.cluster_label }, group);
      const provisional = convs < support;
      const rubric: Rubric = {
        version: 1,
        causal_content_version: 1,
        ...t,
        change_reason: `discovered from ${group.length} unexplained signals in ${convs} conversations`,
        match_criteria: { any_of: [criterionOf(first)] },
        counter_examples: [],
        tier: 'leaf',
        provisional,
        parent_problem_id: null,
        updated_at: nowIso,
        renamed: false,
      };
      const p: ProblemState = {
        problem_id: id,
        cause_key: key,
        status: 'active',
        merged_into: null,
        lifecycle: 'open',
        rubric,
        created_at: nowIso,
        updated_at: nowIso,
        fixed_at: null,
        fix_ref: null,
        reopen_armed: false,
        dismissed_reason: null,
        verification_status: 'unverified',
        verified_causal_version: null,
        verified_total: 0,
        samples: [],
        metrics: emptyMetrics(),
        dossier: null,
        support_at_verification: 0,
      };
      problems.set(id, p);
      definitions.push({ problem_id: id, rubric: clone(rubric) });
      event(p, 'created', rubric.change_reason);
      if (provisional) discovery.provisional += 1;
      else discovery.created += 1;
    }
  };
  const promote = () => {
    const allConvs = new Map<string, Set<string>>();
    for (const [sid, e] of explained) {
      let set = allConvs.get(e.problem);
      if (!set) allConvs.set(e.problem, (set = new Set()));
      set.add(sigById(sid).conversation_id);
    }
    for (const p of problems.values()) {
      if (p.status !== 'active' || !p.rubric.provisional) continue;
      const n = allConvs.get(p.problem_id)?.size ?? 0;
      if (n >= support) {
        p.rubric.provisional = false;
        event(p, 'promoted', `evidence grew to ${n} conversations (threshold ${support})`);
        bump(p, `promoted from emerging: ${n} conversations`, false);
        discovery.promoted += 1;
      }
    }
  };
  return { support, counts: discovery, backlog, discover, promote };
}
