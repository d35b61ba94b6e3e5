/**
 * The problems engine on tau-bench's real airline trajectories (200 conversations): the offline
 * analysis, two engine passes, then the top problems with their evidence counts for an analyst to
 * read, and a check of every evidence anchor: the anchor message exists in the conversation the
 * context endpoint serves (same message order) and holds the quoted evidence.
 */
import { existsSync } from 'node:fs';
import { convertFile } from '../../stream/import/index.js';
import { analyzeDirectEvents } from '../../stream/analyses/offline.js';
import { snapshotsFromDirectEvents } from '../../stream/analyses/direct-input.js';
import { workspaceEnv } from '../../stream/analyses/workspace.js';
import { runEngine, type EngineOutput } from '../../stream/problems/engine.js';
import { extractSignals, sourceFromAnalysis } from '../../stream/problems/signals.js';
import type { Signal } from '../../stream/problems/types.js';
import { dataPath } from '../lib/data.js';

export const TAU_FILE = 'tau-bench/gpt-4o-airline.json';

export interface TauProblem {
  rank: number | null;
  display_name: string;
  verification_status: string;
  provisional: boolean;
  rank_score: number;
  attributions: number;
  signals: number;
  conversations: number;
  families: string;
  rubric_match: number;
  local_causal_chain: number;
  audit_pass_rate: number | null;
  example: string;
}

export interface TauResult {
  missing: boolean;
  conversations: number;
  signals: number;
  signals_by_kind: Record<string, number>;
  coverage_pct: number;
  problems: TauProblem[];
  anchors_checked: number;
  anchors_ok: number;
  anchor_failures: string[];
}

export function evaluateTau(): TauResult {
  const empty: TauResult = { missing: true, conversations: 0, signals: 0, signals_by_kind: {}, coverage_pct: 0, problems: [], anchors_checked: 0, anchors_ok: 0, anchor_failures: [] };
  const path = dataPath(TAU_FILE);
  if (!existsSync(path)) return empty;
  const { events } = convertFile(path);
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
  const now = Math.max(...snapshots.flatMap((s) => s.messages.map((m) => m.ts)).filter(Number.isFinite), 0) + 3_600_000;
  const first = runEngine({ tenant: 'tau', runId: 'tau-1', now, signals, previous: [], previousAttributions: new Map(), feedback: [], blended, conversationCount: snapshots.length });
  const prev = new Map(first.attributions.map((a) => [a.attribution_id, { first_assigned_at: a.first_assigned_at, conversation_id: a.conversation_id, signal_family: a.signal_family, signal_type: a.signal_type, problem_id: a.problem_id, segment_id: a.segment_id }]));
  const out: EngineOutput = runEngine({ tenant: 'tau', runId: 'tau-2', now: now + 60_000, signals, previous: first.problems, previousAttributions: prev, feedback: [], blended, conversationCount: snapshots.length });

  const leaves = out.problems.filter((p) => p.status === 'active' && p.rubric.tier === 'leaf');
  const trusted = leaves.filter((p) => p.verification_status === 'current').sort((a, b) => b.metrics.rank_score - a.metrics.rank_score);
  const rest = leaves.filter((p) => p.verification_status !== 'current').sort((a, b) => b.metrics.signal_count - a.metrics.signal_count);
  const shown = [...trusted.slice(0, 8), ...rest.slice(0, 5)];
  const problems: TauProblem[] = shown.map((p) => {
    const rows = out.attributions.filter((r) => r.problem_id === p.problem_id);
    const judge = p.samples.filter((s) => s.kind === 'judge_audit' && s.causal_content_version === p.verified_causal_version);
    const best = [...rows].sort((a, b) => b.confidence - a.confidence)[0];
    return {
      rank: trusted.includes(p) ? trusted.indexOf(p) + 1 : null,
      display_name: p.rubric.display_name,
      verification_status: p.verification_status,
      provisional: p.rubric.provisional,
      rank_score: p.metrics.rank_score,
      attributions: rows.length,
      signals: p.metrics.signal_count,
      conversations: p.metrics.affected_conversations,
      families: Object.entries(p.metrics.family_counts).sort((a, b) => b[1] - a[1]).map(([f, n]) => `${f} ${n}`).join(', '),
      rubric_match: rows.filter((r) => r.door === 'rubric_match').length,
      local_causal_chain: rows.filter((r) => r.door === 'local_causal_chain').length,
      audit_pass_rate: judge.length ? Math.round((judge.filter((s) => s.passed).length / judge.length) * 1000) / 1000 : null,
      example: best ? `${best.conversation_id}#${best.anchor_msg_index}: ${best.snippet.excerpt.slice(0, 90)}` : '',
    };
  });

  // every anchor: the message exists and holds the quoted evidence (step scores quote the scorer's reason, not the message)
  let checked = 0;
  let ok = 0;
  const failures: string[] = [];
  const norm = (t: string) => t.replace(/\s+/g, ' ');
  for (const r of out.attributions) {
    const s = byId.get(r.conversation_id);
    checked++;
    const m = s?.messages[r.anchor_msg_index];
    if (!s || !m) {
      failures.push(`${r.conversation_id}#${r.anchor_msg_index}: no such message`);
      continue;
    }
    if (r.signal_kind === 'step_score') {
      ok++;
      continue;
    }
    const text = norm([m.text, ...m.blocks.map((b) => JSON.stringify(b))].join(' '));
    const words = r.snippet.excerpt.replace(/…/g, ' ').split(/[^A-Za-z0-9$']+/).filter((w) => w.length > 3).slice(0, 4);
    if (words.every((w) => text.includes(w))) ok++;
    else failures.push(`${r.conversation_id}#${r.anchor_msg_index} ${r.signal_family}: ${words.join(' ')}`);
  }
  const byKind: Record<string, number> = {};
  for (const s of signals) byKind[s.kind] = (byKind[s.kind] ?? 0) + 1;
  return {
    missing: false,
    conversations: snapshots.length,
    signals: signals.length,
    signals_by_kind: byKind,
    coverage_pct: Math.round((out.stats.attributed_signals / Math.max(1, out.stats.signals)) * 1000) / 10,
    problems,
    anchors_checked: checked,
    anchors_ok: ok,
    anchor_failures: failures.slice(0, 5),
  };
}
