/**
 * Laziness evaluation: message- and conversation-level precision/recall/F1 on generated coding
 * conversations with planted patterns (clean ones and hard negatives included) and on real coding
 * transcripts labeled by hand (RULES.md), beside a keyword baseline (TODO|placeholder|exercise in
 * agent text or written code); per-family recall on the generated set.
 */
import { readFileSync } from 'node:fs';
import { snapshotsFromDirectEvents } from '../../stream/analyses/direct-input.js';
import { countedDetections, detectLaziness, isLazyConversation, LAZINESS_VERSION } from '../../stream/analyses/laziness.js';
import type { ConversationSnapshot } from '../../stream/analyses/types.js';
import { evalPath } from '../lib/data.js';
import { confusion, prf } from '../lib/metrics.js';
import type { EvalModule, EvalSection, EvalTable } from '../lib/report.js';
import { loadConversation } from '../segments/load.js';
import { generateLazySet } from './generator.js';

const KEYWORDS = /TODO|placeholder|exercise/i;

/** The keyword baseline: an agent message whose text or tool input mentions a keyword. */
function baselineMessages(s: ConversationSnapshot): Set<number> {
  const out = new Set<number>();
  for (const m of s.messages) {
    if (m.role !== 'assistant') continue;
    const inputs = m.blocks.filter((b) => b.type === 'tool_use').map((b) => JSON.stringify((b as { input?: unknown }).input ?? ''));
    if (KEYWORDS.test(m.text) || inputs.some((i) => KEYWORDS.test(i))) out.add(m.index);
  }
  return out;
}

interface Item {
  s: ConversationSnapshot;
  /** Agent messages judged, with their label (a headline family or null). */
  judged: Map<number, string | null>;
  lazy: boolean;
}

interface Scores {
  detectorMsg: { p: boolean[]; a: boolean[] };
  baselineMsg: { p: boolean[]; a: boolean[] };
  detectorConv: { p: boolean[]; a: boolean[] };
  baselineConv: { p: boolean[]; a: boolean[] };
}

function score(items: readonly Item[]): Scores {
  const sc: Scores = { detectorMsg: { p: [], a: [] }, baselineMsg: { p: [], a: [] }, detectorConv: { p: [], a: [] }, baselineConv: { p: [], a: [] } };
  for (const it of items) {
    const d = detectLaziness(it.s);
    const counted = new Set(countedDetections(d).map((x) => x.message_index));
    const base = baselineMessages(it.s);
    for (const [index, label] of it.judged) {
      const truth = label !== null && label !== 'truncated_data';
      sc.detectorMsg.p.push(counted.has(index));
      sc.detectorMsg.a.push(truth);
      sc.baselineMsg.p.push(base.has(index));
      sc.baselineMsg.a.push(truth);
    }
    sc.detectorConv.p.push(isLazyConversation(d));
    sc.detectorConv.a.push(it.lazy);
    sc.baselineConv.p.push([...it.judged.keys()].some((i) => base.has(i)));
    sc.baselineConv.a.push(it.lazy);
  }
  return sc;
}

function rowsOf(set: string, sc: Scores): Array<Array<string | number>> {
  const row = (level: string, method: string, x: { p: boolean[]; a: boolean[] }) => {
    const c = confusion(x.p, x.a);
    const m = prf(c);
    return [set, level, method, m.precision, m.recall, m.f1, m.support, x.p.length];
  };
  return [
    row('message', 'detector', sc.detectorMsg),
    row('message', 'baseline: TODO|placeholder|exercise', sc.baselineMsg),
    row('conversation', 'detector', sc.detectorConv),
    row('conversation', 'baseline: TODO|placeholder|exercise', sc.baselineConv),
  ];
}

function generatedItems(seed: number, n: number): { items: Item[]; families: Map<string, { planted: number; found: number }> } {
  const families = new Map<string, { planted: number; found: number }>();
  const items: Item[] = [];
  for (const g of generateLazySet(seed, n)) {
    const s = snapshotsFromDirectEvents(g.events).snapshots[0]!;
    const judged = new Map<number, string | null>();
    for (const m of s.messages) if (m.role === 'assistant' && m.text.trim()) judged.set(m.index, null);
    for (const p of g.planted) judged.set(p.index, p.family);
    items.push({ s, judged, lazy: g.lazy });
    const d = detectLaziness(s);
    for (const p of g.planted) {
      if (!p.family) continue;
      const f = families.get(p.family) ?? { planted: 0, found: 0 };
      f.planted++;
      if (d.some((x) => x.message_index === p.index && x.pattern === p.family)) f.found++;
      families.set(p.family, f);
    }
  }
  return { items, families };
}

interface LabeledSession {
  file: string;
  conversation: string;
  split: 'dev' | 'heldout';
  window: [number, number] | null;
  positives: Array<{ quote: string; family: string }>;
}

async function realItems(): Promise<{ dev: Item[]; heldout: Item[]; missing: string[] }> {
  const { sessions } = JSON.parse(readFileSync(evalPath('laziness', 'labels-coding.json'), 'utf8')) as { sessions: LabeledSession[] };
  const out = { dev: [] as Item[], heldout: [] as Item[], missing: [] as string[] };
  for (const l of sessions) {
    const s = await loadConversation(l.file, l.conversation);
    if (!s) {
      out.missing.push(l.conversation);
      continue;
    }
    const [from, to] = l.window ?? [0, s.messages.length - 1];
    const judged = new Map<number, string | null>();
    for (const m of s.messages) if (m.role === 'assistant' && m.text.trim() && m.index >= from && m.index <= to) judged.set(m.index, null);
    const positions = l.positives.map((p) => s.messages.findIndex((m) => m.role === 'assistant' && m.text.includes(p.quote)));
    // a converter that renders the text differently: the session is reported, not guessed
    if (positions.includes(-1)) {
      out.missing.push(`${l.conversation} (a labeled message no longer matches)`);
      continue;
    }
    l.positives.forEach((p, k) => judged.set(positions[k]!, p.family));
    // a window's conversation-level truth is about the window only
    const windowOnly = { ...s, messages: s.messages.slice(0, to + 1) };
    out[l.split].push({ s: windowOnly, judged, lazy: l.positives.some((p) => p.family !== 'truncated_data') });
  }
  return out;
}

export const lazinessEval: EvalModule = {
  name: 'laziness',
  async run(): Promise<EvalSection> {
    const dev = generatedItems(11, 400);
    const held = generatedItems(1011, 400);
    const real = await realItems();
    const main: EvalTable = {
      title: `Laziness (LAZINESS_VERSION ${LAZINESS_VERSION})`,
      columns: ['set', 'level', 'method', 'precision', 'recall', 'F1', 'positives', 'items'],
      rows: [...rowsOf('generated dev (seed 11)', score(dev.items)), ...rowsOf('generated held-out (seed 1011)', score(held.items)), ...rowsOf('real coding dev', score(real.dev)), ...rowsOf('real coding held-out', score(real.heldout))],
    };
    const fam: EvalTable = {
      title: 'Per-family recall on generated held-out (a detection of the planted family at the planted message; weak families need co-occurrence to count in headlines)',
      columns: ['family', 'planted', 'found', 'recall'],
      rows: [...held.families].sort().map(([f, x]) => [f, x.planted, x.found, x.planted ? x.found / x.planted : 0]),
    };
    const heldSc = score(held.items);
    const realSc = score(real.heldout);
    const realDevSc = score(real.dev);
    const notes = [
      'Message level: an agent message is predicted lazy when it holds a detection that counts under the headline rule (≥ 0.5 alone, weaker only with two families in the conversation); truncated-data detections never count.',
      `Real transcripts contain few lazy messages (${[...real.dev, ...real.heldout].reduce((n, it) => n + [...it.judged.values()].filter((v) => v && v !== 'truncated_data').length, 0)} among ${[...real.dev, ...real.heldout].reduce((n, it) => n + it.judged.size, 0)} judged agent messages), so the real-data rows mostly measure false alarms.`,
    ];
    if (real.missing.length) notes.push(`Not evaluated (file or converter missing in this build): ${[...new Set(real.missing)].join(', ')}.`);
    const f1 = (x: { p: boolean[]; a: boolean[] }) => prf(confusion(x.p, x.a)).f1;
    return {
      name: 'laziness',
      title: 'Laziness',
      tables: [main, fam],
      notes,
      figures: {
        generated_heldout_message_f1: f1(heldSc.detectorMsg),
        generated_heldout_message_f1_baseline: f1(heldSc.baselineMsg),
        generated_heldout_conversation_f1: f1(heldSc.detectorConv),
        real_heldout_false_alarms: realSc.detectorMsg.p.filter((p, i) => p && !realSc.detectorMsg.a[i]).length,
        real_dev_false_alarms: realDevSc.detectorMsg.p.filter((p, i) => p && !realDevSc.detectorMsg.a[i]).length,
      },
    };
  },
};
