/**
 * Where the solves of a slice start.
 *
 * ATM vol, skew and smile from a weighted quadratic fit of vol against k over the quotes nearest
 * k = 0; wings from the slopes of total variance between the two outermost quotes on each side, or (from
 * the second slice on, when that fits the quotes better) the previous slice's wings; pulled inside the
 * variables' range; then a solve without the constraints, and the constrained solve from its
 * result. When a constraint binds at the end (or the check still fails), the constrained solve runs again
 * from a start that meets them all (the previous slice lifted to this ATM variance; for the first, a
 * symmetric smile), and the better fit of the two that pass the check is kept: a penalty method started
 * far outside the feasible set can settle on a poor local minimum. A slice whose parameters ran off
 * ({@link SANE_LIMITS}) is solved again from the ATM-only start and from its neighbour's wings, and a
 * sane restart that fits better replaces it ({@link repairRunaway}).
 */
import { sliceParams, type SliceParams } from "../svi";
import { MIN_QUOTES } from "./options";
import type { SliceProblem } from "./problem";
import type { ParsedSmile } from "./quotes";
import { SLOPE_CAP, encode, type Slice, type SliceSpace } from "./slice";

/** Solves the 3×3 weighted least squares `vol ≈ c0 + c1·k + c2·k²` on the given quotes; undefined when singular. */
function quadraticFit(
  k: Float64Array,
  vols: Float64Array,
  sw: Float64Array,
  idx: number[],
): [number, number, number] | undefined {
  const A = new Float64Array(9);
  const y = new Float64Array(3);
  for (const j of idx) {
    const w = sw[j]! * sw[j]!;
    const basis = [1, k[j]!, k[j]! * k[j]!];
    for (let r = 0; r < 3; r++) {
      y[r] = y[r]! + w * basis[r]! * vols[j]!;
      for (let c = 0; c < 3; c++) A[r * 3 + c] = A[r * 3 + c]! + w * basis[r]! * basis[c]!;
    }
  }
  // Gaussian elimination with partial pivoting.
  const M = [0, 1, 2].map((r) => [A[r * 3]!, A[r * 3 + 1]!, A[r * 3 + 2]!, y[r]!]);
  for (let c = 0; c < 3; c++) {
    let p = c;
    for (let r = c + 1; r < 3; r++) if (Math.abs(M[r]![c]!) > Math.abs(M[p]![c]!)) p = r;
    [M[c], M[p]] = [M[p]!, M[c]!];
    const piv = M[c]![c]!;
    if (!(Math.abs(piv) > 1e-300)) return undefined;
    for (let r = 0; r < 3; r++) {
      if (r === c) continue;
      const f = M[r]![c]! / piv;
      const row = M[r]!;
      for (let q = c; q < 4; q++) row[q] = row[q]! - f * M[c]![q]!;
    }
  }
  const out: [number, number, number] = [M[0]![3]! / M[0]![0]!, M[1]![3]! / M[1]![1]!, M[2]![3]! / M[2]![2]!];
  return out.every(Number.isFinite) ? out : undefined;
}

/**
 * The lowest wing slope of a start, as a fraction of the slopes' range: short maturities have slopes of
 * 1–2% of it (a floor of 5% left the solver some 50 steps crawling down the weakly pinned wings).
 */
const START_WING_FLOOR = 0.002;

/**
 * A starting slice of a smile (this file's comment), always inside the model's range: wings from the
 * quotes, or the given ones (normalised by sqrt(theta), as the model's are).
 */
export function initialGuess(
  q: ParsedSmile,
  space: SliceSpace,
  wings?: { putWing: number; callWing: number },
): Float64Array {
  const { k, vols, sw, T } = q;
  const n = k.length;
  const order = Array.from({ length: n }, (_, j) => j);
  const byDistance = [...order].sort((i, j) => Math.abs(k[i]!) - Math.abs(k[j]!));
  const near = byDistance.slice(0, Math.max(MIN_QUOTES, Math.ceil(n / 3)));
  const quad = quadraticFit(k, vols, sw, near);
  const nearest = vols[byDistance[0]!]!;
  let vol = quad && quad[0] > 0 ? quad[0] : nearest;
  if (!(vol > 0)) vol = nearest;
  const sqrtT = Math.sqrt(T);
  let skew = quad ? quad[1] * sqrtT : 0;
  let smile = quad ? 2 * quad[2] * sqrtT : 0;
  const sqrtTheta = vol * sqrtT;
  // Wings: slopes of total variance between the two outermost quotes on each side.
  const byK = [...order].sort((i, j) => k[i]! - k[j]!);
  const slope = (i: number, j: number) => (vols[j]! ** 2 * T - vols[i]! ** 2 * T) / (k[j]! - k[i]!);
  let putWing = wings ? wings.putWing : -slope(byK[0]!, byK[1]!) / sqrtTheta;
  let callWing = wings ? wings.callWing : slope(byK[n - 2]!, byK[n - 1]!) / sqrtTheta;
  // Inside the wing slopes' range (0.2% to 95% of it), with room for the skew.
  const inRange = (wing: number, lo: number, hi: number) =>
    Math.min(lo + 0.95 * (hi - lo), Math.max(lo + START_WING_FLOOR * (hi - lo), sqrtTheta * wing)) / sqrtTheta;
  if (!Number.isFinite(skew)) skew = 0;
  if (!Number.isFinite(smile)) smile = 0;
  putWing = inRange(Number.isFinite(putWing) ? Math.max(putWing, -2.5 * skew + 0.05) : 1, space.putLo, space.putHi);
  callWing = inRange(Number.isFinite(callWing) ? Math.max(callWing, 2.5 * skew + 0.05) : 1, space.callLo, space.callHi);
  skew = Math.max(-0.4 * putWing, Math.min(0.4 * callWing, skew));
  const params: SliceParams = { vol, skew, smile, putWing, callWing };
  let x = encode(params, space);
  // Curvature too low for the wings (negative minimum variance, or w''(0) <= 0): raise it.
  for (let tries = 0; !x && tries < 60; tries++) {
    params.smile = Math.max(params.smile, 0.05) * 1.5;
    x = encode(params, space);
  }
  return x ?? Float64Array.of(Math.log(vol), 0, 0, 0, 0);
}

/**
 * A start that meets the constraints: the previous slice lifted to this slice's ATM variance (wing slopes
 * raised 1% of their room), which is above it everywhere; in the longest-first pass, the longer neighbour
 * scaled down to this slice's ATM variance (raw SVI's a and b times theta/theta_next, at most 0.999), which
 * is below it everywhere; for the first slice a symmetric smile with the quotes' ATM vol. Undefined when it
 * does not fit in the variables.
 */
export function feasibleStart(
  q: ParsedSmile,
  space: SliceSpace,
  prev: Slice | undefined,
  guess: Slice,
): Float64Array | undefined {
  if (!prev) {
    const wing = Math.min(1, (0.5 * SLOPE_CAP) / guess.sqrtTheta);
    return encode({ vol: guess.vol, skew: 0, smile: 0.5, putWing: wing, callWing: wing }, space);
  }
  const aPrev = prev.theta + prev.b * prev.rho * prev.m - prev.b * prev.R;
  if (space.dir === -1) {
    const scale = Math.min(0.999, guess.theta / prev.theta);
    // (A wing slope of the neighbour that ran to 0 leaves |rho| = 1: no start from there.)
    if (!(Math.abs(prev.rho) < 1)) return undefined;
    return encode(
      sliceParams({ a: scale * aPrev, b: scale * prev.b, rho: prev.rho, m: prev.m, s: prev.s }, q.T),
      space,
    );
  }
  const putS = prev.slopePut + 0.01 * (SLOPE_CAP - prev.slopePut);
  const callS = prev.slopeCall + 0.01 * (SLOPE_CAP - prev.slopeCall);
  const b = (putS + callS) / 2;
  const rho = (callS - putS) / (callS + putS);
  const lift = Math.max(guess.theta - prev.theta, 1e-3 * prev.theta);
  return encode(sliceParams({ a: aPrev + lift, b, rho, m: prev.m, s: prev.s }, q.T), space);
}

/** Of two starts, the one whose quote errors are smaller (the first on a tie). */
export function betterStart(quotesOnly: SliceProblem, a: Float64Array, b: Float64Array): Float64Array {
  const r = new Float64Array(quotesOnly.rows);
  const cost = (x: Float64Array) => {
    quotesOnly.residuals(x, r);
    let sum = 0;
    for (let j = 0; j < r.length; j++) sum += r[j]! * r[j]!;
    return sum;
  };
  return cost(b) < cost(a) ? b : a;
}

/**
 * The ATM-only start: the quotes' ATM vol, no skew, each wing slope `sqrt(theta)` above its lower end (at
 * most halfway up its range; wing 1 for a first slice), the smile raised until the slice is in the model's
 * range (as {@link initialGuess} does).
 */
export function atmStart(guess: Slice, space: SliceSpace): Float64Array | undefined {
  const wing = (lo: number, hi: number) => (lo + Math.min(guess.sqrtTheta, (hi - lo) / 2)) / guess.sqrtTheta;
  const params: SliceParams = {
    vol: guess.vol,
    skew: 0,
    smile: 0.5,
    putWing: wing(space.putLo, space.putHi),
    callWing: wing(space.callLo, space.callHi),
  };
  let x = encode(params, space);
  for (let tries = 0; !x && tries < 60; tries++) {
    params.smile *= 1.5;
    x = encode(params, space);
  }
  return x;
}
