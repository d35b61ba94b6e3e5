/**
 * An in-memory problems source for suites of the fix pipeline alone (the contract of
 * fixes/problem-source.ts): problems with lifecycles, trusted attributions, pending feedback with
 * deterministic ids, and a run that applies mark_fixed (→ fixed_monitoring) and reopens a
 * monitored problem whose cause recurred.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ProblemFeedbackInput, ProblemInfo, ProblemSource, TrustedAttribution } from '../../fixes/problem-source.js';

export interface MemoryProblems extends ProblemSource {
  add(p: Partial<ProblemInfo> & { attributions?: TrustedAttribution[] }): ProblemInfo;
  alias(from: string, to: string): void;
  feedback: Array<ProblemFeedbackInput & { feedbackId: string; problemId: string; status: 'pending' | 'applied' }>;
  recur(problemId: string): void;
  set(problemId: string, patch: Partial<ProblemInfo>): void;
}

/** `now` stamps `fixedAt` when a run applies mark_fixed (the suite's clock). */
export function createMemoryProblems(now: () => number = Date.now): MemoryProblems {
  const problems = new Map<string, ProblemInfo & { tenant: string }>();
  const attributions = new Map<string, TrustedAttribution[]>();
  const aliases = new Map<string, string>();
  const recurred = new Set<string>();
  const feedback: MemoryProblems['feedback'] = [];
  const resolve = (id: string) => aliases.get(id) ?? id;
  const src: MemoryProblems = {
    feedback,
    add(p) {
      const id = p.problemId ?? randomUUID();
      const info: ProblemInfo & { tenant: string } = {
        tenant: (p as { tenant?: string }).tenant ?? 'default',
        problemId: id,
        requestedProblemId: id,
        aliasResolved: false,
        lifecycle: p.lifecycle ?? 'open',
        fixedAt: p.fixedAt ?? null,
        rubricVersion: p.rubricVersion ?? 1,
        displayName: p.displayName ?? 'Refund requests are denied without checking the order',
        causeStatement: p.causeStatement ?? 'The agent refuses refunds without calling lookup_order to check eligibility',
        rankScore: p.rankScore ?? 0.5,
        matchCriteria: p.matchCriteria ?? {},
        counterExamples: p.counterExamples ?? [],
        families: p.families ?? ['tool_failure'],
      };
      problems.set(id, info);
      attributions.set(id, p.attributions ?? []);
      return info;
    },
    alias(from, to) {
      aliases.set(from, to);
    },
    set(id, patch) {
      const p = problems.get(id);
      if (p) problems.set(id, { ...p, ...patch });
    },
    recur(id) {
      recurred.add(id);
    },
    async runOnce(tenant) {
      for (const f of feedback) {
        if (f.status !== 'pending') continue;
        const p = problems.get(f.problemId);
        if (p && p.tenant === tenant && f.action === 'mark_fixed') {
          p.lifecycle = 'fixed_monitoring';
          p.fixedAt = new Date(now()).toISOString();
        }
        f.status = 'applied';
      }
      for (const id of recurred) {
        const p = problems.get(id);
        if (p && p.tenant === tenant && p.lifecycle === 'fixed_monitoring') p.lifecycle = 'reopened';
        recurred.delete(id);
      }
    },
    async get(tenant, id) {
      const p = problems.get(resolve(id));
      if (!p || p.tenant !== tenant) return null;
      const { tenant: _t, ...info } = p;
      return { ...info, requestedProblemId: id, aliasResolved: resolve(id) !== id };
    },
    async listRanked(tenant, limit) {
      return [...problems.values()]
        .filter((p) => p.tenant === tenant)
        .sort((a, b) => b.rankScore - a.rankScore)
        .slice(0, limit)
        .map(({ tenant: _t, ...p }) => p);
    },
    async trustedAttributions(_tenant, id) {
      return attributions.get(resolve(id)) ?? [];
    },
    async submitFeedback(_tenant, problemId, input) {
      const { fix_ref: _r, ...idPart } = input;
      const feedbackId = createHash('sha256').update(JSON.stringify({ problemId, ...idPart })).digest('hex').slice(0, 32);
      const dup = feedback.find((f) => f.feedbackId === feedbackId && f.status === 'pending');
      if (dup) return { feedbackId, duplicate: true };
      feedback.push({ ...input, feedbackId, problemId, status: 'pending' });
      return { feedbackId, duplicate: false };
    },
  };
  return src;
}
