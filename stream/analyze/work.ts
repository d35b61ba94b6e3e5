/**
 * The CPU part of analyzing a batch of changed conversations, run in the stream role's Piscina
 * pool: rows as loaded from ClickHouse in, the rows every analyzer writes out (with tombstones for
 * items a run no longer produces), plus the tool-failure rollup's plan and each analyzer's outcome.
 * Pure: the framework (analyze-consumer.ts) owns every read and write.
 */
import { createHash } from 'node:crypto';
import { withFields } from '../../core/own.js';
import { analyzeSnapshot, type AnalyzerOutcome } from '../analyses/pipeline.js';
import { createCategoryRegistry, type CategoryRegistry, type RegisteredCategory } from '../analyses/tool-failure-categories.js';
import { conversationFrustration, isFrustratedMessage } from '../analyses/emotions.js';
import { countedDetections, isLazyConversation } from '../analyses/laziness.js';
import { isHumanTurn } from '../analyses/text/turns.js';
import type { ConversationAnalysis, ConversationSnapshot } from '../analyses/types.js';
import { createMemoryPass, stepScoreRows, worldStateRows } from './state-rows.js';
import { FRAMEWORK_ANALYZERS, analyzerByName } from './tables.js';
import { planToolRollup, type CallFact } from './tool-rollup-plan.js';
import { snapshotOf, type LoadedChunk, type WorkItem } from './work-items.js';
import type { EncodedTable } from './work-bytes.js';

export interface WorkInput {
  /** Version of every row of this run (monotonic, from the main thread). */
  version: number;
  items: WorkItem[];
  /** The known failure categories of the batch's tenants (tool_failure_categories). */
  categories?: Record<string, RegisteredCategory[]>;
  /** Failures in a row after which an analyzer's outcome is `failed` (lets the thread encode `analysis_state`). */
  maxAttempts?: number;
}

/** What the analysis thread is sent: the batch's reads unparsed (work-items.ts `workItemsOf`). */
export type WorkRequest = Omit<WorkInput, 'items'> & { loaded: LoadedChunk[] };

export type TableRows = Record<string, Record<string, unknown>[]>;

export interface ItemOutcome {
  tenantId: string;
  conversationId: string;
  outcomes: AnalyzerOutcome[];
  /** Item keys per analyzer after this run: the new ones where it ran, the previous ones where it
   * failed (the next run tombstones those it no longer produces). */
  keys: Record<string, string[]>;
  /** Item keys per analyzer before this run (kept when a table write fails). */
  previousKeys: Record<string, string[]>;
  messageCount: number;
  /** Failures in a row of each analyzer before this run. */
  previousAttempts: Record<string, number>;
}

export interface WorkOutput {
  /** Rows per table, grouped over the batch; each table is owned by one analyzer. */
  tables: TableRows;
  /** Tool-failure rollup: (tenant, tool, day) groups to recompute, and the new per-call state. */
  toolGroups: [string, string, string][];
  toolState: Record<string, unknown>[];
  items: ItemOutcome[];
  /** Failure categories issued by this batch, per tenant: persisted before the calls that use them. */
  createdCategories: Record<string, RegisteredCategory[]>;
  /**
   * Tables already turned into insert-ready bytes on the analysis thread (work-bytes.ts): their
   * rows are here instead of in `tables` (or `toolState`).
   */
  encoded?: Record<string, EncodedTable>;
  /** `analysis_state` for this version and attempt limit as it is when every write succeeds. */
  encodedState?: { version: number; maxAttempts: number; table: EncodedTable };
  /**
   * More insert-ready parts of a table, beside `encoded`, when outputs of one batch analyzed on
   * several threads were merged with other columns (work-bytes.ts `mergeWorkOutputs`).
   */
  encodedMore?: Record<string, EncodedTable[]>;
}

/** Each framework analyzer's version by name (0 for a name it does not know). */
const VERSIONS = new Map(FRAMEWORK_ANALYZERS.map((a) => [a.name, a.version]));
const versionOf = (name: string): number => VERSIONS.get(name) ?? 0;

const iso = (ms: number) => new Date(ms).toISOString();
const shortHash = (s: string) => createHash('sha1').update(s).digest('hex').slice(0, 12);

/** Rows of each pure analyzer's table for one conversation, keyed by item. */
function analysisRows(s: ConversationSnapshot, a: ConversationAnalysis, version: number) {
  const base = { tenant_id: s.tenantId, conversation_id: s.conversationId, version, is_deleted: 0 };
  const tsOf = (i: number | null) => iso(i !== null && s.messages[i] ? s.messages[i]!.ts : s.messages[s.messages.length - 1]?.ts ?? 0);
  const byCall = new Map(s.toolCalls.map((c) => [c.key, c]));
  const rows: Record<string, Array<Record<string, unknown> & { item_key: string }>> = {
    'tool-calls': a.tool_calls.map((t) => {
      const c = byCall.get(t.tool_use_id)!;
      const failed = t.success === false || (t.success === null && c.decision === 'reject');
      return withFields(base, {
        item_key: t.tool_use_id,
        analyzer_version: versionOf('tool-calls'),
        tool_use_id: c.toolUseId,
        tool_name: t.tool_name,
        message_index: t.message_index ?? -1,
        result_index: c.resultIndex ?? -1,
        ts: iso(c.ts),
        success: t.success === null ? -1 : t.success ? 1 : 0,
        effect_class: t.effect_class,
        error: failed ? c.resultText : '',
        error_type: c.errorType,
        category_id: t.category?.id ?? '',
        family: t.category?.family ?? '',
        environment: s.environment,
        user_id: s.userId,
      });
    }),
    segments: a.segments.map((g, i) => withFields(base, { item_key: g.segment_id, analyzer_version: versionOf('segments'), segment_index: i, start_index: g.start_index, end_index: g.end_index })),
    'segment-goals': (a.segment_goals ?? []).map((g, i) => withFields(base, {
      item_key: g.segment_id,
      analyzer_version: versionOf('segment-goals'),
      segment_index: i,
      goal: g.goal,
      text: g.text,
      text_hash: g.text_hash,
      last_ts: tsOf(a.segments[i]?.end_index ?? null),
    })),
    emotions: a.emotions.map((e) => withFields(base, {
      item_key: `${e.message_index}:${e.signal}`,
      analyzer_version: versionOf('emotions'),
      message_index: e.message_index,
      message_ts: tsOf(e.message_index),
      family: e.family,
      signal: e.signal,
      score: e.score,
      risk_score: e.risk_score,
      trajectory: e.trajectory,
      elicitor: e.elicitor,
      cause: e.cause ? JSON.stringify(e.cause) : '',
      quotes: e.quotes,
      environment: s.environment,
      user_id: s.userId,
    })),
    laziness: a.laziness.map((l) => withFields(base, {
      item_key: `${l.message_index}:${l.pattern}`,
      analyzer_version: versionOf('laziness'),
      message_index: l.message_index,
      message_ts: tsOf(l.message_index),
      pattern: l.pattern,
      confidence: l.confidence,
      quote: l.quote,
      truncated_data: l.truncated_data ? 1 : 0,
      environment: s.environment,
    })),
    hallucinations: a.hallucinations.map((h) => withFields(base, {
      item_key: `${h.message_index}:${h.claim_type}:${shortHash(h.claim)}`,
      analyzer_version: versionOf('hallucinations'),
      message_index: h.message_index,
      message_ts: tsOf(h.message_index),
      claim_type: h.claim_type,
      claim: h.claim,
      verdict: h.verdict,
      evidence: JSON.stringify(h.evidence),
      environment: s.environment,
      user_id: s.userId,
    })),
    'world-state': a.world_state ? worldStateRows(s, a.world_state, base, versionOf('world-state')) : [],
    'step-scores': a.step_scores ? stepScoreRows(s, a.step_scores, base, versionOf('step-scores')) : [],
  };
  return rows;
}

/** The facts of the tool-failure rollup from the paired calls (one per call key). */
function callFacts(s: ConversationSnapshot, a: ConversationAnalysis): CallFact[] {
  const byKey = new Map(a.tool_calls.map((t) => [t.tool_use_id, t]));
  return s.toolCalls.map((c) => {
    const failed = c.success === false || (c.success === null && c.decision === 'reject');
    return {
      tenant_id: s.tenantId,
      conversation_id: s.conversationId,
      call_id: c.key,
      tool_name: c.toolName,
      failed: failed ? 1 : 0,
      day: iso(c.ts).slice(0, 10),
      environment: s.environment,
      effect_class: c.effectClass,
      ts: iso(c.ts),
      error: failed ? c.resultText : '',
      error_type: c.errorType,
      category_id: byKey.get(c.key)?.category?.id ?? '',
    };
  });
}

/** The conversation's headline signals (what the overview and the rate endpoints count). */
function signalsRow(item: WorkItem, s: ConversationSnapshot, a: ConversationAnalysis, version: number) {
  const f = conversationFrustration(a.emotions);
  const h = a.hallucination_stats;
  const userTurns = s.messages.filter(isHumanTurn);
  return {
    tenant_id: s.tenantId,
    conversation_id: s.conversationId,
    version,
    last_ts: item.aggregate?.last_ts ?? iso(s.messages[s.messages.length - 1]?.ts ?? 0),
    environment: s.environment,
    user_id: s.userId,
    user_messages: userTurns.length,
    frustrated: f.frustrated ? 1 : 0,
    at_risk: f.at_risk ? 1 : 0,
    max_risk: f.max_risk,
    frustrated_messages: userTurns.filter((m) => isFrustratedMessage(a.emotions, m.index)).length,
    emotion_count: a.emotions.length,
    lazy: isLazyConversation(a.laziness) ? 1 : 0,
    // headline count: truncated-data patterns and weak ones without a second family are left out
    laziness_count: countedDetections(a.laziness).length,
    claims: h.claims,
    verified_claims: h.verified,
    contradicted_claims: h.contradicted,
    unverified_claims: h.unverified,
    emotions_version: versionOf('emotions'),
    laziness_version: versionOf('laziness'),
    hallucinations_version: versionOf('hallucinations'),
  };
}

/** The `conversations` row: aggregates, tool counts from the paired calls, the summary (the stored one when the summary run failed). */
export function conversationRow(item: WorkItem, s: ConversationSnapshot, a: ConversationAnalysis, summaryOk: boolean, version: number) {
  const g = item.aggregate!;
  const failed = s.toolCalls.filter((c) => c.success === false || (c.success === null && c.decision === 'reject')).length;
  return {
    tenant_id: item.tenantId,
    conversation_id: item.conversationId,
    version,
    environment: g.environment || 'production',
    user_id: g.user_id,
    agent: g.agent,
    message_count: Number(g.message_count),
    first_ts: g.first_ts,
    last_ts: g.last_ts,
    input_tokens: Number(g.input_tokens),
    output_tokens: Number(g.output_tokens),
    cost_usd: Number(g.cost_usd),
    tool_call_count: s.toolCalls.length,
    tool_failure_count: failed,
    api_request_count: Number(g.api_request_count),
    api_error_count: Number(g.api_error_count),
    thread_count: Number(g.thread_count),
    // a failed summary run keeps the summary written before
    summary: summaryOk ? a.summary : g.summary,
  };
}

/**
 * What the conversations of one batch share while each is analyzed: created once per batch with
 * every field set, so the per-conversation code below always sees one shape.
 */
class Batch {
  readonly tables: TableRows = {};
  readonly toolGroups = new Map<string, [string, string, string]>();
  readonly toolState: Record<string, unknown>[] = [];
  readonly outcomesByIndex: ItemOutcome[] = [];
  readonly registries = new Map<string, CategoryRegistry>();

  constructor(
    readonly version: number,
    readonly items: readonly WorkItem[],
    readonly snapshots: readonly ConversationSnapshot[],
    readonly memory: ReturnType<typeof createMemoryPass>,
    readonly categories: Record<string, RegisteredCategory[]> | undefined,
  ) {}

  registryOf(tenant: string): CategoryRegistry {
    let r = this.registries.get(tenant);
    if (!r) this.registries.set(tenant, (r = createCategoryRegistry(this.categories?.[tenant] ?? [], { tenantSeed: tenant })));
    return r;
  }

  push(table: string, rows: Record<string, unknown>[]): void {
    if (rows.length) (this.tables[table] ??= []).push(...rows);
  }
}

/**
 * One conversation of the batch: every analyzer, its rows, its outcomes. A function of its own,
 * not the body of the batch's loop: the optimizing compiler then compiles this once per shape it
 * meets instead of recompiling the whole batch loop (every analyzer inlined into it, 100 ms and more
 * a compile) each time a batch brings an object of a new shape.
 */
function analyzeItem(b: Batch, index: number): void {
  const { version, memory } = b;
  const item = b.items[index]!;
  const userMemory = memory.memoryOf(index);
  const s = userMemory ? withFields(b.snapshots[index]!, { userMemory }) : b.snapshots[index]!;
  const { analysis, outcomes } = analyzeSnapshot(s, { categories: b.registryOf(item.tenantId) });
  const ok = new Map(outcomes.map((o) => [o.name, o.ok]));
  const previous = new Map(item.state.map((st) => [st.analyzer, st]));
  const previousKeys: Record<string, string[]> = Object.fromEntries(item.state.map((st) => [st.analyzer, st.item_keys ?? []]));
  const keys: Record<string, string[]> = { ...previousKeys };
  const rows = analysisRows(s, analysis, version);
  for (const a of FRAMEWORK_ANALYZERS) {
    const produced = rows[a.name];
    if (!produced || !ok.get(a.name)) continue;
    // items of the last run that this run no longer produces get a tombstone at their key
    const now = new Set(produced.map((r) => r.item_key));
    const gone = (previous.get(a.name)?.item_keys ?? []).filter((k) => !now.has(k));
    b.push(a.table, [...produced, ...gone.map((k) => ({ tenant_id: s.tenantId, conversation_id: s.conversationId, item_key: k, version, is_deleted: 1 }))]);
    keys[a.name] = [...now];
  }
  if (ok.get('summary')) {
    b.push('conversation_summaries', [{ tenant_id: s.tenantId, conversation_id: s.conversationId, version, analyzer_version: versionOf('summary'), summary: analysis.summary, message_count: s.messages.length }]);
  }
  const all: AnalyzerOutcome[] = [...outcomes];
  const signalsNeed = analyzerByName.get('signals')!.needs.find((n) => ok.get(n) !== true);
  if (signalsNeed) all.push({ name: 'signals', version: versionOf('signals'), ok: false, error: `needs ${signalsNeed}, which failed` });
  else {
    b.push('conversation_signals', [signalsRow(item, s, analysis, version)]);
    all.push({ name: 'signals', version: versionOf('signals'), ok: true });
  }
  if (ok.get('tool-calls')) {
    const plan = planToolRollup(callFacts(s, analysis), item.toolState);
    b.push('tool_call_facts', [...plan.tombstones.map((f) => withFields(f, { version, is_deleted: 1 })), ...plan.changed.map((f) => withFields(f, { version, is_deleted: 0 }))]);
    for (const g of plan.groups) b.toolGroups.set(g.join('\u0000'), g);
    for (const f of plan.changed) b.toolState.push(withFields(f, { version }));
    all.push({ name: 'tool-failure-rollup', version: versionOf('tool-failure-rollup'), ok: true });
  } else {
    all.push({ name: 'tool-failure-rollup', version: versionOf('tool-failure-rollup'), ok: false, error: 'needs tool-calls, which failed' });
  }
  if (item.aggregate && Number(item.aggregate.events) > 0) {
    b.push('conversations', [conversationRow(item, s, analysis, ok.get('summary') === true, version)]);
  }
  all.push({ name: 'conversation-rollup', version: versionOf('conversation-rollup'), ok: true });
  if (ok.get('world-state') && analysis.world_state) {
    memory.remember(index, analysis.world_state);
    all.push({ name: 'user-memory', version: versionOf('user-memory'), ok: true });
  } else {
    all.push({ name: 'user-memory', version: versionOf('user-memory'), ok: false, error: 'needs world-state, which failed' });
  }
  const previousAttempts: Record<string, number> = Object.fromEntries(item.state.map((st) => [st.analyzer, Number(st.attempts) || 0]));
  b.outcomesByIndex[index] = { tenantId: s.tenantId, conversationId: s.conversationId, outcomes: all, keys, previousKeys, messageCount: s.messages.length, previousAttempts };
}

/** Analyzes a batch: every conversation, every analyzer, one set of rows per table. */
export function runAnalysisWork(input: WorkInput): WorkOutput {
  const snapshots = input.items.map(snapshotOf);
  // a user's conversations in time order, each warm-started from the memory the earlier ones left
  const memory = createMemoryPass(input.items, snapshots);
  const b = new Batch(input.version, input.items, snapshots, memory, input.categories);
  for (const index of memory.order) analyzeItem(b, index);
  b.push('user_memory', memory.rows(input.version, versionOf('user-memory')));
  const createdCategories: Record<string, RegisteredCategory[]> = {};
  for (const [tenant, r] of b.registries) {
    const created = r.created();
    if (created.length) createdCategories[tenant] = created;
  }
  return { tables: b.tables, toolGroups: [...b.toolGroups.values()], toolState: b.toolState, items: b.outcomesByIndex, createdCategories };
}
