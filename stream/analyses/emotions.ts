/**
 * Emotion signals of the user's turns (docs/analyses.md "Emotion signals"; taxonomy in
 * schemas/emotions.json): 6 families, 16 signals, each detection with an intensity, a risk, a
 * trajectory over the conversation, who elicited it, its primary cause by reference and verbatim
 * quotes.
 *
 * Each user turn is read in context (what the agent did since the user last spoke) after its
 * non-speech is masked (code, quotes, pasted logs and terminal output, slash commands, text the
 * tooling writes in the user's role). Pure and deterministic; linear in the conversation's size.
 */
import { EMOTION_FAMILIES, type ConversationSnapshot, type Elicitor, type EmotionDetection, type HallucinationFinding } from './types.js';
import { findCues, sentencesOf, unwrap, type Span } from './emotions/cues.js';
import { causeOf, isUserSpeech, turnContexts, type TurnContext } from './emotions/context.js';
import { ADDRESSES_AGENT, EXTERNAL, SELF_BLAME } from './emotions/lexicon.js';
import { maskNonSpeech } from './emotions/mask.js';
import { isNegativeFamily, quotesOf, scoreFamilies, type FamilyScore } from './emotions/score.js';
import { riskOf, trajectoryAt, type TurnScores } from './emotions/trajectory.js';

/** Bump when detections change for the same input. */
export const EMOTIONS_VERSION = 3;

/** A family is reported from this intensity on (weaker evidence is noise). */
const REPORT_FLOOR = 0.3;
/** spec: a message is frustrated when a frustration-family detection scores at least 0.5. */
export const FRUSTRATED_AT = 0.5;
/** spec/data-api.md overview: at risk = a risk score of at least 0.5 and not frustrated. */
export const AT_RISK_AT = 0.5;

interface ReadTurn {
  index: number;
  text: string;
  masked: string;
  sentences: Span[];
  families: FamilyScore[];
  context: TurnContext;
}

function readTurns(s: ConversationSnapshot, hallucinations: readonly HallucinationFinding[]): ReadTurn[] {
  const turns = s.messages.filter(isUserSpeech).map((m) => m.index);
  const contexts = turnContexts(s, turns, hallucinations);
  const out: ReadTurn[] = [];
  for (const index of turns) {
    const text = s.messages[index]!.text;
    const context = contexts.get(index)!;
    const { masked: raw, notSpeech } = maskNonSpeech(text);
    const masked = unwrap(raw);
    const sentences = notSpeech ? [] : sentencesOf(masked);
    const hits = findCues(masked, sentences);
    const families = scoreFamilies(masked, sentences, hits, {
      agentFailed: context.failed.length + context.declined.length > 0,
      repeated: context.repeatedFailures > 0,
    }).filter((f) => f.score >= REPORT_FLOOR);
    out.push({ index, text, masked, sentences, families, context });
  }
  return out;
}

function elicitorOf(turn: ReadTurn, f: FamilyScore, cause: EmotionDetection['cause']): Elicitor {
  const spoken = f.evidence.map((e) => turn.masked.slice(e.start, e.end)).join(' ');
  const sentences = turn.sentences.filter((s) => f.evidence.some((e) => e.start >= s.start && e.start < s.end)).map((s) => turn.masked.slice(s.start, s.end));
  const around = sentences.join(' ') || spoken;
  const atAgent = ADDRESSES_AGENT.test(around);
  if (f.family === 'satisfaction') return turn.context.lastAgentMessage || atAgent ? 'agent' : 'ambiguous';
  if (SELF_BLAME.test(turn.masked) && !atAgent) return 'user';
  if (cause && (cause.kind === 'tool_failure' || cause.kind === 'claim')) return 'agent';
  if (atAgent || f.evidence.some((e) => e.correction)) return 'agent';
  if (EXTERNAL.test(around)) return 'external';
  // felt before the agent said or did anything: brought into the conversation, not caused in it
  if (!turn.context.lastAgentMessage && !turn.context.previousTurn) return 'external';
  return 'ambiguous';
}

/**
 * Emotion detections of a conversation, ordered by message and family. `ctx.hallucinations`, when
 * given, lets a turn be tied to the agent claim it reacts to.
 */
export function detectEmotions(s: ConversationSnapshot, ctx: { hallucinations?: readonly HallucinationFinding[] } = {}): EmotionDetection[] {
  const turns = readTurns(s, ctx.hallucinations ?? []);
  const seq: TurnScores[] = turns.map((t) => ({
    negative: Math.max(0, ...t.families.filter((f) => isNegativeFamily(f.family)).map((f) => f.score)),
    satisfaction: Math.max(0, ...t.families.filter((f) => f.family === 'satisfaction').map((f) => f.score)),
  }));
  const out: EmotionDetection[] = [];
  turns.forEach((turn, t) => {
    const ordered = [...turn.families].sort((a, b) => EMOTION_FAMILIES.indexOf(a.family) - EMOTION_FAMILIES.indexOf(b.family));
    for (const f of ordered) {
      const negative = f.family !== 'satisfaction';
      const cause = causeOf(turn.context, negative);
      const trajectory = trajectoryAt(seq, t, f.family);
      const failures = turn.context.failed.length + turn.context.declined.length;
      out.push({
        message_index: turn.index,
        family: f.family,
        signal: f.signal,
        score: f.score,
        risk_score: riskOf(f.family, f.signal, f.score, trajectory, failures),
        trajectory,
        elicitor: elicitorOf(turn, f, cause),
        cause,
        quotes: quotesOf(turn.text, turn.sentences, f.evidence),
      });
    }
  });
  return out;
}

/** A message is frustrated when it carries a frustration-family detection scoring at least 0.5. */
export function isFrustratedMessage(d: readonly EmotionDetection[], messageIndex: number): boolean {
  return d.some((x) => x.message_index === messageIndex && x.family === 'frustration' && x.score >= FRUSTRATED_AT);
}

/**
 * A conversation is frustrated when any of its messages is; at risk when some detection's risk is
 * at least 0.5 and it is not frustrated (spec/data-api.md, overview `frustrations`).
 */
export function conversationFrustration(d: readonly EmotionDetection[]): { frustrated: boolean; at_risk: boolean; max_risk: number } {
  const frustrated = d.some((x) => x.family === 'frustration' && x.score >= FRUSTRATED_AT);
  const maxRisk = d.reduce((m, x) => Math.max(m, x.risk_score), 0);
  return { frustrated, at_risk: !frustrated && maxRisk >= AT_RISK_AT, max_risk: maxRisk };
}
