/**
 * Reads of the problems endpoints (migration 0120). Every read is of one complete run of the
 * problems engine: the latest, or — for a later page — the run the cursor was issued on while it
 * is still kept (the engine keeps the previous run beside the current one).
 */
import { namedQuery, type Store } from '../../core/clickhouse.js';
import { getProblem, resolveProblemId } from '../../stream/problems/api.js';
import { createProblemsStore, type RunRow } from '../../stream/problems/store.js';
import { kindSummary } from '../../stream/problems/verify.js';
import type { ProblemState, VerificationSample } from '../../stream/problems/types.js';
import { withFields } from '../../core/own.js';

const num = (v: unknown) => Number(v ?? 0);
const r1 = (x: number) => Math.round(x * 10) / 10;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** ClickHouse time text as ISO 8601 with milliseconds and Z. */
export function isoOf(t: unknown): string {
  const s = String(t ?? '');
  const ms = Date.parse(/Z$|[+-]\d\d:?\d\d$/.test(s) ? s : `${s.replace(' ', 'T')}Z`);
  return new Date(Number.isFinite(ms) ? ms : 0).toISOString();
}
/** ISO time as a ClickHouse DateTime64 parameter. */
const chTime = (iso: string) => iso.replace('T', ' ').replace('Z', '');

function parse<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string' || !text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export function problemRow(p: ProblemState) {
  const m = p.metrics;
  const ccv = p.rubric.causal_content_version;
  const judge = p.samples.filter((s) => s.kind === 'judge_audit' && s.causal_content_version === p.verified_causal_version);
  return {
    problem_id: p.problem_id,
    display_name: p.rubric.display_name,
    cause_statement: p.rubric.cause_statement,
    lifecycle: p.lifecycle,
    rank_score: m.rank_score,
    rubric_version: p.rubric.version,
    total_attributions: m.total_attributions,
    family_weighted_count: m.family_weighted_count,
    affected_users: m.affected_users,
    affected_conversations: m.affected_conversations,
    agg_prm_delta: m.agg_prm_delta,
    abandonment_rate: m.abandonment_rate,
    recency_score: m.recency_score,
    trend_score: m.trend_score,
    multi_family: m.multi_family,
    family_counts: m.family_counts,
    coverage_overall: m.coverage_overall,
    coverage_by_family: m.coverage_by_family,
    audit_pass_rate: judge.length ? r3(judge.filter((s) => s.passed).length / judge.length) : null,
    verification_status: p.verification_status,
    verified_causal_version: p.verified_causal_version ?? (p.verification_status === 'current' ? ccv : null),
  };
}

export function rubricOf(p: ProblemState) {
  const r = p.rubric;
  return {
    version: r.version,
    cause_statement: r.cause_statement,
    display_name: r.display_name,
    display_description: r.display_description,
    lifecycle: p.lifecycle,
    parent_problem_id: r.parent_problem_id,
    change_reason: r.change_reason,
    match_criteria: r.match_criteria,
    counter_examples: r.counter_examples,
    scope_hints: r.scope_hints,
    updated_at: r.updated_at,
    tier: r.tier,
    provisional: r.provisional,
    affected_surface: r.affected_surface,
    causal_content_version: r.causal_content_version,
  };
}

export const sampleOut = (s: VerificationSample) => ({ kind: s.kind, passed: s.passed, rubric_version: s.rubric_version, conversation_id: s.conversation_id, segment_id: s.segment_id, rationale: s.rationale, verified_at: s.verified_at });

type SnippetOut = { excerpt: string; families: string[]; line: number; anchor: string; door: 'rubric_match' | 'local_causal_chain'; mechanism: string };

export function evidenceOut(r: Record<string, unknown>) {
  const snippet = parse<Record<string, unknown> | null>(r.snippet, null);
  const rv = r.replay_verified;
  return {
    attribution_id: String(r.attribution_id),
    conversation_id: String(r.conversation_id),
    segment_id: String(r.segment_id),
    anchor_signal_id: String(r.anchor_signal_id),
    anchor_msg_index: num(r.anchor_msg_index),
    signal_family: String(r.signal_family),
    signal_type: String(r.signal_type),
    confidence: r3(num(r.confidence)),
    causal_rationale: String(r.causal_rationale),
    door: String(r.door) as 'rubric_match' | 'local_causal_chain',
    replay_verified: rv === null || rv === undefined ? null : num(rv) === 1,
    evidence_snippet: String(r.evidence_snippet),
    dedup_count: num(r.dedup_count),
    user_id: String(r.user_id ?? ''),
    assigned_at: isoOf(r.assigned_at),
    snippet_parsed: snippet as SnippetOut | null,
    snippet_legacy_raw_text: false,
    report_id: r.report_id ? String(r.report_id) : null,
  };
}

export type EvidenceOut = ReturnType<typeof evidenceOut>;

export function createProblemsRepo(store: Store) {
  const ps = createProblemsStore(store);
  return {
    currentRun: (tenant: string) => ps.currentRun(tenant),

    /** The run a cursor was issued on, if still kept and complete; else the current one. */
    async runFor(tenant: string, runId: string | undefined): Promise<RunRow | undefined> {
      if (runId) {
        const rows = await store.query<Record<string, unknown>>(
          `SELECT run_id, started_at, completed_at, input_mark, stats FROM {{db}}.problem_runs FINAL WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND status = 'complete' LIMIT 1`,
          { tenant, run: runId },
        );
        const kept = await store.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.problems WHERE tenant_id = {tenant:String} AND run_id = {run:String}`, { tenant, run: runId });
        const r = rows[0];
        if (r && num(kept[0]?.n) > 0) return { run_id: String(r.run_id), engine_version: num(r.engine_version), started_at: String(r.started_at), completed_at: String(r.completed_at), input_mark: String(r.input_mark), stats: parse(r.stats, null) };
      }
      return ps.currentRun(tenant);
    },

    problemsOfRun: (tenant: string, runId: string) => ps.loadProblems(tenant, runId),

    async problemIn(tenant: string, runId: string, id: string): Promise<ProblemState | null> {
      const rows = await store.query<{ doc: string }>(`SELECT doc FROM {{db}}.problems WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND problem_id = {id:String} LIMIT 1`, { tenant, run: runId, id });
      return rows[0] ? (JSON.parse(rows[0].doc) as ProblemState) : null;
    },

    lookup: (tenant: string, id: string) => getProblem({ store }, tenant, id),
    resolve: (tenant: string, id: string) => resolveProblemId(store, tenant, id),

    /** Ids merged into `id` (directly or through a chain). */
    async aliasesOf(tenant: string, id: string): Promise<string[]> {
      const rows = await store.query<{ alias_id: string; problem_id: string }>(`SELECT alias_id, problem_id FROM {{db}}.problem_aliases FINAL WHERE tenant_id = {tenant:String}`, { tenant });
      const out = new Set<string>();
      let frontier = [id];
      for (let i = 0; i < 8 && frontier.length; i++) {
        const next = rows.filter((r) => frontier.includes(r.problem_id) && !out.has(r.alias_id) && r.alias_id !== id).map((r) => r.alias_id);
        next.forEach((x) => out.add(x));
        frontier = next;
      }
      return [...out];
    },

    async evidencePage(tenant: string, runId: string, problem: string, after: { ts: string; id: string } | null, limit: number) {
      const rows = await store.query<Record<string, unknown>>(namedQuery('query-problems-evidence'), {
        tenant,
        run: runId,
        problem,
        has_after: after ? 1 : 0,
        after_ts: chTime(after?.ts ?? '1970-01-01T00:00:00.000Z'),
        after_id: after?.id ?? '',
        limit,
      });
      return rows.map((r) => withFields(evidenceOut(r), { signal_ts: isoOf(r.signal_ts), signal_kind: String(r.signal_kind) }));
    },

    async evidenceByIds(tenant: string, runId: string, problem: string, ids: string[]) {
      if (ids.length === 0) return [];
      const rows = await store.query<Record<string, unknown>>(namedQuery('query-problems-evidence-by-id'), { tenant, run: runId, problem, ids });
      return rows.map((r) => withFields(evidenceOut(r), { signal_ts: isoOf(r.signal_ts), signal_kind: String(r.signal_kind) }));
    },

    async reportsPage(tenant: string, runId: string, problem: string, after: { conv: string; id: string } | null, limit: number) {
      const rows = await store.query<{ report_id: string; conversation_id: string; doc: string }>(namedQuery('query-problems-reports'), {
        tenant,
        run: runId,
        problem,
        has_after: after ? 1 : 0,
        after_conv: after?.conv ?? '',
        after_id: after?.id ?? '',
        limit,
      });
      return rows.map((r) => {
        const { problem_id: _p, ...rest } = JSON.parse(r.doc) as Record<string, unknown>;
        return rest;
      });
    },

    async conversationsPage(tenant: string, runId: string, problem: string, filter: { family: string; door: string }, after: { ts: string; conv: string } | null, limit: number) {
      const rows = await store.query<Record<string, unknown>>(namedQuery('query-problems-conversations'), {
        tenant,
        run: runId,
        problem,
        family: filter.family,
        door: filter.door,
        has_after: after ? 1 : 0,
        after_ts: chTime(after?.ts ?? '1970-01-01T00:00:00.000Z'),
        after_conv: after?.conv ?? '',
        limit,
      });
      return rows.map((r) => {
        const families: Record<string, number> = {};
        const fs = (r.families as string[]) ?? [];
        const cs = ((r.counts as unknown[]) ?? []).map(num);
        fs.forEach((f, i) => (families[f] = (families[f] ?? 0) + (cs[i] ?? 1)));
        return {
          conversation_id: String(r.conversation_id),
          user_id: String(r.user_id ?? ''),
          attribution_count: num(r.attribution_count),
          families,
          first_anchor_at: isoOf(r.first_anchor_at),
          last_anchor_at: isoOf(r.last_anchor_at),
          latest_anchor: { segment_id: String(r.latest_segment), anchor_signal_id: String(r.latest_signal), anchor_msg_index: num(r.latest_msg) },
        };
      });
    },

    async trend(tenant: string, problem: string, until: string) {
      const rows = await store.query<Record<string, unknown>>(namedQuery('query-problems-trend'), { tenant, problem, until: chTime(isoOf(until)) });
      return rows.map((r) => ({ run_ts: isoOf(r.run_ts), rank_score: num(r.rank_score), total_attributions: num(r.total_attributions), rubric_version: num(r.rubric_version), coverage_overall: num(r.coverage_overall) }));
    },

    async events(tenant: string, ids: string[], until: string) {
      const rows = await store.query<Record<string, unknown>>(namedQuery('query-problems-events'), { tenant, ids, until: chTime(isoOf(until)) });
      return rows.map((r) => ({
        problem_id: String(r.problem_id),
        event_id: String(r.event_id),
        event_kind: String(r.event_kind),
        related_problem_id: r.related_problem_id ? String(r.related_problem_id) : null,
        rubric_version: num(r.rubric_version),
        causal_content_version: num(r.causal_content_version),
        reason: String(r.reason),
        created_ts: isoOf(r.created_ts),
      }));
    },

    async feedback(tenant: string, ids: string[]) {
      const rows = await store.query<Record<string, unknown>>(namedQuery('query-problems-feedback'), { tenant, ids });
      return rows.map((r) => ({
        feedback_id: String(r.feedback_id),
        feedback_kind: String(r.feedback_kind) as 'mark_fixed' | 'dismiss' | 'flag_attribution' | 'rename',
        reason: String(r.reason ?? ''),
        attribution_id: r.attribution_id ? String(r.attribution_id) : null,
        new_display_name: r.new_display_name ? String(r.new_display_name) : null,
        actor: String(r.actor ?? ''),
        status: String(r.status) as 'pending' | 'consumed',
        consumed_by_run_id: r.consumed_by_run_id ? String(r.consumed_by_run_id) : null,
        created_at: isoOf(r.created_at),
        fix_ref: parse<Record<string, string> | null>(r.fix_ref, null),
      }));
    },

    /** Per problem: its conversations with an investigation report (fast-lane attributions carry none). */
    async reportBackedMembers(tenant: string, runId: string, ids: readonly string[]): Promise<Map<string, number>> {
      if (ids.length === 0) return new Map();
      const rows = await store.query<{ problem_id: string; n: string }>(namedQuery('query-problems-report-backed'), { tenant, run: runId, ids: [...ids] });
      return new Map(rows.map((r) => [String(r.problem_id), num(r.n)]));
    },

    async pendingFeedbackCount(tenant: string): Promise<number> {
      const rows = await store.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.problem_feedback FINAL WHERE tenant_id = {tenant:String} AND status = 'pending'`, { tenant });
      return num(rows[0]?.n);
    },

    async latestAssignment(tenant: string, runId: string): Promise<string | null> {
      const rows = await store.query<{ t: string; n: string }>(`SELECT max(first_assigned_at) AS t, count() AS n FROM {{db}}.problem_attributions WHERE tenant_id = {tenant:String} AND run_id = {run:String}`, { tenant, run: runId });
      return num(rows[0]?.n) > 0 ? isoOf(rows[0]!.t) : null;
    },

    /** Per-conversation signal counts of a problem's reports (remainder of the problem). */
    async reportTotals(tenant: string, runId: string, problem: string): Promise<{ explained: number; unexplained: number }> {
      const rows = await store.query<{ e: string; u: string }>(
        `SELECT sum(JSONExtractUInt(doc, 'signals_explained')) AS e, sum(length(JSONExtractArrayRaw(doc, 'signals_unexplained_ids'))) AS u FROM {{db}}.problem_reports WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND problem_id = {problem:String} AND status != 'rejected'`,
        { tenant, run: runId, problem },
      );
      return { explained: num(rows[0]?.e), unexplained: num(rows[0]?.u) };
    },

    async affectedConversations(tenant: string, runId: string, problem: string, limit: number) {
      const page = await this.conversationsPage(tenant, runId, problem, { family: '', door: '' }, null, limit);
      return page.map((c) => ({ conversation_id: c.conversation_id, user_id: c.user_id, signal_count: Object.values(c.families).reduce((a, b) => a + b, 0), family_counts: c.families, last_signal_at: c.last_anchor_at }));
    },
  };
}

export type ProblemsRepo = ReturnType<typeof createProblemsRepo>;

/** The confidence block of a problem (spec "Other problem blocks"). */
export function confidenceOf(p: ProblemState) {
  const ccv = p.rubric.causal_content_version;
  const audited = p.verified_causal_version;
  const breakdown = (v: number | null) => {
    if (v === null) return null;
    const kinds = { judge_audit: kindSummary(p.samples, 'judge_audit', v), ground_truth: kindSummary(p.samples, 'ground_truth', v), counterfactual_replay: kindSummary(p.samples, 'counterfactual_replay', v) };
    return kinds.judge_audit || kinds.ground_truth || kinds.counterfactual_replay ? { causal_content_version: v, kinds } : null;
  };
  const older = [...new Set(p.samples.map((s) => s.causal_content_version).filter((v) => v !== ccv))].sort((a, b) => b - a)[0] ?? null;
  const cur = p.samples.filter((s) => s.causal_content_version === ccv);
  return {
    current_rubric_version: p.rubric.version,
    causal_content_version: ccv,
    verification_status: p.verification_status,
    audited_causal_content_version: audited,
    current: breakdown(ccv),
    stale: breakdown(older),
    samples: { passed: cur.filter((s) => s.passed).slice(0, 10).map(sampleOut), failed: cur.filter((s) => !s.passed).slice(0, 10).map(sampleOut) },
  };
}

export function verificationOf(p: ProblemState) {
  const v = p.verified_causal_version;
  const at = (kind: string) => p.samples.filter((s) => s.kind === kind && s.causal_content_version === v);
  const pt = (kind: string) => ({ passed: at(kind).filter((s) => s.passed).length, total: at(kind).length });
  const judge = pt('judge_audit');
  return {
    audit_pass_rate: judge.total ? r3(judge.passed / judge.total) : null,
    judge_audit: judge,
    counterfactual_replay: pt('counterfactual_replay'),
    samples: p.samples.filter((s) => s.causal_content_version === v || s.kind === 'ground_truth').slice(-40).map(sampleOut),
  };
}

export const pct = (a: number, b: number) => (b > 0 ? r1((a / b) * 100) : 0);
