/**
 * The state one engine pass changes as it goes: the problems by id (the previous run's, cloned,
 * then the new ones), the change events, rubric versions and aliases it writes, and the ground
 * truth that feedback gives verification.
 */
import type { EngineConfig } from './engine-contract.js';
import { uuidFrom } from './text.js';
import type { ChangeEvent, ProblemState, Rubric } from './types.js';
import type { GroundTruth } from './verify.js';

export const iso = (ms: number) => new Date(ms).toISOString();

export const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

export interface RunState {
  tenant: string;
  runId: string;
  /** The pass's clock in ms, and as ISO text (every time the pass writes). */
  now: number;
  nowIso: string;
  cfg: EngineConfig;
  problems: Map<string, ProblemState>;
  events: ChangeEvent[];
  /** New rubric versions written this run. */
  definitions: Array<{ problem_id: string; rubric: Rubric }>;
  aliases: Array<{ alias_id: string; problem_id: string }>;
  groundTruth: GroundTruth[];
  /** Records a change event of `p` (ids numbered in the order of the pass). */
  event(p: ProblemState, kind: string, reason: string, related?: string | null): void;
  /** A new rubric version of `p` (and a new causal content version when `causal`). */
  bump(p: ProblemState, reason: string, causal: boolean): void;
  /** The problem `id` names, following merges to the survivor. */
  survivor(id: string): ProblemState | undefined;
  /**
   * Passed ground truth: the attributions of `p` its judge passed at its current causal version
   * (the evidence the problem's page showed) are confirmed by an analyst action that accepts the
   * problem as real — mark_fixed, rename — or by a fix that held through the clean period.
   */
  confirm(p: ProblemState, why: string): void;
}

export function createRunState(deps: { tenant: string; runId: string; now: number; cfg: EngineConfig; previous: readonly ProblemState[] }): RunState {
  const nowIso = iso(deps.now);
  const events: ChangeEvent[] = [];
  const definitions: Array<{ problem_id: string; rubric: Rubric }> = [];
  const groundTruth: GroundTruth[] = [];
  const problems = new Map<string, ProblemState>(deps.previous.map((p) => [p.problem_id, clone(p)]));
  let eventSeq = 0;
  const event = (p: ProblemState, kind: string, reason: string, related: string | null = null) => {
    events.push({
      problem_id: p.problem_id,
      event_id: uuidFrom('event', deps.tenant, deps.runId, p.problem_id, String(eventSeq++)),
      event_kind: kind,
      related_problem_id: related,
      rubric_version: p.rubric.version,
      causal_content_version: p.rubric.causal_content_version,
      reason,
      created_ts: nowIso,
    });
  };
  const bump = (p: ProblemState, reason: string, causal: boolean) => {
    p.rubric.version += 1;
    if (causal) p.rubric.causal_content_version += 1;
    p.rubric.change_reason = reason;
    p.rubric.updated_at = nowIso;
    p.updated_at = nowIso;
    definitions.push({ problem_id: p.problem_id, rubric: clone(p.rubric) });
    event(p, 'rubric_version', reason);
  };
  const survivor = (id: string): ProblemState | undefined => {
    let p = problems.get(id);
    for (let i = 0; p && p.status === 'merged' && p.merged_into && i < 20; i++) p = problems.get(p.merged_into);
    return p;
  };
  const confirm = (p: ProblemState, why: string) => {
    const ccv = p.rubric.causal_content_version;
    const flagged = new Set(p.samples.filter((s) => s.kind === 'ground_truth' && !s.passed).map((s) => s.attribution_id));
    for (const s of p.samples) {
      if (s.kind !== 'judge_audit' || !s.passed || s.causal_content_version !== ccv || flagged.has(s.attribution_id)) continue;
      groundTruth.push({ problem_id: p.problem_id, attribution_id: s.attribution_id, conversation_id: s.conversation_id, segment_id: s.segment_id, reason: why, passed: true, causal_content_version: ccv });
    }
  };
  return { tenant: deps.tenant, runId: deps.runId, now: deps.now, nowIso, cfg: deps.cfg, problems, events, definitions, aliases: [], groundTruth, event, bump, survivor, confirm };
}
