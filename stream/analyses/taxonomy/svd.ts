/**
 * Truncated SVD of a sparse matrix by randomized range finding (Halko, Martinsson & Tropp 2011):
 * a Gaussian test matrix, a few power iterations with re-orthonormalization, then the exact SVD of
 * the small projected matrix through the eigen-decomposition of B·Bᵀ (cyclic Jacobi). Our own code:
 * the heavy part is the sparse × dense products, which no maintained JavaScript linear-algebra
 * package offers over typed-array CSR matrices, and the dense part is a (k + 10)² eigenproblem
 * (docs/analyses.md "Vectors and search" says why no library was taken). Deterministic for a seed.
 */

/** A sparse matrix in compressed-row form (rows = documents, columns = features). */
export interface Csr {
  rows: number;
  cols: number;
  /** rows + 1 offsets into indices / values. */
  indptr: Int32Array;
  indices: Int32Array;
  values: Float32Array;
}

/** Mulberry32: a small seeded generator (uniform in [0, 1)). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(rand: () => number): number {
  const u = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

/** X · D (D: cols × l, row-major) → rows × l, row-major. */
function times(x: Csr, d: Float64Array, l: number): Float64Array {
  const out = new Float64Array(x.rows * l);
  for (let i = 0; i < x.rows; i++) {
    const o = i * l;
    for (let p = x.indptr[i]!; p < x.indptr[i + 1]!; p++) {
      const v = x.values[p]!;
      const b = x.indices[p]! * l;
      for (let j = 0; j < l; j++) out[o + j]! += v * d[b + j]!;
    }
  }
  return out;
}

/** Xᵀ · D (D: rows × l, row-major) → cols × l, row-major. */
function timesTransposed(x: Csr, d: Float64Array, l: number): Float64Array {
  const out = new Float64Array(x.cols * l);
  for (let i = 0; i < x.rows; i++) {
    const o = i * l;
    for (let p = x.indptr[i]!; p < x.indptr[i + 1]!; p++) {
      const v = x.values[p]!;
      const b = x.indices[p]! * l;
      for (let j = 0; j < l; j++) out[b + j]! += v * d[o + j]!;
    }
  }
  return out;
}

/**
 * Modified Gram–Schmidt on the columns of a row-major rows × l matrix, in place. The columns are
 * copied out first so every inner loop runs over contiguous memory (strided loops over a
 * 40,000-row matrix were 5× slower). A column that lost most of its length to the projections is
 * orthogonalized a second time ("twice is enough"), which keeps Q orthonormal to rounding.
 */
export function orthonormalizeColumns(m: Float64Array, rows: number, l: number): void {
  const cols: Float64Array[] = [];
  for (let j = 0; j < l; j++) {
    const c = new Float64Array(rows);
    for (let i = 0; i < rows; i++) c[i] = m[i * l + j]!;
    cols.push(c);
  }
  const norm = (c: Float64Array) => {
    let s = 0;
    for (let i = 0; i < rows; i++) s += c[i]! * c[i]!;
    return Math.sqrt(s);
  };
  for (let j = 0; j < l; j++) {
    const c = cols[j]!;
    const before = norm(c);
    let after = before;
    for (let pass = 0; pass < 2; pass++) {
      for (let q = 0; q < j; q++) {
        const o = cols[q]!;
        let d = 0;
        for (let i = 0; i < rows; i++) d += o[i]! * c[i]!;
        if (d === 0) continue;
        for (let i = 0; i < rows; i++) c[i]! -= d * o[i]!;
      }
      after = norm(c);
      if (after > 0.5 * before) break;
    }
    // a dependent column stays zero: it adds nothing to the range
    const k = after > 1e-10 * Math.max(1, before) ? 1 / after : 0;
    for (let i = 0; i < rows; i++) c[i]! *= k;
  }
  for (let j = 0; j < l; j++) {
    const c = cols[j]!;
    for (let i = 0; i < rows; i++) m[i * l + j] = c[i]!;
  }
}

/** Eigen-decomposition of a symmetric n × n matrix (cyclic Jacobi): values descending, vectors as columns. */
export function symmetricEigen(a: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  const m = Float64Array.from(a);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 60; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += m[p * n + q]! ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = m[p * n + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (m[q * n + q]! - m[p * n + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const mkp = m[k * n + p]!;
          const mkq = m[k * n + q]!;
          m[k * n + p] = c * mkp - s * mkq;
          m[k * n + q] = s * mkp + c * mkq;
        }
        for (let k = 0; k < n; k++) {
          const mpk = m[p * n + k]!;
          const mqk = m[q * n + k]!;
          m[p * n + k] = c * mpk - s * mqk;
          m[q * n + k] = s * mpk + c * mqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p]!;
          const vkq = v[k * n + q]!;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => m[y * n + y]! - m[x * n + x]!);
  const values = Float64Array.from(order, (i) => m[i * n + i]!);
  const vectors = new Float64Array(n * n);
  order.forEach((src, dst) => {
    for (let k = 0; k < n; k++) vectors[k * n + dst] = v[k * n + src]!;
  });
  return { values, vectors };
}

export interface SvdResult {
  /** Right singular vectors: cols × k, row-major (row f projects feature f). */
  components: Float32Array;
  singular: Float64Array;
  k: number;
}

/** The top-k right singular vectors of X. `powerIters` 2 and 10 extra columns (Halko et al.). */
export function randomizedSvd(x: Csr, k: number, opts: { oversample?: number; powerIters?: number; seed?: number } = {}): SvdResult {
  const l = Math.min(k + (opts.oversample ?? 10), x.rows, x.cols);
  const rand = seededRandom(opts.seed ?? 1);
  const omega = new Float64Array(x.cols * l);
  for (let i = 0; i < omega.length; i++) omega[i] = gaussian(rand);
  let y = times(x, omega, l);
  orthonormalizeColumns(y, x.rows, l);
  for (let it = 0; it < (opts.powerIters ?? 2); it++) {
    const z = timesTransposed(x, y, l);
    orthonormalizeColumns(z, x.cols, l);
    y = times(x, z, l);
    orthonormalizeColumns(y, x.rows, l);
  }
  // Bᵀ = Xᵀ Q (cols × l); B Bᵀ = (Bᵀ)ᵀ Bᵀ is l × l
  const bt = timesTransposed(x, y, l);
  const g = new Float64Array(l * l);
  for (let f = 0; f < x.cols; f++) {
    const o = f * l;
    for (let a = 0; a < l; a++) {
      const va = bt[o + a]!;
      if (va === 0) continue;
      for (let b = a; b < l; b++) g[a * l + b]! += va * bt[o + b]!;
    }
  }
  for (let a = 0; a < l; a++) for (let b = 0; b < a; b++) g[a * l + b] = g[b * l + a]!;
  const { values, vectors } = symmetricEigen(g, l);
  const kk = Math.min(k, l);
  const singular = new Float64Array(kk);
  for (let j = 0; j < kk; j++) singular[j] = Math.sqrt(Math.max(0, values[j]!));
  // V = Bᵀ W Σ⁻¹
  const components = new Float32Array(x.cols * kk);
  for (let f = 0; f < x.cols; f++) {
    const o = f * l;
    for (let j = 0; j < kk; j++) {
      if (singular[j]! < 1e-9) continue;
      let s = 0;
      for (let a = 0; a < l; a++) s += bt[o + a]! * vectors[a * l + j]!;
      components[f * kk + j] = s / singular[j]!;
    }
  }
  return { components, singular, k: kk };
}
