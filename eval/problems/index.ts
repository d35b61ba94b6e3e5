/**
 * Problems evaluation (docs/analyses.md "Problems"): planted root causes in generated
 * conversations recovered as distinct trusted top-5 problems with attribution precision and
 * recall against the planted truth, beside a signal-family baseline; and the engine's top
 * problems on tau-bench's real trajectories with their evidence counts.
 */
import type { EvalModule, EvalSection, EvalTable } from '../lib/report.js';
import { PROBLEMS_ENGINE_VERSION } from '../../stream/problems/types.js';
import { evaluateBaseline, evaluatePlanted, type PlantedResult } from './planted.js';
import { RATES } from './generator.js';
import { evaluateTau, TAU_FILE } from './tau.js';

const N = 600;
const round = (x: number) => Math.round(x * 1000) / 1000;

function causeRows(label: string, r: PlantedResult, base: ReturnType<typeof evaluateBaseline>): Array<Array<string | number>> {
  return r.causes.flatMap((c) => {
    const b = base.find((x) => x.cause === c.cause)!;
    return [
      [label, c.cause, `${Math.round(RATES[c.cause] * 100)}%`, 'engine', c.rank ?? '—', c.display_name || '(not recovered)', c.verification_status, round(c.precision), round(c.recall), `${c.conversations_reached}/${c.conversations}`],
      [label, c.cause, '', 'baseline: signal family', b.rank, b.group, '—', round(b.precision), round(b.recall), '—'],
    ];
  });
}

export const problemsEval: EvalModule = {
  name: 'problems',
  async run(): Promise<EvalSection> {
    const dev = evaluatePlanted(7, N);
    const held = evaluatePlanted(1013, N);
    const devBase = evaluateBaseline(7, N);
    const heldBase = evaluateBaseline(1013, N);
    const hard = evaluatePlanted(2027, N, {}, { hard: true });
    const hardBase = evaluateBaseline(2027, N, { hard: true });
    const planted: EvalTable = {
      title: `Planted causes (engine v${PROBLEMS_ENGINE_VERSION}; ${N} generated conversations per seed; attribution precision / recall at signal level)`,
      columns: ['set', 'planted cause', 'rate', 'method', 'rank', 'problem', 'verification', 'precision', 'recall', 'conversations reached'],
      rows: [...causeRows('dev (seed 7)', dev, devBase), ...causeRows('held-out (seed 1013)', held, heldBase), ...causeRows('hard held-out (seed 2027)', hard, hardBase)],
    };
    const top: EvalTable = {
      title: 'Top 5 trusted problems, held-out seed (signals attributed from planted causes vs from noise)',
      columns: ['rank', 'problem', 'rank score', 'planted signals', 'noise signals', 'planted cause'],
      rows: held.top5.map((t) => [t.rank, t.display_name, t.rank_score, t.planted_signals, t.noise_signals, t.cause ?? 'none (noise only)']),
    };
    const summary: EvalTable = {
      title: 'Run summary',
      columns: ['set', 'signals', 'problems (live)', 'emerging (provisional)', 'causes recovered in top 5', 'noise-only in top 5', 'coverage %', 'ids stable across runs'],
      rows: [dev, held, hard].map((r, i) => [['dev (seed 7)', 'held-out (seed 1013)', 'hard held-out (seed 2027)'][i]!, r.signals, r.problems_total, r.emerging, `${r.distinct_recovered}/3`, r.noise_only_in_top5, r.coverage_pct, r.stable_ids ? 'yes' : 'no']),
    };
    const tau = evaluateTau();
    const tauTable: EvalTable = {
      title: `tau-bench real trajectories (${TAU_FILE}, ${tau.conversations} conversations, ${tau.signals} signals: ${Object.entries(tau.signals_by_kind).map(([k, n]) => `${k} ${n}`).join(', ')}): top trusted problems, then the largest untrusted or emerging ones`,
      columns: ['rank', 'problem', 'verification', 'rank score', 'evidence rows', 'signals', 'conversations', 'by family', 'rubric / chain', 'audit pass', 'strongest evidence'],
      rows: tau.problems.map((p) => [p.rank ?? (p.provisional ? 'emerging' : 'untrusted'), p.display_name, p.verification_status, p.rank_score, p.attributions, p.signals, p.conversations, p.families, `${p.rubric_match} / ${p.local_causal_chain}`, p.audit_pass_rate ?? '—', p.example]),
    };
    const minOf = (r: PlantedResult, k: 'precision' | 'recall') => Math.min(...r.causes.map((c) => c[k]));
    const notes = [
      'A signal is planted when it sits on a message its cause produced (failing calls and results, the lazy messages, the wrong claim, the reactions); recall counts the planted signals the analyzers detected. Noise: a failed lookup on a random tool with a random error (12 %), frustration about something outside the conversation (5 %).',
      'Hard set: noise at twice the rates, noise failures falling on the planted tool as often as on the others, a third of the planted conversations with no reaction or one in words outside the cue lists, noise failures before the planted cause in the same conversation.',
      'Noise groups reach the emerging list (provisional, never ranked) but not the trusted ranking: a trusted problem needs max(5, 2 % of the conversations) conversations.',
      'The generator was written beside the analyzers it feeds: it shows the attribution logic holds (chains from reactions, step scores and abandonment to their cause; one problem per cause; noise kept out), not that real data is this clean.',
    ];
    return {
      name: 'problems',
      title: 'Problems',
      tables: tau.missing ? [planted, top, summary] : [planted, top, summary, tauTable],
      notes: tau.missing
        ? [...notes, `Not evaluated: ${TAU_FILE} is missing.`]
        : [
            ...notes,
            `tau-bench: ${tau.coverage_pct}% of the signals are explained. Every evidence anchor was checked: ${tau.anchors_ok} of ${tau.anchors_checked} point at a message of the conversation (in the order the context endpoint serves) holding the quoted evidence${tau.anchor_failures.length ? `; failures: ${tau.anchor_failures.join('; ')}` : ''}. Most unexplained signals are the simulated users' reactions with no failed call, wrong claim or lazy step before them.`,
          ],
      figures: {
        heldout_causes_recovered_top5: held.distinct_recovered,
        heldout_min_precision: round(minOf(held, 'precision')),
        heldout_min_recall: round(minOf(held, 'recall')),
        heldout_noise_only_top5: held.noise_only_in_top5,
        dev_min_precision: round(minOf(dev, 'precision')),
        dev_min_recall: round(minOf(dev, 'recall')),
        heldout_coverage_pct: held.coverage_pct,
        hard_causes_recovered_top5: hard.distinct_recovered,
        hard_min_precision: round(minOf(hard, 'precision')),
        hard_min_recall: round(minOf(hard, 'recall')),
        hard_noise_only_top5: hard.noise_only_in_top5,
        tau_trusted_problems: tau.problems.filter((p) => p.rank !== null).length,
        tau_coverage_pct: tau.coverage_pct,
        tau_anchors_ok: tau.anchors_ok,
        tau_anchors_checked: tau.anchors_checked,
      },
    };
  },
};
