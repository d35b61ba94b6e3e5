/**
 * The problems engine as a library, for the stream role's leased job, the data API and other code
 * (the fix pipeline). Signatures are stable:
 *
 *   runProblemsOnce(deps, tenant, opts?)        → Promise<RunResult>
 *       One engine pass now, synchronously: reads the tenant's signals, applies pending feedback,
 *       writes a new complete run. `opts.onlyIfChanged` skips when nothing changed (the job), and
 *       with `opts.minIntervalMs` also when the last run is younger than that (pending feedback
 *       always runs).
 *       With `deps.kv` (the leases bucket) it takes the job's lease first, so it never overlaps
 *       the scheduled pass (ProblemsRunBusyError, 503, after `deps.leaseWaitMs`).
 *   getProblem(deps, tenant, id)                → Promise<ProblemLookup>
 *       The problem of the latest complete run; a merged-away id resolves to its survivor
 *       (`alias_resolved: true`, `requested_problem_id` = the id asked for). `found: false` for an
 *       unknown or malformed id.
 *   listTrustedAttributions(deps, tenant, id)   → Promise<TrustedAttribution[]>
 *       The problem's attributions that its judge did not reject: conversation ids, message anchors
 *       (feed `anchor_msg_index` to GET /conversations/:id/context) and signal kinds.
 *   listProblems(deps, tenant)                  → Promise<ProblemSummary[]>
 *       Every problem of the latest complete run, best ranked first.
 *   submitFeedback(deps, tenant, id, input)     → Promise<FeedbackReceipt>
 *       Stores feedback `pending` (applied by the next run). `feedback_id` derives from the payload:
 *       identical pending feedback returns the same id with `duplicate: true`. Throws
 *       InvalidProblemFeedbackError (400), ProblemNotFoundError / AttributionNotFoundError (404).
 *
 * `deps` is `{ store }` (core/clickhouse.ts Store), optionally `now` (ms clock) and engine `config`.
 * Lifecycle: `open` → `fixed_monitoring` (mark_fixed, applied at the next run) → `reopened` when a
 * run attributes new evidence to the problem after the fix → or `resolved` after the clean period.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import type { Store } from '../../core/clickhouse.js';
import { withLease } from '../../core/lease.js';
import { groupByProblem } from './attribution-rows.js';
import { runEngine, type EngineConfig, type EngineOutput } from './engine.js';
import { AttributionNotFoundError, ProblemNotFoundError, ProblemsRunBusyError } from './errors.js';
import { refineSummaries, type RefineConfig } from './refine.js';
import { createProblemsStore, signalInputOf, type ProblemsStore, type RunRow } from './store.js';
import { validateFeedback, type FeedbackInput, type FeedbackReceipt } from './feedback.js';
import { UUID_RE, uuidFrom } from './text.js';
import { PROBLEMS_ENGINE_VERSION, type ProblemState, type RunStats, type SignalKind, type Door } from './types.js';

export { validateFeedback, type FeedbackInput, type FeedbackReceipt };

export interface ProblemsDeps {
  store: Store;
  /** Clock in ms (tests). Default Date.now. */
  now?: () => number;
  config?: Partial<EngineConfig>;
  /**
   * The leases bucket (KV_BUCKETS.leases): when given, `runProblemsOnce` takes the job's lease
   * `job.problems.<tenant>` (the one the scheduled job holds), waiting up to `leaseWaitMs`
   * (default 60 s) for a running pass to finish, so two passes of a tenant never overlap.
   */
  kv?: KV | Promise<KV>;
  leaseWaitMs?: number;
  /** Optional OpenAI-compatible endpoint refining dossier summaries (stream/problems/refine.ts). */
  llm?: RefineConfig;
  /**
   * Incremental runs re-read analysis rows written up to this long before the previous run's
   * watermarks (rows inserted late under an older version). Default 10 minutes.
   */
  watermarkMarginMs?: number;
}

export interface RunResult {
  run_id: string | null;
  skipped: boolean;
  stats: RunStats | null;
}

export interface ProblemLookup {
  found: boolean;
  problem_id: string | null;
  requested_problem_id: string;
  alias_resolved: boolean;
  /** The latest complete run that served the lookup. */
  run_id: string | null;
  problem: ProblemState | null;
}

export interface TrustedAttribution {
  attribution_id: string;
  conversation_id: string;
  segment_id: string;
  anchor_signal_id: string;
  anchor_msg_index: number;
  cause_msg_index: number;
  signal_kind: SignalKind;
  signal_family: string;
  signal_type: string;
  door: Door;
  confidence: number;
  dedup_count: number;
}

const now = (deps: ProblemsDeps) => (deps.now ?? Date.now)();
const iso = (ms: number) => new Date(ms).toISOString();

/** A run this old is redone by the job even when nothing changed (lifecycle clean periods). */
const MAX_IDLE_MS = 3_600_000;

/** Lease of a tenant's problems pass (shared with the scheduled job, stream/analyze/scheduler.ts). */
export const problemsLeaseKey = (tenant: string) => `job.problems.${tenant}`;
const LEASE_TTL_MS = 30_000;

/** Incremental runs are followed by a full recompute at least this often. */
export const FULL_RECOMPUTE_MS = 24 * 3_600_000;
/** Analysis rows written up to this long before a watermark are read again (late inserts). */
const WATERMARK_MARGIN_MS = 10 * 60_000;
/** More changed conversations than this share of the stored ones: read everything instead. */
const INCREMENTAL_MAX_SHARE = 0.5;

interface ReadPlan {
  mode: 'full' | 'incremental';
  reason: string;
  changed: string[];
  lastFullAt: string;
}

/**
 * What a run reads (docs/analyses.md "Problems", Incremental runs): everything (the first run, a
 * new engine version, new failure categories or taxonomy run, the daily full recompute), or only the
 * conversations with analysis rows above the previous complete run's watermarks.
 */
async function planRead(ps: ProblemsStore, tenant: string, prev: RunRow | undefined, mark: string, t0: number, forced: boolean, marginMs: number): Promise<ReadPlan> {
  const full = (reason: string): ReadPlan => ({ mode: 'full', reason, changed: [], lastFullAt: iso(t0) });
  if (forced) return full('requested');
  if (!prev) return full('first run');
  const inc = prev.stats?.incremental;
  if (!inc) return full('no signal store yet');
  if (prev.engine_version !== PROBLEMS_ENGINE_VERSION) return full(`engine version ${prev.engine_version} -> ${PROBLEMS_ENGINE_VERSION}`);
  const a = JSON.parse(prev.input_mark || '{}') as Record<string, string>;
  const b = JSON.parse(mark) as Record<string, string>;
  if ((a.categories ?? '') !== (b.categories ?? '')) return full('failure categories changed');
  if ((a.taxonomy ?? '') !== (b.taxonomy ?? '')) return full('taxonomy run changed');
  if (t0 - Date.parse(inc.last_full_at) >= FULL_RECOMPUTE_MS) return full('periodic full recompute');
  const changed = await ps.changedConversations(tenant, prev.input_mark, marginMs * 1000);
  if (changed.length > Math.max(100, INCREMENTAL_MAX_SHARE * (inc.read_conversations + inc.reused_conversations))) return full(`${changed.length} conversations changed`);
  return { mode: 'incremental', reason: `${changed.length} conversations changed`, changed, lastFullAt: inc.last_full_at };
}

export async function runProblemsOnce(deps: ProblemsDeps, tenant: string, opts: { onlyIfChanged?: boolean; minIntervalMs?: number; signal?: AbortSignal; full?: boolean } = {}): Promise<RunResult> {
  if (!deps.kv) return runPass(deps, tenant, opts);
  const kv = await deps.kv;
  const holder = `run-once-${randomBytes(4).toString('hex')}`;
  const until = Date.now() + (deps.leaseWaitMs ?? 60_000);
  for (let wait = 50; ; wait = Math.min(1000, wait * 2)) {
    const out = await withLease(kv, problemsLeaseKey(tenant), holder, LEASE_TTL_MS, (signal) => runPass(deps, tenant, { ...opts, signal: opts.signal ? AbortSignal.any([opts.signal, signal]) : signal }));
    if (out.ran) return out.value;
    if (Date.now() >= until) throw new ProblemsRunBusyError(tenant);
    await new Promise((r) => setTimeout(r, wait));
  }
}

async function runPass(deps: ProblemsDeps, tenant: string, opts: { onlyIfChanged?: boolean; minIntervalMs?: number; signal?: AbortSignal; full?: boolean }): Promise<RunResult> {
  const ps = createProblemsStore(deps.store);
  const t0 = now(deps);
  const prev = await ps.currentRun(tenant);
  const mark = await ps.inputMark(tenant);
  const pending = await ps.pendingFeedback(tenant);
  if (opts.onlyIfChanged && prev && pending.length === 0) {
    const age = t0 - Date.parse(prev.completed_at);
    // nothing new and not idle for long, or changes arriving sooner than the minimum interval
    if ((prev.input_mark === mark && age < MAX_IDLE_MS) || age < (opts.minIntervalMs ?? 0)) return { run_id: prev.run_id, skipped: true, stats: prev.stats };
  }
  const runId = `prun_${t0.toString(36)}_${randomBytes(4).toString('hex')}`;
  const startedAt = iso(t0);
  await ps.writeRunState(tenant, runId, 'building', { started_at: startedAt, engine_version: PROBLEMS_ENGINE_VERSION });
  const plan = await planRead(ps, tenant, prev, mark, t0, opts.full === true, deps.watermarkMarginMs ?? WATERMARK_MARGIN_MS);
  const fresh = await ps.readConversationSignals(tenant, plan.mode === 'full' ? undefined : plan.changed);
  const freshIds = new Set(fresh.map((c) => c.conversation_id));
  // a changed conversation no longer recorded anywhere leaves the store too
  const gone = plan.mode === 'full' ? [] : plan.changed.filter((c) => !freshIds.has(c)).map((c) => ({ conversation_id: c, known: false, signals: [], blended: null }));
  const stored = plan.mode === 'full' ? [] : await ps.loadStoredSignals(tenant, new Set(plan.changed));
  const input = signalInputOf([...stored, ...fresh]);
  opts.signal?.throwIfAborted();
  await ps.storeSignals(tenant, runId, [...fresh, ...gone], plan.mode === 'full');
  const previous = prev ? await ps.loadProblems(tenant, prev.run_id) : [];
  const previousAttributions = prev ? await ps.loadAttributionIndex(tenant, prev.run_id) : new Map();
  opts.signal?.throwIfAborted();
  const out: EngineOutput = runEngine({ tenant, runId, now: t0, signals: input.signals, previous, previousAttributions, feedback: pending, blended: input.blended, conversationCount: input.conversations, config: deps.config });
  opts.signal?.throwIfAborted();
  if (deps.llm?.url) {
    out.stats.refinement = await refineSummaries(out.problems, groupByProblem(out.attributions), deps.llm, opts.signal);
  }
  out.stats.incremental = { mode: plan.mode, reason: plan.reason, read_conversations: fresh.length, reused_conversations: stored.length, last_full_at: plan.mode === 'full' ? startedAt : plan.lastFullAt };
  await ps.writeOutput(tenant, runId, out, startedAt);
  if (out.feedback.length) await ps.consumeFeedback(tenant, runId, out, pending, startedAt);
  await ps.writeRunState(tenant, runId, 'complete', { started_at: startedAt, completed_at: iso(Math.max(now(deps), t0 + 1)), input_mark: mark, stats: out.stats, engine_version: PROBLEMS_ENGINE_VERSION });
  await ps.dropRunsExcept(tenant, prev ? [runId, prev.run_id] : [runId]);
  return { run_id: runId, skipped: false, stats: out.stats };
}

/** The surviving id of a (possibly merged-away) problem id, following aliases. */
export async function resolveProblemId(store: Store, tenant: string, id: string): Promise<string> {
  let current = id.toLowerCase();
  for (let i = 0; i < 8; i++) {
    const rows = await store.query<{ problem_id: string }>(`SELECT problem_id FROM {{db}}.problem_aliases FINAL WHERE tenant_id = {tenant:String} AND alias_id = {id:String} LIMIT 1`, { tenant, id: current });
    if (!rows[0] || rows[0].problem_id === current) return current;
    current = rows[0].problem_id;
  }
  return current;
}

export async function getProblem(deps: ProblemsDeps, tenant: string, id: string): Promise<ProblemLookup> {
  const notFound: ProblemLookup = { found: false, problem_id: null, requested_problem_id: id, alias_resolved: false, run_id: null, problem: null };
  if (!UUID_RE.test(id)) return notFound;
  const ps = createProblemsStore(deps.store);
  const run = await ps.currentRun(tenant);
  if (!run) return notFound;
  let resolved = await resolveProblemId(deps.store, tenant, id);
  let problem: ProblemState | null = null;
  for (let i = 0; i < 8; i++) {
    const rows = await deps.store.query<{ doc: string }>(
      `SELECT doc FROM {{db}}.problems WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND problem_id = {id:String} LIMIT 1`,
      { tenant, run: run.run_id, id: resolved },
    );
    if (!rows[0]) break;
    problem = JSON.parse(rows[0].doc) as ProblemState;
    if (problem.status !== 'merged' || !problem.merged_into) break;
    resolved = problem.merged_into;
    problem = null;
  }
  if (!problem) return { ...notFound, run_id: run.run_id };
  return { found: true, problem_id: problem.problem_id, requested_problem_id: id, alias_resolved: problem.problem_id !== id.toLowerCase(), run_id: run.run_id, problem };
}

export async function listTrustedAttributions(deps: ProblemsDeps, tenant: string, problemId: string): Promise<TrustedAttribution[]> {
  const p = await getProblem(deps, tenant, problemId);
  if (!p.found || !p.problem || !p.run_id) return [];
  const rejected = new Set(p.problem.samples.filter((s) => s.kind !== 'counterfactual_replay' && !s.passed && s.causal_content_version === p.problem!.rubric.causal_content_version).map((s) => s.attribution_id));
  const rows = await deps.store.query<Record<string, unknown>>(
    `SELECT attribution_id, conversation_id, segment_id, anchor_signal_id, anchor_msg_index, cause_msg_index, signal_kind, signal_family, signal_type, door, confidence, dedup_count
     FROM {{db}}.problem_attributions WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND problem_id = {id:String}
     ORDER BY conversation_id, anchor_msg_index, attribution_id`,
    { tenant, run: p.run_id, id: p.problem_id },
  );
  return rows
    .filter((r) => !rejected.has(String(r.attribution_id)))
    .map((r) => ({
      attribution_id: String(r.attribution_id),
      conversation_id: String(r.conversation_id),
      segment_id: String(r.segment_id),
      anchor_signal_id: String(r.anchor_signal_id),
      anchor_msg_index: Number(r.anchor_msg_index),
      cause_msg_index: Number(r.cause_msg_index),
      signal_kind: String(r.signal_kind) as SignalKind,
      signal_family: String(r.signal_family),
      signal_type: String(r.signal_type),
      door: String(r.door) as Door,
      confidence: Number(r.confidence),
      dedup_count: Number(r.dedup_count),
    }));
}

export async function submitFeedback(deps: ProblemsDeps, tenant: string, problemId: string, input: FeedbackInput): Promise<FeedbackReceipt> {
  const f = validateFeedback(problemId, input);
  const p = await getProblem(deps, tenant, problemId);
  if (!p.found || !p.problem_id || !p.run_id) throw new ProblemNotFoundError(problemId);
  if (f.action === 'flag_attribution') {
    const rows = await deps.store.query<{ n: string }>(
      `SELECT count() AS n FROM {{db}}.problem_attributions WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND problem_id = {id:String} AND attribution_id = {a:String}`,
      { tenant, run: p.run_id, id: p.problem_id, a: f.attribution_id },
    );
    if (Number(rows[0]?.n ?? 0) === 0) throw new AttributionNotFoundError(f.attribution_id);
  }
  // fix_ref is not part of the id (spec); everything else is
  const payloadHash = createHash('sha256')
    .update(JSON.stringify([p.problem_id, f.action, f.reason, f.attribution_id, f.new_display_name, f.actor]))
    .digest('hex')
    .slice(0, 32);
  const earlier = await deps.store.query<{ feedback_id: string; status: string }>(
    `SELECT feedback_id, status FROM {{db}}.problem_feedback FINAL WHERE tenant_id = {tenant:String} AND payload_hash = {h:String}`,
    { tenant, h: payloadHash },
  );
  const pending = earlier.find((e) => e.status === 'pending');
  if (pending) return { feedback_id: pending.feedback_id, problem_id: p.problem_id, action: f.action, status: 'pending', duplicate: true };
  // the same payload again after an earlier one was applied is new feedback (e.g. fixed again after a reopen)
  const feedbackId = uuidFrom('feedback', tenant, payloadHash, String(earlier.length));
  const t = iso(now(deps));
  await deps.store.insert('problem_feedback', [
    {
      tenant_id: tenant,
      feedback_id: feedbackId,
      version: now(deps) * 1000,
      problem_id: p.problem_id,
      payload_hash: payloadHash,
      feedback_kind: f.action,
      reason: f.reason,
      attribution_id: f.attribution_id,
      new_display_name: f.new_display_name,
      actor: f.actor,
      fix_ref: f.fix_ref ? JSON.stringify(f.fix_ref) : '',
      status: 'pending',
      consumed_by_run_id: '',
      outcome: '',
      created_at: t,
      consumed_at: iso(0),
    },
  ]);
  return { feedback_id: feedbackId, problem_id: p.problem_id, action: f.action, status: 'pending', duplicate: false };
}

export interface ProblemSummary {
  problem_id: string;
  display_name: string;
  cause_key: string;
  status: ProblemState['status'];
  lifecycle: ProblemState['lifecycle'];
  tier: 'macro' | 'leaf';
  provisional: boolean;
  verification_status: ProblemState['verification_status'];
  rank_score: number;
  total_attributions: number;
}

/** Every problem of the latest complete run (merged-away ones excluded), best ranked first. */
export async function listProblems(deps: ProblemsDeps, tenant: string): Promise<ProblemSummary[]> {
  const run = await createProblemsStore(deps.store).currentRun(tenant);
  if (!run) return [];
  const rows = await deps.store.query<Record<string, unknown>>(
    `SELECT problem_id, display_name, cause_key, status, lifecycle, tier, provisional, verification_status, rank_score, total_attributions
     FROM {{db}}.problems WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND status != 'merged'
     ORDER BY rank_score DESC, total_attributions DESC, problem_id`,
    { tenant, run: run.run_id },
  );
  return rows.map((r) => ({
    problem_id: String(r.problem_id),
    display_name: String(r.display_name),
    cause_key: String(r.cause_key),
    status: String(r.status) as ProblemState['status'],
    lifecycle: String(r.lifecycle) as ProblemState['lifecycle'],
    tier: String(r.tier) as 'macro' | 'leaf',
    provisional: Number(r.provisional) === 1,
    verification_status: String(r.verification_status) as ProblemState['verification_status'],
    rank_score: Number(r.rank_score),
    total_attributions: Number(r.total_attributions),
  }));
}
