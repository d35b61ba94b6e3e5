/**
 * The offline analysis behind `tracehouse analyze` and `npm run eval`: direct-ingest events of one
 * workspace in, one result per conversation out, through exactly the analyzers the stream role
 * runs (pipeline.ts) on the snapshots the stream role would build (direct-input.ts). The whole input
 * is one workspace, so its failed calls are categorized against one registry, primed with all of
 * them first (the result then does not depend on the order of the conversations). Conversations of
 * one user are analyzed in time order with the user's memory carried from one to the next, as the
 * stream role does; results keep the input's first-seen order.
 */
import { snapshotsFromDirectEvents, type DirectInputProblem } from './direct-input.js';
import { conversationFrustration } from './emotions.js';
import { isLazyConversation } from './laziness.js';
import { analyzeSnapshot, type AnalysisEnv } from './pipeline.js';
import type { ConversationAnalysis, ConversationSnapshot, UserMemoryDocument } from './types.js';
import { clusterSegments } from './taxonomy/offline.js';
import { contributionOf, emptyMemory, mergeMemory } from './user-memory.js';
import { withFields } from '../../core/own.js';

export interface OfflineTotals {
  conversations: number;
  messages: number;
  tool_calls: number;
  failed_calls: number;
  categories: number;
  emotions: number;
  frustrated_conversations: number;
  at_risk_conversations: number;
  laziness: number;
  lazy_conversations: number;
  hallucinations_contradicted: number;
  hallucinations_verified: number;
  hallucinations_unverified: number;
  /** Use-case clusters of the workspace's own taxonomy (0 below 50 segments). */
  clusters: number;
}

export interface OfflineResult {
  results: ConversationAnalysis[];
  problems: DirectInputProblem[];
  /** Analyzer failures (the conversation's other analyses stand). */
  errors: Array<{ conversation_id: string; analyzer: string; error: string }>;
  totals: OfflineTotals;
}

/** The workspace's analysis environment over every snapshot (the category registry, primed). */
export type WorkspaceEnv = (snapshots: readonly ConversationSnapshot[]) => AnalysisEnv;

export function analyzeDirectEvents(events: readonly unknown[], opts: { workspace?: WorkspaceEnv; nowMs?: number } = {}): OfflineResult {
  const { snapshots, problems } = snapshotsFromDirectEvents(events, { nowMs: opts.nowMs });
  const env = opts.workspace ? opts.workspace(snapshots) : {};
  const results: ConversationAnalysis[] = new Array(snapshots.length);
  const errors: OfflineResult['errors'] = [];
  const memories = new Map<string, UserMemoryDocument>();
  for (const i of userTimeOrder(snapshots)) {
    const plain = snapshots[i]!;
    const memory = plain.userId ? memories.get(plain.userId) ?? emptyMemory(plain.userId) : undefined;
    const s = memory ? withFields(plain, { userMemory: memory }) : plain;
    const { analysis, outcomes } = analyzeSnapshot(s, env);
    for (const o of outcomes) if (!o.ok) errors.push({ conversation_id: s.conversationId, analyzer: o.name, error: o.error ?? 'failed' });
    const profile = analysis.world_state?.userDurableProfile;
    if (memory && profile) memories.set(plain.userId, mergeMemory(memory, s.conversationId, contributionOf(s.conversationId, profile.slots)));
    results[i] = analysis;
  }
  // the workspace's own use-case taxonomy (segments gain `cluster` with ≥ 50 segments)
  const taxonomy = clusterSegments(results);
  const categories = new Set(results.flatMap((r) => r.tool_calls.map((t) => t.category?.id).filter(Boolean)));
  const totals: OfflineTotals = {
    conversations: snapshots.length,
    messages: snapshots.reduce((a, s) => a + s.messages.length, 0),
    tool_calls: results.reduce((a, r) => a + r.tool_calls.length, 0),
    failed_calls: snapshots.reduce((a, s) => a + s.toolCalls.filter((c) => c.success === false || (c.success === null && c.decision === 'reject')).length, 0),
    categories: categories.size,
    emotions: results.reduce((a, r) => a + r.emotions.length, 0),
    frustrated_conversations: results.filter((r) => conversationFrustration(r.emotions).frustrated).length,
    at_risk_conversations: results.filter((r) => conversationFrustration(r.emotions).at_risk).length,
    laziness: results.reduce((a, r) => a + r.laziness.length, 0),
    lazy_conversations: results.filter((r) => isLazyConversation(r.laziness)).length,
    hallucinations_contradicted: results.reduce((a, r) => a + r.hallucination_stats.contradicted, 0),
    hallucinations_verified: results.reduce((a, r) => a + r.hallucination_stats.verified, 0),
    hallucinations_unverified: results.reduce((a, r) => a + r.hallucination_stats.unverified, 0),
    clusters: taxonomy ? taxonomy.nodes.filter((n) => n.node_type === 'cluster').length : 0,
  };
  return { results, problems, errors, totals };
}

/** Indexes of the snapshots with each user's conversations in time order (users apart, by id). */
function userTimeOrder(snapshots: readonly ConversationSnapshot[]): number[] {
  const start = (i: number) => snapshots[i]!.messages[0]?.ts ?? 0;
  return snapshots
    .map((_, i) => i)
    .sort((a, b) => snapshots[a]!.userId.localeCompare(snapshots[b]!.userId) || start(a) - start(b) || a - b);
}
