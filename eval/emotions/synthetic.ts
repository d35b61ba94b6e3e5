/**
 * The detector and the baseline on generated conversations with planted truth: "frustrated",
 * every family, hard negatives, and whether a complaint right after a failed or declined call names
 * that call as its cause.
 */
import { detectEmotions, isFrustratedMessage } from '../../stream/analyses/emotions.js';
import { snapshotsFromDirectEvents } from '../../stream/analyses/direct-input.js';
import { EMOTION_FAMILIES, type EmotionDetection, type EmotionFamily } from '../../stream/analyses/types.js';
import { confusion, prf, type Prf } from '../lib/metrics.js';
import { baselineFamilies, baselineFrustrated } from './baseline.js';
import { generateConversations } from './generator.js';

export interface SyntheticResult {
  conversations: number;
  turns: number;
  frustrated: { detector: Prf; baseline: Prf };
  families: Array<{ family: EmotionFamily; support: number; detector: Prf; baseline: Prf }>;
  /** Hard negatives: share of turns the detector (and baseline) call frustrated. */
  hardNegatives: { turns: number; detectorFalse: number; baselineFalse: number };
  /** Frustrated turns planted after a failed or declined call whose cause is that call. */
  cause: { planted: number; correct: number };
}

export function evaluateSynthetic(seed = 20250301, conversations = 400): SyntheticResult {
  const { events, truth } = generateConversations(seed, conversations);
  const { snapshots } = snapshotsFromDirectEvents(events, { nowMs: 0 });
  const byId = new Map(snapshots.map((s) => [s.conversationId, s]));
  const detections = new Map<string, EmotionDetection[]>(snapshots.map((s) => [s.conversationId, detectEmotions(s)]));
  const text = (t: (typeof truth)[number]) => byId.get(t.conversationId)!.messages[t.messageIndex]!.text;
  const dets = (t: (typeof truth)[number]) => detections.get(t.conversationId)!.filter((d) => d.message_index === t.messageIndex);
  const actual = truth.map((t) => t.frustrated);
  const predicted = truth.map((t) => isFrustratedMessage(detections.get(t.conversationId)!, t.messageIndex));
  const families = EMOTION_FAMILIES.map((family) => {
    const want = truth.map((t) => t.families.includes(family));
    return {
      family,
      support: want.filter(Boolean).length,
      detector: prf(confusion(truth.map((t) => dets(t).some((d) => d.family === family)), want)),
      baseline: prf(confusion(truth.map((t) => baselineFamilies(text(t)).has(family)), want)),
    };
  });
  const hard = truth.filter((t) => t.kind === 'hard-negative' || t.kind === 'polite-correction');
  const withCause = truth.filter((t) => t.frustrated && t.failedCallKey);
  return {
    conversations,
    turns: truth.length,
    frustrated: { detector: prf(confusion(predicted, actual)), baseline: prf(confusion(truth.map((t) => baselineFrustrated(text(t))), actual)) },
    families,
    hardNegatives: {
      turns: hard.length,
      detectorFalse: hard.filter((t) => isFrustratedMessage(detections.get(t.conversationId)!, t.messageIndex)).length,
      baselineFalse: hard.filter((t) => baselineFrustrated(text(t))).length,
    },
    cause: {
      planted: withCause.length,
      correct: withCause.filter((t) => dets(t).some((d) => d.family === 'frustration' && d.cause?.kind === 'tool_failure' && d.cause.tool_use_id === t.failedCallKey)).length,
    },
  };
}
