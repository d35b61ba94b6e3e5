/**
 * The scoping step (DRAFT/SCOPING → PROPOSING, HANDED_OFF, UNROUTED, NO_EVIDENCE,
 * BLOCKED_COVERAGE or ABANDONED): builds the replay set from the problem's trusted attributions,
 * splits it into repair and holdout cases, and routes the fix to a harness artifact.
 */
import { routeProblem } from './harness.js';
import type { FixPipelineDeps, StepWork } from './pipeline-context.js';
import type { ProblemInfo } from './problem-source.js';
import { sha256 } from './prompts.js';
import type { ReplayCase } from './replay-protocol.js';
import { magicWord } from './short-ref.js';
import type { StoredFix } from './types.js';

export const MIN_REPLAY_CASES = 4;
export const MAX_REPLAY_CASES = 40;

/** The replay checks of a problem: its cause statement's three longest distinctive words. */
function checksOf(p: ProblemInfo): string[] {
  const stop = new Set(['which', 'where', 'there', 'their', 'about', 'after', 'before', 'because', 'should', 'would', 'could', 'agent', 'users', 'being', 'other', 'without']);
  const words = (p.causeStatement.toLowerCase().match(/[a-z][a-z-]{4,}/g) ?? []).filter((w) => !stop.has(w));
  return [...new Set(words)].sort((a, b) => b.length - a.length || a.localeCompare(b)).slice(0, 3);
}

export function createScopeStep(deps: FixPipelineDeps): StepWork {
  return async (f) => {
    const p = await deps.problems.get(f.tenantId, f.problemId);
    if (!p || p.lifecycle === 'resolved') return { status: 'ABANDONED', statusReason: p ? 'the problem was resolved before the fix was delivered' : 'the problem no longer exists' };
    const attributions = await deps.problems.trustedAttributions(f.tenantId, p.problemId);
    if (!attributions.length) return { status: 'NO_EVIDENCE', statusReason: 'the problem has no trusted attributions to build a replay set from', rubricVersion: p.rubricVersion };
    const byConversation = new Map<string, number>();
    for (const a of attributions) if (!byConversation.has(a.conversationId)) byConversation.set(a.conversationId, a.msgIndex);
    const ids = [...byConversation.keys()].sort().slice(0, MAX_REPLAY_CASES);
    if (ids.length < MIN_REPLAY_CASES) {
      return { status: 'BLOCKED_COVERAGE', statusReason: `${ids.length} evidence conversation(s); a gate needs at least ${MIN_REPLAY_CASES} (repair and holdout)`, rubricVersion: p.rubricVersion };
    }
    const [scenarios, failures] = await Promise.all([deps.evidence.scenarios(f.tenantId, ids), deps.evidence.toolFailures(f.tenantId, ids)]);
    const failingTools: Record<string, number> = {};
    for (const t of failures) failingTools[t.toolName] = (failingTools[t.toolName] ?? 0) + t.failures;
    const text = [p.displayName, p.causeStatement, JSON.stringify(p.matchCriteria ?? {}), p.families.join(' ')].join(' ');
    const graph = await deps.harness.latestGraph(f.tenantId);
    const decision = routeProblem(graph, { failingTools, text }, f.requestedRoute);
    const checks = checksOf(p);
    const cases: ReplayCase[] = ids.map((id, i) => ({ case_id: `c${String(i + 1).padStart(3, '0')}`, conversation_id: id, msg_index: byConversation.get(id)!, scenario: scenarios.get(id) ?? '', checks }));
    // deterministic split: order by a hash of the conversation id; every second case is held out
    const ordered = [...cases].sort((a, b) => sha256(a.conversation_id).localeCompare(sha256(b.conversation_id)));
    const holdout = ordered.filter((_, i) => i % 2 === 1).map((c) => c.case_id);
    const repair = ordered.filter((_, i) => i % 2 === 0).map((c) => c.case_id);
    const set = await deps.replay.createSet(f.tenantId, { name: `${magicWord(f.shortRef, deps.magicPrefix)} replay set`, cases, source: 'fix' });
    const common: Partial<StoredFix> = { rubricVersion: p.rubricVersion, replaySetId: set.setId, repairCaseIds: repair, holdoutCaseIds: holdout, problemRank: p.rankScore };
    // spec: an unrouted fix has fix type UNROUTED and null target fields (packet-only)
    const unrouted = (statusReason: string): Partial<StoredFix> => ({
      ...common,
      fixType: 'UNROUTED',
      status: 'UNROUTED',
      statusReason,
      targetArtifactKey: null,
      targetSourcePath: null,
      routeConfidence: null,
      promptId: null,
      baselineVersionId: null,
    });
    if (!decision) {
      return unrouted(graph ? `no harness artifact matches the evidence${f.requestedRoute === 'prompt' ? ' (prompt route only)' : ''}` : 'no harness graph uploaded (harness_sync) to route the problem to');
    }
    const routed: Partial<StoredFix> = {
      ...common,
      fixType: decision.fixType,
      targetArtifactKey: decision.artifact.key,
      targetSourcePath: decision.artifact.source_path ?? null,
      routeConfidence: decision.confidence,
    };
    if (decision.fixType !== 'PROMPT') {
      return { ...routed, status: 'HANDED_OFF', statusReason: `${decision.fixType} fixes are packet-only: apply the packet in the harness repository` };
    }
    const rec = await deps.prompts.get(f.tenantId, decision.artifact.prompt_key ?? decision.artifact.key);
    const baselineVersionId = rec && !rec.removed ? (rec.labels.prod ?? null) : null;
    if (!baselineVersionId && decision.artifact.content === undefined) {
      return unrouted(`prompt artifact ${decision.artifact.key} has no prod-labeled registry version and no content in the harness graph to patch`);
    }
    return {
      ...routed,
      promptId: rec?.promptId ?? null,
      baselineVersionId,
      status: 'PROPOSING',
      statusReason: `routed to ${decision.artifact.key} (confidence ${decision.confidence}); ${repair.length} repair and ${holdout.length} holdout cases`,
    };
  };
}
