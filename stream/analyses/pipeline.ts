/**
 * Every conversation analysis, in dependency order, as one pure function of a snapshot: what the
 * stream role's Piscina workers run on each changed conversation and what `tracehouse analyze`
 * runs on files. Each analyzer runs on its own: one that throws is reported in `outcomes` with its
 * error and leaves its part of the result empty, the others still run.
 */
import { SEGMENTS_VERSION, segmentConversation } from './segments.js';
import { STEP_SCORES_VERSION, scoreSteps } from './step-scores.js';
import { WORLD_STATE_VERSION, buildWorldState } from './world-state.js';
import type { ConversationAnalysis, ConversationSnapshot, FailureCategory, ToolCallResult } from './types.js';

/** What the tool-failure categories need from the workspace (its registry of templates). */
export interface CategoryAssigner {
  assign(call: ConversationSnapshot['toolCalls'][number]): FailureCategory | null;
}

export interface AnalysisEnv {
  /** The workspace's failure categories; without one, failed calls get no category. */
  categories?: CategoryAssigner;
}

export interface AnalyzerOutcome {
  name: string;
  version: number;
  ok: boolean;
  error?: string;
}

interface Step {
  name: string;
  version: number;
  run(s: ConversationSnapshot, out: ConversationAnalysis, env: AnalysisEnv): void;
}

/** One result per call, in snapshot order, with its failure category. */
function toolCallResults(s: ConversationSnapshot, env: AnalysisEnv): ToolCallResult[] {
  return s.toolCalls.map((c) => {
    const failed = c.success === false || (c.success === null && c.decision === 'reject');
    return {
      message_index: c.messageIndex,
      tool_use_id: c.key,
      tool_name: c.toolName,
      success: c.success,
      effect_class: c.effectClass,
      category: failed && env.categories ? env.categories.assign(c) : null,
    };
  });
}

/** The analyzers, in dependency order (a later one may read what an earlier one produced). */
export const STEPS: readonly Step[] = [
  {
    name: 'tool-calls',
    version: 1,
    run(s, out, env) {
      out.tool_calls = toolCallResults(s, env);
    },
  },
  {
    name: 'segments',
    version: SEGMENTS_VERSION,
    run(s, out) {
      out.segments = segmentConversation(s);
    },
  },
  // world state before step scores: a segment's score names the thread it serves
  {
    name: 'world-state',
    version: WORLD_STATE_VERSION,
    run(s, out) {
      out.world_state = buildWorldState(s, out.segments);
    },
  },
  {
    name: 'step-scores',
    version: STEP_SCORES_VERSION,
    run(s, out) {
      out.step_scores = scoreSteps(s, out);
    },
  },
];

/** Name and version of every analyzer: what `analysis_state` records and a version bump recomputes. */
export const ANALYZERS: ReadonlyArray<{ name: string; version: number }> = STEPS.map(({ name, version }) => ({ name, version }));

export function emptyAnalysis(conversationId: string): ConversationAnalysis {
  return {
    conversation_id: conversationId,
    summary: '',
    segments: [],
    emotions: [],
    tool_calls: [],
    laziness: [],
    hallucinations: [],
    hallucination_stats: { claims: 0, verified: 0, contradicted: 0, unverified: 0 },
  };
}

/** Runs every analyzer on one snapshot. Deterministic for a given snapshot and registry. */
export function analyzeSnapshot(s: ConversationSnapshot, env: AnalysisEnv = {}): { analysis: ConversationAnalysis; outcomes: AnalyzerOutcome[] } {
  const analysis = emptyAnalysis(s.conversationId);
  const outcomes: AnalyzerOutcome[] = [];
  for (const step of STEPS) {
    try {
      step.run(s, analysis, env);
      outcomes.push({ name: step.name, version: step.version, ok: true });
    } catch (err) {
      outcomes.push({ name: step.name, version: step.version, ok: false, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
    }
  }
  return { analysis, outcomes };
}
