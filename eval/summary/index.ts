/**
 * Summary evaluation. On every real conversation: the summary is at most 300 characters,
 * non-empty when the conversation has two or more messages, and extractive (every word outside
 * the template occurs in the conversation). On hand-labeled conversations (RULES.md): the share
 * of summaries that contain the goal's key terms, beside a baseline (the first 300 characters of
 * the first user message).
 */
import { readFileSync } from 'node:fs';
import { segmentConversation } from '../../stream/analyses/segments.js';
import { MAX_SUMMARY_CHARS, summarize, SUMMARY_TEMPLATE_WORDS, SUMMARY_VERSION } from '../../stream/analyses/summary.js';
import type { ConversationSnapshot } from '../../stream/analyses/types.js';
import { stem, words } from '../../stream/analyses/text/tokens.js';
import { evalPath } from '../lib/data.js';
import type { EvalModule, EvalSection } from '../lib/report.js';
import { allRealSnapshots, loadConversation } from '../segments/load.js';

interface GoalLabel {
  file: string;
  conversation: string;
  split: 'dev' | 'heldout';
  goal: string;
  key_terms: string[];
}

/** Every word of the conversation: message text, tool names, tool inputs and results. */
function conversationWords(s: ConversationSnapshot): Set<string> {
  const out = new Set<string>();
  for (const m of s.messages) for (const w of words(m.text)) out.add(w);
  for (const c of s.toolCalls) for (const w of words(`${c.toolName} ${c.input} ${c.resultText}`)) out.add(w);
  return out;
}

/** Words of a summary that are neither template nor found in the conversation. */
export function inventedWords(summary: string, s: ConversationSnapshot): string[] {
  const known = conversationWords(s);
  return words(summary).filter((w) => !SUMMARY_TEMPLATE_WORDS.has(w) && !/^\d+$/.test(w) && !known.has(w));
}

function containsTerm(text: string, term: string): boolean {
  const have = new Set(words(text).map(stem));
  return words(term).every((w) => have.has(stem(w)));
}

/** Share of key terms found; "covered" when at least half are. */
function coverage(text: string, terms: readonly string[]): number {
  return terms.filter((t) => containsTerm(text, t)).length / terms.length;
}

function firstUserText(s: ConversationSnapshot): string {
  const m = s.messages.find((x) => x.role === 'user' && x.threadId === '' && x.text.trim());
  return (m?.text ?? '').replace(/\s+/g, ' ').trim().slice(0, MAX_SUMMARY_CHARS);
}

export const summaryEval: EvalModule = {
  name: 'summary',
  async run(): Promise<EvalSection> {
    const { snapshots, missing } = await allRealSnapshots();
    let eligible = 0;
    let empty = 0;
    let tooLong = 0;
    let invented = 0;
    const examples: string[] = [];
    let chars = 0;
    for (const s of snapshots) {
      const summary = summarize(s, segmentConversation(s));
      if (summary.length > MAX_SUMMARY_CHARS) tooLong++;
      if (s.messages.length < 2) {
        if (summary !== '') empty++;
        continue;
      }
      eligible++;
      chars += summary.length;
      if (!summary) empty++;
      const bad = inventedWords(summary, s);
      if (bad.length) {
        invented++;
        if (examples.length < 3) examples.push(`${s.conversationId}: ${bad.slice(0, 5).join(', ')}`);
      }
    }
    const { items } = JSON.parse(readFileSync(evalPath('summary', 'labels.json'), 'utf8')) as { items: GoalLabel[] };
    const rows: Array<Array<string | number>> = [];
    const figures: Record<string, number> = {};
    for (const split of ['dev', 'heldout'] as const) {
      let n = 0;
      let covered = 0;
      let all = 0;
      let baseCovered = 0;
      let baseAll = 0;
      for (const l of items.filter((x) => x.split === split)) {
        const s = await loadConversation(l.file, l.conversation);
        if (!s) continue;
        n++;
        const c = coverage(summarize(s, segmentConversation(s)), l.key_terms);
        const b = coverage(firstUserText(s), l.key_terms);
        if (c >= 0.5) covered++;
        if (c === 1) all++;
        if (b >= 0.5) baseCovered++;
        if (b === 1) baseAll++;
      }
      rows.push([split, 'summary', n, n ? covered / n : 0, n ? all / n : 0]);
      rows.push([split, 'baseline: first 300 chars of the first user message', n, n ? baseCovered / n : 0, n ? baseAll / n : 0]);
      figures[`goal_terms_half_${split}`] = n ? covered / n : 0;
    }
    const notes = [
      `${eligible} real conversations with ≥ 2 messages: ${empty} empty summaries, ${tooLong} over ${MAX_SUMMARY_CHARS} characters, ${invented} with a word not found in the conversation${examples.length ? ' (' + examples.join('; ') + ')' : ''}; mean length ${eligible ? Math.round(chars / eligible) : 0} characters.`,
      'The baseline is what a list would show without summaries; it is extractive by construction but says nothing of what was done or how it ended.',
    ];
    if (missing.length) notes.push(`Not evaluated (file or converter missing in this build): ${missing.join(', ')}.`);
    return {
      name: 'summary',
      title: `Summary (SUMMARY_VERSION ${SUMMARY_VERSION})`,
      tables: [{ title: 'Goal key terms in the summary (hand-written goals, RULES.md)', columns: ['split', 'method', 'conversations', 'share with ≥ half of the key terms', 'share with all key terms'], rows }],
      notes,
      figures: { ...figures, conversations: eligible, empty, too_long: tooLong, not_extractive: invented },
    };
  },
};
