/**
 * Black implied volatility by P. Jäckel's "Let's Be Rational" (Wilmott, January 2015, pp. 40–53): the
 * normalised Black function `b(x, s) = e^(x/2)·N(x/s + s/2) − e^(−x/2)·N(x/s − s/2)` (x = ln(F/K),
 * s = σ√T, price = sqrt(F·K)·b) inverted by a rational initial guess in four branches of `b` (two rational
 * cubic interpolations of `s` against `b` around the inflection point `s_c = sqrt(2|x|)`, and two of
 * transformed maps towards `b → 0` and `b → e^(x/2)`), then at most two third-order Householder steps on an
 * objective chosen per branch (`1/ln b` in the lowest, `ln(b_max − b)` in the highest, `b` itself between).
 *
 * Ported from Jäckel's reference implementation as published in py_lets_be_rational (vollib, github
 * vollib/py_lets_be_rational, lets_be_rational.py and rationalcubic.py; MIT licence, © 2017 Gammon Capital
 * LLC), which carries Jäckel's notice, preserved here as it asks:
 *
 *   Copyright © 2013-2014 Peter Jäckel.
 *   Permission to use, copy, modify, and distribute this software is freely granted, provided that this
 *   notice is preserved.
 *   WARRANTY DISCLAIMER: The Software is provided "as is" without warranty of any kind, either express or
 *   implied, including without limitation any implied warranties of condition, uninterrupted use,
 *   merchantability, fitness for a particular purpose, or non-infringement.
 *
 * Differences from that port: `b` is this package's own (the four regions of {@link black76}, with
 * {@link erfcx} and the kernels' series, {@link taylorD} and {@link asymptoticD}), so that the vol it
 * implies is the inverse of `black76`; two slips of the Python port are corrected to the C original (the
 * bounds test of the upper map's second derivative, and the upper branch's bisection guard, which the
 * port runs on every iteration).
 */
import { ASYMPTOTIC_H, INV_SQRT_2PI, SMALL_T, SQRT_HALF_PI, asymptoticD, taylorD } from "./black76/series";
import { erfcx, normCdf, normInv } from "./normal";

const DBL_EPSILON = 2 ** -52;
const DBL_MIN = 2 ** -1022;
const DBL_MAX = Number.MAX_VALUE;
const SQRT_DBL_MAX = Math.sqrt(DBL_MAX);
const SQRT_DBL_MIN = Math.sqrt(DBL_MIN);
const SQRT_THREE = Math.sqrt(3);
const SQRT_ONE_OVER_THREE = Math.sqrt(1 / 3);
const TWO_PI = 2 * Math.PI;
const TWO_PI_OVER_SQRT_27 = TWO_PI / Math.sqrt(27);
const PI_OVER_SIX = Math.PI / 6;
/** Householder steps after the initial guess (Jäckel's `implied_volatility_maximum_iterations`). */
const ITERATIONS = 2;
/**
 * More steps, up to this many, only while the last one still moved `s` by more than 1e-8 of itself (after a
 * third-order step that small, the next is below rounding): in the far wings, vol-time 25 and beyond with
 * the price within 1e-8 of its upper bound, two steps left the price 2e-12 off.
 */
const MAX_ITERATIONS = 8;

/** Whether to take another step (see {@link MAX_ITERATIONS}). */
function more(it: Search): boolean {
  const ds = Math.abs(it.ds);
  if (!(ds > DBL_EPSILON * it.s)) return false;
  return it.iterations < ITERATIONS || (it.iterations < MAX_ITERATIONS && ds > 1e-8 * it.s);
}

/** `Y(z) = N(z)/φ(z) = sqrt(π/2)·erfcx(−z/√2)`. */
function millsY(z: number): number {
  return SQRT_HALF_PI * erfcx(-z * Math.SQRT1_2);
}

/**
 * The normalised Black call `b(x, s)` for `x ≤ 0` (out of the money), `s ≥ 0`: in {@link black76}'s four regions
 * of `h = x/s`, `t = s/2` (asymptotic series for `h + t ≤ −10`, the small-t series, `N` of both d's for
 * `h + t > 0.85`, the difference of Mills ratios otherwise), `b = E·D` with `E = φ(h)·e^(−t²/2)`.
 */
export function normalisedBlackOtm(x: number, s: number): number {
  if (!(s > 0)) return 0;
  const h = x / s;
  if (h === -Infinity) return 0;
  const t = 0.5 * s;
  const e = Math.exp(-0.5 * (h * h + t * t)) * INV_SQRT_2PI;
  if (h + t <= ASYMPTOTIC_H) return e * asymptoticD(h, t);
  if (t < SMALL_T) return e * taylorD(h, t, millsY(h));
  if (h + t > 0.85) {
    const v = Math.exp(h * t) - e * (millsY(-(h + t)) + millsY(h - t));
    return v > 0 ? v : 0;
  }
  return e * (millsY(h + t) - millsY(h - t));
}

/** `∂b/∂s = φ(x/s + s/2)·e^(x/2) = exp(−(x²/s² + s²/4)/2)/√(2π)`. */
export function normalisedVega(x: number, s: number): number {
  const ax = Math.abs(x);
  if (ax <= 0) return INV_SQRT_2PI * Math.exp(-0.125 * s * s);
  return s <= 0 || s <= ax * SQRT_DBL_MIN ? 0 : INV_SQRT_2PI * Math.exp(-0.5 * ((x / s) ** 2 + (0.5 * s) ** 2));
}

function householderFactor(newton: number, halley: number, hh3: number): number {
  return (1 + 0.5 * halley * newton) / (1 + newton * (halley + (hh3 * newton) / 6));
}

// Rational cubic interpolation (P. Jäckel, "Let's be rational", §5; Delbourgo & Gregory 1983).
const MIN_R = -(1 - Math.sqrt(DBL_EPSILON));
const MAX_R = 2 / (DBL_EPSILON * DBL_EPSILON);
const isZero = (x: number): boolean => Math.abs(x) < DBL_MIN;

function rationalCubicInterpolation(
  x: number,
  xl: number,
  xr: number,
  yl: number,
  yr: number,
  dl: number,
  dr: number,
  r: number,
): number {
  const h = xr - xl;
  if (Math.abs(h) <= 0) return 0.5 * (yl + yr);
  const t = (x - xl) / h;
  if (r >= MAX_R) return yr * t + yl * (1 - t);
  const omt = 1 - t;
  const t2 = t * t;
  const omt2 = omt * omt;
  return (
    (yr * t2 * t + (r * yr - h * dr) * t2 * omt + (r * yl + h * dl) * t * omt2 + yl * omt2 * omt) /
    (1 + (r - 3) * t * omt)
  );
}

function minimumControlParameter(dl: number, dr: number, s: number, preferShape: boolean): number {
  const monotonic = dl * s >= 0 && dr * s >= 0;
  const convex = dl <= s && s <= dr;
  const concave = dl >= s && s >= dr;
  if (!monotonic && !convex && !concave) return MIN_R;
  const drMinusDl = dr - dl;
  const drMinusS = dr - s;
  const sMinusDl = s - dl;
  let r1 = -DBL_MAX;
  let r2 = r1;
  if (monotonic) {
    if (!isZero(s)) r1 = (dr + dl) / s;
    else if (preferShape) r1 = MAX_R;
  }
  if (convex || concave) {
    if (!(isZero(sMinusDl) || isZero(drMinusS)))
      r2 = Math.max(Math.abs(drMinusDl / drMinusS), Math.abs(drMinusDl / sMinusDl));
    else if (preferShape) r2 = MAX_R;
  } else if (monotonic && preferShape) r2 = MAX_R;
  return Math.max(MIN_R, r1, r2);
}

/** The convex rational cubic's control parameter fitting the second derivative `d2` at the left (`atLeft`) or right end. */
function convexControlParameter(
  xl: number,
  xr: number,
  yl: number,
  yr: number,
  dl: number,
  dr: number,
  d2: number,
  atLeft: boolean,
  preferShape: boolean,
): number {
  const h = xr - xl;
  const numerator = 0.5 * h * d2 + (dr - dl);
  const denominator = atLeft ? (yr - yl) / h - dl : dr - (yr - yl) / h;
  const r = isZero(numerator) ? 0 : isZero(denominator) ? (numerator > 0 ? MAX_R : MIN_R) : numerator / denominator;
  return Math.max(r, minimumControlParameter(dl, dr, (yr - yl) / (xr - xl), preferShape));
}

/** Jäckel's lower map `f(b)` (his eq. 4.14 ff.) at `s` and its first two derivatives with respect to b. */
function lowerMap(x: number, s: number): [number, number, number] {
  const ax = Math.abs(x);
  const z = (SQRT_ONE_OVER_THREE * ax) / s;
  const y = z * z;
  const s2 = s * s;
  const Phi = normCdf(-z);
  const phi = INV_SQRT_2PI * Math.exp(-0.5 * z * z);
  const fpp =
    ((PI_OVER_SIX * y) / (s2 * s)) *
    Phi *
    (8 * SQRT_THREE * s * ax + ((3 * s2 * (s2 - 8) - 8 * x * x) * Phi) / phi) *
    Math.exp(2 * y + 0.25 * s2);
  const Phi2 = Phi * Phi;
  const fp = TWO_PI * y * Phi2 * Math.exp(y + 0.125 * s * s);
  const f = TWO_PI_OVER_SQRT_27 * ax * (Phi2 * Phi);
  return [f, fp, fpp];
}

/** Jäckel's upper map `f(b) = N(−s/2)` at `s` and its first two derivatives with respect to b. */
function upperMap(x: number, s: number): [number, number, number] {
  const f = normCdf(-0.5 * s);
  const w = (x / s) ** 2;
  return [f, -0.5 * Math.exp(0.5 * w), SQRT_HALF_PI * Math.exp(w + 0.125 * s * s) * (w / s)];
}

function inverseLowerMap(x: number, f: number): number {
  return Math.abs(x / (SQRT_THREE * normInv(Math.pow(f / (TWO_PI_OVER_SQRT_27 * Math.abs(x)), 1 / 3))));
}

/** Where the Householder iterations stand: the bracket, the last steps, the count. */
interface Search {
  s: number;
  left: number;
  right: number;
  ds: number;
  dsPrevious: number;
  reversals: number;
  iterations: number;
}

/**
 * The step's start: `s` itself, or the bracket's midpoint when the iterations loop or leave the bracket
 * (for extreme |x| only, ~500 and beyond). False when the bracket is down to rounding: stop.
 */
function guard(it: Search): boolean {
  if (it.ds * it.dsPrevious < 0) it.reversals++;
  if (it.iterations > 0 && (it.reversals === 3 || !(it.s > it.left && it.s < it.right))) {
    it.s = 0.5 * (it.left + it.right);
    if (it.right - it.left <= DBL_EPSILON * it.s) return false;
    it.reversals = 0;
    it.ds = 0;
  }
  it.dsPrevious = it.ds;
  return true;
}

function tighten(it: Search, b: number, beta: number): void {
  if (b > beta && it.s < it.right) it.right = it.s;
  else if (b < beta && it.s > it.left) it.left = it.s;
}

function step(it: Search, ds: number): void {
  it.ds = Math.max(-0.5 * it.s, ds);
  it.s += it.ds;
  it.iterations++;
}

/** Lowest branch: objective `1/ln b(s) − 1/ln β`. */
function iterateLower(it: Search, beta: number, x: number): number {
  while (more(it)) {
    if (!guard(it)) break;
    const s = it.s;
    const b = normalisedBlackOtm(x, s);
    const bp = normalisedVega(x, s);
    tighten(it, b, beta);
    if (b <= 0 || bp <= 0) {
      step(it, 0.5 * (it.left + it.right) - s);
      continue;
    }
    const lnB = Math.log(b);
    const lnBeta = Math.log(beta);
    const bpob = bp / b;
    const h = x / s;
    const bHalley = (h * h) / s - s / 4;
    const newton = ((lnBeta - lnB) * lnB) / lnBeta / bpob;
    const halley = bHalley - bpob * (1 + 2 / lnB);
    const bHh3 = bHalley * bHalley - 3 * (h / s) ** 2 - 0.25;
    const hh3 = bHh3 + 2 * bpob * bpob * (1 + (3 / lnB) * (1 + 1 / lnB)) - 3 * bHalley * bpob * (1 + 2 / lnB);
    step(it, newton * householderFactor(newton, halley, hh3));
  }
  return it.s;
}

/** Highest branch: objective `ln((b_max − β)/(b_max − b(s)))`. */
function iterateUpper(it: Search, beta: number, x: number, bMax: number): number {
  while (more(it)) {
    if (!guard(it)) break;
    const s = it.s;
    const b = normalisedBlackOtm(x, s);
    const bp = normalisedVega(x, s);
    tighten(it, b, beta);
    if (b >= bMax || bp <= DBL_MIN) {
      step(it, 0.5 * (it.left + it.right) - s);
      continue;
    }
    const bMaxMinusB = bMax - b;
    const g = Math.log((bMax - beta) / bMaxMinusB);
    const gp = bp / bMaxMinusB;
    const bHalley = (x / s) ** 2 / s - s / 4;
    const bHh3 = bHalley * bHalley - 3 * (x / (s * s)) ** 2 - 0.25;
    const newton = -g / gp;
    const halley = bHalley + gp;
    const hh3 = bHh3 + gp * (2 * gp + 3 * bHalley);
    step(it, newton * householderFactor(newton, halley, hh3));
  }
  return it.s;
}

/** The two middle branches: objective `b(s) − β`. */
function iterateMiddle(it: Search, beta: number, x: number): number {
  while (more(it)) {
    if (!guard(it)) break;
    const s = it.s;
    const b = normalisedBlackOtm(x, s);
    const bp = normalisedVega(x, s);
    tighten(it, b, beta);
    const newton = (beta - b) / bp;
    const halley = (x / s) ** 2 / s - s / 4;
    const hh3 = halley * halley - 3 * (x / (s * s)) ** 2 - 0.25;
    step(it, newton * householderFactor(newton, halley, hh3));
  }
  return it.s;
}

function search(s: number, left: number, right: number): Search {
  return { s, left, right, ds: -DBL_MAX, dsPrevious: 0, reversals: 0, iterations: 0 };
}

/** Below the inflection point `s_c`: the lowest branch (transformed lower map), or the rational cubic on [s_l, s_c]. */
function belowInflection(beta: number, x: number, sc: number, bc: number, vc: number): number {
  const sl = sc - bc / vc;
  const bl = normalisedBlackOtm(x, sl);
  if (beta < bl) {
    const [fl, dfl, d2fl] = lowerMap(x, sl);
    const r = convexControlParameter(0, bl, 0, fl, 1, dfl, d2fl, false, true);
    let f = rationalCubicInterpolation(beta, 0, bl, 0, fl, 1, dfl, r);
    if (!(f > 0)) {
      // Rounding at extreme |x| (beyond ~500): the quadratic through f(0) = 0, f'(0) = 1 and f(b_l).
      const t = beta / bl;
      f = (fl * t + bl * (1 - t)) * t;
    }
    return iterateLower(search(inverseLowerMap(x, f), DBL_MIN, sl), beta, x);
  }
  const vl = normalisedVega(x, sl);
  const r = convexControlParameter(bl, bc, sl, sc, 1 / vl, 1 / vc, 0, false, false);
  const s = rationalCubicInterpolation(beta, bl, bc, sl, sc, 1 / vl, 1 / vc, r);
  return iterateMiddle(search(s, sl, sc), beta, x);
}

/** Above the inflection point: the rational cubic on [s_c, s_h], or the highest branch (transformed upper map). */
function aboveInflection(beta: number, x: number, sc: number, bc: number, vc: number, bMax: number): number {
  const sh = vc > DBL_MIN ? sc + (bMax - bc) / vc : sc;
  const bh = normalisedBlackOtm(x, sh);
  if (beta <= bh) {
    const vh = normalisedVega(x, sh);
    const r = convexControlParameter(bc, bh, sc, sh, 1 / vc, 1 / vh, 0, true, false);
    const s = rationalCubicInterpolation(beta, bc, bh, sc, sh, 1 / vc, 1 / vh, r);
    return iterateMiddle(search(s, sc, sh), beta, x);
  }
  const [fh, dfh, d2fh] = upperMap(x, sh);
  let f = -DBL_MAX;
  if (d2fh > -SQRT_DBL_MAX && d2fh < SQRT_DBL_MAX) {
    const r = convexControlParameter(bh, bMax, fh, 0, dfh, -0.5, d2fh, true, true);
    f = rationalCubicInterpolation(beta, bh, bMax, fh, 0, dfh, -0.5, r);
  }
  if (f <= 0) {
    // The quadratic through f(b_h), f(b_max) = 0 and f'(b_max) = −1/2.
    const h = bMax - bh;
    const t = (beta - bh) / h;
    f = (fh * (1 - t) + 0.5 * h * t) * (1 - t);
  }
  const it = search(-2 * normInv(f), sh, DBL_MAX);
  // Near b_max the objective ln(b_max − b); lower down, b − β itself.
  return beta > 0.5 * bMax ? iterateUpper(it, beta, x, bMax) : iterateMiddle(it, beta, x);
}

/**
 * `s = σ√T` with `b(x, s) = β` for an out-of-the-money call in normalised form: `x = ln(F/K) ≤ 0`,
 * `0 < β < e^(x/2)` (the caller checks both). A put out of the money is the call at `−x` (reciprocal
 * strike); an option in the money is its out-of-the-money twin by parity.
 */
export function impliedNormalisedOtm(beta: number, x: number): number {
  const bMax = Math.exp(0.5 * x);
  const sc = Math.sqrt(Math.abs(2 * x));
  const bc = normalisedBlackOtm(x, sc);
  const vc = normalisedVega(x, sc);
  return beta < bc ? belowInflection(beta, x, sc, bc, vc) : aboveInflection(beta, x, sc, bc, vc, bMax);
}
