/**
 * Shipping and confirmation (spec/fix-pipeline.md): a merge notification or a mark-applied ships
 * the fix (SHIPPED) and posts `mark_fixed` feedback to the problem; every read then reconciles the
 * confirmation state lazily from the problem's lifecycle (CONFIRMING, HELD or REGRESSED).
 */
import type { MergeOutcome } from '../schemas/api/fix-values.js';
import { FixStatusConflictError } from './errors.js';
import type { PipelineContext } from './pipeline-context.js';
import { findShortRefs } from './short-ref.js';
import type { FixEntry } from './store.js';
import { publicFix, type Fix, type FixStatus, type StoredFix } from './types.js';

export const MONITORING_DAYS = 14;
export const GITHUB_APP_ACTOR = 'svc-github-app';
const DAY_MS = 86_400_000;

const CONFIRMED: readonly FixStatus[] = ['SHIPPED', 'CONFIRMING', 'HELD'];

/**
 * Whole days the problem has been monitored clean: since it entered fixed-monitoring (the run that
 * applied the fix's mark_fixed), never before the fix shipped. A problem that has not entered
 * monitoring yet (its feedback still pending) or that reopened has none. A problem resolved without
 * a monitoring start (dismissed) counts from the ship.
 */
function cleanDays(p: { lifecycle: string; fixedAt: string | null } | null, shippedAt: string | null | undefined, now: number): number {
  if (!p || !shippedAt || (p.lifecycle !== 'fixed_monitoring' && p.lifecycle !== 'resolved')) return 0;
  const shipped = Date.parse(shippedAt);
  const since = p.fixedAt ? Math.max(Date.parse(p.fixedAt), shipped) : p.lifecycle === 'resolved' ? shipped : now;
  return Math.floor((now - since) / DAY_MS);
}

export interface MergeNotification {
  prBody: string;
  headRef: string;
  prUrl: string;
  mergeCommit: string;
  mergedAt: string;
}

/** What a merge notification did to one fix it names. */
export interface MergeResult {
  fix_id: string;
  short_ref: string;
  status: FixStatus;
  feedback_id: string | null;
  duplicate: boolean;
  outcome: MergeOutcome;
}

export interface Confirmation {
  /** spec: SHIPPED/CONFIRMING become REGRESSED when the problem reopened, HELD after 14 clean days. */
  reconcile(e: FixEntry): Promise<FixEntry>;
  markApplied(tenant: string, fixId: string, note: string | undefined, actor: string): Promise<{ fix: Fix; duplicate: boolean; feedbackId: string | null; warning?: string }>;
  onMerge(n: MergeNotification): Promise<MergeResult[]>;
}

/** The `fix_ref` of a fix's mark_fixed feedback. */
const fixRefPayload = (f: StoredFix) => ({
  fix_id: f.id,
  short_ref: f.shortRef,
  pr_url: f.fixRef?.prUrl ?? f.prUrl ?? '',
  merge_commit: f.fixRef?.mergeCommit ?? '',
  prompt_version_id: f.fixRef?.promptVersionId ?? f.candidateRef?.promptVersionId ?? '',
});

export function createConfirmation(ctx: PipelineContext): Confirmation {
  const { deps, iso } = ctx;

  const reconcile = async (e: FixEntry): Promise<FixEntry> => {
    const f = e.fix;
    if (f.status !== 'SHIPPED' && f.status !== 'CONFIRMING') return e;
    const p = await deps.problems.get(f.tenantId, f.problemId);
    const lifecycle = p?.lifecycle;
    const sawMonitoring = f.status === 'CONFIRMING' || f.lifecycleAtShip !== 'reopened';
    let patch: Partial<StoredFix> | undefined;
    if (lifecycle === 'reopened' && sawMonitoring) patch = { status: 'REGRESSED', statusReason: 'the problem reopened after the fix shipped (the root cause recurred)' };
    else if (cleanDays(p, f.shippedAt, deps.now()) >= MONITORING_DAYS) {
      patch = { status: 'HELD', statusReason: `${MONITORING_DAYS} clean monitoring days since the problem entered fixed-monitoring` };
    } else if (f.status === 'SHIPPED' && lifecycle === 'fixed_monitoring') patch = { status: 'CONFIRMING', statusReason: 'the problem is in fixed-monitoring: watching for recurrence' };
    if (!patch) return e;
    return (await ctx.tryWrite(e, patch, 'reconcile', 'system')).entry;
  };

  const postMarkFixed = async (f: StoredFix, actor: string) => deps.problems.submitFeedback(f.tenantId, f.problemId, { action: 'mark_fixed', actor, fix_ref: fixRefPayload(f) });

  const ship = async (e: FixEntry, fixRef: StoredFix['fixRef'], reason: string, trigger: string, actor: string): Promise<FixEntry> => {
    const p = await deps.problems.get(e.fix.tenantId, e.fix.problemId);
    const patch = { status: 'SHIPPED' as FixStatus, statusReason: reason, fixRef, shippedAt: iso(), lifecycleAtShip: p?.lifecycle ?? 'open' };
    return ctx.mustWrite(e, patch, trigger, actor);
  };

  const markApplied: Confirmation['markApplied'] = async (tenant, fixId, note, actor) => {
    const e = await reconcile(await ctx.load(tenant, fixId));
    if (CONFIRMED.includes(e.fix.status)) {
      return { fix: publicFix(e.fix), duplicate: true, feedbackId: e.fix.feedbackIds.at(-1) ?? null, warning: `fix is already ${e.fix.status}: nothing recorded` };
    }
    const fixRef = { prUrl: e.fix.prUrl ?? '', mergeCommit: '', promptVersionId: e.fix.candidateRef?.promptVersionId ?? '', mergedAt: iso() };
    const w = await ship(e, fixRef, `marked applied${note ? `: ${note.slice(0, 600)}` : ''}`, 'mark_applied', actor);
    const fb = await postMarkFixed(w.fix, actor);
    const final = await ctx.tryWrite(w, { feedbackIds: [...new Set([...w.fix.feedbackIds, fb.feedbackId])] }, 'mark_applied', actor);
    return { fix: publicFix(final.entry.fix), duplicate: fb.duplicate, feedbackId: fb.feedbackId };
  };

  const onMerge = async (n: MergeNotification): Promise<MergeResult[]> => {
    const refs = findShortRefs(`${n.prBody}\n${n.headRef}`, deps.magicPrefix);
    const out: MergeResult[] = [];
    for (const ref of refs) {
      const loc = await deps.fixes.byShortRef(ref);
      if (!loc) continue;
      let e = await deps.fixes.get(loc.tenant, loc.fixId);
      if (!e) continue;
      if (e.fix.status === 'PR_OPEN') {
        const fixRef = { prUrl: n.prUrl || e.fix.prUrl || '', mergeCommit: n.mergeCommit, promptVersionId: e.fix.candidateRef?.promptVersionId ?? '', mergedAt: n.mergedAt || iso() };
        try {
          e = await ship(e, fixRef, `pull request merged (${n.mergeCommit.slice(0, 12)})`, 'merge_notification', GITHUB_APP_ACTOR);
        } catch (err) {
          if (!(err instanceof FixStatusConflictError)) throw err;
          e = (await deps.fixes.get(loc.tenant, loc.fixId))!;
        }
      } else if (!(e.fix.fixRef && e.fix.fixRef.mergeCommit === n.mergeCommit)) {
        out.push({ fix_id: e.fix.id, short_ref: e.fix.shortRef, status: e.fix.status, feedback_id: null, duplicate: false, outcome: 'ignored' });
        continue;
      }
      // a redelivery after a problems run applied the feedback (CONFIRMING, HELD, REGRESSED)
      // must not post it again: that would mark a reopened problem fixed once more
      if (e.fix.status !== 'SHIPPED' && e.fix.feedbackIds.length) {
        out.push({ fix_id: e.fix.id, short_ref: e.fix.shortRef, status: e.fix.status, feedback_id: e.fix.feedbackIds.at(-1)!, duplicate: true, outcome: 'converged' });
        continue;
      }
      // first delivery or a redelivery: the same payload gives the same pending feedback row
      const fb = await postMarkFixed(e.fix, GITHUB_APP_ACTOR);
      if (!e.fix.feedbackIds.includes(fb.feedbackId)) await ctx.tryWrite(e, { feedbackIds: [...e.fix.feedbackIds, fb.feedbackId] }, 'merge_notification', GITHUB_APP_ACTOR);
      out.push({ fix_id: e.fix.id, short_ref: e.fix.shortRef, status: e.fix.status, feedback_id: fb.feedbackId, duplicate: fb.duplicate, outcome: fb.duplicate ? 'converged' : 'shipped' });
    }
    return out;
  };

  return { reconcile, markApplied, onMerge };
}
