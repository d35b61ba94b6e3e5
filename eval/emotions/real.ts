/**
 * The detector and the baseline on hand-labeled real transcripts: "frustrated" per user turn, and
 * per family where the label names one.
 */
import { detectEmotions, isFrustratedMessage } from '../../stream/analyses/emotions.js';
import { EMOTION_FAMILIES, type ConversationSnapshot, type EmotionDetection, type EmotionFamily } from '../../stream/analyses/types.js';
import { confusion, prf, type Prf } from '../lib/metrics.js';
import { baselineFamilies, baselineFrustrated } from './baseline.js';
import { bindLabels, readLabels } from './labels.js';
import { snapshotsOfFile } from './turns.js';

export interface RealResult {
  turns: number;
  positives: number;
  detector: Prf;
  baseline: Prf;
  /**
   * The same on distinct turns: a transcript that holds a session twice (a console pasted twice)
   * repeats its turns; each text counts once per file here.
   */
  distinct: { turns: number; detector: Prf; baseline: Prf };
  /** Family present (any detection of it) against the labeled family. */
  families: Array<{ family: EmotionFamily; support: number; detector: Prf; baseline: Prf }>;
  /** Labeled turns the detector got wrong, for the report's examples. */
  misses: Array<{ id: string; index: number; expected: boolean; text: string }>;
}

export function evaluateReal(labelFile: string, files: readonly string[]): RealResult {
  const snapshots: ConversationSnapshot[] = files.flatMap(snapshotsOfFile);
  const labeled = bindLabels(readLabels(labelFile), snapshots);
  const detections = new Map<string, EmotionDetection[]>(snapshots.map((s) => [s.conversationId, detectEmotions(s)]));
  const actual = labeled.map((l) => l.label.frustrated);
  const predicted = labeled.map((l) => isFrustratedMessage(detections.get(l.snapshot.conversationId)!, l.label.message_index));
  const base = labeled.map((l) => baselineFrustrated(l.snapshot.messages[l.label.message_index]!.text));
  const families = EMOTION_FAMILIES.map((family) => {
    const truth = labeled.map((l) => l.label.family === family);
    const det = labeled.map((l) => detections.get(l.snapshot.conversationId)!.some((d) => d.message_index === l.label.message_index && d.family === family));
    const bl = labeled.map((l) => baselineFamilies(l.snapshot.messages[l.label.message_index]!.text).has(family));
    return { family, support: truth.filter(Boolean).length, detector: prf(confusion(det, truth)), baseline: prf(confusion(bl, truth)) };
  });
  const seen = new Set<string>();
  const keep = labeled.map((l) => {
    const key = `${l.label.conversation_id.replace(/#\d+$/, '')}\u0000${l.snapshot.messages[l.label.message_index]!.text.replace(/\s+/g, ' ').trim()}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const only = <T>(xs: readonly T[]) => xs.filter((_, i) => keep[i]);
  const distinct = {
    turns: seen.size,
    detector: prf(confusion(only(predicted), only(actual))),
    baseline: prf(confusion(only(base), only(actual))),
  };
  const misses = labeled
    .filter((_, i) => predicted[i] !== actual[i])
    .map((l) => ({ id: l.label.conversation_id, index: l.label.message_index, expected: l.label.frustrated, text: l.snapshot.messages[l.label.message_index]!.text }));
  return {
    turns: labeled.length,
    positives: actual.filter(Boolean).length,
    detector: prf(confusion(predicted, actual)),
    baseline: prf(confusion(base, actual)),
    distinct,
    families,
    misses,
  };
}
