/**
 * The fix pipeline tools (spec/fix-pipeline.md "Tool interface"): the ranked queue, drafting and
 * driving fixes, reading one with its next steps, the replay gate, checkout, delivery, and the
 * applied/dismissed outcomes. `wait=true` drives a fix with advance calls until it settles.
 */
import { z } from 'zod';
import { AppError, BadRequestError } from '../core/errors.js';
import type { Principal } from '../core/keys.js';
import { FIX_STATUSES, type Fix, type FixStatus } from '../fixes/types.js';
import { asUnavailable } from '../fixes/unavailable.js';
import { CANDIDATE_MAX_CHARS, CANDIDATE_MIN_CHARS, DRAFT_ROUTES, FIX_QUEUE_DEFAULT_LIMIT, FIX_QUEUE_MAX_LIMIT, SUBMIT_CHANNELS } from '../schemas/api/fix-values.js';
import { ok, pollSeconds, tenantId, waitSeconds, type ToolContext, type ToolKit } from './tool-kit.js';

const DRIVEABLE: readonly FixStatus[] = ['DRAFT', 'SCOPING', 'PROPOSING', 'PROPOSED', 'GATING'];
/** Most fixes `fixes_drive` advances per pass; more active fixes set `coverage_truncated`. */
export const DRIVE_PASS_MAX = 100;

/** The follow-up tool for a fix in a status (spec: `data.next_steps`). */
export function nextSteps(f: Pick<Fix, 'status' | 'fixType'>): Array<{ tool: string; why: string }> {
  switch (f.status) {
    case 'DRAFT':
    case 'SCOPING':
    case 'PROPOSING':
    case 'PROPOSED':
    case 'GATING':
      return [{ tool: 'fix', why: 'call with wait=true (or fixes_drive) to advance the pipeline' }];
    case 'VERIFIED':
      return [
        { tool: 'fix_submit', why: 'deliver as a draft PR (channel pr) or record a local branch (channel local_ref)' },
        { tool: 'fix_checkout', why: 'get the candidate text, branch name and magic word to apply it yourself' },
      ];
    case 'GATE_FAILED':
    case 'GATE_INCONCLUSIVE':
      return [
        { tool: 'fix_verify', why: 're-gate, optionally with your own candidate_content' },
        { tool: 'fix_dismiss', why: 'reject the fix with a reason' },
      ];
    case 'UNROUTED':
    case 'HANDED_OFF':
      return [{ tool: 'fix_packet', why: 'apply the packet in the harness repository, then fix_mark_applied' }];
    case 'PR_OPEN':
    case 'APPLIED_LOCALLY':
      return [{ tool: 'fix_mark_applied', why: 'once the change is live (a merged PR confirms itself through the webhook)' }];
    case 'SHIPPED':
    case 'CONFIRMING':
      return [{ tool: 'fix', why: 'read again later: the fix becomes HELD after 14 clean days or REGRESSED if the problem reopens' }];
    case 'NO_EVIDENCE':
    case 'BLOCKED_COVERAGE':
    case 'NO_HEADROOM':
    case 'REGRESSED':
      return [{ tool: 'fix_start', why: 'draft a new attempt once the problem has more evidence or the harness changed' }];
    default:
      return [];
  }
}

export function registerFixTools({ tool, actor, sleep }: ToolKit, ctx: ToolContext): void {
  const { services } = ctx;

  /** Advances until the fix leaves the driveable statuses or the wait ends. */
  const driveOne = async (tenant: string, fixId: string, who: Principal, maxWaitS: number, pollS: number) => {
    const until = ctx.now() + maxWaitS * 1000;
    let f = await services.pipeline.get(tenant, fixId);
    const warnings: string[] = [];
    while (DRIVEABLE.includes(f.status)) {
      const before = `${f.status}|${f.updatedAt}`;
      f = await services.pipeline.advance(tenant, fixId, actor(who));
      if (!DRIVEABLE.includes(f.status)) break;
      if (ctx.now() + pollS * 1000 > until) {
        warnings.push(`still ${f.status} after ${maxWaitS}s: call fix again with wait=true or poll fixes_drive`);
        break;
      }
      if (`${f.status}|${f.updatedAt}` === before || f.status === 'GATING') await sleep(pollS * 1000);
    }
    return { fix: f, warnings };
  };

  tool(
    'fixes',
    { title: 'Fix queue', description: 'Ranked fix queue page (problem rank descending, then recency).', write: false },
    { status: z.enum(FIX_STATUSES).optional(), limit: z.number().int().min(1).max(FIX_QUEUE_MAX_LIMIT).default(FIX_QUEUE_DEFAULT_LIMIT), cursor: z.string().optional(), tenant_id: tenantId },
    async (a, p) => {
      const scope = `mcp-fixes:${p.tenant}:${a.status ?? ''}`;
      const offset = a.cursor ? ctx.cursors.decode<{ o: number }>(scope, a.cursor).o : 0;
      const page = await services.pipeline.queue(p.tenant, { status: a.status, limit: a.limit, offset });
      return ok({ fixes: page.fixes, pagination: { limit: a.limit, has_more: page.hasMore, next_cursor: page.hasMore ? ctx.cursors.encode(scope, { o: offset + a.limit }) : null } });
    },
  );
  tool(
    'fixes_draft_batch',
    { title: 'Draft fixes for the top problems', description: 'Scans up to 100 ranked problems and drafts a fix for each without an active one; returns drafted fixes and per-problem skip reasons.', write: true },
    { limit: z.number().int().min(1).max(25).optional(), tenant_id: tenantId },
    async (a, p) => {
      const r = await services.pipeline.draftBatch(p.tenant, a.limit ?? 10, actor(p));
      return ok({ drafted: r.drafted, skipped: r.skipped, scanned: r.scanned });
    },
  );
  tool(
    'fixes_drive',
    { title: 'Drive active fixes', description: 'One advance per active fix per pass (DRAFT, SCOPING, PROPOSING, PROPOSED, GATING, or only the given status); reports stragglers, coverage_truncated and warnings.', write: true },
    {
      status: z.enum(['DRAFT', 'SCOPING', 'PROPOSING', 'PROPOSED', 'GATING']).optional(),
      max_passes: z.number().int().min(1).max(10).default(3),
      pass_interval_seconds: z.number().int().min(0).max(30).default(5),
      tenant_id: tenantId,
    },
    async (a, p) => {
      const warnings: string[] = [];
      const wanted = a.status ? [a.status] : DRIVEABLE;
      const cap = ctx.drivePassCap ?? DRIVE_PASS_MAX;
      let coverageTruncated = false;
      const advanced = new Map<string, { fix_id: string; short_ref: string; status: FixStatus }>();
      let passes = 0;
      for (let pass = 0; pass < a.max_passes; pass++) {
        // only the fixes in the wanted statuses, best ranked first: inactive fixes never use up the cap
        const page = await services.pipeline.queue(p.tenant, { statuses: wanted, limit: cap, offset: 0 });
        if (!page.fixes.length) break;
        if (page.hasMore) coverageTruncated = true;
        passes++;
        for (const f of page.fixes) {
          try {
            const after = await services.pipeline.advance(p.tenant, f.id, actor(p));
            advanced.set(f.id, { fix_id: after.id, short_ref: after.shortRef, status: after.status });
          } catch (err) {
            const e = asUnavailable(err);
            warnings.push(`${f.shortRef}: ${e instanceof AppError && e.expose ? e.message : 'advance failed'}`);
          }
        }
        if (pass + 1 < a.max_passes && a.pass_interval_seconds > 0) await sleep(a.pass_interval_seconds * 1000);
      }
      const left = await services.pipeline.queue(p.tenant, { statuses: wanted, limit: cap, offset: 0 });
      if (left.hasMore) warnings.push(`more than ${cap} fixes are still in ${wanted.join('/')}: stragglers lists the first ${cap}`);
      const stragglers = left.fixes.map((f) => ({ fix_id: f.id, short_ref: f.shortRef, status: f.status, status_reason: f.statusReason }));
      return ok({ passes, fixes: [...advanced.values()], stragglers, coverage_truncated: coverageTruncated }, warnings);
    },
  );
  tool(
    'fix',
    { title: 'Read a fix', description: 'One fix with its gate result and data.next_steps. wait=true drives advance calls until the fix settles (this writes).', write: false },
    { fix_id: z.string().min(1), wait: z.boolean().default(false), max_wait_seconds: waitSeconds(120), poll_interval_seconds: pollSeconds(5), tenant_id: tenantId },
    async (a, p) => {
      if (!a.wait) {
        const f = await services.pipeline.get(p.tenant, a.fix_id);
        return ok({ fix: f, next_steps: nextSteps(f) });
      }
      const r = await driveOne(p.tenant, a.fix_id, p, a.max_wait_seconds, a.poll_interval_seconds);
      return ok({ fix: r.fix, next_steps: nextSteps(r.fix) }, r.warnings);
    },
  );
  tool(
    'fix_start',
    { title: 'Start a fix', description: 'Drafts a fix for a problem (an active fix is returned instead); wait=true drives it.', write: true },
    { problem_id: z.string().min(1), type: z.enum(DRAFT_ROUTES).default('auto'), wait: z.boolean().default(false), max_wait_seconds: waitSeconds(120), poll_interval_seconds: pollSeconds(5), tenant_id: tenantId },
    async (a, p) => {
      const f = await services.pipeline.draft(p.tenant, a.problem_id, { fixType: a.type }, actor(p));
      if (!a.wait) return ok({ fix: f, next_steps: nextSteps(f) });
      const r = await driveOne(p.tenant, f.id, p, a.max_wait_seconds, a.poll_interval_seconds);
      return ok({ fix: r.fix, next_steps: nextSteps(r.fix) }, r.warnings);
    },
  );
  tool(
    'fix_packet',
    { title: 'Fix packet', description: 'The fix packet verbatim (snake_case; untrusted evidence marked). Writes no files.', write: false },
    { fix_id: z.string().min(1), tenant_id: tenantId },
    async (a, p) => ok(await services.pipeline.packet(p.tenant, a.fix_id)),
  );
  tool(
    'fix_verify',
    {
      title: 'Verify a fix on the replay gate',
      description: 'Re-gates the fix (optionally with your own candidate_content, gated by hash only). VERIFIED with a pass verdict is success; GATE_FAILED is an error with per-case findings; anything else is degraded.',
      write: true,
    },
    {
      fix_id: z.string().min(1),
      candidate_content: z
        .string()
        .min(CANDIDATE_MIN_CHARS)
        .max(CANDIDATE_MAX_CHARS)
        .refine((s) => s.trim().length >= CANDIDATE_MIN_CHARS, { message: `candidate_content must be at least ${CANDIDATE_MIN_CHARS} characters after trimming` })
        .optional(),
      wait: z.boolean().default(true),
      max_wait_seconds: waitSeconds(120),
      poll_interval_seconds: pollSeconds(5),
      tenant_id: tenantId,
    },
    async (a, p) => {
      const v = await services.pipeline.verify(p.tenant, a.fix_id, a.candidate_content !== undefined ? { candidateContent: a.candidate_content } : {}, actor(p));
      if (!a.wait) return ok({ gateRunId: v.gateRunId, fix: v.fix, next_steps: [{ tool: 'fix', why: 'call with wait=true to collect the verdict' }] });
      const r = await driveOne(p.tenant, v.fix.id, p, a.max_wait_seconds, a.poll_interval_seconds);
      const f = r.fix;
      if (f.status === 'VERIFIED' && f.gateResult?.verdict === 'pass') return ok({ gateRunId: v.gateRunId, fix: f, next_steps: nextSteps(f) }, r.warnings);
      if (f.status === 'GATE_FAILED') {
        const runs = await services.pipeline.gateRuns(p.tenant, f.id);
        const holdout = new Set(f.holdoutCaseIds);
        const findings = (runs.gate?.cases ?? []).filter((c) => holdout.has(c.caseId)).map((c) => ({ case_id: c.caseId, baseline: c.baseline, candidate: c.candidate, abstained: c.abstained, outcome: c.abstained ? 'abstained' : (c.candidate ?? 0) > (c.baseline ?? 0) ? 'win' : (c.candidate ?? 0) < (c.baseline ?? 0) ? 'loss' : 'tie' }));
        return ok({ gateRunId: v.gateRunId, fix: f, findings, next_steps: nextSteps(f) }, [`gate failed: ${f.gateResult?.reason ?? ''}`], true);
      }
      return ok({ gateRunId: v.gateRunId, fix: f, degraded: true, next_steps: nextSteps(f) }, [...r.warnings, `degraded: fix is ${f.status}${f.gateResult ? ` (verdict ${f.gateResult.verdict})` : ''}`]);
    },
  );
  tool(
    'fix_checkout',
    { title: 'Check out a fix candidate', description: 'Target path, full candidate text, branch name svc/fix/<shortref>, magic word and candidate version id, to apply the candidate yourself. Refuses TOOL_SCHEMA and SKILL fixes and fixes without a candidate.', write: true, idempotent: true },
    { fix_id: z.string().min(1), tenant_id: tenantId },
    async (a, p) => {
      const c = await services.pipeline.checkout(p.tenant, a.fix_id);
      return ok({ fix_id: c.fix.id, target_path: c.targetPath, candidate_text: c.candidateText, branch: c.branch, magic_word: c.magicWord, candidate_version_id: c.candidateVersionId });
    },
  );
  tool(
    'fix_submit',
    { title: 'Deliver a verified fix', description: 'channel pr opens a draft PR on svc/fix/<shortref>; channel local_ref records your branch (local_ref required with it, forbidden with pr). Sent once, never retried.', write: true },
    { fix_id: z.string().min(1), channel: z.enum(SUBMIT_CHANNELS), local_ref: z.string().min(1).max(255).optional(), tenant_id: tenantId },
    async (a, p) => {
      if (a.channel === 'local_ref' && !a.local_ref) throw new BadRequestError('local_ref is required with channel local_ref');
      if (a.channel === 'pr' && a.local_ref !== undefined) throw new BadRequestError('local_ref is not allowed with channel pr');
      const f = await services.pipeline.submit(p.tenant, a.fix_id, { channel: a.channel, ...(a.local_ref ? { localRef: a.local_ref } : {}) }, actor(p));
      return ok({ status: f.status, prUrl: f.prUrl, prBranch: f.prBranch, fix: f, next_steps: nextSteps(f) });
    },
  );
  tool(
    'fix_mark_applied',
    { title: 'Mark a fix applied', description: 'Records that the fix is live: SHIPPED plus mark_fixed problem feedback (the problem enters fixed-monitoring at the next problems run). Repeating on a confirmed fix is a no-op with a warning.', write: true },
    { fix_id: z.string().min(1), note: z.string().max(600).optional(), tenant_id: tenantId },
    async (a, p) => {
      const r = await services.pipeline.markApplied(p.tenant, a.fix_id, a.note, actor(p));
      return ok({ fix: r.fix, feedback_id: r.feedbackId, duplicate: r.duplicate, next_steps: nextSteps(r.fix) }, r.warning ? [r.warning] : []);
    },
  );
  tool(
    'fix_dismiss',
    { title: 'Dismiss a fix', description: 'Rejects the fix; the reason is recorded as dismiss feedback on the problem (the next problems run dismisses the problem). To try another candidate, use fix_verify with candidate_content instead.', write: true },
    { fix_id: z.string().min(1), reason: z.string().trim().min(1).max(2000), tenant_id: tenantId },
    async (a, p) => {
      const f = await services.pipeline.dismiss(p.tenant, a.fix_id, a.reason, actor(p));
      return ok({ fix: f, next_steps: nextSteps(f) });
    },
  );
}
