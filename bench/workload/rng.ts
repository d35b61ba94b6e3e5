/**
 * Seeded pseudo-random numbers and the distributions the workload draws from. Everything in the
 * generator goes through an `Rng` so that one seed always yields the same bytes.
 */
import { mulberry32 } from '../../core/random.js';
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max] inclusive. */
  int(min: number, max: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Index drawn with the given (unnormalized) weights. */
  weighted(weights: readonly number[]): number;
  /** Log-normal with the given median and sigma of the underlying normal. */
  logNormal(median: number, sigma: number): number;
  /** Pareto with scale `min` and shape `alpha` (heavy tail for small alpha). */
  pareto(min: number, alpha: number): number;
  /** Lowercase hex string of `bytes` random bytes. */
  hex(bytes: number): string;
}

/** mulberry32: tiny, fast and good enough for workload shapes (not for secrets). */
export function createRng(seed: number): Rng {
  const next = mulberry32(seed);
  const normal = () => {
    // Box-Muller; 1 - next() keeps log() away from 0
    const u = 1 - next();
    const v = next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  const rng: Rng = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)]!,
    weighted(weights) {
      let total = 0;
      for (const w of weights) total += w;
      let r = next() * total;
      for (let i = 0; i < weights.length; i++) {
        r -= weights[i]!;
        if (r < 0) return i;
      }
      return weights.length - 1;
    },
    logNormal: (median, sigma) => median * Math.exp(sigma * normal()),
    pareto: (min, alpha) => min / Math.pow(1 - next(), 1 / alpha),
    hex(bytes) {
      let out = '';
      for (let i = 0; i < bytes; i++) out += Math.floor(next() * 256).toString(16).padStart(2, '0');
      return out;
    },
  };
  return rng;
}

/** A child seed derived from a parent seed and an index (splitmix-style mixing). */
export function deriveSeed(seed: number, index: number): number {
  let z = (seed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

/** Zipf weights for `n` items with exponent `s`: item 0 is the most frequent. */
export function zipfWeights(n: number, s: number): number[] {
  return Array.from({ length: n }, (_, i) => 1 / Math.pow(i + 1, s));
}

/** Deterministic UUID-shaped id (version 4 layout) from the rng. */
export function uuidFrom(rng: Rng): string {
  const h = rng.hex(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
