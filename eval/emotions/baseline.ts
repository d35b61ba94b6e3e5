/**
 * The baseline the emotion detector is measured against: a plain sentiment lexicon. A message is
 * frustrated when it contains any word of a generic list of negative-sentiment words, and carries
 * a family when it contains a generic emotion word of that family. No masking of code, quotes or
 * logs, no negation, no context, no intensity: what a sentiment word list does out of the box.
 * The lists are ordinary English sentiment vocabulary, written for this baseline.
 */
import type { EmotionFamily } from '../../stream/analyses/types.js';

const NEGATIVE = [
  'abort', 'aborted', 'absurd', 'angry', 'annoy', 'annoyed', 'annoying', 'anxious', 'awful', 'bad', 'badly', 'broke',
  'broken', 'bug', 'buggy', 'bugs', 'careless', 'crap', 'crash', 'crashed', 'crashes', 'damn', 'dead', 'die', 'difficult',
  'disappointed', 'disappointing', 'disaster', 'dislike', 'dumb', 'error', 'errors', 'fail', 'failed', 'failing', 'fails',
  'failure', 'fatal', 'fault', 'frustrated', 'frustrating', 'garbage', 'hard', 'hate', 'hated', 'horrible', 'idiot',
  'ignore', 'ignored', 'impossible', 'incorrect', 'kill', 'killed', 'lose', 'loss', 'lost', 'mad', 'mess', 'messed',
  'messy', 'mistake', 'mistakes', 'nasty', 'nonsense', 'pain', 'painful', 'pathetic', 'poor', 'poorly', 'problem',
  'problems', 'reject', 'rejected', 'ridiculous', 'rubbish', 'sad', 'shit', 'sick', 'slow', 'sloppy', 'stupid', 'suck',
  'sucks', 'terrible', 'tired', 'trouble', 'ugly', 'unfortunately', 'unhappy', 'upset', 'useless', 'waste', 'wasted',
  'worse', 'worst', 'wrong', 'wtf',
];

const FAMILY_WORDS: Record<EmotionFamily, string[]> = {
  frustration: NEGATIVE,
  confusion: ['confused', 'confusing', 'confusion', 'unclear', 'lost', 'understand', 'puzzled', 'complicated', 'unsure'],
  distrust: ['doubt', 'trust', 'sure', 'suspicious', 'lie', 'lying', 'believe', 'really'],
  impatience: ['hurry', 'quickly', 'quick', 'asap', 'urgent', 'now', 'already', 'slow', 'waiting'],
  disappointment: ['disappointed', 'disappointing', 'sad', 'unfortunately', 'shame', 'pity', 'regret'],
  satisfaction: ['good', 'great', 'thanks', 'thank', 'love', 'nice', 'perfect', 'awesome', 'excellent', 'happy', 'glad', 'cool'],
};

const wordsOf = (text: string): Set<string> => new Set(text.toLowerCase().match(/[a-z']+/g) ?? []);

/** Baseline verdict on one message: frustrated when it holds a negative-sentiment word. */
export function baselineFrustrated(text: string): boolean {
  const words = wordsOf(text);
  return NEGATIVE.some((w) => words.has(w));
}

/** Baseline families of one message: every family one of whose words it holds. */
export function baselineFamilies(text: string): Set<EmotionFamily> {
  const words = wordsOf(text);
  const out = new Set<EmotionFamily>();
  for (const [family, list] of Object.entries(FAMILY_WORDS) as Array<[EmotionFamily, string[]]>) {
    if (list.some((w) => words.has(w))) out.add(family);
  }
  return out;
}
