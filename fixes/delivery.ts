/**
 * Delivery of a VERIFIED fix: a draft pull request through the code host (PR_OPEN, throttled per
 * problem, per file and per workspace) or a local branch (APPLIED_LOCALLY). The first delivery
 * supersedes older undelivered fixes of the same problem or file. `checkout` hands the candidate
 * text, branch and magic word to a local apply.
 */
import type { SubmitChannel } from '../schemas/api/fix-values.js';
import type { CandidateTexts } from './candidates.js';
import { FixCandidateInvalidError, FixDeliveryInvalidError, FixStatusConflictError, FixThrottledError, codeHostUnavailable } from './errors.js';
import type { PipelineContext } from './pipeline-context.js';
import type { ProblemInfo } from './problem-source.js';
import { fixBranch, magicWord } from './short-ref.js';
import type { FixEntry } from './store.js';
import { publicFix, type CandidateRef, type Fix, type FixStatus, type StoredFix } from './types.js';

export const MAX_OPEN_PRS = 3;

const PRE_DELIVERY: readonly FixStatus[] = ['DRAFT', 'SCOPING', 'PROPOSING', 'PROPOSED', 'GATING', 'GATE_FAILED', 'GATE_INCONCLUSIVE', 'VERIFIED'];

/** The draft PR's body: the problem, changelog and risks, the holdout result, and the magic word that links the merge back. */
function prBody(f: StoredFix, candidateRef: CandidateRef, p: ProblemInfo | null, mw: string): string {
  const g = f.gateResult;
  return [
    `Candidate fix for the problem "${(p?.displayName ?? f.problemId).replace(/[\r\n]+/g, ' ').slice(0, 200)}" (rubric v${f.rubricVersion}).`,
    '',
    candidateRef.changelog ? `Changelog: ${candidateRef.changelog}` : '',
    candidateRef.risks ? `Risks: ${candidateRef.risks}` : '',
    g ? `Replay gate on ${g.holdout.n} held-out cases: ${g.holdout.wins} wins, ${g.holdout.losses} losses, noise floor ${g.noiseFloor}, verdict ${g.verdict}.` : '',
    `Candidate prompt version: ${candidateRef.promptVersionId}.`,
    '',
    `Fixes ${mw}`,
  ]
    .filter((l, i, a) => l !== '' || a[i - 1] !== '')
    .join('\n');
}

export interface Delivery {
  submit(tenant: string, fixId: string, input: { channel: SubmitChannel; localRef?: string }, actor: string): Promise<Fix>;
  checkout(tenant: string, fixId: string): Promise<{ fix: Fix; targetPath: string | null; candidateText: string; branch: string; magicWord: string; candidateVersionId: string }>;
}

export function createDelivery(ctx: PipelineContext, texts: CandidateTexts): Delivery {
  const { deps } = ctx;

  const submit: Delivery['submit'] = async (tenant, fixId, { channel, localRef }, actor) => {
    const e = await ctx.load(tenant, fixId);
    const f = e.fix;
    if (f.status !== 'VERIFIED') throw new FixStatusConflictError('submit', f.status, 'VERIFIED');
    const all = (await deps.fixes.list(tenant)).filter((x) => x.fix.id !== f.id);
    const supersede = async () => {
      for (const o of all) {
        const sameTarget = (o.fix.problemId === f.problemId || (!!f.targetSourcePath && o.fix.targetSourcePath === f.targetSourcePath)) && PRE_DELIVERY.includes(o.fix.status);
        if (sameTarget && o.fix.createdAt <= f.createdAt) {
          await ctx.tryWrite(o, { status: 'SUPERSEDED', statusReason: `superseded by ${magicWord(f.shortRef, deps.magicPrefix)} (delivered first)` }, 'submit', actor);
        }
      }
    };
    if (channel === 'local_ref') {
      if (!localRef) throw new FixDeliveryInvalidError('localRef is required with channel local_ref');
      const w = await ctx.mustWrite(e, { status: 'APPLIED_LOCALLY', statusReason: `applied locally on ${localRef}`, deliveryChannel: 'local', prBranch: localRef }, 'submit', actor);
      await supersede();
      return publicFix(w.fix);
    }
    if (!f.targetSourcePath || !f.candidateRef?.promptVersionId) {
      throw new FixDeliveryInvalidError('a pr submit needs a routed target file and a registered candidate version (use channel local_ref for a locally verified candidate)');
    }
    if (!deps.codeHost) throw codeHostUnavailable();
    const open = all.filter((x) => x.fix.status === 'PR_OPEN');
    const name = (x: FixEntry) => `${magicWord(x.fix.shortRef, deps.magicPrefix)} (fix ${x.fix.id}, ${x.fix.prUrl ?? 'no url'})`;
    const sameProblem = open.find((x) => x.fix.problemId === f.problemId);
    if (sameProblem) throw new FixThrottledError(`duplicate PR: the problem already has an open fix PR: ${name(sameProblem)}`);
    const sameFile = open.find((x) => x.fix.targetSourcePath === f.targetSourcePath);
    if (sameFile) throw new FixThrottledError(`duplicate PR: ${f.targetSourcePath} already has an open fix PR: ${name(sameFile)}`);
    if (open.length >= MAX_OPEN_PRS) throw new FixThrottledError(`${open.length} fix PRs are open in this workspace (limit ${MAX_OPEN_PRS}), e.g. ${name(open[0]!)}`);
    const c = await ctx.claim(e, {}, actor);
    if (!c.won) throw new FixStatusConflictError('submit', `${c.entry.fix.status} (a step is in progress)`, '');
    const mw = magicWord(f.shortRef, deps.magicPrefix);
    const branch = fixBranch(f.shortRef);
    let pr: { url: string; number: number };
    try {
      const { content } = await texts.candidateOf(f);
      const p = await deps.problems.get(tenant, f.problemId);
      const body = prBody(f, f.candidateRef, p, mw);
      pr = await deps.codeHost.openDraftPr({ branch, title: `Fix ${mw}: ${(p?.displayName ?? '').replace(/[\r\n]+/g, ' ').slice(0, 80)}`.trim(), body, path: f.targetSourcePath, content, commitMessage: `Fix ${mw}` });
    } catch (err) {
      await ctx.release(c.entry, actor);
      throw err;
    }
    const w = await ctx.mustWrite(c.entry, { status: 'PR_OPEN', statusReason: `draft PR opened: ${pr.url}`, deliveryChannel: 'pr', prUrl: pr.url, prBranch: branch, prNumber: pr.number, claim: null }, 'submit', actor);
    await supersede();
    return publicFix(w.fix);
  };

  const checkout: Delivery['checkout'] = async (tenant, fixId) => {
    const e = await ctx.load(tenant, fixId);
    const f = e.fix;
    if (f.fixType === 'TOOL_SCHEMA' || f.fixType === 'SKILL') throw new FixCandidateInvalidError(`${f.fixType} fixes have no candidate text to check out: use the packet`);
    const stored = await texts.get(tenant, f.id);
    if (!f.candidateRef || !stored) throw new FixCandidateInvalidError('the fix has no proposed candidate yet (advance it to PROPOSED first)');
    return {
      fix: publicFix(f),
      targetPath: f.targetSourcePath,
      candidateText: stored.content,
      branch: fixBranch(f.shortRef),
      magicWord: `Fixes ${magicWord(f.shortRef, deps.magicPrefix)}`,
      candidateVersionId: f.candidateRef.promptVersionId,
    };
  };

  return { submit, checkout };
}
