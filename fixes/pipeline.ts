/**
 * The fix pipeline (spec/fix-pipeline.md "States and transitions"): drafting, the advance steps
 * (scope → propose → gate), re-gating, delivery, dismissal, merge confirmation and the lazy
 * reconciliation of confirmation state on every read. Nothing progresses between requests.
 *
 * This file composes the parts and drives `advance`: shared loading, writes and claims in
 * pipeline-context.ts, candidate and baseline texts in candidates.ts, the steps in scoping.ts,
 * proposing.ts and gating.ts, drafting.ts, delivery.ts, and shipping and confirmation in
 * confirmation.ts.
 */
import type { DraftRoute, SubmitChannel } from '../schemas/api/fix-values.js';
import { createCandidateTexts } from './candidates.js';
import { createConfirmation, type MergeNotification, type MergeResult } from './confirmation.js';
import { createDelivery } from './delivery.js';
import { createDrafting } from './drafting.js';
import { FixStatusConflictError } from './errors.js';
import { createGating } from './gating.js';
import { buildPacket, type FixPacket } from './packet.js';
import { createPipelineContext, type FixPipelineDeps } from './pipeline-context.js';
import { createProposeStep } from './proposing.js';
import type { RunStatus } from './replay.js';
import { createScopeStep } from './scoping.js';
import { magicWord } from './short-ref.js';
import type { FixEntry, FixStore } from './store.js';
import { FIX_STATUSES, UNDISMISSABLE, publicFix, type Fix, type FixStatus } from './types.js';

export { GITHUB_APP_ACTOR, MONITORING_DAYS, type MergeNotification } from './confirmation.js';
export { MAX_OPEN_PRS } from './delivery.js';
export type { FixPipelineDeps } from './pipeline-context.js';
export { MAX_REPLAY_CASES, MIN_REPLAY_CASES } from './scoping.js';

export const MCP_ACTOR = 'svc-mcp';

export interface FixPipeline {
  draft(tenant: string, problemId: string, input: { fixType: DraftRoute }, actor: string): Promise<Fix>;
  get(tenant: string, fixId: string): Promise<Fix>;
  listForProblem(tenant: string, problemId: string): Promise<Fix[]>;
  /** Ranked page of the fixes in `status` (or any of `statuses`; neither: every fix). */
  queue(tenant: string, input: { status?: FixStatus; statuses?: readonly FixStatus[]; limit: number; offset: number }): Promise<{ fixes: Fix[]; hasMore: boolean }>;
  advance(tenant: string, fixId: string, actor: string): Promise<Fix>;
  verify(tenant: string, fixId: string, input: { candidateContent?: string }, actor: string): Promise<{ gateRunId: string; fix: Fix }>;
  submit(tenant: string, fixId: string, input: { channel: SubmitChannel; localRef?: string }, actor: string): Promise<Fix>;
  dismiss(tenant: string, fixId: string, reason: string, actor: string): Promise<Fix>;
  markApplied(tenant: string, fixId: string, note: string | undefined, actor: string): Promise<{ fix: Fix; duplicate: boolean; feedbackId: string | null; warning?: string }>;
  onMerge(n: MergeNotification): Promise<MergeResult[]>;
  packet(tenant: string, fixId: string): Promise<FixPacket>;
  checkout(tenant: string, fixId: string): Promise<{ fix: Fix; targetPath: string | null; candidateText: string; branch: string; magicWord: string; candidateVersionId: string }>;
  draftBatch(tenant: string, limit: number, actor: string): Promise<{ drafted: Fix[]; skipped: Array<{ problem_id: string; reason: string }>; scanned: number }>;
  gateRuns(tenant: string, fixId: string): Promise<{ gate: RunStatus | null; control: RunStatus | null }>;
  /** Candidate text of a fix (proposed or uploaded), if any. */
  candidateText(tenant: string, fixId: string): Promise<string | undefined>;
  history(tenant: string, fixId: string): ReturnType<FixStore['history']>;
}

export function createFixPipeline(deps: FixPipelineDeps): FixPipeline {
  const ctx = createPipelineContext(deps);
  const { load, step } = ctx;
  const texts = createCandidateTexts(deps);
  const confirmation = createConfirmation(ctx);
  const { reconcile } = confirmation;
  const gating = createGating(ctx, texts);
  const delivery = createDelivery(ctx, texts);
  const drafting = createDrafting(ctx, confirmation);
  const scope = createScopeStep(deps);
  const propose = createProposeStep(deps, texts);

  const decorate = async (e: FixEntry, rank?: Map<string, number | null>): Promise<Fix> => {
    const f = publicFix(e.fix);
    if (rank?.has(f.problemId)) return { ...f, problemRank: rank.get(f.problemId) ?? null };
    return f;
  };

  return {
    draft: drafting.draft,
    draftBatch: drafting.draftBatch,

    async get(tenant, fixId) {
      return decorate(await reconcile(await load(tenant, fixId)));
    },

    async listForProblem(tenant, problemId) {
      const p = await ctx.getProblem(tenant, problemId);
      const all = (await deps.fixes.list(tenant)).filter((e) => e.fix.problemId === p.problemId || e.fix.problemId === problemId);
      const out: Fix[] = [];
      for (const e of all.sort((a, b) => b.fix.createdAt.localeCompare(a.fix.createdAt))) out.push(publicFix((await reconcile(e)).fix));
      return out;
    },

    async queue(tenant, { status, statuses, limit, offset }) {
      const entries = await deps.fixes.list(tenant);
      const rank = new Map<string, number | null>();
      const reconciled: FixEntry[] = [];
      for (const e of entries) reconciled.push(await reconcile(e));
      const wanted = (e: FixEntry) => (!status || e.fix.status === status) && (!statuses || statuses.includes(e.fix.status));
      const kept = reconciled.filter(wanted);
      for (const pid of new Set(kept.map((e) => e.fix.problemId))) {
        const p = await deps.problems.get(tenant, pid);
        rank.set(pid, p ? p.rankScore : null);
      }
      const rows = kept
        .map((e) => ({ ...publicFix(e.fix), problemRank: rank.get(e.fix.problemId) ?? null }))
        .sort((a, b) => (b.problemRank ?? -Infinity) - (a.problemRank ?? -Infinity) || b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
      return { fixes: rows.slice(offset, offset + limit), hasMore: rows.length > offset + limit };
    },

    async advance(tenant, fixId, actor) {
      let e = await reconcile(await load(tenant, fixId));
      const s = e.fix.status;
      if (s === 'DRAFT' || s === 'SCOPING') e = await step(e, { status: 'SCOPING', statusReason: 'scoping evidence' }, actor, scope);
      else if (s === 'PROPOSING') e = await step(e, {}, actor, propose);
      else if (s === 'PROPOSED') e = await step(e, {}, actor, async (f) => gating.startGate(f, await texts.candidateOf(f)));
      else if (s === 'GATING') e = await gating.pollGate(e, actor);
      return decorate(e);
    },

    verify: gating.verify,
    submit: delivery.submit,
    checkout: delivery.checkout,

    async dismiss(tenant, fixId, reason, actor) {
      // reconciled first: a SHIPPED fix past its monitoring window is HELD (409), as any read shows it
      const e = await reconcile(await load(tenant, fixId));
      if (UNDISMISSABLE.includes(e.fix.status)) throw new FixStatusConflictError('dismiss', e.fix.status, FIX_STATUSES.filter((s) => !UNDISMISSABLE.includes(s)).join(', '));
      if (ctx.isClaimed(e.fix)) throw new FixStatusConflictError('dismiss', `${e.fix.status} (a step is in progress)`, '');
      const w = await ctx.mustWrite(e, { status: 'REJECTED', statusReason: `dismissed: ${reason}`, claim: null }, 'dismiss', actor);
      const fb = await deps.problems.submitFeedback(tenant, w.fix.problemId, { action: 'dismiss', actor, reason: `fix ${magicWord(w.fix.shortRef, deps.magicPrefix)} dismissed: ${reason}`.slice(0, 2000) });
      const final = await ctx.tryWrite(w, { feedbackIds: [...w.fix.feedbackIds, fb.feedbackId] }, 'dismiss', actor);
      return publicFix(final.entry.fix);
    },

    markApplied: confirmation.markApplied,
    onMerge: confirmation.onMerge,

    async packet(tenant, fixId) {
      const e = await reconcile(await load(tenant, fixId));
      const f = e.fix;
      const p = await deps.problems.get(tenant, f.problemId);
      const set = f.replaySetId ? await deps.replay.getSet(tenant, f.replaySetId) : undefined;
      const evidence = set
        ? set.cases.map((c) => ({ conversationId: c.conversation_id, msgIndex: c.msg_index }))
        : (await deps.problems.trustedAttributions(tenant, f.problemId).catch(() => [])).map((a) => ({ conversationId: a.conversationId, msgIndex: a.msgIndex }));
      return buildPacket({ fix: f, title: p?.displayName ?? '', causeStatement: p?.causeStatement ?? '', evidence, publicUrl: deps.publicUrl, magicPrefix: deps.magicPrefix });
    },

    async gateRuns(tenant, fixId) {
      const f = (await load(tenant, fixId)).fix;
      return {
        gate: f.gateRunId ? await deps.replay.status(tenant, f.gateRunId) : null,
        control: f.controlRunId ? await deps.replay.status(tenant, f.controlRunId) : null,
      };
    },

    async candidateText(tenant, fixId) {
      const f = (await load(tenant, fixId)).fix;
      return (await texts.get(tenant, f.id))?.content;
    },

    history: (tenant, fixId) => deps.fixes.history(tenant, fixId),
  };
}
