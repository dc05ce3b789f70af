/**
 * The hot loops: per-strike evaluation of the interpolated smile at one fixed maturity. Everything that
 * depends on the maturity alone (bracketing benchmarks, interpolation weights, forward) is worked out
 * once per call in a {@link MaturityPlan}; the loops below only do, per strike, one log (when given
 * strikes rather than log-moneyness), one or two square roots per slice and a square root for the vol.
 * No closures, no allocation, monomorphic Float64Array access.
 */

/** Per-benchmark constants of the surface, in implied variance (`w/T_i`, per year) so nodes are exact. */
export interface SliceArrays {
  /** Benchmark maturities in years. */
  T: Float64Array;
  /** `ln F_i`. */
  lnF: Float64Array;
  /** `v_i²`, the ATM implied variance (per year). */
  vv: Float64Array;
  /** `b_i / T_i`. */
  bb: Float64Array;
  rho: Float64Array;
  m: Float64Array;
  /** `s_i²`. */
  s2: Float64Array;
  /** `sqrt(m_i² + s_i²)`, computed exactly as the loop computes `sqrt((0 − m)² + s²)` so `k = 0` gives `v_i²` bit for bit. */
  R: Float64Array;
  /** `(a_i + b_i·(−rho_i·m_i)) / T_i`: the constant term of the slice in implied variance, for the two-slice loop. */
  c0: Float64Array;
}

/**
 * What one maturity needs: implied variance `σ²(k, T) = A·ŵ_i(k) + B·ŵ_j(k) + C`, where `ŵ_i = w_i/T_i` is
 * benchmark i's smile in implied variance. One slice (`B = 0`) before the first benchmark (`A = 1`),
 * exactly at a benchmark (`A = 1`) and after the last (`A = T_n/T`, `C = v_n²(1 − T_n/T)`); two slices
 * strictly between benchmarks (`A = (1 − x)·T_i/T`, `B = x·T_{i+1}/T`).
 */
export interface MaturityPlan {
  /** Query maturity in years. */
  T: number;
  /** `ln F(T)`. */
  lnF: number;
  i: number;
  j: number;
  A: number;
  B: number;
  C: number;
  twoSlices: boolean;
}

/**
 * The `GetVol` hot path: vols (decimal) for `n` strikes `x[q]` (prices or percentages, each finite and
 * > 0), `k = ln(x[q]) + shift`, into `out[q]`. Returns the index of the first strike that is not finite
 * and > 0 (the rest of `out` is then left unwritten), or −1 when all went well.
 *
 * Implied variance is floored at 0 before the square root: a valid slice never goes below 0, but when its
 * minimum total variance is exactly 0 rounding can land a hair under it (−1e−18), and sqrt would say NaN.
 */
export function volsFromStrikes(out: Float64Array, x: Float64Array, n: number, shift: number, sl: SliceArrays, plan: MaturityPlan): number {
  if (plan.twoSlices) {
    const { i, j, A, B } = plan;
    // Folded: σ² = c0 + c1·k + ei·sqrt((k−m_i)² + s_i²) + ej·sqrt((k−m_j)² + s_j²).
    const c0 = A * sl.c0[i]! + B * sl.c0[j]! + plan.C;
    const c1 = A * sl.bb[i]! * sl.rho[i]! + B * sl.bb[j]! * sl.rho[j]!;
    const ei = A * sl.bb[i]!;
    const ej = B * sl.bb[j]!;
    const mi = sl.m[i]!;
    const mj = sl.m[j]!;
    const si = sl.s2[i]!;
    const sj = sl.s2[j]!;
    for (let q = 0; q < n; q++) {
      const K = x[q]!;
      if (!(K > 0 && K < Infinity)) return q;
      const k = Math.log(K) + shift;
      const di = k - mi;
      const dj = k - mj;
      const v2 = c0 + c1 * k + ei * Math.sqrt(di * di + si) + ej * Math.sqrt(dj * dj + sj);
      out[q] = Math.sqrt(v2 > 0 ? v2 : 0);
    }
    return -1;
  }
  const { i, A, C } = plan;
  // Centred form, so that k = 0 gives v_i² exactly at a node.
  const vv = sl.vv[i]!;
  const bb = sl.bb[i]!;
  const rho = sl.rho[i]!;
  const m = sl.m[i]!;
  const s2 = sl.s2[i]!;
  const R = sl.R[i]!;
  for (let q = 0; q < n; q++) {
    const K = x[q]!;
    if (!(K > 0 && K < Infinity)) return q;
    const k = Math.log(K) + shift;
    const d = k - m;
    const v2 = A * (vv + bb * (rho * k + (Math.sqrt(d * d + s2) - R))) + C;
    out[q] = Math.sqrt(v2 > 0 ? v2 : 0);
  }
  return -1;
}

/**
 * The general loop: for `n` log-moneyness values `x[q] + shift` (finite, checked by the caller), writes
 * the vol `sqrt(σ²)` (when `asVol`) or the total variance `σ²·T` into `out[offset + q]`. Same formulas
 * and the same floor at 0 as {@link volsFromStrikes}.
 */
export function evaluate(
  out: Float64Array,
  offset: number,
  x: Float64Array,
  n: number,
  shift: number,
  sl: SliceArrays,
  plan: MaturityPlan,
  asVol: boolean,
): void {
  const T = plan.T;
  if (plan.twoSlices) {
    const { i, j, A, B } = plan;
    const c0 = A * sl.c0[i]! + B * sl.c0[j]! + plan.C;
    const c1 = A * sl.bb[i]! * sl.rho[i]! + B * sl.bb[j]! * sl.rho[j]!;
    const ei = A * sl.bb[i]!;
    const ej = B * sl.bb[j]!;
    const mi = sl.m[i]!;
    const mj = sl.m[j]!;
    const si = sl.s2[i]!;
    const sj = sl.s2[j]!;
    for (let q = 0; q < n; q++) {
      const k = x[q]! + shift;
      const di = k - mi;
      const dj = k - mj;
      const v2 = c0 + c1 * k + ei * Math.sqrt(di * di + si) + ej * Math.sqrt(dj * dj + sj);
      const v2p = v2 > 0 ? v2 : 0;
      out[offset + q] = asVol ? Math.sqrt(v2p) : v2p * T;
    }
    return;
  }
  const { i, A, C } = plan;
  const vv = sl.vv[i]!;
  const bb = sl.bb[i]!;
  const rho = sl.rho[i]!;
  const m = sl.m[i]!;
  const s2 = sl.s2[i]!;
  const R = sl.R[i]!;
  for (let q = 0; q < n; q++) {
    const k = x[q]! + shift;
    const d = k - m;
    const v2 = A * (vv + bb * (rho * k + (Math.sqrt(d * d + s2) - R))) + C;
    const v2p = v2 > 0 ? v2 : 0;
    out[offset + q] = asVol ? Math.sqrt(v2p) : v2p * T;
  }
}

/**
 * Total variance `w(k, T)` and its k-derivative `w'(k, T)` at one log-moneyness (scalar path, used by the
 * delta solver). Same formulas as {@link evaluate}.
 */
export function varianceAndSlope(k: number, sl: SliceArrays, plan: MaturityPlan, out: { w: number; w1: number }): void {
  const { i, j, A, B, C, T } = plan;
  let v2 = C;
  let d1 = 0;
  {
    const d = k - sl.m[i]!;
    const q = Math.sqrt(d * d + sl.s2[i]!);
    v2 += A * (sl.vv[i]! + sl.bb[i]! * (sl.rho[i]! * k + (q - sl.R[i]!)));
    d1 += A * sl.bb[i]! * (sl.rho[i]! + d / q);
  }
  if (plan.twoSlices) {
    const d = k - sl.m[j]!;
    const q = Math.sqrt(d * d + sl.s2[j]!);
    v2 += B * (sl.vv[j]! + sl.bb[j]! * (sl.rho[j]! * k + (q - sl.R[j]!)));
    d1 += B * sl.bb[j]! * (sl.rho[j]! + d / q);
  }
  out.w = (v2 > 0 ? v2 : 0) * T;
  out.w1 = d1 * T;
}
