/** Quality measures used by `npm run eval`. Pure. */

export interface Confusion {
  tp: number;
  fp: number;
  fn: number;
  tn?: number;
}

export interface Prf {
  precision: number;
  recall: number;
  f1: number;
  support: number;
}

/** Precision, recall and F1 from counts; 0 (not NaN) where a denominator is empty. */
export function prf(c: Confusion): Prf {
  const precision = c.tp + c.fp === 0 ? 0 : c.tp / (c.tp + c.fp);
  const recall = c.tp + c.fn === 0 ? 0 : c.tp / (c.tp + c.fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1, support: c.tp + c.fn };
}

/** Counts of a binary decision against binary labels. */
export function confusion(predicted: readonly boolean[], actual: readonly boolean[]): Required<Confusion> {
  const c = { tp: 0, fp: 0, fn: 0, tn: 0 };
  predicted.forEach((p, i) => {
    const a = actual[i]!;
    if (p && a) c.tp++;
    else if (p) c.fp++;
    else if (a) c.fn++;
    else c.tn++;
  });
  return c;
}

function entropy(counts: Iterable<number>, n: number): number {
  let h = 0;
  for (const c of counts) if (c > 0) h -= (c / n) * Math.log(c / n);
  return h;
}

/**
 * V-measure of a clustering against classes (Rosenberg & Hirschberg 2007): the harmonic mean of
 * homogeneity (each cluster holds one class) and completeness (each class is in one cluster).
 */
export function vMeasure(classes: readonly string[], clusters: readonly string[]): { homogeneity: number; completeness: number; v: number } {
  const n = classes.length;
  if (n === 0) return { homogeneity: 1, completeness: 1, v: 1 };
  const joint = new Map<string, number>();
  const byClass = new Map<string, number>();
  const byCluster = new Map<string, number>();
  classes.forEach((c, i) => {
    const k = clusters[i]!;
    joint.set(`${c}\u0000${k}`, (joint.get(`${c}\u0000${k}`) ?? 0) + 1);
    byClass.set(c, (byClass.get(c) ?? 0) + 1);
    byCluster.set(k, (byCluster.get(k) ?? 0) + 1);
  });
  const hC = entropy(byClass.values(), n);
  const hK = entropy(byCluster.values(), n);
  let hCgivenK = 0;
  let hKgivenC = 0;
  for (const [key, nck] of joint) {
    const [c, k] = key.split('\u0000') as [string, string];
    hCgivenK -= (nck / n) * Math.log(nck / byCluster.get(k)!);
    hKgivenC -= (nck / n) * Math.log(nck / byClass.get(c)!);
  }
  const homogeneity = hC === 0 ? 1 : 1 - hCgivenK / hC;
  const completeness = hK === 0 ? 1 : 1 - hKgivenC / hK;
  const v = homogeneity + completeness === 0 ? 0 : (2 * homogeneity * completeness) / (homogeneity + completeness);
  return { homogeneity, completeness, v };
}

const choose2 = (x: number) => (x * (x - 1)) / 2;

/** Adjusted Rand index of two labelings of the same items. */
export function adjustedRand(a: readonly string[], b: readonly string[]): number {
  const n = a.length;
  if (n < 2) return 1;
  const joint = new Map<string, number>();
  const ca = new Map<string, number>();
  const cb = new Map<string, number>();
  a.forEach((x, i) => {
    const y = b[i]!;
    joint.set(`${x}\u0000${y}`, (joint.get(`${x}\u0000${y}`) ?? 0) + 1);
    ca.set(x, (ca.get(x) ?? 0) + 1);
    cb.set(y, (cb.get(y) ?? 0) + 1);
  });
  let index = 0;
  for (const v of joint.values()) index += choose2(v);
  let sa = 0;
  for (const v of ca.values()) sa += choose2(v);
  let sb = 0;
  for (const v of cb.values()) sb += choose2(v);
  const expected = (sa * sb) / choose2(n);
  const max = (sa + sb) / 2;
  return max === expected ? 1 : (index - expected) / (max - expected);
}

/** Area under the ROC curve of scores for positives vs negatives (ties count half). */
export function rocAuc(scores: readonly number[], positive: readonly boolean[]): number {
  const pos: number[] = [];
  const neg: number[] = [];
  scores.forEach((s, i) => (positive[i] ? pos : neg).push(s));
  if (pos.length === 0 || neg.length === 0) return NaN;
  // rank-sum (Mann–Whitney U) with average ranks for ties
  const all = scores.map((s, i) => ({ s, p: positive[i]! })).sort((x, y) => x.s - y.s);
  let rankSumPos = 0;
  for (let i = 0; i < all.length; ) {
    let j = i;
    while (j + 1 < all.length && all[j + 1]!.s === all[i]!.s) j++;
    const avg = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) if (all[k]!.p) rankSumPos += avg;
    i = j + 1;
  }
  return (rankSumPos - (pos.length * (pos.length + 1)) / 2) / (pos.length * neg.length);
}

export const fmt = (x: number, digits = 3): string => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
