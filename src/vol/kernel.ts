/**
 * The hot loops: per-strike evaluation of the interpolated smile at one fixed maturity. Everything that
 * depends on the maturity alone (bracketing benchmarks, interpolation weights, forward) is worked out
 * once per call in a {@link MaturityPlan}; the loops below only do, per strike, one log (when given
 * strikes rather than log-moneyness), one or two square roots per slice and a square root for the vol.
 * No closures, no allocation, monomorphic Float64Array access.
 */

/**
 * Per-benchmark constants of the surface, in implied variance (`w/T_i`, per year) so nodes are exact.
 * Each slice is kept in centred form: `ŵ_i(k) = vv + bb·(rho·k + k·(ka − 2M)/(sqrt((ka − M)² + S2) + Ra))`
 * with `ka = alpha·k`, which is `sqrt((k − m)² + s²) − sqrt(m² + s²)` written without cancellation and scaled
 * by `alpha = 1/max(R, 1)` so no square overflows (`R = sqrt(m² + s²)`). Fill with {@link setSlice}.
 */
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
  /** `1/max(R_i, 1)`. */
  alpha: Float64Array;
  /** `alpha_i·m_i` (in [−1, 1]). */
  M: Float64Array;
  /** `(alpha_i·s_i)²`. */
  S2: Float64Array;
  /** `alpha_i·R_i` (≤ 1). */
  Ra: Float64Array;
}

/** Empty {@link SliceArrays} for `n` benchmarks. */
export function sliceArrays(n: number): SliceArrays {
  const f = () => new Float64Array(n);
  return { T: f(), lnF: f(), vv: f(), bb: f(), rho: f(), alpha: f(), M: f(), S2: f(), Ra: f() };
}

/** Writes benchmark `i` (maturity `T` years, `ln F`, ATM implied variance `vv`, raw SVI `b, rho, m, s`) into `sl`. */
export function setSlice(
  sl: SliceArrays,
  i: number,
  c: { T: number; lnF: number; vv: number; b: number; rho: number; m: number; s: number },
): void {
  const R = Math.hypot(c.m, c.s);
  const alpha = R > 1 ? 1 / R : 1;
  const S = c.s * alpha;
  sl.T[i] = c.T;
  sl.lnF[i] = c.lnF;
  sl.vv[i] = c.vv;
  sl.bb[i] = c.b / c.T;
  sl.rho[i] = c.rho;
  sl.alpha[i] = alpha;
  sl.M[i] = c.m * alpha;
  sl.S2[i] = S * S;
  sl.Ra[i] = R * alpha;
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
 * Thrown by the loops' callers when a value came out NaN. On a validated surface this cannot happen
 * (every form above is finite for |k| ≤ 1e4); if it ever does, the model says so rather than return NaN
 * or floor it to a vol of 0.
 */
export const NAN_IN_KERNEL = "the vol model produced NaN: this is a bug, please report the surface and the strikes";

/**
 * The `GetVol` hot path: vols (decimal) for `n` strikes `x[q]` (prices or percentages, each finite and
 * > 0), `k = ln(x[q]) + shift`, into `out[q]`. Returns the index of the first strike that is not finite
 * and > 0 (the rest of `out` is then left unwritten), −2 when a value came out NaN ({@link NAN_IN_KERNEL}),
 * or −1 when all went well.
 *
 * Implied variance below 0 is floored at 0 before the square root: a valid slice never goes below 0, but
 * when its minimum total variance is exactly 0 rounding can land a hair under it (−1e−18). NaN is not
 * floored: it is reported.
 */
export function volsFromStrikes(
  out: Float64Array,
  x: Float64Array,
  n: number,
  shift: number,
  sl: SliceArrays,
  plan: MaturityPlan,
): number {
  let nan = false;
  if (plan.twoSlices) {
    const { i, j, A, B } = plan;
    // σ² = c0 + c1·k + ei·t_i(k) + ej·t_j(k), t the centred term of each slice (no large constants folded in).
    const c0 = A * sl.vv[i]! + B * sl.vv[j]! + plan.C;
    const c1 = A * sl.bb[i]! * sl.rho[i]! + B * sl.bb[j]! * sl.rho[j]!;
    const ei = A * sl.bb[i]!;
    const ej = B * sl.bb[j]!;
    const ai = sl.alpha[i]!;
    const aj = sl.alpha[j]!;
    const Mi = sl.M[i]!;
    const Mj = sl.M[j]!;
    const Si = sl.S2[i]!;
    const Sj = sl.S2[j]!;
    const Ri = sl.Ra[i]!;
    const Rj = sl.Ra[j]!;
    for (let q = 0; q < n; q++) {
      const K = x[q]!;
      if (!(K > 0 && K < Infinity)) return q;
      const k = Math.log(K) + shift;
      const ki = k * ai;
      const kj = k * aj;
      const ui = ki - Mi;
      const uj = kj - Mj;
      const v2 =
        c0 +
        c1 * k +
        (ei * k * (ki - 2 * Mi)) / (Math.sqrt(ui * ui + Si) + Ri) +
        (ej * k * (kj - 2 * Mj)) / (Math.sqrt(uj * uj + Sj) + Rj);
      nan ||= v2 !== v2;
      out[q] = Math.sqrt(v2 < 0 ? 0 : v2);
    }
    return nan ? -2 : -1;
  }
  const { i, A, C } = plan;
  // Centred form, so that k = 0 gives v_i² exactly at a node.
  const vv = sl.vv[i]!;
  const bb = sl.bb[i]!;
  const rho = sl.rho[i]!;
  const al = sl.alpha[i]!;
  const M = sl.M[i]!;
  const S2 = sl.S2[i]!;
  const Ra = sl.Ra[i]!;
  for (let q = 0; q < n; q++) {
    const K = x[q]!;
    if (!(K > 0 && K < Infinity)) return q;
    const k = Math.log(K) + shift;
    const ka = k * al;
    const u = ka - M;
    const v2 = A * (vv + bb * (rho * k + (k * (ka - 2 * M)) / (Math.sqrt(u * u + S2) + Ra))) + C;
    nan ||= v2 !== v2;
    out[q] = Math.sqrt(v2 < 0 ? 0 : v2);
  }
  return nan ? -2 : -1;
}

/**
 * The general loop: for `n` log-moneyness values `x[q] + shift` (finite, checked by the caller), writes
 * the vol `sqrt(σ²)` (when `asVol`) or the total variance `σ²·T` into `out[offset + q]`. Same formulas
 * and the same floor at 0 as {@link volsFromStrikes}. Returns false when a value came out NaN.
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
): boolean {
  const T = plan.T;
  let nan = false;
  if (plan.twoSlices) {
    const { i, j, A, B } = plan;
    const c0 = A * sl.vv[i]! + B * sl.vv[j]! + plan.C;
    const c1 = A * sl.bb[i]! * sl.rho[i]! + B * sl.bb[j]! * sl.rho[j]!;
    const ei = A * sl.bb[i]!;
    const ej = B * sl.bb[j]!;
    const ai = sl.alpha[i]!;
    const aj = sl.alpha[j]!;
    const Mi = sl.M[i]!;
    const Mj = sl.M[j]!;
    const Si = sl.S2[i]!;
    const Sj = sl.S2[j]!;
    const Ri = sl.Ra[i]!;
    const Rj = sl.Ra[j]!;
    for (let q = 0; q < n; q++) {
      const k = x[q]! + shift;
      const ki = k * ai;
      const kj = k * aj;
      const ui = ki - Mi;
      const uj = kj - Mj;
      const v2 =
        c0 +
        c1 * k +
        (ei * k * (ki - 2 * Mi)) / (Math.sqrt(ui * ui + Si) + Ri) +
        (ej * k * (kj - 2 * Mj)) / (Math.sqrt(uj * uj + Sj) + Rj);
      nan ||= v2 !== v2;
      const v2p = v2 < 0 ? 0 : v2;
      out[offset + q] = asVol ? Math.sqrt(v2p) : v2p * T;
    }
    return !nan;
  }
  const { i, A, C } = plan;
  const vv = sl.vv[i]!;
  const bb = sl.bb[i]!;
  const rho = sl.rho[i]!;
  const al = sl.alpha[i]!;
  const M = sl.M[i]!;
  const S2 = sl.S2[i]!;
  const Ra = sl.Ra[i]!;
  for (let q = 0; q < n; q++) {
    const k = x[q]! + shift;
    const ka = k * al;
    const u = ka - M;
    const v2 = A * (vv + bb * (rho * k + (k * (ka - 2 * M)) / (Math.sqrt(u * u + S2) + Ra))) + C;
    nan ||= v2 !== v2;
    const v2p = v2 < 0 ? 0 : v2;
    out[offset + q] = asVol ? Math.sqrt(v2p) : v2p * T;
  }
  return !nan;
}

/**
 * Total variance `w(k, T)` and its k-derivative `w'(k, T)` at one log-moneyness (scalar path, used by the
 * delta solver). Same formulas as {@link evaluate}; `w` is NaN (not 0) if the formulas ever give NaN.
 */
export function varianceAndSlope(k: number, sl: SliceArrays, plan: MaturityPlan, out: { w: number; w1: number }): void {
  const { i, j, A, B, C, T } = plan;
  let v2 = C;
  let d1 = 0;
  for (const [idx, weight] of plan.twoSlices ? [[i, A] as const, [j, B] as const] : [[i, A] as const]) {
    const al = sl.alpha[idx]!;
    const M = sl.M[idx]!;
    const ka = k * al;
    const u = ka - M;
    const h = Math.sqrt(u * u + sl.S2[idx]!);
    v2 += weight * (sl.vv[idx]! + sl.bb[idx]! * (sl.rho[idx]! * k + (k * (ka - 2 * M)) / (h + sl.Ra[idx]!)));
    d1 += weight * sl.bb[idx]! * (sl.rho[idx]! + u / h);
  }
  out.w = (v2 < 0 ? 0 : v2) * T;
  out.w1 = d1 * T;
}
