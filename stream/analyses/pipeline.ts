/**
 * Every conversation analysis, in dependency order, as one pure function of a snapshot: what the
 * stream role's Piscina workers run on each changed conversation and what `tracehouse analyze`
 * runs on files. Each analyzer runs on its own: one that throws is reported in `outcomes` with its
 * error and leaves its part of the result empty, the others still run.
 */
import { EMOTIONS_VERSION, detectEmotions } from './emotions.js';
import { HALLUCINATIONS_VERSION, detectHallucinations } from './hallucinations.js';
import { LAZINESS_VERSION, detectLaziness } from './laziness.js';
import { SUMMARY_VERSION, summarize } from './summary.js';
import { SEGMENTS_VERSION, segmentConversation } from './segments.js';
import { STEP_SCORES_VERSION, scoreSteps } from './step-scores.js';
import { SEGMENT_GOALS_VERSION, segmentGoals } from './segment-goals.js';
import { CATEGORIES_VERSION, categorizeCalls, createCategoryRegistry, type CategoryRegistry } from './tool-failure-categories.js';
import type { ConversationAnalysis, ConversationSnapshot } from './types.js';
import { WORLD_STATE_VERSION, buildWorldState } from './world-state.js';
import { describeError } from '../../core/errors.js';

export interface AnalysisEnv {
  /** The workspace's failure categories (its registry of templates); default: a fresh one. */
  categories?: CategoryRegistry;
}

/** Version of how calls are paired (snapshot.ts); with the categories' version, the tool-calls analyzer's. */
export const PAIRING_VERSION = 1;

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

/** The analyzers, in dependency order (a later one may read what an earlier one produced). */
export const STEPS: readonly Step[] = [
  {
    name: 'tool-calls',
    version: PAIRING_VERSION * 1000 + CATEGORIES_VERSION,
    run(s, out, env) {
      out.tool_calls = categorizeCalls(s, env.categories ?? createCategoryRegistry([], { tenantSeed: s.tenantId }));
    },
  },
  {
    name: 'segments',
    version: SEGMENTS_VERSION,
    run(s, out) {
      out.segments = segmentConversation(s);
    },
  },
  {
    name: 'summary',
    version: SUMMARY_VERSION,
    run(s, out) {
      out.summary = summarize(s, out.segments);
    },
  },
  {
    name: 'hallucinations',
    version: HALLUCINATIONS_VERSION,
    run(s, out) {
      const { findings, stats } = detectHallucinations(s);
      out.hallucinations = findings;
      out.hallucination_stats = stats;
    },
  },
  {
    name: 'laziness',
    version: LAZINESS_VERSION,
    run(s, out) {
      out.laziness = detectLaziness(s);
    },
  },
  {
    name: 'emotions',
    version: EMOTIONS_VERSION,
    run(s, out) {
      out.emotions = detectEmotions(s, { hallucinations: out.hallucinations });
    },
  },
  // world state before step scores (a segment's score names the thread it serves); step scores
  // read the emotions and hallucinations, so they stay after them
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
  {
    // last: reads the segments and the summary
    name: 'segment-goals',
    version: SEGMENT_GOALS_VERSION,
    run(s, out) {
      out.segment_goals = segmentGoals(s, out.segments, out.summary);
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
      outcomes.push({ name: step.name, version: step.version, ok: false, error: describeError(err) });
    }
  }
  return { analysis, outcomes };
}
