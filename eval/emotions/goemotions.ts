/**
 * A secondary, general-domain check per family on the GoEmotions sample (193 Reddit comments with
 * 28 labels). GoEmotions labels map to our families as follows (docs/analyses.md):
 *   frustration     anger, annoyance, disgust
 *   confusion       confusion
 *   disappointment  disappointment, sadness, grief
 *   satisfaction    gratitude, relief, joy, admiration, amusement, excitement, love
 * disapproval, approval, curiosity, surprise, realization, fear, nervousness, remorse,
 * embarrassment, desire, caring, optimism, pride and neutral map to no family; distrust and
 * impatience have no GoEmotions label and are not measured here.
 */
import { readFileSync } from 'node:fs';
import { detectEmotions } from '../../stream/analyses/emotions.js';
import { buildSnapshot } from '../../stream/analyses/snapshot.js';
import type { EmotionFamily } from '../../stream/analyses/types.js';
import { dataPath } from '../lib/data.js';
import { confusion, prf, type Prf } from '../lib/metrics.js';
import { baselineFamilies } from './baseline.js';

export const GOEMOTIONS_MAP: Partial<Record<string, EmotionFamily>> = {
  anger: 'frustration',
  annoyance: 'frustration',
  disgust: 'frustration',
  confusion: 'confusion',
  disappointment: 'disappointment',
  sadness: 'disappointment',
  grief: 'disappointment',
  gratitude: 'satisfaction',
  relief: 'satisfaction',
  joy: 'satisfaction',
  admiration: 'satisfaction',
  amusement: 'satisfaction',
  excitement: 'satisfaction',
  love: 'satisfaction',
};

export const GOEMOTIONS_FAMILIES: EmotionFamily[] = ['frustration', 'confusion', 'disappointment', 'satisfaction'];

export function evaluateGoEmotions(): { sentences: number; rows: Array<{ family: EmotionFamily; support: number; detector: Prf; baseline: Prf }> } {
  const names = readFileSync(dataPath('goemotions', 'emotions.txt'), 'utf8').split('\n').map((s) => s.trim()).filter(Boolean);
  const items = readFileSync(dataPath('goemotions', 'test_head.tsv'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const [text, ids] = l.split('\t') as [string, string];
      const families = new Set(ids.split(',').map((i) => GOEMOTIONS_MAP[names[Number(i)]!]).filter((f): f is EmotionFamily => !!f));
      return { text, families };
    });
  const detected = items.map((it, i) => {
    const s = buildSnapshot({ tenantId: 'eval', conversationId: `goemotions-${i}`, messages: [{ messageId: 'm', role: 'user', content: it.text, blocks: [], tsMs: 0, threadId: '' }] });
    return new Set(detectEmotions(s).map((d) => d.family));
  });
  const rows = GOEMOTIONS_FAMILIES.map((family) => {
    const truth = items.map((it) => it.families.has(family));
    return {
      family,
      support: truth.filter(Boolean).length,
      detector: prf(confusion(detected.map((d) => d.has(family)), truth)),
      baseline: prf(confusion(items.map((it) => baselineFamilies(it.text).has(family)), truth)),
    };
  });
  return { sentences: items.length, rows };
}
