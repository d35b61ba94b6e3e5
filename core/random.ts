/**
 * The one seeded pseudo-random generator of the project (mulberry32): small, fast, the same numbers
 * for the same seed on every platform. For generated data, sampling and randomized algorithms whose
 * results must be reproducible — never for secrets (use node:crypto).
 */

/** Uniform numbers in [0, 1) from a 32-bit seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
