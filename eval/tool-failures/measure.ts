/**
 * Quality of a grouping of labeled failures: V-measure against the hand-made templates, category
 * counts, family accuracy, and the disagreements worth reading (impure categories, split
 * templates, family confusions). Pure.
 */
import type { FailureFamily } from '../../stream/analyses/types.js';
import { vMeasure } from '../lib/metrics.js';
import type { LabeledFailure } from './labels.js';

/** What a method said about one failure: its group, and its family when the method gives one. */
export interface Prediction {
  group: string;
  family?: FailureFamily;
  label?: string;
}

export interface Quality {
  n: number;
  handTemplates: number;
  groups: number;
  v: number;
  homogeneity: number;
  completeness: number;
  /** null when the method gives no family. */
  familyAccuracy: number | null;
}

export function quality(items: readonly LabeledFailure[], predicted: readonly Prediction[]): Quality {
  const v = vMeasure(
    items.map((i) => i.label.template),
    predicted.map((p) => p.group),
  );
  const withFamily = predicted.every((p) => p.family !== undefined);
  const correct = items.filter((it, i) => predicted[i]!.family === it.label.family).length;
  return {
    n: items.length,
    handTemplates: new Set(items.map((i) => i.label.template)).size,
    groups: new Set(predicted.map((p) => p.group)).size,
    v: v.v,
    homogeneity: v.homogeneity,
    completeness: v.completeness,
    familyAccuracy: withFamily && items.length ? correct / items.length : null,
  };
}

/** Baseline 1: failures with the identical error text share a group. */
export const exactString = (it: LabeledFailure): Prediction => ({ group: it.call.resultText });

/** Baseline 2: failures whose first non-empty line is identical share a group. */
export const firstLine = (it: LabeledFailure): Prediction => ({ group: it.call.resultText.split('\n').find((l) => l.trim())?.trim() ?? '' });

const count = <K>(m: Map<K, number>, k: K) => m.set(k, (m.get(k) ?? 0) + 1);

/** Family confusions (hand → predicted) with counts, most frequent first. */
export function familyConfusions(items: readonly LabeledFailure[], predicted: readonly Prediction[]): Array<{ hand: string; predicted: string; count: number; examples: string[] }> {
  const m = new Map<string, { count: number; examples: Set<string> }>();
  items.forEach((it, i) => {
    const p = predicted[i]!.family;
    if (!p || p === it.label.family) return;
    const key = `${it.label.family}\u0000${p}`;
    const e = m.get(key) ?? { count: 0, examples: new Set<string>() };
    e.count++;
    e.examples.add(it.label.template);
    m.set(key, e);
  });
  return [...m]
    .map(([k, e]) => {
      const [hand, pred] = k.split('\u0000') as [string, string];
      return { hand, predicted: pred, count: e.count, examples: [...e.examples] };
    })
    .sort((a, b) => b.count - a.count);
}

/** Per-family support and accuracy of the hand families. */
export function familyTable(items: readonly LabeledFailure[], predicted: readonly Prediction[]): Array<{ family: string; support: number; correct: number }> {
  const support = new Map<string, number>();
  const correct = new Map<string, number>();
  items.forEach((it, i) => {
    count(support, it.label.family);
    if (predicted[i]!.family === it.label.family) count(correct, it.label.family);
  });
  return [...support].map(([family, s]) => ({ family, support: s, correct: correct.get(family) ?? 0 })).sort((a, b) => b.support - a.support);
}

/** Categories holding more than one hand template, and hand templates spread over several categories. */
export function disagreements(items: readonly LabeledFailure[], predicted: readonly Prediction[]): { impure: string[]; split: string[] } {
  const byGroup = new Map<string, Map<string, number>>();
  const byTemplate = new Map<string, Map<string, number>>();
  items.forEach((it, i) => {
    const p = predicted[i]!;
    const name = p.label ?? p.group;
    const g = byGroup.get(name) ?? new Map<string, number>();
    count(g, it.label.template);
    byGroup.set(name, g);
    const t = byTemplate.get(it.label.template) ?? new Map<string, number>();
    count(t, name);
    byTemplate.set(it.label.template, t);
  });
  const show = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} (${n})`).join('; ');
  return {
    impure: [...byGroup].filter(([, m]) => m.size > 1).map(([g, m]) => `category “${g}” holds ${show(m)}`),
    split: [...byTemplate].filter(([, m]) => m.size > 1).map(([t, m]) => `template ${t} is split over ${show(m)}`),
  };
}
