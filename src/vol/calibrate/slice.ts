/**
 * One slice in the fit's variables: the map from five unconstrained numbers onto the model's
 * parameters, its inverse, and the bounds that map builds in.
 *
 * Method. The slices are fitted one at a time, shortest maturity first, each by Levenberg–Marquardt
 * on the vol errors, in five unconstrained numbers `x` that map smoothly onto the model's
 * parameters (`S± = b(1 ± rho)` the wing slopes of total variance, `lo±` the previous slice's, 0 for the
 * first; `cap = 2 − δ_L`):
 *
 * ```
 * v = e^x0                     S− = lo− + (cap − lo−)·sigmoid(x3),  p = S−/sqrt(theta)
 * beta = tanh(x1)              S+ = lo+ + (cap − lo+)·sigmoid(x4),  c = S+/sqrt(theta)
 * 2·psi = ((c − p) − beta·(c + p)) / 2                  (so −p < 2·psi < c)
 * w''(0) = w2min + 2e−6·psi² + sqrt(theta)·e^x2,  w2min = b²(1 − beta²)·D / theta,
 *   D = 1 − rho·beta − sqrt((1 − beta²)(1 − rho²)) = (beta − rho)² / (1 − rho·beta + sqrt(…))
 * ```
 *
 * so that for every x: `v, p, c > 0`, `-p < 2·psi < c`, `w''(0) > 0`, the minimum total variance
 * `a + b·s·sqrt(1 − rho²) = theta·(w''(0) − w2min)/w''(0) > 0`, Lee's bound `b(1 ± rho) ≤ 2 − δ_L`, and
 * the calendar condition in the far wings, `b_i(1 ± rho_i) > b_{i−1}(1 ± rho_{i−1})` (asymptotic slopes).
 * Whatever the solver tries is a slice the model accepts. (`|x1| ≤ 8` and the `2e−6·psi²` floor keep the
 * slice representable on the wire to ~1e−9: the smile and skew carry w''(0) and beta with that precision.)
 */
import type { SliceParams } from "../svi";
import { CALIBRATION_MARGINS, type CalibrationConstraint } from "./options";

/** |x1| ≤ 8 keeps 1 − beta² ≥ 4.5e−7, so the wire's skew carries beta to ~1e−9 relative. */
const X1_LIMIT = 8;
/** w''(0) ≥ w2min + 2e−6·psi²: the wire's smile kappa = (w''(0)/2 − psi²)/sqrt(theta) then carries w''(0) to ~1e−9 relative. */
const CURVATURE_FLOOR = 1e-6;
/**
 * A bound built into the variables counts as active when the fit presses against it: a wing slope within
 * this fraction of its range from Lee's bound or from the previous slice's slope, or the free part of
 * w''(0) below this fraction of it (the minimum variance pressed down).
 */
const PRESSED = 1e-6;
const LEE_BOUND = 2;

/** A slice decoded from the fit's variables: model parameters, raw SVI, and what the penalties use. */
export interface Slice extends SliceParams {
  T: number;
  theta: number;
  sqrtTheta: number;
  b: number;
  rho: number;
  m: number;
  s: number;
  s2: number;
  /** sqrt(m² + s²). */
  R: number;
  minW: number;
  /** False when the variables overflow or underflow (an infinite smile, a zero s): the solver must not go there. */
  valid: boolean;
  /** The free part of w''(0) above its floor, relative to w''(0): ~0 when the fit presses the minimum variance down. */
  curvatureSlack: number;
  /** Put and call wing slopes of total variance, b(1 ∓ rho). */
  slopePut: number;
  slopeCall: number;
  /** Where the wing slopes sit in their range (0: the previous slice's slope, 1: Lee's bound less its margin). */
  putPosition: number;
  callPosition: number;
}

/**
 * Where a slice's variables live: its maturity, and the range its wing slopes of total variance must stay
 * in, `lo < b(1 ∓ rho) < hi`. Fitted above its neighbour (`dir` 1, the shortest-first pass): lo the
 * neighbour's slopes (0 for the first), hi Lee's bound less its margin. Fitted below it (`dir` −1, the
 * longest-first pass): lo 0, hi the neighbour's slopes (Lee's for the first).
 */
export interface SliceSpace {
  T: number;
  putLo: number;
  callLo: number;
  putHi: number;
  callHi: number;
  /** 1: the neighbour fitted before this slice is the shorter maturity (this slice lies above it); −1: the longer. */
  dir: 1 | -1;
}

/** The upper end of the wing slopes: Lee's bound less its margin. */
export const SLOPE_CAP = LEE_BOUND - CALIBRATION_MARGINS.lee;

const sigmoid = (x: number): number => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));

/** The slice the fit's variables `x` stand for in `space` (the map of this file's comment). */
export function decode(x: ArrayLike<number>, space: SliceSpace): Slice {
  const { T, putLo, callLo } = space;
  const vol = Math.exp(x[0]!);
  const x1 = Math.min(X1_LIMIT, Math.max(-X1_LIMIT, x[1]!));
  const beta = Math.tanh(x1);
  const ch = Math.cosh(x1);
  const oneMinusBeta2 = 1 / (ch * ch);
  const theta = vol * vol * T;
  const sqrtTheta = Math.sqrt(theta);
  const putPosition = sigmoid(x[3]!);
  const callPosition = sigmoid(x[4]!);
  const slopePut = putLo + (space.putHi - putLo) * putPosition;
  const slopeCall = callLo + (space.callHi - callLo) * callPosition;
  const putWing = slopePut / sqrtTheta;
  const callWing = slopeCall / sqrtTheta;
  const pc = putWing + callWing;
  const b = (slopePut + slopeCall) / 2;
  const rho = (slopeCall - slopePut) / (slopeCall + slopePut);
  const oneMinusRho2 = (4 * slopePut * slopeCall) / ((slopePut + slopeCall) * (slopePut + slopeCall));
  const skew = (callWing - putWing - beta * pc) / 4;
  const D = (beta - rho) ** 2 / (1 - rho * beta + Math.sqrt(oneMinusBeta2 * oneMinusRho2));
  const w2min = (b * b * oneMinusBeta2 * D) / theta;
  const e = sqrtTheta * Math.exp(x[2]!);
  const w2 = w2min + CURVATURE_FLOOR * 2 * skew * skew + e;
  const smile = (w2 / 2 - skew * skew) / sqrtTheta;
  const R = (b * oneMinusBeta2) / w2;
  const m = beta * R;
  const s = R / ch;
  return {
    vol,
    skew,
    smile,
    putWing,
    callWing,
    T,
    theta,
    sqrtTheta,
    b,
    rho,
    m,
    s,
    s2: s * s,
    R: Math.sqrt(m * m + s * s),
    // (Each finite, and the positive ones > 0: NaN fails every comparison.)
    valid:
      vol > 0 &&
      vol < Infinity &&
      putWing > 0 &&
      putWing < Infinity &&
      callWing > 0 &&
      callWing < Infinity &&
      s > 0 &&
      s < Infinity &&
      theta > 0 &&
      Number.isFinite(skew) &&
      Number.isFinite(smile) &&
      Number.isFinite(b) &&
      Number.isFinite(m),
    minW: (theta * (w2 - w2min)) / w2,
    curvatureSlack: e / w2,
    slopePut,
    slopeCall,
    putPosition,
    callPosition,
  };
}

/** The fit's variables of a slice (the inverse of {@link decode}); undefined when the slice is outside the model's range or the space. */
export function encode(p: SliceParams, space: SliceSpace): Float64Array | undefined {
  const { vol, skew, smile, putWing, callWing } = p;
  if (!(vol > 0 && putWing > 0 && callWing > 0)) return undefined;
  const pc = putWing + callWing;
  const beta = (callWing - putWing - 4 * skew) / pc;
  if (!(Math.abs(beta) < 1)) return undefined;
  const theta = vol * vol * space.T;
  const sqrtTheta = Math.sqrt(theta);
  const b = (sqrtTheta * pc) / 2;
  const rho = (callWing - putWing) / pc;
  const oneMinusBeta2 = 1 - beta * beta;
  const D = (beta - rho) ** 2 / (1 - rho * beta + Math.sqrt(oneMinusBeta2 * ((4 * putWing * callWing) / (pc * pc))));
  const w2min = (b * b * oneMinusBeta2 * D) / theta;
  const e = 2 * (skew * skew + sqrtTheta * smile) - w2min - CURVATURE_FLOOR * 2 * skew * skew;
  if (!(e > 0)) return undefined;
  const logit = (S: number, lo: number, hi: number) => {
    const u = (S - lo) / (hi - lo);
    return Math.log(u / (1 - u));
  };
  const x = Float64Array.of(
    Math.log(vol),
    Math.atanh(beta),
    Math.log(e / sqrtTheta),
    logit(sqrtTheta * putWing, space.putLo, space.putHi),
    logit(sqrtTheta * callWing, space.callLo, space.callHi),
  );
  return x.every(Number.isFinite) ? x : undefined;
}

/** Total variance, centred so that k = 0 gives theta exactly: `theta + b·(rho·k + k(k − 2m)/(sqrt((k − m)² + s²) + R))`. */
export function totalVariance(sl: Slice, k: number): number {
  const d = k - sl.m;
  return sl.theta + sl.b * (sl.rho * k + (k * (k - 2 * sl.m)) / (Math.sqrt(d * d + sl.s2) + sl.R));
}

/** Put and call asymptotes `w ≈ S·|k| + I` of a slice: `S = b(1 ∓ rho)`, `I = theta − b·(R ∓ m)`. */
export function asymptote(sl: Slice, wing: "put" | "call"): { S: number; I: number } {
  return wing === "call"
    ? { S: sl.slopeCall, I: sl.theta - sl.b * (sl.R + sl.m) }
    : { S: sl.slopePut, I: sl.theta - sl.b * (sl.R - sl.m) };
}

/** The bounds built into the variables that a slice presses against ({@link PRESSED}): Lee's, the neighbour's wing slopes, the minimum variance. */
export function addPressed(sl: Slice, space: SliceSpace, out: Set<CalibrationConstraint>): void {
  const top = (position: number, hi: number): CalibrationConstraint | undefined =>
    position >= 1 - PRESSED ? (hi === SLOPE_CAP ? "lee" : "calendar") : undefined;
  for (const hit of [top(sl.putPosition, space.putHi), top(sl.callPosition, space.callHi)]) if (hit) out.add(hit);
  if ((space.putLo > 0 || space.callLo > 0) && (sl.putPosition <= PRESSED || sl.callPosition <= PRESSED))
    out.add("calendar");
  if (sl.curvatureSlack <= PRESSED) out.add("minVariance");
}

/** The variables' space of a slice fitted after its neighbour `prev`, above it (`dir` 1) or below it (−1). */
export function sliceSpace(T: number, prev: Slice | undefined, dir: 1 | -1): SliceSpace {
  if (prev && dir === 1)
    return { T, putLo: prev.slopePut, callLo: prev.slopeCall, putHi: SLOPE_CAP, callHi: SLOPE_CAP, dir };
  if (!prev) return { T, putLo: 0, callLo: 0, putHi: SLOPE_CAP, callHi: SLOPE_CAP, dir };
  // Below the longer neighbour, and above BELOW_FLOOR of its slopes: from 0, a short slice's wing, which
  // its quotes seldom pin, runs to 0.
  const [putHi, callHi] = [prev.slopePut, prev.slopeCall];
  return { T, putLo: BELOW_FLOOR * putHi, callLo: BELOW_FLOOR * callHi, putHi, callHi, dir };
}

/**
 * In the longest-first pass, a slice's wing slopes stay above this fraction of the longer neighbour's (a
 * bound the calendar condition does not need: a floor at 0 lets a short slice's wings, which its quotes
 * seldom pin, run to 0, and the first pass's slopes as the lower end would bring back the bound by the
 * shorter slice that this pass is there to undo).
 */
const BELOW_FLOOR = 0.05;
