/**
 * The proposing step (PROPOSING → PROPOSED, NO_HEADROOM or ABANDONED): the proposer patches the
 * baseline from the repair cases only (the holdout never reaches it); the candidate is stored and,
 * when the prompt is in the registry, registered as a new version.
 */
import type { CandidateTexts } from './candidates.js';
import type { FixPipelineDeps, StepWork } from './pipeline-context.js';
import { sha256 } from './prompts.js';
import { magicWord } from './short-ref.js';

export function createProposeStep(deps: FixPipelineDeps, texts: CandidateTexts): StepWork {
  return async (f) => {
    const p = await deps.problems.get(f.tenantId, f.problemId);
    if (!p || p.lifecycle === 'resolved') return { status: 'ABANDONED', statusReason: p ? 'the problem was resolved before the fix was delivered' : 'the problem no longer exists' };
    const set = f.replaySetId ? await deps.replay.getSet(f.tenantId, f.replaySetId) : undefined;
    const repairIds = new Set(f.repairCaseIds);
    // the holdout never reaches a proposer
    const repairCases = (set?.cases ?? []).filter((c) => repairIds.has(c.case_id));
    const hints = (await deps.evidence.toolFailures(f.tenantId, repairCases.map((c) => c.conversation_id))).map((t) => t.actionHint).filter(Boolean);
    const baseline = await texts.baselineContent(f);
    const proposal = await deps.proposer.propose({ problem: p, baseline, repairCases, actionHints: hints, magicWord: magicWord(f.shortRef, deps.magicPrefix) });
    if (!proposal) return { status: 'NO_HEADROOM', statusReason: `the ${deps.proposer.kind} proposer found nothing to add to the baseline prompt` };
    await texts.put(f.tenantId, f.id, proposal.content);
    let promptVersionId = '';
    if (f.promptId) {
      const v = await deps.prompts.addVersion(f.tenantId, f.promptId, proposal.content, { source: 'fix', changelog: proposal.changelog, risks: proposal.risks });
      promptVersionId = v.versionId;
    }
    return {
      status: 'PROPOSED',
      statusReason: promptVersionId ? `candidate registered as prompt version ${promptVersionId}` : 'candidate proposed (the prompt is not in the registry: not registered as a version)',
      candidateRef: { promptVersionId, changelog: proposal.changelog, risks: proposal.risks, ...(promptVersionId ? {} : { contentSha256: sha256(proposal.content) }) },
    };
  };
}
