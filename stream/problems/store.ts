/**
 * ClickHouse reads and writes of the problems engine (tables of migration 0120). A run writes its
 * problems, attributions and reports keyed by its run id, then the history tables, then marks the
 * feedback it applied consumed, then its `complete` row: readers take the latest complete run.
 */
import { BACKGROUND_DELETE, namedQuery, type Store } from '../../core/clickhouse.js';
import { dropRunsExcept } from '../jobs/run-rows.js';
import type { EngineOutput } from './engine.js';
import type { CauseRef } from '../analyses/types.js';
import { extractSignals, MIN_EMOTION_SCORE, type SignalSource } from './signals.js';
import type { Attribution, PendingFeedback, ProblemState, Rubric, RunStats, Signal } from './types.js';
import { withFields } from '../../core/own.js';

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

/** ClickHouse times (`2025-01-01 10:00:00.000`, UTC) as ISO 8601. */
function toIso(t: unknown): string {
  const s = String(t ?? '');
  const ms = Date.parse(/Z$|[+-]\d\d:?\d\d$/.test(s) ? s : `${s.replace(' ', 'T')}Z`);
  return iso(Number.isFinite(ms) ? ms : 0);
}

export interface RunRow {
  run_id: string;
  engine_version: number;
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

/** The signals of one conversation as the signal store keeps them (migration 0121). */
export interface ConversationSignals {
  conversation_id: string;
  /** The conversation itself is recorded (counts toward the discovery share). */
  known: boolean;
  signals: Signal[];
  blended: number | null;
}

/** One input of the engine from per-conversation signals (signals and blended scores in id order). */
export function signalInputOf(convs: Iterable<ConversationSignals>): SignalInput {
  const list = [...convs].sort((a, b) => (a.conversation_id < b.conversation_id ? -1 : a.conversation_id > b.conversation_id ? 1 : 0));
  const signals: Signal[] = [];
  const blended = new Map<string, number>();
  let conversations = 0;
  for (const c of list) {
    signals.push(...c.signals);
    if (c.blended !== null) blended.set(c.conversation_id, c.blended);
    if (c.known) conversations += 1;
  }
  return { signals, blended, conversations };
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
      return r && { run_id: String(r.run_id), engine_version: num(r.engine_version), started_at: String(r.started_at), completed_at: String(r.completed_at), input_mark: String(r.input_mark), stats: parseJson<RunStats | null>(r.stats, null) };
    },

    /**
     * Fingerprint of the engine's inputs (JSON): the highest version of each analysis table it
     * reads (the watermarks of incremental runs), the failure categories and the taxonomy run.
     */
    async inputMark(tenant: string): Promise<string> {
      const rows = await store.query<Record<string, string>>(namedQuery('stream-problems-input-mark'), { tenant });
      const taxonomyRun = (await store.query<{ run_id: string }>(namedQuery('taxonomy-current-run'), { tenant }))[0]?.run_id ?? '';
      return JSON.stringify({ ...(rows[0] ?? {}), taxonomy: taxonomyRun });
    },

    /** Conversations with rows above the watermarks of a previous input mark (minus `marginVersions`). */
    async changedConversations(tenant: string, previousMark: string, marginVersions: number): Promise<string[]> {
      const m = parseJson<Record<string, string>>(previousMark, {});
      const at = (k: string) => {
        const v = BigInt(/^\d+$/.test(m[k] ?? '') ? m[k]! : '0') - BigInt(marginVersions);
        return (v < 0n ? 0n : v).toString();
      };
      const rows = await store.query<{ conversation_id: string }>(namedQuery('stream-problems-changed-conversations'), {
        tenant, emotions: at('emotions'), calls: at('calls'), laziness: at('laziness'), hallucinations: at('hallucinations'), steps: at('steps'), conversations: at('conversations'), segments: at('segments'),
      });
      return rows.map((r) => r.conversation_id).sort();
    },

    /** The stored signals of every conversation of the tenant but `except` (migration 0121). */
    async loadStoredSignals(tenant: string, except: ReadonlySet<string>): Promise<ConversationSignals[]> {
      const rows = await store.query<Record<string, unknown>>(`SELECT conversation_id, known, blended, signals FROM {{db}}.problem_signals FINAL WHERE tenant_id = {tenant:String}`, { tenant });
      return rows
        .filter((r) => !except.has(String(r.conversation_id)))
        .map((r) => ({ conversation_id: String(r.conversation_id), known: num(r.known) === 1, blended: r.blended === null || r.blended === undefined ? null : num(r.blended), signals: parseJson<Signal[]>(r.signals, []) }));
    },

    /**
     * Stores the signals of the given conversations; with `replaceAll`, rows of conversations not
     * given (no longer recorded) are removed.
     */
    async storeSignals(tenant: string, runId: string, convs: readonly ConversationSignals[], replaceAll: boolean): Promise<void> {
      const version = Date.now() * 1000;
      await insertChunks(
        'problem_signals',
        convs.map((c) => ({ tenant_id: tenant, conversation_id: c.conversation_id, version, run_id: runId, known: c.known ? 1 : 0, signal_count: c.signals.length, blended: c.blended, signals: JSON.stringify(c.signals) })),
      );
      if (replaceAll) await store.command(`DELETE FROM {{db}}.problem_signals WHERE tenant_id = {tenant:String} AND version < {version:UInt64} ${BACKGROUND_DELETE}`, { tenant, version: String(version) });
    },

    /** Every negative signal of the tenant (stream/problems/signals.ts) and blended step scores. */
    async loadSignals(tenant: string): Promise<SignalInput> {
      return signalInputOf(await this.readConversationSignals(tenant));
    },

    /**
     * Reads the analyses of the tenant's conversations (all, or only `only`) and extracts their
     * signals, one entry per conversation that has a row or a signal.
     */
    async readConversationSignals(tenant: string, only?: readonly string[]): Promise<ConversationSignals[]> {
      const scope = { tenant, all: only ? 0 : 1, convs: only ? [...only] : [] };
      if (only && only.length === 0) return [];
      const [calls, emotions, lazy, claims, steps, convs] = await Promise.all([
        store.query<Record<string, unknown>>(namedQuery('stream-problems-tool-failures'), scope),
        store.query<Record<string, unknown>>(namedQuery('stream-problems-emotions'), { ...scope, min_score: MIN_EMOTION_SCORE }),
        store.query<Record<string, unknown>>(namedQuery('stream-problems-laziness'), scope),
        store.query<Record<string, unknown>>(namedQuery('stream-problems-hallucinations'), scope),
        store.query<Record<string, unknown>>(namedQuery('stream-problems-step-scores'), scope),
        store.query<Record<string, unknown>>(namedQuery('stream-problems-conversations'), scope),
      ]);
      const taxonomyRun = (await store.query<{ run_id: string }>(namedQuery('taxonomy-current-run'), { tenant }))[0]?.run_id;
      const clusterRows = taxonomyRun ? await store.query<{ segment_id: string; node_id: string; label: string }>(namedQuery('stream-problems-segment-clusters'), { tenant, run: taxonomyRun }) : [];
      const clusterOf = new Map(clusterRows.map((r) => [r.segment_id, { cluster_id: r.node_id, cluster_label: r.label }]));
      const sources = new Map<string, SignalSource>();
      const src = (c: string): SignalSource => {
        let s = sources.get(c);
        if (!s) sources.set(c, (s = { conversation_id: c, user_id: '', message_count: 0, segments: [], calls: [], emotions: [], laziness: [], claims: [], steps: [], blended: null }));
        return s;
      };
      const known = new Set<string>();
      for (const r of convs) {
        known.add(String(r.conversation_id));
        const s = src(String(r.conversation_id));
        s.user_id = String(r.user_id ?? '');
        s.message_count = num(r.message_count);
        const ids = (r.segment_ids as string[] | null) ?? [];
        const starts = ((r.segment_starts as unknown[] | null) ?? []).map(num);
        s.segments = ids.map((id, i) => ({ id, start: starts[i] ?? 0, ...clusterOf.get(id) }));
      }
      for (const r of calls) {
        src(String(r.conversation_id)).calls.push({
          item_key: String(r.item_key), tool_name: String(r.tool_name), message_index: num(r.message_index), result_index: num(r.result_index), ts: toIso(r.ts),
          error: String(r.error ?? ''), family: String(r.family ?? ''), label: String(r.label ?? r.category_id ?? ''), likely_cause: String(r.likely_cause ?? ''),
        });
      }
      for (const r of emotions) {
        src(String(r.conversation_id)).emotions.push({
          item_key: String(r.item_key), message_index: num(r.message_index), ts: toIso(r.message_ts), family: String(r.family), signal: String(r.signal), score: num(r.score),
          elicitor: String(r.elicitor ?? ''), cause: parseJson<CauseRef | null>(r.cause, null), quotes: (r.quotes as string[] | null) ?? [],
        });
      }
      for (const r of lazy) {
        src(String(r.conversation_id)).laziness.push({ item_key: String(r.item_key), message_index: num(r.message_index), ts: toIso(r.message_ts), pattern: String(r.pattern), confidence: num(r.confidence), quote: String(r.quote ?? ''), truncated: false });
      }
      for (const r of claims) {
        const ev = parseJson<{ tool_use_id?: string | null; message_index?: number | null }>(r.evidence, {});
        src(String(r.conversation_id)).claims.push({ item_key: String(r.item_key), message_index: num(r.message_index), ts: toIso(r.message_ts), claim_type: String(r.claim_type), claim: String(r.claim ?? ''), evidence_call: ev.tool_use_id ?? null, evidence_index: ev.message_index ?? null });
      }
      for (const r of steps) {
        const s = src(String(r.conversation_id));
        if (r.kind === 'rollup') {
          if (r.blended_score !== null && r.blended_score !== undefined) s.blended = num(r.blended_score);
          continue;
        }
        if (!r.doc) continue;
        const doc = parseJson<{ steps?: SignalSource['steps'][number]['steps'] }>(r.doc, {});
        s.steps.push({ segment_id: String(r.item_key), score: num(r.score), failure_type: String(r.failure_type ?? ''), scored_at: toIso(r.scored_at), steps: doc.steps ?? [] });
      }
      return [...sources.values()].map((s) => ({ conversation_id: s.conversation_id, known: known.has(s.conversation_id), signals: extractSignals(s), blended: s.blended }));
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
          .map((r) => withFields(r, { version, status: 'consumed', consumed_by_run_id: runId, consumed_at: nowIso, outcome: out.feedback.find((f) => f.feedback_id === r.feedback_id)?.outcome ?? '' })),
      );
    },

    /** Drops run-keyed rows of every run except `keep` (lightweight deletes, in the background). */
    dropRunsExcept: (tenant: string, keep: readonly string[]): Promise<void> => dropRunsExcept(store, 'problem_runs', ['problems', 'problem_attributions', 'problem_reports'], tenant, keep),
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
