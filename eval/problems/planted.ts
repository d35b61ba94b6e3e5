/**
 * The planted-cause evaluation of the problems engine: generated conversations analyzed offline
 * by the same analyzers the stream role runs, their signals through one engine pass (and a second
 * pass on the first's state, as the next run would), then
 *
 * - each planted cause must be recovered as a distinct trusted problem in the top 5 (the problem
 *   holding most of that cause's planted signals);
 * - attribution precision and recall per cause at signal level: a signal is planted when it sits on
 *   a message the cause produced; recall over the planted signals the analyzers detected, with
 *   conversation-level recall (planted conversations the problem reaches) beside it;
 * - no problem of the top 5 made of noise alone.
 */
import { analyzeDirectEvents } from '../../stream/analyses/offline.js';
import { snapshotsFromDirectEvents } from '../../stream/analyses/direct-input.js';
import { workspaceEnv } from '../../stream/analyses/workspace.js';
import { runEngine, type EngineConfig, type EngineOutput } from '../../stream/problems/engine.js';
import { extractSignals, sourceFromAnalysis } from '../../stream/problems/signals.js';
import type { ProblemState, Signal } from '../../stream/problems/types.js';
import { generateProblemSet, PLANTED_CAUSES, type GenerateOptions, type GeneratedConversation, type PlantedCause } from './generator.js';

export interface CauseResult {
  cause: PlantedCause;
  problem_id: string | null;
  display_name: string;
  rank: number | null;
  verification_status: string;
  planted_signals: number;
  detected_planted_signals: number;
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  conversations: number;
  conversations_reached: number;
}

export interface PlantedResult {
  seed: number;
  conversations: number;
  signals: number;
  causes: CauseResult[];
  top5: Array<{ rank: number; problem_id: string; display_name: string; planted_signals: number; noise_signals: number; cause: PlantedCause | null; rank_score: number }>;
  noise_only_in_top5: number;
  distinct_recovered: number;
  problems_total: number;
  emerging: number;
  coverage_pct: number;
  stable_ids: boolean;
}

export function signalsOfSet(set: readonly GeneratedConversation[]): { signals: Signal[]; blended: Map<string, number> } {
  const events = set.flatMap((c) => c.events);
  const { results } = analyzeDirectEvents(events, { workspace: workspaceEnv });
  const { snapshots } = snapshotsFromDirectEvents(events);
  const byId = new Map(snapshots.map((s) => [s.conversationId, s]));
  const signals: Signal[] = [];
  const blended = new Map<string, number>();
  for (const a of results) {
    const s = byId.get(a.conversation_id);
    if (!s) continue;
    const src = sourceFromAnalysis(s, a);
    signals.push(...extractSignals(src));
    if (src.blended !== null) blended.set(src.conversation_id, src.blended);
  }
  return { signals, blended };
}

export function trustedRanking(out: EngineOutput): ProblemState[] {
  return out.problems
    .filter((p) => p.status === 'active' && p.rubric.tier === 'leaf' && p.verification_status === 'current')
    .sort((a, b) => b.metrics.rank_score - a.metrics.rank_score || (a.problem_id < b.problem_id ? -1 : 1));
}

export function evaluatePlanted(seed: number, n: number, config: Partial<EngineConfig> = {}, gen: GenerateOptions = {}): PlantedResult {
  const set = generateProblemSet(seed, n, undefined, gen);
  const { signals, blended } = signalsOfSet(set);
  const now = Date.parse('2026-06-15T00:00:00Z');
  const first = runEngine({ tenant: 'eval', runId: 'run-1', now, signals, previous: [], previousAttributions: new Map(), feedback: [], blended, conversationCount: set.length, config });
  const prevAttr = new Map(first.attributions.map((a) => [a.attribution_id, { first_assigned_at: a.first_assigned_at, conversation_id: a.conversation_id, signal_family: a.signal_family, signal_type: a.signal_type, problem_id: a.problem_id, segment_id: a.segment_id }]));
  const out = runEngine({ tenant: 'eval', runId: 'run-2', now: now + 600_000, signals, previous: first.problems, previousAttributions: prevAttr, feedback: [], blended, conversationCount: set.length, config });
  const stableIds = trustedRanking(first).map((p) => p.problem_id).join() === trustedRanking(out).map((p) => p.problem_id).join();

  const convOf = new Map(set.map((c) => [c.id, c]));
  const plantedCause = (s: Signal): PlantedCause | null => {
    const c = convOf.get(s.conversation_id);
    return c && c.cause && c.planted.includes(s.msg_index) ? c.cause : null;
  };
  const ranking = trustedRanking(out);
  const top5 = ranking.slice(0, 5);
  const plantedByProblem = new Map<string, Map<PlantedCause | 'noise', number>>();
  for (const s of signals) {
    const p = out.explained.get(s.signal_id);
    if (!p) continue;
    let m = plantedByProblem.get(p);
    if (!m) plantedByProblem.set(p, (m = new Map()));
    const k = plantedCause(s) ?? 'noise';
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  const causes: CauseResult[] = [];
  const used = new Set<string>();
  for (const cause of PLANTED_CAUSES) {
    const best = [...ranking].filter((p) => !used.has(p.problem_id)).sort((a, b) => (plantedByProblem.get(b.problem_id)?.get(cause) ?? 0) - (plantedByProblem.get(a.problem_id)?.get(cause) ?? 0))[0];
    const hit = best && (plantedByProblem.get(best.problem_id)?.get(cause) ?? 0) > 0 ? best : undefined;
    if (hit) used.add(hit.problem_id);
    let tp = 0;
    let fp = 0;
    let fn = 0;
    let detected = 0;
    const reached = new Set<string>();
    for (const s of signals) {
      const truth = plantedCause(s) === cause;
      const attributed = hit !== undefined && out.explained.get(s.signal_id) === hit.problem_id;
      if (truth) detected++;
      if (truth && attributed) tp++;
      else if (attributed) fp++;
      else if (truth) fn++;
      if (attributed && convOf.get(s.conversation_id)?.cause === cause) reached.add(s.conversation_id);
    }
    const plantedConvs = set.filter((c) => c.cause === cause);
    causes.push({
      cause,
      problem_id: hit?.problem_id ?? null,
      display_name: hit?.rubric.display_name ?? '',
      rank: hit ? ranking.indexOf(hit) + 1 : null,
      verification_status: hit?.verification_status ?? 'missing',
      planted_signals: plantedConvs.reduce((a, c) => a + c.planted.length, 0),
      detected_planted_signals: detected,
      tp,
      fp,
      fn,
      precision: tp + fp ? tp / (tp + fp) : 0,
      recall: tp + fn ? tp / (tp + fn) : 0,
      conversations: plantedConvs.length,
      conversations_reached: reached.size,
    });
  }
  const causeOfProblem = new Map(causes.filter((c) => c.problem_id).map((c) => [c.problem_id!, c.cause]));
  const top = top5.map((p, i) => {
    const m = plantedByProblem.get(p.problem_id) ?? new Map();
    const planted = PLANTED_CAUSES.reduce((a, c) => a + (m.get(c) ?? 0), 0);
    return { rank: i + 1, problem_id: p.problem_id, display_name: p.rubric.display_name, planted_signals: planted, noise_signals: m.get('noise') ?? 0, cause: causeOfProblem.get(p.problem_id) ?? null, rank_score: p.metrics.rank_score };
  });
  return {
    seed,
    conversations: set.length,
    signals: signals.length,
    causes,
    top5: top,
    noise_only_in_top5: top.filter((t) => t.planted_signals === 0).length,
    distinct_recovered: causes.filter((c) => c.rank !== null && c.rank <= 5).length,
    problems_total: out.problems.filter((p) => p.status === 'active').length,
    emerging: out.problems.filter((p) => p.status === 'active' && p.rubric.provisional).length,
    coverage_pct: Math.round((out.stats.attributed_signals / Math.max(1, out.stats.signals)) * 1000) / 10,
    stable_ids: stableIds,
  };
}

/**
 * The baseline: one "problem" per signal family (the failure family of a call, the family of an
 * emotion, laziness, contradicted claims, low step scores, abandonment), ranked by signal count —
 * what a dashboard of top signal families shows. Per planted cause the family group holding most
 * of its signals is taken as its problem.
 */
export function evaluateBaseline(seed: number, n: number, gen: GenerateOptions = {}): Array<{ cause: PlantedCause; group: string; rank: number; precision: number; recall: number }> {
  const set = generateProblemSet(seed, n, undefined, gen);
  const { signals } = signalsOfSet(set);
  const convOf = new Map(set.map((c) => [c.id, c]));
  const groupOf = (s: Signal) => `${s.kind}:${s.family}`;
  const counts = new Map<string, number>();
  for (const s of signals) counts.set(groupOf(s), (counts.get(groupOf(s)) ?? 0) + 1);
  const ranking = [...counts].sort((a, b) => b[1] - a[1]).map(([g]) => g);
  return PLANTED_CAUSES.map((cause) => {
    const truth = (s: Signal) => {
      const c = convOf.get(s.conversation_id);
      return c?.cause === cause && c.planted.includes(s.msg_index);
    };
    const per = new Map<string, number>();
    for (const s of signals) if (truth(s)) per.set(groupOf(s), (per.get(groupOf(s)) ?? 0) + 1);
    const group = [...per].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (const s of signals) {
      const t = truth(s);
      const a = groupOf(s) === group;
      if (t && a) tp++;
      else if (a) fp++;
      else if (t) fn++;
    }
    return { cause, group, rank: ranking.indexOf(group) + 1, precision: tp + fp ? tp / (tp + fp) : 0, recall: tp + fn ? tp / (tp + fn) : 0 };
  });
}
