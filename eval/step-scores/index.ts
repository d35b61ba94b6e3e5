/**
 * Step-scores evaluation on real outcomes: tau-bench's 200 airline trajectories, whose `reward`
 * (first-message metadata) is the benchmark's own verdict — no labels of ours (eval/step-scores/
 * RULES.md). Reports the ROC AUC of the rollup's blended score for success vs failure, and the
 * precision and recall of `outcome=negative` for failures, beside trivial baselines, on a
 * development split (tasks 0–24) and a held-out split (tasks 25–49), plus CPU time. The same
 * figures are also given with the emotion detections withheld (the structural evidence and the
 * hallucination findings alone), so what the emotion analysis adds or costs is visible.
 */
import { analyzeSnapshot } from '../../stream/analyses/pipeline.js';
import { OUTCOME_NEGATIVE_BELOW, STEP_SCORES_VERSION, frustrated, outcomeOf, scoreSteps } from '../../stream/analyses/step-scores.js';
import { fmt, prf, rocAuc, confusion } from '../lib/metrics.js';
import type { EvalModule, EvalSection, EvalTable } from '../lib/report.js';
import { speedRows } from './speed.js';
import { loadTau, type TauCase } from './tau.js';

interface Scored extends TauCase {
  blended: number;
  negative: boolean;
  /** The same without the emotion detections. */
  blendedNoEmotions: number;
  negativeNoEmotions: boolean;
  frustrated: boolean;
  anyToolError: boolean;
  messages: number;
}

function score(cases: readonly TauCase[]): { scored: Scored[]; usPerConversation: number } {
  const started = process.cpuUsage();
  const scored = cases.map((c) => {
    const { analysis } = analyzeSnapshot(c.snapshot);
    const rollup = analysis.step_scores?.rollup ?? null;
    const structural = scoreSteps(c.snapshot, { ...analysis, emotions: [] }).rollup;
    return {
      ...c,
      blended: rollup?.blended_score ?? 1,
      negative: outcomeOf(rollup, analysis.emotions) === 'negative',
      blendedNoEmotions: structural?.blended_score ?? 1,
      negativeNoEmotions: outcomeOf(structural, []) === 'negative',
      frustrated: frustrated(analysis.emotions),
      anyToolError: c.snapshot.toolCalls.some((t) => t.success === false),
      messages: c.snapshot.messages.length,
    };
  });
  const cpu = process.cpuUsage(started);
  return { scored, usPerConversation: (cpu.user + cpu.system) / Math.max(1, cases.length) };
}

function rows(label: string, set: readonly Scored[]): { auc: Array<Array<string | number>>; neg: Array<Array<string | number>> } {
  const success = set.map((c) => c.success);
  const failed = set.map((c) => !c.success);
  const auc: Array<Array<string | number>> = [
    [label, 'blended_score', rocAuc(set.map((c) => c.blended), success), set.length],
    [label, 'blended_score, emotion detections withheld', rocAuc(set.map((c) => c.blendedNoEmotions), success), set.length],
    [label, 'baseline: no tool error', rocAuc(set.map((c) => (c.anyToolError ? 0 : 1)), success), set.length],
    [label, 'baseline: fewer messages', rocAuc(set.map((c) => -c.messages), success), set.length],
  ];
  const line = (name: string, predicted: boolean[]) => {
    const m = prf(confusion(predicted, failed));
    return [label, name, m.precision, m.recall, m.f1, predicted.filter(Boolean).length, m.support];
  };
  const neg = [
    line('outcome=negative', set.map((c) => c.negative)),
    line('outcome=negative, emotion detections withheld', set.map((c) => c.negativeNoEmotions)),
    line('frustration detection alone', set.map((c) => c.frustrated)),
    line('baseline: any tool error', set.map((c) => c.anyToolError)),
    line('baseline: every conversation', set.map(() => true)),
  ];
  return { auc, neg };
}

export const stepScoresEval: EvalModule = {
  name: 'step-scores',
  run(): EvalSection {
    const cases = loadTau();
    if (!cases) {
      return { name: 'step-scores', title: 'Step scores', tables: [], notes: ['tau-bench data is missing: nothing evaluated.'], figures: {} };
    }
    const { scored, usPerConversation } = score(cases);
    const dev = scored.filter((c) => c.split === 'dev');
    const held = scored.filter((c) => c.split === 'heldout');
    const aucTable: EvalTable = { title: `Blended score: success vs failure, ROC AUC (STEP_SCORES_VERSION ${STEP_SCORES_VERSION})`, columns: ['set', 'score', 'ROC AUC', 'conversations'], rows: [] };
    const negTable: EvalTable = { title: `outcome=negative (blended < ${OUTCOME_NEGATIVE_BELOW}) as a detector of failed conversations`, columns: ['set', 'method', 'precision', 'recall', 'F1', 'flagged', 'failures'], rows: [] };
    for (const [label, set] of [['all 200', scored], ['dev (tasks 0–24)', dev], ['held-out (tasks 25–49)', held]] as const) {
      const r = rows(label, set);
      aucTable.rows.push(...r.auc);
      negTable.rows.push(...r.neg);
    }
    const speed = speedRows(cases.map((c) => c.snapshot));
    const speedTable: EvalTable = {
      title: 'CPU time of world state and step scores (µs per conversation, this process)',
      columns: ['input', 'messages', 'world state µs', 'step scores µs', 'both µs per message'],
      rows: speed.map((r) => [r.label, r.messages, Math.round(r.worldStateUs), Math.round(r.stepScoresUs), (r.worldStateUs + r.stepScoresUs) / r.messages]),
    };
    const failed = (set: readonly Scored[]) => prf(confusion(set.map((c) => c.negative), set.map((c) => !c.success)));
    const aucOf = (set: readonly Scored[]) => rocAuc(set.map((c) => c.blended), set.map((c) => c.success));
    const notes = [
      `Outcome is tau-bench's own reward (${scored.filter((c) => c.success).length} successes, ${scored.filter((c) => !c.success).length} failures); the split is by task, so the 4 trials of a task stay on one side.`,
      `CPU: ${fmt(usPerConversation, 0)} µs per conversation for every analysis of the pipeline (mean ${fmt(scored.reduce((a, c) => a + c.messages, 0) / scored.length, 1)} messages).`,
      'The thresholds and hazard constants were set on the dev split; the held-out rows are the figures to trust.',
    ];
    const fr = scored.filter((c) => c.frustrated);
    if (fr.length) {
      notes.push(
        `Frustration detections (score ≥ 0.5, the emotion analysis) exist in ${fr.length} of ${scored.length} conversations, ${fr.filter((c) => c.success).length} of them successes: \`outcome=negative\` counts every one, so its precision cannot exceed what those detections allow. The "emotion detections withheld" rows show the step scores without them.`,
      );
    }
    const heldAuc = aucOf(held);
    const baseHeld = rocAuc(held.map((c) => (c.anyToolError ? 0 : 1)), held.map((c) => c.success));
    if (heldAuc <= baseHeld) notes.push(`On held-out tasks the blended score (AUC ${fmt(heldAuc)}) does not beat "no tool error" (AUC ${fmt(baseHeld)}).`);
    return {
      name: 'step-scores',
      title: 'Step scores',
      tables: [aucTable, negTable, speedTable],
      notes,
      figures: {
        auc_all: aucOf(scored),
        auc_dev: aucOf(dev),
        auc_heldout: heldAuc,
        auc_all_without_emotions: rocAuc(scored.map((c) => c.blendedNoEmotions), scored.map((c) => c.success)),
        negative_precision_all: failed(scored).precision,
        negative_recall_all: failed(scored).recall,
        negative_precision_heldout: failed(held).precision,
        negative_recall_heldout: failed(held).recall,
        us_per_conversation: usPerConversation,
        us_world_state_and_step_scores_30_messages: speed[0]!.worldStateUs + speed[0]!.stepScoresUs,
        us_world_state_and_step_scores_2000_messages: speed[speed.length - 1]!.worldStateUs + speed[speed.length - 1]!.stepScoresUs,
      },
    };
  },
};
