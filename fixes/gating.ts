/**
 * The replay gate: a gate run (baseline vs candidate over repair and holdout cases) and a control
 * run (baseline vs baseline over the holdout, the noise floor) are queued together; polling them
 * folds the results into a verdict (GATING → VERIFIED, GATE_FAILED or GATE_INCONCLUSIVE).
 * `verify` re-gates a proposed or gated fix, optionally with an uploaded candidate.
 */
import { BadRequestError } from '../core/errors.js';
import { CANDIDATE_MIN_CHARS } from '../schemas/api/fix-values.js';
import type { ArmText, CandidateTexts } from './candidates.js';
import { FixCandidateInvalidError, FixStatusConflictError } from './errors.js';
import type { PipelineContext } from './pipeline-context.js';
import { sha256 } from './prompts.js';
import { runEnded, type CaseScore, type RunStatus } from './replay.js';
import type { FixEntry } from './store.js';
import { publicFix, type Fix, type FixStatus, type GateResult, type StoredFix } from './types.js';
import { verdictOf } from './verdict.js';

const VERIFY_FROM: readonly FixStatus[] = ['PROPOSED', 'VERIFIED', 'GATE_FAILED', 'GATE_INCONCLUSIVE'];

/**
 * The gate result of finished gate and control runs: arm means, holdout wins/losses, noise floor,
 * verdict. A holdout case without a usable result counts as abstained: one the gate run has no
 * score for (a replay errored, or the run ended without it) and, when the control run did not
 * complete, one the control run has no measured result for (its noise is unknown).
 */
export function gateResultOf(f: StoredFix, gate: RunStatus, control: RunStatus): GateResult {
  const holdoutIds = new Set(f.holdoutCaseIds);
  const controlMeasured = new Set(control.cases.filter((c) => !c.abstained).map((c) => c.caseId));
  const usable = (c: CaseScore) => control.status === 'completed' || !holdoutIds.has(c.caseId) || controlMeasured.has(c.caseId);
  const byId = new Map(gate.cases.filter(usable).map((c) => [c.caseId, c]));
  const mean = (xs: number[]) => (xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1000) / 1000 : 0);
  const arm = (ids: string[]) => {
    const live = ids.map((id) => byId.get(id)).filter((c) => c && !c.abstained) as Array<{ baseline: number; candidate: number }>;
    return { baseline: mean(live.map((c) => c.baseline)), candidate: mean(live.map((c) => c.candidate)), n: ids.length };
  };
  let wins = 0;
  let losses = 0;
  let abstained = 0;
  for (const id of f.holdoutCaseIds) {
    const c = byId.get(id);
    if (!c || c.abstained) {
      abstained++;
      continue;
    }
    if (c.candidate! > c.baseline!) wins++;
    else if (c.candidate! < c.baseline!) losses++;
  }
  const noiseFloor = control.cases.filter((c) => !c.abstained && c.baseline !== c.candidate).length;
  const v = verdictOf({ holdoutN: f.holdoutCaseIds.length, wins, losses, abstained, noiseFloor });
  return { repair: arm(f.repairCaseIds), holdout: { ...arm(f.holdoutCaseIds), wins, losses }, noiseFloor, abstained, verdict: v.verdict, reason: v.reason };
}

const VERDICT_STATUS: Record<GateResult['verdict'], FixStatus> = { pass: 'VERIFIED', fail: 'GATE_FAILED', inconclusive: 'GATE_INCONCLUSIVE' };

/**
 * What polling the gate gives (spec: GATING → VERIFIED / GATE_FAILED / GATE_INCONCLUSIVE once both
 * runs finished, GATING with progress otherwise). A run has finished when it is `completed`,
 * `skipped` or `error`; the verdict rules then decide (cases without usable results abstain).
 */
export function gateOutcome(f: StoredFix, gate: RunStatus, control: RunStatus): Pick<StoredFix, 'status' | 'statusReason'> & { gateResult?: GateResult } {
  if (!runEnded(gate.status) || !runEnded(control.status)) {
    return { status: 'GATING', statusReason: `gate ${gate.received}/${gate.expected} results, control ${control.received}/${control.expected}` };
  }
  const result = gateResultOf(f, gate, control);
  const ended = [gate, control].filter((r) => r.status !== 'completed').map((r) => `${r.kind} run ${r.status}${r.error ? `: ${r.error}` : ''}`);
  const reason = ended.length ? `${result.reason} (${ended.join('; ')})` : result.reason;
  return { status: VERDICT_STATUS[result.verdict], statusReason: `verdict ${result.verdict}: ${reason}`, gateResult: { ...result, reason } };
}

export interface Gating {
  /** Queues the gate and control runs (the fix must have a replay set and a live replay worker). */
  startGate(f: StoredFix, candidate: ArmText): Promise<Partial<StoredFix>>;
  /** Records progress or, once both runs finished (completed, skipped or error), the verdict. */
  pollGate(e: FixEntry, actor: string): Promise<FixEntry>;
  verify(tenant: string, fixId: string, input: { candidateContent?: string }, actor: string): Promise<{ gateRunId: string; fix: Fix }>;
}

export function createGating(ctx: PipelineContext, texts: CandidateTexts): Gating {
  const { deps } = ctx;
  const seeds = deps.gateSeeds ?? 3;

  const startGate = async (f: StoredFix, candidate: ArmText): Promise<Partial<StoredFix>> => {
    if (!f.replaySetId) throw new FixCandidateInvalidError('the fix has no replay set');
    await deps.replay.requireWorker();
    const baseline = { content: await texts.baselineContent(f), versionId: f.baselineVersionId ?? '' };
    const gate = await deps.replay.startRun(f.tenantId, { setId: f.replaySetId, kind: 'gate', caseIds: [...f.repairCaseIds, ...f.holdoutCaseIds], seeds, assistantModel: '', arms: { baseline, candidate } });
    const control = await deps.replay.startRun(f.tenantId, { setId: f.replaySetId, kind: 'control', caseIds: f.holdoutCaseIds, seeds, assistantModel: '', arms: { baseline, candidate: baseline } });
    return { status: 'GATING', statusReason: 'gate (baseline vs candidate) and control (baseline vs baseline) runs queued', gateRunId: gate.runId, controlRunId: control.runId, gateResult: null };
  };

  const pollGate = async (e: FixEntry, actor: string): Promise<FixEntry> => {
    const f = e.fix;
    if (!f.gateRunId || !f.controlRunId) return e;
    const [gate, control] = await Promise.all([deps.replay.status(f.tenantId, f.gateRunId), deps.replay.status(f.tenantId, f.controlRunId)]);
    const outcome = gateOutcome(f, gate, control);
    if (outcome.statusReason === f.statusReason && outcome.status === 'GATING') return e;
    return (await ctx.tryWrite(e, outcome, 'advance', actor)).entry;
  };

  const verify: Gating['verify'] = async (tenant, fixId, { candidateContent }, actor) => {
    const e = await ctx.load(tenant, fixId);
    const f = e.fix;
    if (!VERIFY_FROM.includes(f.status)) throw new FixStatusConflictError('verify', f.status, VERIFY_FROM.join(', '));
    if (ctx.isClaimed(f)) throw new FixStatusConflictError('verify', `${f.status} (a step is in progress)`, '');
    let candidate: ArmText;
    let candidateRef = f.candidateRef;
    if (candidateContent !== undefined) {
      if (candidateContent.trim().length < CANDIDATE_MIN_CHARS) throw new BadRequestError(`candidateContent must be at least ${CANDIDATE_MIN_CHARS} characters`);
      candidate = { content: candidateContent, versionId: '' };
      candidateRef = { promptVersionId: '', contentSha256: sha256(candidateContent) };
    } else candidate = await texts.candidateOf(f);
    const c = await ctx.claim(e, {}, actor);
    if (!c.won) throw new FixStatusConflictError('verify', `${c.entry.fix.status} (changed concurrently)`, '');
    let patch: Partial<StoredFix>;
    try {
      patch = await startGate(c.entry.fix, candidate);
    } catch (err) {
      await ctx.release(c.entry, actor);
      throw err;
    }
    if (candidateContent !== undefined) await texts.put(tenant, f.id, candidateContent);
    const w = await ctx.mustWrite(c.entry, { ...patch, candidateRef, claim: null }, 'verify', actor);
    return { gateRunId: w.fix.gateRunId!, fix: publicFix(w.fix) };
  };

  return { startGate, pollGate, verify };
}
