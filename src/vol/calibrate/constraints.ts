/**
 * The no-arbitrage constraints of one slice, as functions of k: the families, their values on a
 * grid and at a point, the grid itself, and the search for each family's minimum.
 *
 * The other conditions are constraints, handled by an augmented Lagrangian (Powell–Hestenes–Rockafellar):
 * each adds a row `sqrt(ρ)·max(0, μ/ρ − C(x))` to the residuals, exactly zero while `C ≥ 0` and its
 * multiplier μ is 0 — so quotes that an arbitrage-free slice produced are fitted exactly, with no penalty
 * at all. `C` is a family's minimum over k in one stretch of the axis (k split at 0, ±1/4, ±1, ±4, …, ±256,
 * so that two dips of nearly equal depth get a row each), found on a grid and refined by golden-section
 * search at each low local minimum, so it follows the worst point as the slice moves (a smooth function
 * of x, its gradient taken at the minimiser). The families, each shifted by a margin δ
 * ({@link CALIBRATION_MARGINS}):
 *
 * - butterfly: `g(k) ≥ δ_g`, Gatheral–Jacquier's exact g (eq. 2.1), not a sufficient condition. The
 *   analytic wing condition is Lee's, built in above: `g(±∞) = 1/4 − (b(1 ± rho))²/16 > 0`;
 * - calendar (from the second slice on, against the slice already fitted): `w_i(k) − w_{i−1}(k) ≥ δ_c`;
 *   in the far wings, besides the slopes above, the asymptotes `S·|k| + I` compared at |k| = 1e4 (so at
 *   near-equal slopes the intercepts decide);
 * - the butterfly of the smiles the model interpolates, as {@link diagnose} checks them: between the
 *   previous slice and this one (total variance at 1/4, 1/2, 3/4 of the way), and past the last slice
 *   (`w_n + theta_n·(r − 1)`, r = 1.5, 2, 4).
 *
 * The multipliers are updated after every 30 Levenberg–Marquardt iterations or fewer (the inner solves
 * need not be exact); ρ starts at 1e4 and grows tenfold, up to 1e10, when a round did not cut the
 * largest violation by four.
 *
 * The grid is scaled to the slices: `k = m + s·sinh(t)` and `k = sqrt(theta)·sinh(t)` (t in steps of 0.2,
 * out to |k| = {@link LOG_MONEYNESS_LIMIT}: dense where the smile bends, log-spaced in the wings) for this
 * and the previous slice, plus the quotes. When the constraints hold to half their margins, the slice, as
 * the surface will hold it, is checked by diagnose's own checks (its grids, every local minimum refined)
 * for the true conditions `g ≥ 0`, `w_i ≥ w_{i−1}`; the points that fail join the grid and the loop goes
 * on (at most {@link MAX_OUTER} solves). diagnose's report of the fitted surface reuses these checks.
 *
 */
import { INTERPOLATED_CHECKS } from "../diagnostics";
import { goldenSectionMin } from "../optimize";
import { LOG_MONEYNESS_LIMIT } from "../surface";
import { densityFactor } from "../svi";
import { CALIBRATION_MARGINS } from "./options";
import type { Slice } from "./slice";

/** Points `center + scale·sinh(j·step)` with |k| ≤ the model's limit, ascending (none for a scale that is not finite and > 0). */
function sinhPoints(center: number, scale: number, step: number): Float64Array {
  if (!(scale > 0 && Number.isFinite(scale))) return new Float64Array(0);
  const tMax = Math.asinh((LOG_MONEYNESS_LIMIT + Math.abs(center)) / scale);
  const n = Math.ceil(tMax / step);
  const out = new Float64Array(2 * n + 1);
  let count = 0;
  for (let j = -n; j <= n; j++) {
    const k = center + scale * Math.sinh(j * step);
    if (Math.abs(k) <= LOG_MONEYNESS_LIMIT) out[count++] = k;
  }
  return out.subarray(0, count);
}

/** `xs` if it is ascending (−0 before 0, as a typed sort orders them), else a sorted copy. */
function ascending(xs: Float64Array): Float64Array {
  for (let j = 1; j < xs.length; j++) if (before(xs[j]!, xs[j - 1]!)) return Float64Array.from(xs).sort();
  return xs;
}

/** The typed sort's order: x before y (−0 before 0; no NaN here). */
export const before = (x: number, y: number): boolean => x < y || (x === y && Object.is(x, -0) && !Object.is(y, -0));

/**
 * The union of the given point sets, ascending, each value once (−0 and 0 count as one, the first of
 * equal values kept): what sorting them all together and dropping repeats gives, by merging sorted runs.
 */
export function union(...sets: Float64Array[]): Float64Array {
  let out = new Float64Array(0);
  for (const set of sets) {
    const b = ascending(set);
    const a = out;
    const merged = new Float64Array(a.length + b.length);
    let [i, j, n] = [0, 0, 0];
    while (i < a.length || j < b.length) {
      const x = j >= b.length || (i < a.length && !before(b[j]!, a[i]!)) ? a[i++]! : b[j++]!;
      if (n === 0 || x !== merged[n - 1]) merged[n++] = x;
    }
    out = merged.subarray(0, n);
  }
  return out.slice();
}

/** The constraint grid of a slice: scaled to it (around m at scale s, around 0 at scale sqrt(theta)) and to the previous slice, plus the quotes. */
export function constraintGrid(sl: Slice, prev: Slice | undefined, quotes: Float64Array, step: number): Float64Array {
  const sets = [quotes, sinhPoints(sl.m, sl.s, step), sinhPoints(0, sl.sqrtTheta, step)];
  if (prev) sets.push(sinhPoints(prev.m, prev.s, step), sinhPoints(0, prev.sqrtTheta, step));
  return union(...sets);
}

/** Interpolated smiles whose butterfly is constrained, as {@link diagnose} checks them: fractions of the way from the previous slice, and multiples of the last maturity. */
const BETWEEN = INTERPOLATED_CHECKS.between;
const PAST_LAST = INTERPOLATED_CHECKS.pastLast;
/** The wing asymptotes are compared at |k| = this (the model's largest log-moneyness). */
export const FAR_K = LOG_MONEYNESS_LIMIT;

/**
 * A constraint family sampled on the grid: `g ≥ 0` of a smile, or the calendar difference `w_i − w_{i−1} ≥ 0`
 * (`sign` 1: this slice minus its shorter neighbour; −1: its longer neighbour minus this slice). `between`'s
 * `x`: the fraction of the way from the neighbour to this slice.
 */
export type Family =
  | { kind: "butterfly" }
  | { kind: "calendar"; sign: 1 | -1 }
  | { kind: "between"; x: number }
  | { kind: "past"; r: number };

/** w, w', w'' of a slice at k (centred form for w). */
export function smileAt(sl: Slice, k: number, out: Float64Array): void {
  const d = k - sl.m;
  const q = d * d + sl.s2;
  const sq = Math.sqrt(q);
  out[0] = sl.theta + sl.b * (sl.rho * k + (k * (k - 2 * sl.m)) / (sq + sl.R));
  out[1] = sl.b * (sl.rho + d / sq);
  out[2] = (sl.b * sl.s2) / (q * sq);
}

/** w, w', w'' of a slice on a grid, one array each. */
interface SmileArrays {
  w: Float64Array;
  w1: Float64Array;
  w2: Float64Array;
}

/** {@link SmileArrays} for a grid of `n` points. */
export function smileArrays(n: number): SmileArrays {
  return { w: new Float64Array(n), w1: new Float64Array(n), w2: new Float64Array(n) };
}

/** {@link smileAt} at every grid point (the same operations, so the same doubles). */
export function smileOn(sl: Slice, grid: Float64Array, out: SmileArrays): void {
  const { theta, b, rho, m, s2, R } = sl;
  const { w, w1, w2 } = out;
  for (let j = 0; j < grid.length; j++) {
    const k = grid[j]!;
    const d = k - m;
    const q = d * d + s2;
    const sq = Math.sqrt(q);
    w[j] = theta + b * (rho * k + (k * (k - 2 * m)) / (sq + R));
    w1[j] = b * (rho + d / sq);
    w2[j] = (b * s2) / (q * sq);
  }
}

/**
 * {@link familyValue} of one family at every grid point into `out` from `offset` (the same operations as
 * at one point): `C` this slice's smile on the grid, `P` the previous slice's.
 */
export function familyOn(
  f: Family,
  grid: Float64Array,
  sl: Slice,
  C: SmileArrays,
  P: SmileArrays,
  calScale: number,
  calMargin: number,
  out: Float64Array,
  offset: number,
): void {
  const n = grid.length;
  const margin = CALIBRATION_MARGINS.butterfly;
  switch (f.kind) {
    case "butterfly":
      for (let j = 0; j < n; j++) out[offset + j] = densityFactor(grid[j]!, C.w[j]!, C.w1[j]!, C.w2[j]!) - margin;
      return;
    case "calendar":
      for (let j = 0; j < n; j++) out[offset + j] = calScale * (f.sign * (C.w[j]! - P.w[j]!) - calMargin);
      return;
    case "between": {
      const x = f.x;
      const y = 1 - x;
      for (let j = 0; j < n; j++) {
        out[offset + j] =
          densityFactor(grid[j]!, y * P.w[j]! + x * C.w[j]!, y * P.w1[j]! + x * C.w1[j]!, y * P.w2[j]! + x * C.w2[j]!) -
          margin;
      }
      return;
    }
    default: {
      const add = sl.theta * (f.r - 1);
      for (let j = 0; j < n; j++) out[offset + j] = densityFactor(grid[j]!, C.w[j]! + add, C.w1[j]!, C.w2[j]!) - margin;
    }
  }
}

/**
 * The constraint families of a slice: its own butterfly; with a neighbour, calendar and the interpolated
 * smiles between (at fractions of the way from the shorter to the longer: from the neighbour when it is the
 * shorter, `dir` 1); for the last slice, the smiles past it.
 */
export function familiesOf(prev: Slice | undefined, last: boolean, dir: 1 | -1): Family[] {
  const out: Family[] = [{ kind: "butterfly" }];
  const between = (x: number) => ({ kind: "between" as const, x: dir === 1 ? x : 1 - x });
  if (prev) out.push({ kind: "calendar", sign: dir }, ...BETWEEN.map(between));
  if (last) out.push(...PAST_LAST.map((r) => ({ kind: "past" as const, r })));
  return out;
}

/** Scalar constraints, with a previous slice: the put and call wing asymptotes compared at |k| = FAR_K. */
export const WING_ROWS = 2;

/**
 * The value of every family at one grid point, shifted by its margin (≥ 0 when it holds, vol-like units):
 * `cur` and `prv` hold w, w', w'' of this and the previous slice at k.
 */
export function familyValue(
  f: Family,
  k: number,
  sl: Slice,
  cur: Float64Array,
  prv: Float64Array,
  calScale: number,
  calMargin: number,
): number {
  switch (f.kind) {
    case "butterfly":
      return densityFactor(k, cur[0]!, cur[1]!, cur[2]!) - CALIBRATION_MARGINS.butterfly;
    case "calendar":
      return calScale * (f.sign * (cur[0]! - prv[0]!) - calMargin);
    case "between": {
      const x = f.x;
      const y = 1 - x;
      return (
        densityFactor(k, y * prv[0]! + x * cur[0]!, y * prv[1]! + x * cur[1]!, y * prv[2]! + x * cur[2]!) -
        CALIBRATION_MARGINS.butterfly
      );
    }
    default:
      return densityFactor(k, cur[0]! + sl.theta * (f.r - 1), cur[1]!, cur[2]!) - CALIBRATION_MARGINS.butterfly;
  }
}

/**
 * The minimum of f on [a, b] around the grid point `guess`: f at 8 equal steps first (a dip narrower than
 * the grid's spacing may sit beside the grid point's own minimum), then golden-section search between the
 * neighbours of the lowest. Returns `guess` if nothing lower is found.
 */
export function scanMin(f: (k: number) => number, a: number, b: number, guess: number): number {
  if (!(a < b)) return guess;
  const STEPS = 8;
  let best = guess;
  let fBest = f(guess);
  for (let i = 1; i < STEPS; i++) {
    const k = a + ((b - a) * i) / STEPS;
    const fk = f(k);
    if (fk < fBest) [best, fBest] = [k, fk];
  }
  const h = (b - a) / STEPS;
  const [k, fk] = goldenSectionMin(f, Math.max(a, best - h), Math.min(b, best + h), 1e-12, 60);
  return fk <= fBest ? k : best;
}

/**
 * Where the constraint rows split the log-moneyness axis: each family has one row per stretch between
 * consecutive edges (both sides of the money), for its minimum over that stretch. A family often has two
 * local minima of nearly equal depth (near the money and far out in a wing); one row for both would
 * follow whichever is lower and have a kink where they cross, which stalls the solver.
 */
export const REGION_EDGES = Object.freeze([
  -LOG_MONEYNESS_LIMIT,
  -256,
  -64,
  -16,
  -4,
  -1,
  -0.25,
  0,
  0.25,
  1,
  4,
  16,
  64,
  256,
  LOG_MONEYNESS_LIMIT,
]);
/** How many stretches {@link REGION_EDGES} splits the axis into. */
export const REGIONS = REGION_EDGES.length - 1;
/** A stretch's grid minimum is refined only when it is below this (vol-like units): well above it the row is 0 either way. */
export const REFINE_BELOW = 1e-3;
/** At most this many local minima of a stretch are refined (the lowest). */
export const MAX_DIPS = 4;
