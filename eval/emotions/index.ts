/**
 * `npm run eval emotions`: the emotion detector beside a plain sentiment-lexicon baseline on
 * (a) hand-labeled real coding transcripts, development and held-out sets (RULES.md), (b) generated
 * conversations with planted truth and hard negatives, (c) the GoEmotions sample per family, and
 * its CPU cost.
 */
import { EMOTIONS_VERSION } from '../../stream/analyses/emotions.js';
import { hasSharedData } from '../lib/data.js';
import { fmt, type Prf } from '../lib/metrics.js';
import type { EvalModule, EvalSection, EvalTable } from '../lib/report.js';
import { evaluateGoEmotions } from './goemotions.js';
import { evaluateReal, type RealResult } from './real.js';
import { measureSpeed } from './speed.js';
import { evaluateSynthetic } from './synthetic.js';
import { DEV_DAYS, HELDOUT_DAYS, VIEWER_SESSIONS, dayPath, viewerPath } from './turns.js';

const row = (name: string, p: Prf): Array<string | number> => [name, p.precision, p.recall, p.f1, p.support];
const PRF = ['', 'precision', 'recall', 'F1', 'support'];

/** Where the detector does not beat its baseline, said plainly. */
function losses(where: string, rows: Array<{ family: string; detector: Prf; baseline: Prf; support: number }>): string[] {
  return rows
    .filter((r) => r.support > 0 && r.detector.f1 <= r.baseline.f1)
    .map((r) => `${where}: the detector does not beat the baseline on ${r.family} (F1 ${fmt(r.detector.f1)} vs ${fmt(r.baseline.f1)}).`);
}

function realTables(name: string, r: RealResult): EvalTable[] {
  return [
    {
      title: `Frustrated user turns, ${name} (${r.turns} turns, ${r.positives} frustrated)`,
      columns: PRF,
      rows: [
        row('detector', r.detector),
        row('baseline (sentiment lexicon)', r.baseline),
        row(`detector, distinct turns only (${r.distinct.turns})`, r.distinct.detector),
        row('baseline, distinct turns only', r.distinct.baseline),
      ],
    },
    {
      title: `Families on ${name} (family present vs the labeled family)`,
      columns: ['family', 'support', 'detector P', 'detector R', 'detector F1', 'baseline F1'],
      rows: r.families.map((f) => [f.family, f.support, f.detector.precision, f.detector.recall, f.detector.f1, f.baseline.f1]),
    },
  ];
}

export const emotionsEval: EvalModule = {
  name: 'emotions',
  run(): EvalSection {
    const tables: EvalTable[] = [];
    const notes: string[] = [`Detector version ${EMOTIONS_VERSION}. A message is frustrated when a frustration-family detection scores ≥ 0.5; the baseline calls it frustrated when it contains any word of a generic negative-sentiment list.`];
    const figures: Record<string, number> = {};

    const syn = evaluateSynthetic();
    tables.push({ title: `Generated conversations: frustrated turns (${syn.conversations} conversations, ${syn.turns} user turns)`, columns: PRF, rows: [row('detector', syn.frustrated.detector), row('baseline', syn.frustrated.baseline)] });
    tables.push({
      title: 'Generated conversations: per family (family present)',
      columns: ['family', 'support', 'detector P', 'detector R', 'detector F1', 'baseline F1'],
      rows: syn.families.map((f) => [f.family, f.support, f.detector.precision, f.detector.recall, f.detector.f1, f.baseline.f1]),
    });
    notes.push(
      `Generated hard negatives and polite corrections: ${syn.hardNegatives.detectorFalse} of ${syn.hardNegatives.turns} called frustrated by the detector, ${syn.hardNegatives.baselineFalse} by the baseline.`,
      `Cause: ${syn.cause.correct} of ${syn.cause.planted} frustrated turns planted right after a failed or declined call name that call (tool_failure, its key).`,
      ...losses('generated', syn.families),
    );
    figures.frustration_f1_generated = syn.frustrated.detector.f1;
    figures.frustration_f1_generated_baseline = syn.frustrated.baseline.f1;

    if (!hasSharedData()) {
      notes.push('../shared/data is missing: real-data and GoEmotions sections skipped.');
      return { name: 'emotions', title: 'Emotion signals', tables, notes, figures };
    }
    const dev = evaluateReal('labels-dev.jsonl', DEV_DAYS.map(dayPath));
    const held = evaluateReal('labels-heldout.jsonl', [...HELDOUT_DAYS.map(dayPath), ...VIEWER_SESSIONS.map(viewerPath)]);
    tables.push(...realTables('development set (BookMinder days 002–010)', dev));
    tables.push(...realTables('held-out set (BookMinder days 017–021, claude-code-viewer sessions)', held));
    figures.frustration_f1_dev = dev.detector.f1;
    figures.frustration_f1_dev_baseline = dev.baseline.f1;
    figures.frustration_f1_heldout = held.detector.f1;
    figures.frustration_f1_heldout_baseline = held.baseline.f1;
    figures.frustration_f1_heldout_distinct = held.distinct.detector.f1;
    notes.push(...losses('development set', dev.families), ...losses('held-out set', held.families));

    const go = evaluateGoEmotions();
    tables.push({
      title: `GoEmotions sample, per family (${go.sentences} sentences; label mapping in eval/emotions/goemotions.ts)`,
      columns: ['family', 'support', 'detector P', 'detector R', 'detector F1', 'baseline F1'],
      rows: go.rows.map((f) => [f.family, f.support, f.detector.precision, f.detector.recall, f.detector.f1, f.baseline.f1]),
    });
    notes.push(...losses('GoEmotions', go.rows));
    for (const r of go.rows) figures[`goemotions_f1_${r.family}`] = r.detector.f1;

    const speed = measureSpeed();
    tables.push({
      title: 'CPU time (real BookMinder turns)',
      columns: ['conversation', 'ms CPU per conversation', 'µs per message'],
      rows: [
        [`30 messages (mean of ${speed.conversations30})`, speed.msPer30, speed.perMessage30 * 1000],
        ['2,000 messages', speed.msPer2000, speed.perMessage2000 * 1000],
      ],
    });
    figures.ms_per_30_messages = speed.msPer30;
    figures.ms_per_2000_messages = speed.msPer2000;
    return { name: 'emotions', title: 'Emotion signals', tables, notes, figures };
  },
};
