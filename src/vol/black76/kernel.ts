/**
 * The Black-76 kernel: price and four greeks of many options at one forward, expiry and discount factor,
 * into Float64Arrays. The numerics are those described on {@link black76} (Jäckel's normalised Black
 * function in regions, the out-of-the-money option plus the intrinsic value); this file is the loop, shaped
 * for throughput (bench/black.mjs measures it):
 * - chunks of 256 options in passes over scratch Float64Arrays (prepare, Mills ratios, finish), each pass
 *   a small loop;
 * - no object and no call to `Math` per option: `ln(F/K)`, `exp` and `erfcx` in plain arithmetic
 *   ({@link logRatio}, {@link expFast}, {@link erfcxFast}); the options the passes do not cover go to the
 *   previous kernel ({@link fillBlack76Reference}) one at a time, in a pass of their own;
 * - strikes and vols read from Float64Arrays only ({@link black76Strikes} copies other array-likes first);
 * - `N(−|d1|)` for the delta is one of the price's two Mills ratios in regions 2 and 3 (two erfcx an option);
 * - the difference of Mills ratios (region 3) also below t = 0.21 near the money, where it loses less than
 *   ~2e-15, instead of the longer small-t series.
 *
 * Against the previous kernel (test/vol/black76-kernel.test.ts, bench/black.mjs): relative differences
 * below 1e-14 for |h| ≤ 3, up to ~3e-14 at |h| = 5–10 where the price's conditioning (h² times an ulp of h,
 * and the cancellation in the small-t series' `1 + h·Y(h)`) magnifies their different roundings; against
 * 40-digit mpmath on 2 435 random options (price > 1e-12·F) both kernels err by at most 2.4e-14 (price),
 * 1.1e-14 (delta) and 2.8e-14 (gamma, vega).
 */
import { erfcxFast, expFast, logRatio } from "./math";
import { fillBlack76Reference } from "./reference";
import {
  ASYMPTOTIC_H,
  INV_SQRT_2PI,
  RESULT_KEYS,
  SMALL_T,
  SQRT_HALF_PI,
  newArrays,
  taylorD,
  type Black76Kernel,
} from "./series";

/** A pass over the options `start … start + m − 1` of a chunk, with the kernel's other arguments. */
type ChunkPass = (...args: [...Head<Parameters<Black76Kernel>>, start: number, m: number]) => void;
type Head<T extends unknown[]> = T extends [...infer H, unknown] ? H : never;

/** Options per chunk: the passes below go over a chunk's scratch arrays, which stay in the L1 cache. */
const CHUNK = 256;
// Per option of a chunk: h = ln(F/K)/(σ√T), t = σ√T/2, F·φ(d1), sqrt(F·K), the region (1 small t,
// 2 h + t > 0.85, 3 between; 0 for an option left to the reference kernel) and where its Mills ratios start.
const H = new Float64Array(CHUNK);
const TT = new Float64Array(CHUNK);
const FPHI = new Float64Array(CHUNK);
const SQFK = new Float64Array(CHUNK);
const REGION = new Int32Array(CHUNK);
/** The erfcx arguments of a chunk's Mills ratios, two per option, and then `Y = sqrt(π/2)·erfcx`. */
const ARG = new Float64Array(2 * CHUNK);
const Y = new Float64Array(2 * CHUNK);

/**
 * First pass over a chunk (options `start … start + m − 1`): h, t, F·φ(d1), the region and the arguments of
 * its two Mills ratios (`Y(z)` as `sqrt(π/2)·erfcx(−z/√2)`), at 2i and 2i + 1.
 * Options outside what the fast passes cover get region 0: σ√T = 0 or `|h|` overflowing (the limits), F/K
 * beyond 1e±300, `φ(h)·e^(−t²/2)` below e^−600, and far out of the money (`h + t ≤ −10`, the asymptotic series).
 * No call out in this loop or the next three (see {@link expFast}).
 */
function prepare(
  F: number,
  strikes: Float64Array,
  vols: Float64Array,
  volStride: number,
  sqrtT: number,
  start: number,
  m: number,
): void {
  const hs = H;
  const tts = TT;
  const fphis = FPHI;
  const sqfks = SQFK;
  const regions = REGION;
  const args = ARG;
  const sqrtF = Math.sqrt(F);
  for (let i = 0; i < m; i++) {
    const K = strikes[start + i]!;
    const ratio = F / K;
    const s = vols[(start + i) * volStride]! * sqrtT;
    regions[i] = 0;
    args[2 * i] = 1; // (an option left to the reference kernel: any argument)
    args[2 * i + 1] = 1;
    if (!(ratio > 1e-300 && ratio < 1e300 && s > 0)) continue;
    // ln(F/K) to about an ulp even when F ≈ K: far out of the money the price depends on
    // exp(−ln(F/K)²/(2σ²T)), so a relative error δ in it becomes (ln(F/K)/(σ√T))²·δ.
    const h = logRatio(F, K, ratio) / s;
    const t = 0.5 * s;
    const ho = h < 0 ? h : -h;
    const sum = ho + t;
    // F·φ(d1) = sqrt(F·K)·φ(h)·e^(−t²/2): no exp of a rounded d1².
    const arg = -0.5 * (h * h + t * t);
    if (!(arg > -600 && sum > ASYMPTOTIC_H)) continue;
    const sqrtFK = sqrtF * Math.sqrt(K);
    fphis[i] = expFast(arg) * sqrtFK * INV_SQRT_2PI;
    hs[i] = h;
    tts[i] = t;
    sqfks[i] = sqrtFK;
    // Small t: the series, where the difference of Mills ratios of region 3 would cost more than ~2e-15: it
    // loses about (0.63 + |h|/2)/t times the error of its terms, ~(1 + (|h| + t)²) ulp (their arguments'
    // rounding). The reference kernel took the series for every t < 0.21; this is the same near the money.
    if (t < SMALL_T && (0.63 - 0.5 * ho) * (1 + (t - ho) * (t - ho)) > 18 * t) {
      // Y(−|d1|) for the delta, and Y(ho) for the series.
      regions[i] = 1;
      const d1 = h + t;
      args[2 * i] = (d1 < 0 ? -d1 : d1) * Math.SQRT1_2;
      args[2 * i + 1] = -ho * Math.SQRT1_2;
    } else {
      // Y(ho − t), and Y(−(ho + t)) (region 2) or Y(ho + t) (region 3).
      regions[i] = sum > 0.85 ? 2 : 3;
      args[2 * i] = (t - ho) * Math.SQRT1_2;
      args[2 * i + 1] = (sum > 0.85 ? sum : -sum) * Math.SQRT1_2;
    }
  }
}

/** Second pass: the chunk's `k` Mills ratios (one call site of erfcx). */
function millsRatios(k: number): void {
  const args = ARG;
  const ys = Y;
  for (let j = 0; j < k; j++) ys[j] = SQRT_HALF_PI * erfcxFast(args[j]!);
}

/**
 * Third pass: each option's out-of-the-money value `sqrt(F·K)·b` (see {@link fillBlack76}), then its price
 * and greeks into `out`. The delta needs `N(−|d1|) = φ(d1)·Y(−|d1|)`; in regions 2 and 3 that is one of the
 * two Mills ratios of the price (or its complement, where `0 ≤ d1 ≤ 0.85`), so no third erfcx is needed.
 */
const finish: ChunkPass = (F, strikes, vols, volStride, sqrtT, DF, r, call, out, start, m) => {
  const hs = H;
  const tts = TT;
  const fphis = FPHI;
  const regions = REGION;
  const ys = Y;
  const invF = 1 / F;
  // DF/F, not DF/F²: F·F leaves the doubles' range for F above ~1.3e154 or below ~7e-155.
  const gammaFactor = DF * invF;
  const thetaFactor = (0.5 * DF) / sqrtT;
  const { price: outPrice, delta: outDelta, gamma: outGamma, vega: outVega, theta: outTheta } = out;
  for (let i = 0; i < m; i++) {
    const region = regions[i]!;
    if (region === 0) continue;
    const q = start + i;
    const K = strikes[q]!;
    const h = hs[i]!;
    const t = tts[i]!;
    const fPhi = fphis[i]!;
    const ho = h < 0 ? h : -h;
    const y0 = ys[2 * i]!;
    const y1 = ys[2 * i + 1]!;
    // N(−|d1|) = φ(d1)·Y(−|d1|): y0 in region 1, and in 2 and 3 when h ≥ 0 (|d1| = t − ho); else y1 (|d1| = |ho + t|).
    let tail = fPhi * invF * (region === 1 || h >= 0 ? y0 : y1);
    let upper = 1 - tail;
    let otm: number;
    if (region === 1) otm = fPhi * taylorD(ho, t, y1);
    else if (region === 2) {
      // N(d1) is not small, nothing to cancel: e^(ht)·N(h + t) = e^(ht) − E·Y(−(h + t)); the second term as
      // E·Y(h − t) cannot overflow.
      const v = SQFK[i]! * expFast(ho * t) - fPhi * (y1 + y0);
      otm = v > 0 ? v : 0;
    } else {
      // h < 0 ≤ d1 = ho + t (≤ 0.85): N(d1) = φ·Y(d1) is y1, and N(−d1) = 1 − N(d1) ≥ 0.2.
      if (h < 0 && ho + t >= 0) {
        upper = tail;
        tail = 1 - upper;
      }
      // The difference of Mills ratios loses at most a factor ~25.
      otm = fPhi * (y1 - y0);
    }
    const price = DF * (otm + (call ? (F > K ? F - K : 0) : K > F ? K - F : 0));
    const itm = h + t >= 0; // d1 ≥ 0
    outPrice[q] = price;
    outDelta[q] = call ? DF * (itm ? upper : tail) : -DF * (itm ? tail : upper);
    outGamma[q] = (fPhi * invF * gammaFactor) / (2 * t);
    outVega[q] = DF * fPhi * sqrtT;
    // r overflows to ∞ for a subnormal T with DF ≠ 1: a price of 0 then earns nothing (∞·0 would be NaN).
    outTheta[q] = (price > 0 ? r * price : 0) - fPhi * vols[q * volStride]! * thetaFactor;
  }
};

const ONE_K = new Float64Array(1);
const ONE_VOL = new Float64Array(1);
const ONE_OUT = newArrays(1);

/** Last pass: the chunk's options of region 0, one at a time through the reference kernel. */
const rest: ChunkPass = (F, strikes, vols, volStride, sqrtT, DF, r, call, out, start, m) => {
  const regions = REGION;
  for (let i = 0; i < m; i++) {
    if (regions[i] !== 0) continue;
    const q = start + i;
    ONE_K[0] = strikes[q]!;
    ONE_VOL[0] = vols[q * volStride]!;
    fillBlack76Reference(F, ONE_K, ONE_VOL, 0, sqrtT, DF, r, call, ONE_OUT, 1);
    for (const key of RESULT_KEYS) out[key][q] = ONE_OUT[key][0]!;
  }
};

/**
 * The fast kernel (its arguments: {@link Black76Kernel}), in chunks of 256 options, each in four passes
 * (see {@link prepare}).
 *
 * The out-of-the-money value is `sqrt(F·K)·b` with Jäckel's normalised `b = e^(ht)·N(h + t) − e^(−ht)·N(h − t)`
 * at `h = ho = −|ln(F/K)|/(σ√T) ≤ 0`, written `b = E·D`: `E = φ(h)·e^(−t²/2)` (so `sqrt(F·K)·E = F·φ(d1)`, as
 * `e^(ht)·φ(h + t) = e^(−ht)·φ(h − t) = E`) and `D = Y(h + t) − Y(h − t)`.
 */
export const fillBlack76: Black76Kernel = (F, strikes, vols, volStride, sqrtT, DF, r, call, out, n) => {
  if (!(F > 1e-300 && F < 1e300)) {
    fillBlack76Reference(F, strikes, vols, volStride, sqrtT, DF, r, call, out, n);
    return;
  }
  for (let start = 0; start < n; start += CHUNK) {
    const m = Math.min(CHUNK, n - start);
    prepare(F, strikes, vols, volStride, sqrtT, start, m);
    millsRatios(2 * m);
    finish(F, strikes, vols, volStride, sqrtT, DF, r, call, out, start, m);
    rest(F, strikes, vols, volStride, sqrtT, DF, r, call, out, start, m);
  }
};
