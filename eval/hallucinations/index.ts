/**
 * Hallucination evaluation: precision/recall of contradicted and of verified claims on tau-bench
 * conversations labeled by hand (RULES.md; dev and held-out) and on generated conversations with
 * planted claims, beside a baseline that calls a claim contradicted when any tool call failed
 * since the person's last turn and verified otherwise.
 */
import { readFileSync } from 'node:fs';
import { snapshotsFromDirectEvents } from '../../stream/analyses/direct-input.js';
import { detectHallucinations, HALLUCINATIONS_VERSION } from '../../stream/analyses/hallucinations.js';
import type { ConversationSnapshot, HallucinationFinding } from '../../stream/analyses/types.js';
import { isHumanTurn } from '../../stream/analyses/text/turns.js';
import { evalPath } from '../lib/data.js';
import { prf } from '../lib/metrics.js';
import type { EvalModule, EvalSection } from '../lib/report.js';
import { loadConversation } from '../segments/load.js';
import { generateHallucinationSet } from './generator.js';

type Verdict = 'verified' | 'contradicted' | 'unverifiable';

interface LabeledClaim {
  message_index: number;
  quote: string;
  verdict: Verdict;
}

interface Tally {
  contradicted: { tp: number; fp: number; fn: number };
  verified: { tp: number; fp: number; fn: number };
  /** Findings outside any labeled claim (verified ones cannot be judged; contradicted ones count as false). */
  unjudgedVerified: number;
  claims: number;
}

const tally = (): Tally => ({ contradicted: { tp: 0, fp: 0, fn: 0 }, verified: { tp: 0, fp: 0, fn: 0 }, unjudgedVerified: 0, claims: 0 });

function bump(t: Tally, predicted: string, truth: Verdict): void {
  for (const v of ['contradicted', 'verified'] as const) {
    if (predicted === v && truth === v) t[v].tp++;
    else if (predicted === v) t[v].fp++;
    else if (truth === v) t[v].fn++;
  }
}

/** Offsets of a quote in its message, for matching findings by overlap. */
function span(text: string, quote: string): [number, number] {
  const i = text.indexOf(quote);
  return i < 0 ? [-1, -1] : [i, i + quote.length];
}

/** The baseline: contradicted when a call failed since the person's last turn before the claim. */
function baselineVerdict(s: ConversationSnapshot, messageIndex: number): 'contradicted' | 'verified' {
  let since = 0;
  for (let i = messageIndex - 1; i >= 0; i--) if (isHumanTurn(s.messages[i]!)) { since = i; break; }
  return s.toolCalls.some((c) => c.success === false && c.resultIndex !== null && c.resultIndex < messageIndex && c.resultIndex > since) ? 'contradicted' : 'verified';
}

/** Scores one conversation's labeled claims; `scope` limits which findings are judged. */
function scoreConversation(s: ConversationSnapshot, labels: readonly LabeledClaim[], scope: (i: number) => boolean, excluded: (i: number) => boolean, det: Tally, base: Tally): void {
  const { findings } = detectHallucinations(s);
  const used = new Set<HallucinationFinding>();
  for (const l of labels) {
    const text = s.messages[l.message_index]!.text;
    const [a, b] = span(text, l.quote);
    const f = findings.find((x) => {
      if (x.message_index !== l.message_index) return false;
      const [c, d] = span(text, x.claim);
      return c < b && a < d;
    });
    if (f) used.add(f);
    bump(det, f?.verdict ?? 'unverified', l.verdict);
    bump(base, baselineVerdict(s, l.message_index), l.verdict);
    det.claims++;
    base.claims++;
  }
  for (const f of findings) {
    if (used.has(f) || !scope(f.message_index)) continue;
    if (f.verdict === 'contradicted' && !excluded(f.message_index)) det.contradicted.fp++;
    else if (f.verdict === 'verified') det.unjudgedVerified++;
  }
}

interface TauLabels {
  file: string;
  conversations: Array<{ conversation: string; split: 'dev' | 'heldout'; labeled_messages: 'all' | number[]; listing_messages: number[] }>;
  claims: Array<LabeledClaim & { conversation: string }>;
}

async function tau(): Promise<{ dev: [Tally, Tally]; heldout: [Tally, Tally]; missing: boolean }> {
  const L = JSON.parse(readFileSync(evalPath('hallucinations', 'labels-tau.json'), 'utf8')) as TauLabels;
  const out = { dev: [tally(), tally()] as [Tally, Tally], heldout: [tally(), tally()] as [Tally, Tally], missing: false };
  for (const c of L.conversations) {
    const s = await loadConversation(L.file, c.conversation);
    if (!s) {
      out.missing = true;
      continue;
    }
    const scope = c.labeled_messages === 'all' ? () => true : (i: number) => (c.labeled_messages as number[]).includes(i);
    scoreConversation(s, L.claims.filter((x) => x.conversation === c.conversation), scope, (i) => c.listing_messages.includes(i), ...out[c.split]);
  }
  return out;
}

function generated(seed: number, n: number): [Tally, Tally] {
  const det = tally();
  const base = tally();
  for (const g of generateHallucinationSet(seed, n)) {
    const s = snapshotsFromDirectEvents(g.events).snapshots[0]!;
    scoreConversation(s, g.claims.map((c) => ({ message_index: c.index, quote: c.quote, verdict: c.truth })), () => true, () => false, det, base);
  }
  return [det, base];
}

function rows(set: string, [det, base]: [Tally, Tally]): Array<Array<string | number>> {
  const r = (method: string, t: Tally) => {
    const c = prf(t.contradicted);
    const v = prf(t.verified);
    return [set, method, c.precision, c.recall, c.f1, c.support, v.precision, v.recall, v.support, t.claims];
  };
  return [r('detector', det), r('baseline: failed call since the request → contradicted', base)];
}

export const hallucinationsEval: EvalModule = {
  name: 'hallucinations',
  async run(): Promise<EvalSection> {
    const t = await tau();
    const genDev = generated(21, 300);
    const genHeld = generated(1021, 300);
    const table = {
      title: `Hallucinations (HALLUCINATIONS_VERSION ${HALLUCINATIONS_VERSION})`,
      columns: ['set', 'method', 'contradicted P', 'contradicted R', 'contradicted F1', 'contradicted claims', 'verified P', 'verified R', 'verified claims', 'labeled claims'],
      rows: [...rows('tau-bench dev', t.dev), ...rows('tau-bench held-out', t.heldout), ...rows('generated dev (seed 21)', genDev), ...rows('generated held-out (seed 1021)', genHeld)],
    };
    const notes = [
      `Findings outside labeled claims: verified ones cannot be judged (tau-bench dev ${t.dev[0].unjudgedVerified}, held-out ${t.heldout[0].unjudgedVerified}, mostly values in listings); contradicted ones count as false positives.`,
      'A claim the detector leaves unverified counts as a miss for whichever verdict it has; unverifiable labels count only as negatives.',
    ];
    if (t.missing) notes.push('Some labeled tau-bench conversations could not be loaded.');
    const f = (x: Tally) => prf(x.contradicted);
    return {
      name: 'hallucinations',
      title: 'Hallucinations',
      tables: [table],
      notes,
      figures: {
        tau_heldout_contradicted_precision: f(t.heldout[0]).precision,
        tau_heldout_contradicted_recall: f(t.heldout[0]).recall,
        tau_heldout_verified_precision: prf(t.heldout[0].verified).precision,
        generated_heldout_contradicted_f1: f(genHeld[0]).f1,
        baseline_tau_heldout_contradicted_f1: f(t.heldout[1]).f1,
      },
    };
  },
};
