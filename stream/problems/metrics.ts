/**
 * Metrics of a problem from its attribution rows (docs/analyses.md "Problems", Metrics): signal and
 * family-weighted counts, affected users and conversations, coverage of the conversations'
 * negative signals, abandonment, the step-score gap to the other conversations, recency and trend.
 * A macro problem's metrics are those of its active leaves' rows.
 */
import type { AttributionState } from './attribute.js';
import { FAMILY_WEIGHTS } from './rank.js';
import type { RunState } from './run-state.js';
import type { Attribution, ProblemMetrics } from './types.js';

/** Metrics of a problem without evidence (all zero, no times). */
export function emptyMetrics(): ProblemMetrics {
  return {
    total_attributions: 0,
    signal_count: 0,
    family_weighted_count: 0,
    affected_users: 0,
    affected_conversations: 0,
    unknown_identity_conversations: 0,
    agg_prm_delta: 0,
    abandonment_rate: 0,
    recency_score: 0,
    trend_score: 0,
    multi_family: false,
    family_counts: {},
    coverage_overall: 0,
    coverage_by_family: {},
    first_signal_at: '',
    last_signal_at: '',
    rank_score: 0,
  };
}

/** Sets the metrics of every problem that is not merged away. */
export function computeMetrics(run: RunState, st: AttributionState, blended: ReadonlyMap<string, number>, rowsOf: ReadonlyMap<string, Attribution[]>): void {
  const { now, problems } = run;
  const { signals } = st;
  const negByConv = new Map<string, Map<string, number>>();
  for (const s of signals) {
    let m = negByConv.get(s.conversation_id);
    if (!m) negByConv.set(s.conversation_id, (m = new Map()));
    m.set(s.family, (m.get(s.family) ?? 0) + 1);
  }
  const abandoned = new Set(signals.filter((s) => s.kind === 'abandonment').map((s) => s.conversation_id));
  const blendedAll = [...blended.values()];
  for (const p of problems.values()) {
    if (p.status === 'merged') continue;
    const list = p.rubric.tier === 'macro' ? [...problems.values()].filter((c) => c.rubric.parent_problem_id === p.problem_id && c.status === 'active').flatMap((c) => rowsOf.get(c.problem_id) ?? []) : (rowsOf.get(p.problem_id) ?? []);
    p.metrics = metricsOf(list, { now, negByConv, abandoned, blended, blendedAll });
  }
}

interface MetricsContext {
  now: number;
  negByConv: ReadonlyMap<string, ReadonlyMap<string, number>>;
  abandoned: ReadonlySet<string>;
  blended: ReadonlyMap<string, number>;
  blendedAll: readonly number[];
}

/** Metrics of the rows `list` (the base of coverage and the step-score gap comes from `ctx`). */
export function metricsOf(list: readonly Attribution[], ctx: MetricsContext): ProblemMetrics {
  const m = emptyMetrics();
  if (list.length === 0) return m;
  const convs = new Set<string>();
  const users = new Set<string>();
  const unknown = new Set<string>();
  let first = '';
  let last = '';
  let recent = 0;
  let before = 0;
  const week = 7 * 86_400_000;
  const explainedByFamily = new Map<string, number>();
  for (const r of list) {
    m.total_attributions += 1;
    m.signal_count += r.dedup_count;
    m.family_counts[r.signal_family] = (m.family_counts[r.signal_family] ?? 0) + r.dedup_count;
    m.family_weighted_count += r.dedup_count * (FAMILY_WEIGHTS[r.signal_family] ?? FAMILY_WEIGHTS[r.signal_kind] ?? 1);
    explainedByFamily.set(r.signal_family, (explainedByFamily.get(r.signal_family) ?? 0) + r.dedup_count);
    convs.add(r.conversation_id);
    if (r.user_id) users.add(r.user_id);
    else unknown.add(r.conversation_id);
    if (!first || r.signal_ts < first) first = r.signal_ts;
    if (!last || r.signal_ts > last) last = r.signal_ts;
    const age = ctx.now - Date.parse(r.signal_ts);
    if (age <= week) recent += r.dedup_count;
    else if (age <= 2 * week) before += r.dedup_count;
  }
  m.family_weighted_count = Math.round(m.family_weighted_count * 100) / 100;
  m.affected_conversations = convs.size;
  m.affected_users = users.size;
  m.unknown_identity_conversations = [...unknown].filter((c) => !list.some((r) => r.conversation_id === c && r.user_id)).length;
  m.first_signal_at = first;
  m.last_signal_at = last;
  m.multi_family = Object.keys(m.family_counts).length > 1;
  let total = 0;
  const totalByFamily = new Map<string, number>();
  for (const c of convs) {
    for (const [f, n] of ctx.negByConv.get(c) ?? []) {
      total += n;
      totalByFamily.set(f, (totalByFamily.get(f) ?? 0) + n);
    }
  }
  m.coverage_overall = total ? round3(m.signal_count / total) : 0;
  for (const [f, n] of explainedByFamily) m.coverage_by_family[f] = round3(n / (totalByFamily.get(f) || n));
  m.abandonment_rate = round3([...convs].filter((c) => ctx.abandoned.has(c)).length / convs.size);
  const inside = [...convs].map((c) => ctx.blended.get(c)).filter((x): x is number => x !== undefined);
  const outside: number[] = [];
  for (const [c, v] of ctx.blended) if (!convs.has(c)) outside.push(v);
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  m.agg_prm_delta = inside.length && outside.length ? round3(mean(inside) - mean(outside)) : 0;
  const ageDays = last ? Math.max(0, (ctx.now - Date.parse(last)) / 86_400_000) : 365;
  m.recency_score = round3(Math.exp(-ageDays / 7));
  m.trend_score = round3(Math.max(-1, Math.min(1, (recent - before) / Math.max(1, recent + before))));
  return m;
}

/** Rounded to 3 decimals. */
export const round3 = (x: number) => Math.round(x * 1000) / 1000;
