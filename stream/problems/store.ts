/**
 * ClickHouse reads and writes of the problems engine (tables of migration 0120). A run writes its
 * problems, attributions and reports keyed by its run id, then the history tables, then marks the
 * feedback it applied consumed, then its `complete` row: readers take the latest complete run.
 */
import { namedQuery, type Store } from '../../core/clickhouse.js';
import type { EngineOutput } from './engine.js';
import type { Attribution, PendingFeedback, ProblemState, Rubric, RunStats, Signal } from './types.js';

const CHUNK = 5000;
const iso = (ms: number) => new Date(ms).toISOString();
const num = (v: unknown) => Number(v ?? 0);
const parseJson = <T>(text: unknown, fallback: T): T => {
  if (typeof text !== 'string' || text === '') return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

/** The minimum score of an emotion detection that counts as a signal (reported families start at 0.3). */
export const MIN_EMOTION_SCORE = 0.3;
/** A negative emotion this strong on one of the last two messages is abandonment. */
export const ABANDONMENT_SCORE = 0.45;

export interface RunRow {
  run_id: string;
  started_at: string;
  completed_at: string;
  input_mark: string;
  stats: RunStats | null;
}

export interface SignalInput {
  signals: Signal[];
  blended: Map<string, number>;
  conversations: number;
}

export function createProblemsStore(store: Store) {
  const insertChunks = async (table: string, rows: readonly object[]) => {
    for (let i = 0; i < rows.length; i += CHUNK) await store.insert(table, rows.slice(i, i + CHUNK));
  };

  return {
    store,

    async currentRun(tenant: string): Promise<RunRow | undefined> {
      const rows = await store.query<Record<string, unknown>>(namedQuery('problems-current-run'), { tenant });
      const r = rows[0];
      return r && { run_id: String(r.run_id), started_at: String(r.started_at), completed_at: String(r.completed_at), input_mark: String(r.input_mark), stats: parseJson<RunStats | null>(r.stats, null) };
    },

    async inputMark(tenant: string): Promise<string> {
      const rows = await store.query<Record<string, string>>(namedQuery('stream-problems-input-mark'), { tenant });
      return JSON.stringify(rows[0] ?? {});
    },

    /** Every negative signal of the tenant, with segment ids, and blended step scores. */
    async loadSignals(tenant: string): Promise<SignalInput> {
      const [calls, emotions, lazy, claims, steps, convs] = await Promise.all([
        store.query<Record<string, unknown>>(namedQuery('stream-problems-tool-failures'), { tenant }),
        store.query<Record<string, unknown>>(namedQuery('stream-problems-emotions'), { tenant, min_score: MIN_EMOTION_SCORE }),
        store.query<Record<string, unknown>>(namedQuery('stream-problems-laziness'), { tenant }),
        store.query<Record<string, unknown>>(namedQuery('stream-problems-hallucinations'), { tenant }),
        store.query<Record<string, unknown>>(namedQuery('stream-problems-step-scores'), { tenant }),
        store.query<Record<string, unknown>>(namedQuery('stream-problems-conversations'), { tenant }),
      ]);
      const conv = new Map<string, { message_count: number; user_id: string; last_ts: string; segs: Array<{ id: string; start: number }> }>();
      for (const c of convs) {
        const ids = (c.segment_ids as string[] | null) ?? [];
        const starts = ((c.segment_starts as unknown[] | null) ?? []).map(num);
        conv.set(String(c.conversation_id), {
          message_count: num(c.message_count),
          user_id: String(c.user_id ?? ''),
          last_ts: String(c.last_ts ?? ''),
          segs: ids.map((id, i) => ({ id, start: starts[i] ?? 0 })).sort((a, b) => a.start - b.start),
        });
      }
      const segmentOf = (c: string, msg: number) => {
        const segs = conv.get(c)?.segs ?? [];
        let id = '';
        for (const s of segs) if (s.start <= msg) id = s.id;
        return id || segs[0]?.id || '';
      };
      const userOf = (c: string, u: unknown) => (typeof u === 'string' && u ? u : (conv.get(c)?.user_id ?? ''));
      const toIso = (t: unknown) => {
        const s = String(t ?? '');
        const ms = Date.parse(s.endsWith('Z') || s.includes('+') ? s : `${s}Z`);
        return Number.isFinite(ms) ? iso(ms) : iso(0);
      };
      const signals: Signal[] = [];
      const toolOfCall = new Map<string, string>();
      for (const r of calls) {
        const c = String(r.conversation_id);
        const result = num(r.result_index);
        const msg = result >= 0 ? result : Math.max(0, num(r.message_index));
        toolOfCall.set(`${c}\u0000${r.item_key}`, String(r.tool_name));
        signals.push({
          signal_id: `tool_failure:${c}:${r.item_key}`,
          conversation_id: c,
          user_id: userOf(c, r.user_id),
          kind: 'tool_failure',
          family: String(r.family || 'other'),
          type: String(r.label || r.category_id || r.family || 'failure'),
          msg_index: msg,
          ts: toIso(r.ts),
          segment_id: segmentOf(c, msg),
          confidence: 1,
          text: String(r.error ?? ''),
          tool_name: String(r.tool_name),
          category_id: String(r.category_id ?? ''),
          detail: String(r.likely_cause ?? ''),
          call_key: String(r.item_key),
        });
      }
      for (const r of emotions) {
        const c = String(r.conversation_id);
        const msg = num(r.message_index);
        const cause = parseJson<Signal['cause_ref'] | null>(r.cause, null);
        const quotes = (r.quotes as string[] | null) ?? [];
        signals.push({
          signal_id: `emotion:${c}:${r.item_key}`,
          conversation_id: c,
          user_id: userOf(c, r.user_id),
          kind: 'emotion',
          family: String(r.family),
          type: String(r.signal),
          msg_index: msg,
          ts: toIso(r.message_ts),
          segment_id: segmentOf(c, msg),
          confidence: Math.round(num(r.score) * 1000) / 1000,
          text: quotes.join(' … '),
          cause_ref: cause ?? undefined,
          elicitor: String(r.elicitor ?? ''),
        });
        const info = conv.get(c);
        if (info && num(r.score) >= ABANDONMENT_SCORE && msg >= info.message_count - 2 && r.family !== 'confusion') {
          signals.push({
            signal_id: `abandonment:${c}:${r.item_key}`,
            conversation_id: c,
            user_id: userOf(c, r.user_id),
            kind: 'abandonment',
            family: 'abandonment',
            type: 'left_after_negative_turn',
            msg_index: msg,
            ts: toIso(r.message_ts),
            segment_id: segmentOf(c, msg),
            confidence: Math.round(num(r.score) * 1000) / 1000,
            text: quotes.join(' … '),
            cause_ref: cause ?? undefined,
          });
        }
      }
      for (const r of lazy) {
        const c = String(r.conversation_id);
        const msg = num(r.message_index);
        signals.push({
          signal_id: `laziness:${c}:${r.item_key}`,
          conversation_id: c,
          user_id: userOf(c, ''),
          kind: 'laziness',
          family: 'laziness',
          type: String(r.pattern),
          msg_index: msg,
          ts: toIso(r.message_ts),
          segment_id: segmentOf(c, msg),
          confidence: Math.round(num(r.confidence) * 1000) / 1000,
          text: String(r.quote ?? ''),
        });
      }
      for (const r of claims) {
        const c = String(r.conversation_id);
        const msg = num(r.message_index);
        const ev = parseJson<{ tool_use_id?: string | null; message_index?: number | null }>(r.evidence, {});
        signals.push({
          signal_id: `hallucination:${c}:${r.item_key}`,
          conversation_id: c,
          user_id: userOf(c, r.user_id),
          kind: 'hallucination',
          family: 'hallucination',
          type: String(r.claim_type),
          msg_index: msg,
          ts: toIso(r.message_ts),
          segment_id: segmentOf(c, msg),
          confidence: 0.9,
          text: String(r.claim ?? ''),
          tool_name: ev.tool_use_id ? toolOfCall.get(`${c}\u0000${ev.tool_use_id}`) : undefined,
          cause_ref: ev.tool_use_id ? { kind: 'tool_failure', message_index: ev.message_index ?? null, tool_use_id: ev.tool_use_id } : undefined,
        });
      }
      const blended = new Map<string, number>();
      for (const r of steps) {
        const c = String(r.conversation_id);
        if (r.kind === 'rollup') {
          if (r.blended_score !== null && r.blended_score !== undefined) blended.set(c, num(r.blended_score));
          continue;
        }
        if (!r.doc) continue;
        const doc = parseJson<{ steps?: Array<{ unit_id: string; message_index: number; first_bad_step_probability: number; first_bad_step_reason: string | null }> }>(r.doc, {});
        const worst = [...(doc.steps ?? [])].sort((a, b) => b.first_bad_step_probability - a.first_bad_step_probability || a.message_index - b.message_index)[0];
        if (!worst) continue;
        signals.push({
          signal_id: `step_score:${c}:${r.item_key}`,
          conversation_id: c,
          user_id: userOf(c, r.user_id),
          kind: 'step_score',
          family: 'step_score',
          type: String(r.failure_type || 'low_progress'),
          msg_index: worst.message_index,
          ts: toIso(r.scored_at),
          segment_id: String(r.item_key),
          confidence: Math.round((1 - num(r.score)) * 1000) / 1000,
          text: worst.first_bad_step_reason ?? '',
          step_unit: worst.unit_id,
        });
      }
      return { signals, blended, conversations: conv.size };
    },

    async loadProblems(tenant: string, runId: string): Promise<ProblemState[]> {
      const rows = await store.query<{ doc: string }>(`SELECT doc FROM {{db}}.problems WHERE tenant_id = {tenant:String} AND run_id = {run:String}`, { tenant, run: runId });
      return rows.map((r) => JSON.parse(r.doc) as ProblemState);
    },

    async loadAttributionIndex(tenant: string, runId: string) {
      const rows = await store.query<Record<string, unknown>>(
        `SELECT attribution_id, problem_id, conversation_id, segment_id, signal_family, signal_type, first_assigned_at FROM {{db}}.problem_attributions WHERE tenant_id = {tenant:String} AND run_id = {run:String}`,
        { tenant, run: runId },
      );
      return new Map(
        rows.map((r) => [
          String(r.attribution_id),
          { problem_id: String(r.problem_id), conversation_id: String(r.conversation_id), segment_id: String(r.segment_id), signal_family: String(r.signal_family), signal_type: String(r.signal_type), first_assigned_at: new Date(Date.parse(`${String(r.first_assigned_at).replace(/Z$/, '')}Z`)).toISOString() },
        ]),
      );
    },

    async pendingFeedback(tenant: string): Promise<PendingFeedback[]> {
      const rows = await store.query<Record<string, unknown>>(
        `SELECT feedback_id, problem_id, feedback_kind, reason, attribution_id, new_display_name, actor, fix_ref, created_at FROM {{db}}.problem_feedback FINAL WHERE tenant_id = {tenant:String} AND status = 'pending' ORDER BY created_at, feedback_id`,
        { tenant },
      );
      return rows.map((r) => ({
        feedback_id: String(r.feedback_id),
        problem_id: String(r.problem_id),
        feedback_kind: String(r.feedback_kind) as PendingFeedback['feedback_kind'],
        reason: String(r.reason),
        attribution_id: String(r.attribution_id),
        new_display_name: String(r.new_display_name),
        actor: String(r.actor),
        fix_ref: parseJson(r.fix_ref, null),
        created_at: String(r.created_at),
      }));
    },

    async writeRunState(tenant: string, runId: string, status: 'building' | 'complete', fields: { started_at: string; completed_at?: string; input_mark?: string; stats?: RunStats; engine_version: number }): Promise<void> {
      await store.insert('problem_runs', [
        { tenant_id: tenant, run_id: runId, version: Date.now() * 1000 + (status === 'complete' ? 2 : 0), status, engine_version: fields.engine_version, started_at: fields.started_at, completed_at: fields.completed_at ?? iso(0), input_mark: fields.input_mark ?? '', stats: fields.stats ? JSON.stringify(fields.stats) : '' },
      ]);
    },

    /** Everything of a run but its `complete` row. */
    async writeOutput(tenant: string, runId: string, out: EngineOutput, nowIso: string): Promise<void> {
      await insertChunks(
        'problems',
        out.problems.map((p) => ({
          tenant_id: tenant,
          run_id: runId,
          problem_id: p.problem_id,
          cause_key: p.cause_key,
          status: p.status,
          merged_into: p.merged_into ?? '',
          lifecycle: p.lifecycle,
          tier: p.rubric.tier,
          parent_problem_id: p.rubric.parent_problem_id ?? '',
          provisional: p.rubric.provisional ? 1 : 0,
          rubric_version: p.rubric.version,
          causal_content_version: p.rubric.causal_content_version,
          display_name: p.rubric.display_name,
          cause_statement: p.rubric.cause_statement,
          verification_status: p.verification_status,
          rank_score: p.metrics.rank_score,
          total_attributions: p.metrics.total_attributions,
          created_at: p.created_at,
          updated_at: p.updated_at,
          doc: JSON.stringify(p),
        })),
      );
      await insertChunks('problem_attributions', out.attributions.map((a) => attributionRow(tenant, runId, a)));
      await insertChunks(
        'problem_reports',
        out.reports.map((r) => ({ tenant_id: tenant, run_id: runId, problem_id: r.problem_id, report_id: r.report_id, conversation_id: r.conversation_id, status: r.status, investigated_at: r.investigated_at, doc: JSON.stringify(r) })),
      );
      await insertChunks('problem_definitions', out.definitions.map((d) => definitionRow(tenant, d.problem_id, d.rubric)));
      await insertChunks('problem_events', out.events.map((e) => ({ tenant_id: tenant, ...e, run_id: runId, related_problem_id: e.related_problem_id ?? '' })));
      await insertChunks('problem_aliases', out.aliases.map((a) => ({ tenant_id: tenant, alias_id: a.alias_id, problem_id: a.problem_id, run_id: runId, created_at: nowIso })));
      const live = out.problems.filter((p) => p.status !== 'merged');
      await insertChunks(
        'problem_trend',
        live.map((p) => ({ tenant_id: tenant, problem_id: p.problem_id, run_ts: nowIso, run_id: runId, rank_score: p.metrics.rank_score, total_attributions: p.metrics.total_attributions, rubric_version: p.rubric.version, coverage_overall: p.metrics.coverage_overall })),
      );
    },

    async consumeFeedback(tenant: string, runId: string, out: EngineOutput, pending: readonly PendingFeedback[], nowIso: string): Promise<void> {
      const byId = new Map(pending.map((f) => [f.feedback_id, f]));
      const rows = await store.query<Record<string, unknown>>(
        `SELECT * FROM {{db}}.problem_feedback FINAL WHERE tenant_id = {tenant:String} AND feedback_id IN {ids:Array(String)}`,
        { tenant, ids: out.feedback.map((f) => f.feedback_id) },
      );
      const version = Date.now() * 1000 + 1;
      await insertChunks(
        'problem_feedback',
        rows
          .filter((r) => byId.has(String(r.feedback_id)))
          .map((r) => ({ ...r, version, status: 'consumed', consumed_by_run_id: runId, consumed_at: nowIso, outcome: out.feedback.find((f) => f.feedback_id === r.feedback_id)?.outcome ?? '' })),
      );
    },

    /** Drops run-keyed rows of every run except `keep` (lightweight deletes). */
    async dropRunsExcept(tenant: string, keep: readonly string[]): Promise<void> {
      const runs = await store.query<{ run_id: string }>(`SELECT DISTINCT run_id FROM {{db}}.problem_runs WHERE tenant_id = {tenant:String}`, { tenant });
      const drop = runs.map((r) => r.run_id).filter((r) => !keep.includes(r));
      if (drop.length === 0) return;
      for (const table of ['problems', 'problem_attributions', 'problem_reports']) {
        await store.command(`DELETE FROM {{db}}.${table} WHERE tenant_id = {tenant:String} AND run_id IN {runs:Array(String)}`, { tenant, runs: drop });
      }
    },
  };
}

export type ProblemsStore = ReturnType<typeof createProblemsStore>;

function attributionRow(tenant: string, runId: string, a: Attribution) {
  const { signal_ids: _ids, snippet, replay_verified, ...rest } = a;
  return { tenant_id: tenant, run_id: runId, ...rest, replay_verified: replay_verified === null ? null : replay_verified ? 1 : 0, snippet: JSON.stringify(snippet) };
}

function definitionRow(tenant: string, problemId: string, r: Rubric) {
  return { tenant_id: tenant, problem_id: problemId, rubric_version: r.version, causal_content_version: r.causal_content_version, change_reason: r.change_reason, created_at: r.updated_at, doc: JSON.stringify(r) };
}
