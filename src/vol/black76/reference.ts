/**
 * The Black-76 kernel before the fast one ({@link fillBlack76}), kept as the reference that
 * test/vol/black76-kernel.test.ts and bench/black.mjs measure the fast kernel against; the fast kernel
 * hands it the rare options its passes leave out. Same numerics (regions, series, limits: shared with the
 * fast kernel), with `Math.log1p`, `Math.log`, `Math.exp` and {@link erfcx}, the Mills ratios passed
 * through scratch arrays, and a third erfcx for the delta in part of region 3.
 */
import {
  ASYMPTOTIC_H,
  INV_SQRT_2PI,
  SMALL_T,
  SQRT_HALF_PI,
  asymptoticD,
  taylorTail,
  writeLimits,
  type Black76Kernel,
} from "./series";
import { erfcx } from "../normal";

/** Arguments and values of the Mills ratios of one option. */
const yArg = new Float64Array(3);
const yVal = new Float64Array(3);

/**
 * The previous kernel, kept unchanged as the fast one's reference (its arguments: {@link Black76Kernel}).
 *
 * The out-of-the-money value is `sqrt(F·K)·b` with Jäckel's normalised `b = e^(ht)·N(h + t) − e^(−ht)·N(h − t)`
 * at `h = ho = −|ln(F/K)|/(σ√T) ≤ 0`, written `b = E·D`: `E = φ(h)·e^(−t²/2)` (so `sqrt(F·K)·E = F·φ(d1)`, as
 * `e^(ht)·φ(h + t) = e^(−ht)·φ(h − t) = E`) and `D = Y(h + t) − Y(h − t)`. The delta needs
 * `N(−|d1|) = φ(d1)·Y(−|d1|)`, which in the two outer regions is one of the two Y's of D (|d1| is `t − ho`
 * or `|ho + t|`), so those options take two erfcx, not three.
 */
export const fillBlack76Reference: Black76Kernel = (F, strikes, vols, volStride, sqrtT, DF, r, call, out, n) => {
  const sqrtF = Math.sqrt(F);
  const lnF = Math.log(F);
  const { price: outPrice, delta: outDelta, gamma: outGamma, vega: outVega, theta: outTheta } = out;
  for (let q = 0; q < n; q++) {
    const K = strikes[q]!;
    const sigma = vols[q * volStride]!;
    // ln(F/K) to a few ulps even when F ≈ K (log1p((F − K)/K), F − K exact there): far out of the money the
    // price depends on exp(−ln(F/K)²/(2σ²T)), so a relative error δ in it becomes (ln(F/K)/(σ√T))²·δ.
    const ratio = F / K;
    const x =
      ratio > 0.5 && ratio < 2
        ? Math.log1p((F - K) / K)
        : ratio > 0 && ratio < Infinity
          ? Math.log(ratio)
          : lnF - Math.log(K);
    const s = sigma * sqrtT;
    const intrinsic = call ? (F > K ? F - K : 0) : K > F ? K - F : 0;
    const h = x / s;
    if (!(s > 0) || !(h - h === 0)) {
      writeLimits(out, q, x, intrinsic, call, F, sqrtT, sigma, DF, r);
      continue;
    }
    const t = 0.5 * s;
    const sqrtFK = sqrtF * Math.sqrt(K);
    // F·φ(d1) = sqrt(F·K)·φ(h)·e^(−t²/2): no exp of a rounded d1², and in log space when φ(h) alone would
    // underflow but the product does not (a huge forward and strike).
    const arg = -0.5 * (h * h + t * t);
    const fPhi = (arg > -600 ? Math.exp(arg) * sqrtFK : Math.exp(arg + Math.log(sqrtFK))) * INV_SQRT_2PI;
    const ho = h < 0 ? h : -h;
    const d1 = h + t;
    const region = ho + t <= ASYMPTOTIC_H ? 0 : t < SMALL_T ? 1 : ho + t > 0.85 ? 2 : 3;
    // The Y's as erfcx arguments (Y(z) = sqrt(π/2)·erfcx(−z/√2)), all through one call site below:
    // [0] Y(−|d1|) when it is not one of the others, [1], [2] those of D.
    // In the outer regions |d1| is t − ho (h ≥ 0) or |ho + t|: the delta reuses one of D's.
    const deltaAt = region < 2 || (region === 3 && h < 0 && d1 >= 0) ? 0 : h >= 0 ? 2 : 1;
    yArg[0] = (d1 < 0 ? -d1 : d1) * Math.SQRT1_2;
    if (region === 1) yArg[1] = -ho * Math.SQRT1_2;
    else if (region >= 2) {
      yArg[1] = (region === 2 ? ho + t : -(ho + t)) * Math.SQRT1_2;
      yArg[2] = (t - ho) * Math.SQRT1_2;
    }
    const m = region === 0 ? 1 : region === 1 ? 2 : 3;
    for (let j = deltaAt === 0 ? 0 : 1; j < m; j++) yVal[j] = SQRT_HALF_PI * erfcx(yArg[j]!);
    let otm: number;
    if (region === 0) otm = fPhi * asymptoticD(ho, t);
    else if (region === 1) {
      const a = 1 + ho * yVal[1]!;
      const z = ho * ho;
      const w = t * t;
      const t1 = (-1 + a * (3 + z)) * (1 / 6);
      const t2 = (-7 - z + a * (15 + z * (10 + z))) * (1 / 120);
      const t3 = (-57 + z * (-18 - z) + a * (105 + z * (105 + z * (21 + z)))) * (1 / 5040);
      otm = fPhi * 2 * t * (a + w * (t1 + w * (t2 + w * (t3 + w * taylorTail(z, a, w)))));
    } else if (region === 2) {
      // N(d1) is not small, nothing to cancel: e^(ht)·N(h + t) = e^(ht) − E·Y(−(h + t)); the second term as
      // E·Y(h − t) cannot overflow.
      const v = sqrtFK * Math.exp(ho * t) - fPhi * (yVal[1]! + yVal[2]!);
      otm = v > 0 ? v : 0;
    } else {
      // The difference of Mills ratios loses at most a factor ~25 (at t = 0.21, h + t = −10).
      otm = fPhi * (yVal[1]! - yVal[2]!);
    }
    const yDelta = yVal[deltaAt]!;
    const price = DF * (otm + intrinsic);
    const tail = (fPhi / F) * yDelta;
    outPrice[q] = price;
    outDelta[q] = call ? DF * (d1 < 0 ? tail : 1 - tail) : -DF * (d1 < 0 ? 1 - tail : tail);
    // φ(d1)·DF/F/s: neither F·F nor F·s, which leave the doubles' range at the extremes.
    outGamma[q] = ((fPhi / F) * DF) / F / s;
    outVega[q] = DF * fPhi * sqrtT;
    // r overflows to ∞ for a subnormal T with DF ≠ 1: a price of 0 then earns nothing (∞·0 would be NaN).
    outTheta[q] = (price > 0 ? r * price : 0) - (DF * fPhi * sigma) / (2 * sqrtT);
  }
};
