/**
 * Drafting: a problem has at most one active fix, held by its `active.<tenant>.<problemId>` slot
 * (create-if-absent, then compare-and-set), so concurrent drafts of one problem give one fix.
 * A fix that ended leaves the slot to the next attempt. `draftBatch` drafts the top-ranked problems.
 */
import { randomUUID } from 'node:crypto';
import { KvExistsError } from '../core/kv.js';
import type { DraftRoute } from '../schemas/api/fix-values.js';
import type { Confirmation } from './confirmation.js';
import { FixStatusConflictError } from './errors.js';
import type { PipelineContext } from './pipeline-context.js';
import type { ProblemInfo } from './problem-source.js';
import { magicWord, newShortRef } from './short-ref.js';
import { ACTIVE_STATUSES, publicFix, type Fix, type StoredFix } from './types.js';

/** How long a draft waits for a concurrent draft's fix to appear behind the problem's slot. */
const DRAFT_CREATE_WAIT_MS = 3000;

/** A fresh DRAFT fix of `p` (attempt `attemptNo` at its rubric version) with a new short ref. */
function newDraft(id: string, tenant: string, p: ProblemInfo, route: DraftRoute, attemptNo: number, at: string): StoredFix {
  return {
    id,
    shortRef: newShortRef(),
    tenantId: tenant,
    problemId: p.problemId,
    rubricVersion: p.rubricVersion,
    attemptNo,
    fixType: route === 'prompt' ? 'PROMPT' : 'UNROUTED',
    status: 'DRAFT',
    statusReason: route === 'prompt' ? 'drafted (prompt route only)' : 'drafted (route from evidence)',
    targetArtifactKey: null,
    targetSourcePath: null,
    routeConfidence: null,
    promptId: null,
    baselineVersionId: null,
    replaySetId: null,
    repairCaseIds: [],
    holdoutCaseIds: [],
    candidateRef: null,
    gateRunId: null,
    controlRunId: null,
    gateResult: null,
    deliveryChannel: null,
    prUrl: null,
    prBranch: null,
    fixRef: null,
    problemRank: p.rankScore,
    createdAt: at,
    updatedAt: at,
    requestedRoute: route,
    claim: null,
    shippedAt: null,
    feedbackIds: [],
    prNumber: null,
  };
}

export interface Drafting {
  draft(tenant: string, problemId: string, input: { fixType: DraftRoute }, actor: string): Promise<Fix>;
  draftBatch(tenant: string, limit: number, actor: string): Promise<{ drafted: Fix[]; skipped: Array<{ problem_id: string; reason: string }>; scanned: number }>;
}

export function createDrafting(ctx: PipelineContext, confirmation: Pick<Confirmation, 'reconcile'>): Drafting {
  const { deps } = ctx;

  const draft: Drafting['draft'] = async (tenant, problemId, input, actor) => {
    const p = await ctx.getProblem(tenant, problemId);
    for (let attempt = 0; attempt < 10; attempt++) {
      const slot = await deps.fixes.activeFixId(tenant, p.problemId);
      if (slot) {
        let cur = await deps.fixes.get(tenant, slot.fixId);
        // a concurrent draft took the slot and is creating its fix: wait for it (a writer that
        // died between the two writes leaves the slot free again after DRAFT_CREATE_WAIT_MS)
        for (let waited = 0; !cur && waited < DRAFT_CREATE_WAIT_MS; waited += 50) {
          await new Promise((r) => setTimeout(r, 50));
          cur = await deps.fixes.get(tenant, slot.fixId);
        }
        if (cur) {
          const r = await confirmation.reconcile(cur);
          if (ACTIVE_STATUSES.includes(r.fix.status)) return publicFix(r.fix);
        }
      }
      const id = randomUUID();
      if (!(await deps.fixes.setActive(tenant, p.problemId, id, slot?.revision ?? 0))) continue;
      const previous = (await deps.fixes.list(tenant)).filter((x) => x.fix.problemId === p.problemId && x.fix.rubricVersion === p.rubricVersion);
      const at = ctx.iso();
      // a new short ref on a collision (KvExistsError), a few times
      for (let r = 0; ; r++) {
        const fix = newDraft(id, tenant, p, input.fixType, previous.length + 1, at);
        try {
          return publicFix((await deps.fixes.create(fix, { trigger: 'draft', actor })).fix);
        } catch (err) {
          if (!(err instanceof KvExistsError) || r > 5) throw err;
        }
      }
    }
    throw new FixStatusConflictError('draft', 'concurrently drafted', '');
  };

  const draftBatch: Drafting['draftBatch'] = async (tenant, limit, actor) => {
    const problems = await deps.problems.listRanked(tenant, 100);
    const drafted: Fix[] = [];
    const skipped: Array<{ problem_id: string; reason: string }> = [];
    const entries = await deps.fixes.list(tenant);
    let scanned = 0;
    for (const p of problems) {
      if (drafted.length >= limit) break;
      scanned++;
      const slot = await deps.fixes.activeFixId(tenant, p.problemId);
      const cur = slot ? entries.find((x) => x.fix.id === slot.fixId) : undefined;
      if (cur && ACTIVE_STATUSES.includes(cur.fix.status)) {
        skipped.push({ problem_id: p.problemId, reason: `active fix ${magicWord(cur.fix.shortRef, deps.magicPrefix)} in ${cur.fix.status}` });
        continue;
      }
      if (p.lifecycle === 'fixed_monitoring' || p.lifecycle === 'resolved') {
        skipped.push({ problem_id: p.problemId, reason: `problem is ${p.lifecycle}` });
        continue;
      }
      drafted.push(await draft(tenant, p.problemId, { fixType: 'auto' }, actor));
    }
    return { drafted, skipped, scanned };
  };

  return { draft, draftBatch };
}
