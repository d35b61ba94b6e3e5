/**
 * spec/data-api.md GET /problems, /problems/:id, /reports, /conversations, /evidence and
 * POST/GET /problems/:id/feedback, served from the latest complete run of the problems engine
 * (query/repo/problems.ts). Sub-resources page with signed keyset cursors bound to the tenant, the
 * endpoint and the (resolved) problem; a cursor also carries its run, read while that run is kept.
 */
import type Router from '@koa/router';
import type { RequestState } from '../../core/http.js';
import {
  listProblemsEndpoint,
  problemConversationsEndpoint,
  problemDetailEndpoint,
  problemEvidenceEndpoint,
  problemFeedbackListEndpoint,
  problemReportsEndpoint,
  PROBLEM_FEEDBACK_MAX_BODY_BYTES,
  submitProblemFeedbackEndpoint,
} from '../../schemas/api/problems.js';
import { submitFeedback, type FeedbackInput } from '../../stream/problems/api.js';
import { InvalidProblemFeedbackError } from '../../stream/problems/errors.js';
import type { ProblemState } from '../../stream/problems/types.js';
import { UUID_RE } from '../../stream/problems/text.js';
import { confidenceOf, createProblemsRepo, pct, problemRow, rubricOf, sampleOut, verificationOf, type EvidenceOut } from '../repo/problems.js';
import { defineRoute } from './define.js';
import type { RouteDeps } from './deps.js';

const DAY = 86_400_000;
type Page = { limit?: number; cursor?: string };

export function mountProblems(router: Router<RequestState>, deps: RouteDeps): void {
  const repo = createProblemsRepo(deps.store);
  const scope = (kind: string, tenant: string, id: string) => `problems/${kind}/${tenant}/${id}`;

  /** The problem a sub-resource request names, resolved through aliases, in the run to read. */
  async function target(tenant: string, requested: string, kind: string, cursor: string | undefined) {
    const resolved = UUID_RE.test(requested) ? await repo.resolve(tenant, requested) : requested.toLowerCase();
    const position = cursor ? deps.cursors.decode<{ run: string; k: string[] }>(scope(kind, tenant, resolved), cursor) : undefined;
    const run = await repo.runFor(tenant, position?.run);
    let problem: ProblemState | null = null;
    if (run && UUID_RE.test(requested)) {
      problem = await repo.problemIn(tenant, run.run_id, resolved);
      if (problem?.status === 'merged' && problem.merged_into) problem = await repo.problemIn(tenant, run.run_id, problem.merged_into);
    }
    // spec "Conventions": a merged-away id answers with the survivor and `alias_resolved: true`
    const alias_resolved = problem !== null && problem.problem_id !== requested.toLowerCase();
    return { run, problem, position, resolved, alias_resolved };
  }

  const next = (kind: string, tenant: string, id: string, run: string, has: boolean, key: string[] | undefined) => (has && key ? deps.cursors.encode(scope(kind, tenant, id), { run, k: key }) : null);

  defineRoute<{ days_back: number; limit: number }>(router, deps.keys, listProblemsEndpoint, async ({ principal, query }) => {
    const tenant = principal.tenant;
    const run = await repo.currentRun(tenant);
    const pending = await repo.pendingFeedbackCount(tenant);
    const verification0 = { live_total: 0, current: 0, stale: 0, failed: 0, unverified: 0 };
    if (!run) {
      return {
        summary: { days_back: query.days_back, open_problems: 0, reopened: 0, total_problems: 0, signals_attributed: 0, explained_coverage_pct: 0 },
        remainder: { attributed_signals: 0, unexplained_signals: 0, coverage_pct: 0, historically_attributed_signals: 0, historical_coverage_pct: 0 },
        problems: [],
        untrusted: [],
        hierarchy: { macros: [], unparented_leaf_count: 0 },
        emerging: [],
        freshness: { book_computed_at: null, latest_assignment_at: null, lag_seconds: null, discovery: null, verification: verification0, remainder_backlog: { pending_groups: 0, pending_mass: 0 } },
        feedback_pending: pending,
      };
    }
    const all = (await repo.problemsOfRun(tenant, run.run_id)).filter((p) => p.status === 'active');
    const since = new Date(deps.now() - query.days_back * DAY).toISOString();
    const inWindow = (p: ProblemState) => p.metrics.last_signal_at !== '' && p.metrics.last_signal_at >= since;
    const leaves = all.filter((p) => p.rubric.tier === 'leaf' && !p.rubric.provisional);
    const trusted = leaves.filter((p) => p.verification_status === 'current' && inWindow(p)).sort((a, b) => b.metrics.rank_score - a.metrics.rank_score || (a.problem_id < b.problem_id ? -1 : 1));
    const untrusted = leaves.filter((p) => p.verification_status !== 'current' && inWindow(p)).sort((a, b) => b.metrics.total_attributions - a.metrics.total_attributions || (a.problem_id < b.problem_id ? -1 : 1));
    const stats = run.stats;
    const signals = stats?.signals ?? 0;
    const macros = all.filter((p) => p.rubric.tier === 'macro');
    const leafIds = new Set(leaves.map((p) => p.problem_id));
    const emerging = all
      .filter((p) => p.rubric.tier === 'leaf' && p.rubric.provisional && inWindow(p) && !leafIds.has(p.problem_id))
      .sort((a, b) => b.metrics.total_attributions - a.metrics.total_attributions || (a.problem_id < b.problem_id ? -1 : 1))
      .slice(0, query.limit);
    const reportBacked = await repo.reportBackedMembers(tenant, run.run_id, emerging.map((p) => p.problem_id));
    return {
      summary: {
        days_back: query.days_back,
        open_problems: leaves.filter((p) => p.lifecycle === 'open' || p.lifecycle === 'reopened').length,
        reopened: leaves.filter((p) => p.lifecycle === 'reopened').length,
        total_problems: leaves.length,
        signals_attributed: stats?.attributed_signals ?? 0,
        explained_coverage_pct: pct(stats?.attributed_signals ?? 0, signals),
      },
      remainder: {
        attributed_signals: stats?.attributed_signals ?? 0,
        unexplained_signals: stats?.unexplained_signals ?? 0,
        coverage_pct: pct(stats?.attributed_signals ?? 0, signals),
        historically_attributed_signals: stats?.historically_attributed_signals ?? 0,
        historical_coverage_pct: pct(stats?.historically_attributed_signals ?? 0, signals),
      },
      problems: trusted.slice(0, query.limit).map(problemRow),
      untrusted: untrusted.slice(0, query.limit).map(problemRow),
      hierarchy: {
        macros: macros.map((m) => {
          const children = leaves.filter((l) => l.rubric.parent_problem_id === m.problem_id).map((l) => l.problem_id);
          return { problem_id: m.problem_id, display_name: m.rubric.display_name, display_description: m.rubric.display_description, tier: 'macro' as const, child_count: children.length, children };
        }),
        unparented_leaf_count: leaves.filter((l) => !l.rubric.parent_problem_id || !all.some((m) => m.problem_id === l.rubric.parent_problem_id)).length,
      },
      emerging: emerging.map((p) => ({
        problem_id: p.problem_id,
        display_name: p.rubric.display_name,
        display_description: p.rubric.display_description,
        family: p.rubric.match_criteria.any_of[0]?.family ?? p.rubric.match_criteria.any_of[0]?.kind ?? null,
        // conversations with an investigation report; fast-lane attributions (report_id null) have none
        evidence_support: { report_backed_members: reportBacked.get(p.problem_id) ?? 0, attribution_count: p.metrics.total_attributions },
        verification_status: p.verification_status,
        provisional: true as const,
      })),
      freshness: {
        book_computed_at: new Date(Date.parse(run.completed_at.endsWith('Z') ? run.completed_at : `${run.completed_at.replace(' ', 'T')}Z`)).toISOString(),
        latest_assignment_at: await repo.latestAssignment(tenant, run.run_id),
        lag_seconds: Math.max(0, Math.round((deps.now() - Date.parse(run.completed_at.endsWith('Z') ? run.completed_at : `${run.completed_at.replace(' ', 'T')}Z`)) / 1000)),
        discovery: stats?.discovery ? { run_id: run.run_id, ...stats.discovery } : null,
        verification: stats ? { live_total: stats.verification.live_total, current: stats.verification.current, stale: stats.verification.stale, failed: stats.verification.failed, unverified: stats.verification.unverified } : verification0,
        remainder_backlog: stats?.remainder_backlog ?? { pending_groups: 0, pending_mass: 0 },
      },
      feedback_pending: pending,
    };
  });

  defineRoute(router, deps.keys, problemDetailEndpoint, async ({ principal, params }) => {
    const tenant = principal.tenant;
    const requested = params.id ?? '';
    const got = await repo.lookup(tenant, requested);
    if (!got.found || !got.problem || !got.run_id) {
      return {
        found: false,
        problem_id: null,
        requested_problem_id: requested,
        alias_resolved: false,
        header: null,
        rubric: null,
        trend: [],
        sub_problems: [],
        verification: null,
        evidence: [],
        affected_conversations: [],
        remainder: null,
        investigation_reports: { items: [], has_more: false, next_cursor: null },
        confidence: null,
        change_history: [],
        impact_identity: null,
        hierarchy: null,
        dossier: null,
        stories: [],
      };
    }
    const p = got.problem;
    const id = p.problem_id;
    const run = (await repo.runFor(tenant, got.run_id))!;
    const all = await repo.problemsOfRun(tenant, got.run_id);
    const children = all.filter((c) => c.status === 'active' && c.rubric.parent_problem_id === id);
    const parent = p.rubric.parent_problem_id ? all.find((c) => c.problem_id === p.rubric.parent_problem_id) : undefined;
    const evidence = await repo.evidencePage(tenant, got.run_id, id, null, 26);
    const reports = await repo.reportsPage(tenant, got.run_id, id, null, 21);
    const shownReports = reports.slice(0, 20);
    const lastReport = shownReports[shownReports.length - 1] as { conversation_id: string; report_id: string } | undefined;
    const totals = await repo.reportTotals(tenant, got.run_id, id);
    const flagged = p.rubric.counter_examples.length;
    const aliases = await repo.aliasesOf(tenant, id);
    const m = p.metrics;
    const stories = await storiesOf(p, got.run_id, tenant, evidence);
    return {
      found: true,
      problem_id: id,
      requested_problem_id: requested,
      alias_resolved: got.alias_resolved,
      header: problemRow(p),
      rubric: rubricOf(p),
      trend: await repo.trend(tenant, id, run.started_at),
      sub_problems: children.map((c) => ({ problem_id: c.problem_id, display_name: c.rubric.display_name, cause_statement: c.rubric.cause_statement, lifecycle: c.lifecycle, version: c.rubric.version })),
      verification: verificationOf(p),
      evidence: evidence.slice(0, 25).map(stripInternal),
      affected_conversations: await repo.affectedConversations(tenant, got.run_id, id, 25),
      remainder: {
        attributed_signals: totals.explained,
        unexplained_signals: totals.unexplained,
        coverage_pct: pct(totals.explained, totals.explained + totals.unexplained),
        historically_attributed_signals: totals.explained + flagged,
        historical_coverage_pct: pct(totals.explained + flagged, totals.explained + totals.unexplained + flagged),
      },
      investigation_reports: {
        items: shownReports,
        has_more: reports.length > 20,
        next_cursor: next('reports', tenant, id, got.run_id, reports.length > 20, lastReport ? [lastReport.conversation_id, lastReport.report_id] : undefined),
      },
      confidence: confidenceOf(p),
      change_history: await repo.events(tenant, [id, ...aliases], run.started_at),
      impact_identity: {
        known_users: m.affected_users,
        unknown_identity_conversations: m.unknown_identity_conversations,
        total_conversations: m.affected_conversations,
        identity_coverage_pct: pct(m.affected_conversations - m.unknown_identity_conversations, m.affected_conversations),
      },
      hierarchy: {
        tier: p.rubric.tier,
        parent: parent ? { problem_id: parent.problem_id, display_name: parent.rubric.display_name, tier: parent.rubric.tier } : null,
        children: children.map((c) => ({ problem_id: c.problem_id, display_name: c.rubric.display_name, tier: c.rubric.tier })),
      },
      dossier: p.dossier,
      stories,
    };
  });

  /** The five story kinds, each when the evidence has one. */
  async function storiesOf(p: ProblemState, runId: string, tenant: string, newestFirst: Array<EvidenceOut & { signal_ts: string }>) {
    const ccv = p.rubric.causal_content_version;
    const samples = p.samples.filter((s) => s.causal_content_version === ccv || s.kind === 'ground_truth');
    const picks: Array<{ kind: 'top_confidence' | 'ground_truth_passed' | 'disputed' | 'replay_verified' | 'newest'; id: string; sample: (typeof samples)[number] | null }> = [];
    const top = p.dossier?.representative_story_keys[0];
    if (top) picks.push({ kind: 'top_confidence', id: top, sample: samples.find((s) => s.attribution_id === top && s.kind === 'judge_audit') ?? null });
    const gt = samples.find((s) => s.kind === 'ground_truth' && s.passed);
    if (gt) picks.push({ kind: 'ground_truth_passed', id: gt.attribution_id, sample: gt });
    const disputed = samples.find((s) => s.kind === 'judge_audit' && !s.passed);
    if (disputed) picks.push({ kind: 'disputed', id: disputed.attribution_id, sample: disputed });
    const replay = samples.find((s) => s.kind === 'counterfactual_replay' && s.passed);
    if (replay) picks.push({ kind: 'replay_verified', id: replay.attribution_id, sample: replay });
    if (newestFirst[0]) picks.push({ kind: 'newest', id: newestFirst[0].attribution_id, sample: samples.find((s) => s.attribution_id === newestFirst[0]!.attribution_id) ?? null });
    const rows = await repo.evidenceByIds(tenant, runId, p.problem_id, [...new Set(picks.map((x) => x.id))]);
    const byId = new Map(rows.map((r) => [r.attribution_id, r]));
    return picks.filter((x) => byId.has(x.id)).map((x) => ({ story_kind: x.kind, evidence: stripInternal(byId.get(x.id)!), verification: x.sample ? sampleOut(x.sample) : null }));
  }

  defineRoute<Page>(router, deps.keys, problemReportsEndpoint, async ({ principal, params, query }) => {
    const requested = params.id ?? '';
    const limit = query.limit ?? 20;
    const t = await target(principal.tenant, requested, 'reports', query.cursor);
    if (!t.problem || !t.run) return { problem_id: null, requested_problem_id: requested, alias_resolved: false, reports: [], pagination: { limit, has_more: false, next_cursor: null } };
    const after = t.position ? { conv: String(t.position.k[0] ?? ''), id: String(t.position.k[1] ?? '') } : null;
    const rows = await repo.reportsPage(principal.tenant, t.run.run_id, t.problem.problem_id, after, limit + 1);
    const page = rows.slice(0, limit) as Array<{ conversation_id: string; report_id: string }>;
    const last = page[page.length - 1];
    return {
      problem_id: t.problem.problem_id,
      requested_problem_id: requested,
      alias_resolved: t.alias_resolved,
      reports: page,
      pagination: { limit, has_more: rows.length > limit, next_cursor: next('reports', principal.tenant, t.problem.problem_id, t.run.run_id, rows.length > limit, last ? [last.conversation_id, last.report_id] : undefined) },
    };
  });

  defineRoute<Page & { family?: string; door?: string }>(router, deps.keys, problemConversationsEndpoint, async ({ principal, params, query }) => {
    const requested = params.id ?? '';
    const limit = query.limit ?? 25;
    const family = query.family ?? '';
    const door = query.door ?? '';
    const kind = `conversations/${family}/${door}`;
    const t = await target(principal.tenant, requested, kind, query.cursor);
    const echo = { family: family || null, door: (door || null) as 'rubric_match' | 'local_causal_chain' | null };
    if (!t.problem || !t.run) return { problem_id: null, requested_problem_id: requested, alias_resolved: false, ...echo, conversations: [], pagination: { limit, has_more: false, next_cursor: null } };
    const after = t.position ? { ts: String(t.position.k[0] ?? ''), conv: String(t.position.k[1] ?? '') } : null;
    if (after && Number.isNaN(Date.parse(after.ts))) return { problem_id: t.problem.problem_id, requested_problem_id: requested, alias_resolved: t.alias_resolved, ...echo, conversations: [], pagination: { limit, has_more: false, next_cursor: null } };
    const rows = await repo.conversationsPage(principal.tenant, t.run.run_id, t.problem.problem_id, { family, door }, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      problem_id: t.problem.problem_id,
      requested_problem_id: requested,
      alias_resolved: t.alias_resolved,
      ...echo,
      conversations: page,
      pagination: { limit, has_more: rows.length > limit, next_cursor: next(kind, principal.tenant, t.problem.problem_id, t.run.run_id, rows.length > limit, last ? [last.last_anchor_at, last.conversation_id] : undefined) },
    };
  });

  defineRoute<Page>(router, deps.keys, problemEvidenceEndpoint, async ({ principal, params, query }) => {
    const requested = params.id ?? '';
    const limit = query.limit ?? 25;
    const t = await target(principal.tenant, requested, 'evidence', query.cursor);
    if (!t.problem || !t.run) return { problem_id: null, requested_problem_id: requested, alias_resolved: false, evidence: [], pagination: { limit, has_more: false, next_cursor: null } };
    const after = t.position ? { ts: String(t.position.k[0] ?? ''), id: String(t.position.k[1] ?? '') } : null;
    const rows = await repo.evidencePage(principal.tenant, t.run.run_id, t.problem.problem_id, after && !Number.isNaN(Date.parse(after.ts)) ? after : null, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      problem_id: t.problem.problem_id,
      requested_problem_id: requested,
      alias_resolved: t.alias_resolved,
      evidence: page.map(stripInternal),
      pagination: { limit, has_more: rows.length > limit, next_cursor: next('evidence', principal.tenant, t.problem.problem_id, t.run.run_id, rows.length > limit, last ? [last.signal_ts, last.attribution_id] : undefined) },
    };
  });

  defineRoute<Record<string, never>, FeedbackInput>(
    router,
    deps.keys,
    submitProblemFeedbackEndpoint,
    async ({ principal, params, body }) => {
      const requested = params.id ?? '';
      const r = await submitFeedback({ store: deps.store, now: deps.now }, principal.tenant, requested, body);
      return { success: true, feedback_id: r.feedback_id, problem_id: r.problem_id, requested_problem_id: requested, alias_resolved: r.problem_id !== requested.toLowerCase(), action: r.action, status: r.status, duplicate: r.duplicate };
    },
    // any read key of the tenant (spec: read-only except the two feedback POST endpoints); docs/data-api.md
    { maxBodyBytes: PROBLEM_FEEDBACK_MAX_BODY_BYTES },
  );

  defineRoute(router, deps.keys, problemFeedbackListEndpoint, async ({ principal, params }) => {
    const requested = params.id ?? '';
    // spec "Errors": a problem id that is not a UUID gives 400 on the feedback endpoints
    if (!UUID_RE.test(requested)) throw new InvalidProblemFeedbackError('problem id must be a UUID');
    const got = await repo.lookup(principal.tenant, requested);
    if (!got.found || !got.problem_id) return { problem_id: null, requested_problem_id: requested, alias_resolved: false, feedback: [], pending_count: 0 };
    const rows = await repo.feedback(principal.tenant, [got.problem_id, ...(await repo.aliasesOf(principal.tenant, got.problem_id))]);
    return { problem_id: got.problem_id, requested_problem_id: requested, alias_resolved: got.alias_resolved, feedback: rows, pending_count: rows.filter((r) => r.status === 'pending').length };
  });
}

/** Evidence rows without the fields the endpoints do not show. */
function stripInternal(r: EvidenceOut & { signal_ts?: string; signal_kind?: string }): EvidenceOut {
  const { signal_ts: _t, signal_kind: _k, ...rest } = r;
  return rest;
}
