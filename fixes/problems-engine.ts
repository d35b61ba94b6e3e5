/**
 * Adapter from the problems engine (stream/problems/api.ts) to the fix pipeline's ProblemSource:
 * alias-resolving reads, the ranked (trusted) list, trusted attributions with their anchors,
 * feedback, and one engine pass (under the tenant job's lease when `kv` is given).
 */
import type { KV } from '@nats-io/kv';
import type { Store } from '../core/clickhouse.js';
import { getProblem, listProblems, listTrustedAttributions, runProblemsOnce, submitFeedback } from '../stream/problems/api.js';
import type { ProblemInfo, ProblemSource } from './problem-source.js';

export function createEngineProblemSource(deps: { store: Store; now?: () => number; kv?: KV | Promise<KV> }): ProblemSource {
  const src: ProblemSource = {
    async runOnce(tenant) {
      await runProblemsOnce(deps, tenant);
    },
    async get(tenant, id) {
      const r = await getProblem(deps, tenant, id);
      if (!r.found || !r.problem || !r.problem_id) return null;
      const p = r.problem;
      const info: ProblemInfo = {
        problemId: r.problem_id,
        requestedProblemId: r.requested_problem_id,
        aliasResolved: r.alias_resolved,
        // a dismissed problem is over for the fix pipeline, like a resolved one
        lifecycle: p.status === 'dismissed' ? 'resolved' : p.lifecycle,
        fixedAt: p.fixed_at,
        rubricVersion: p.rubric.version,
        displayName: p.rubric.display_name,
        causeStatement: p.rubric.cause_statement,
        rankScore: p.metrics.rank_score,
        matchCriteria: { ...p.rubric.match_criteria, description: p.rubric.display_description },
        counterExamples: p.rubric.counter_examples.map((c) => c.reason).filter(Boolean),
        families: Object.keys(p.metrics.family_counts ?? {}),
      };
      return info;
    },
    async listRanked(tenant, limit) {
      const ranked = (await listProblems(deps, tenant)).filter((p) => p.status === 'active' && p.verification_status === 'current').slice(0, limit);
      const out: ProblemInfo[] = [];
      for (const p of ranked) {
        const info = await src.get(tenant, p.problem_id);
        if (info) out.push(info);
      }
      return out;
    },
    async trustedAttributions(tenant, problemId) {
      return (await listTrustedAttributions(deps, tenant, problemId)).map((a) => ({ conversationId: a.conversation_id, msgIndex: a.anchor_msg_index }));
    },
    async submitFeedback(tenant, problemId, input) {
      const r = await submitFeedback(deps, tenant, problemId, input);
      return { feedbackId: r.feedback_id, duplicate: r.duplicate };
    },
  };
  return src;
}
