/**
 * `calibrate`: a surface of the local model (vol-model.md) fitted to quoted implied vols, one benchmark
 * per quoted maturity, free of static arbitrage (issue 18, part 2).
 *
 * Method. The slices are fitted one at a time, shortest maturity first, each by Levenberg–Marquardt
 * (optimize.ts) on the vol errors, in five unconstrained numbers `x` that map smoothly onto the model's
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
 * Start: ATM vol, skew and smile from a weighted quadratic fit of vol against k over the quotes nearest
 * k = 0; wings from the slopes of total variance between the two outermost quotes on each side, or (from
 * the second slice on, when that fits the quotes better) the previous slice's wings; pulled inside the
 * variables' range; then a solve without the constraints, and the constrained solve from its
 * result. When a constraint binds at the end (or the check still fails), the constrained solve runs again
 * from a start that meets them all (the previous slice lifted to this ATM variance; for the first, a
 * symmetric smile), and the better fit of the two that pass the check is kept: a penalty method started
 * far outside the feasible set can settle on a poor local minimum. A slice whose parameters ran off
 * ({@link SANE_LIMITS}) is solved again from the ATM-only start and from its neighbour's wings, and a
 * sane restart that fits better replaces it ({@link repairRunaway}).
 *
 * Order. Fitted shortest first, a noisy short slice bounds every longer one from below (calendar): issue
 * 41's audit had a 61-day put wing pushing the 91-day slice 537 bp off its quotes (its noise: 19 bp). When
 * the calendar bound costs a slice more than {@link SPOILED} times its own unconstrained fit's weighted
 * RMSE, the smiles are fitted again longest first, each below the longer one already fitted (the mirror
 * image: `−dir`, the neighbour's wing slopes an upper end, the calendar rows reversed). The short slice then
 * gives way: its quotes, out to a few sqrt(theta) in k, pin its wings least. Each slice's wing slopes stay
 * above {@link BELOW_FLOOR} of the longer one's (from 0 a short slice's wings ran to 0), and where the
 * longest slice, fitted alone, has a wing run off, its first-pass fit is kept. The second pass is kept
 * when its summed weighted RMSE is lower and no more of its slices are flagged ({@link misfit}); a fit
 * jointly over all slices would be the full answer, at the price of one problem of 5·n variables with
 * every pair's constraints.
 */
import { DAYS_PER_YEAR } from "../../api/assumptions";
import { dateTimeInput } from "../../api/common";
import { namedDateProblem } from "../../api/field-messages";
import { DiagnoseCache, INTERPOLATED_CHECKS, type ArbitrageReport, type CheckedSlice } from "../diagnostics";
import { convergenceReasons, insaneParameters, weightedRms } from "./report";
import { VolModelError, fmt } from "../errors";
import { normInv } from "../normal";
import {
  goldenSectionMin,
  levenbergMarquardt,
  type LeastSquaresProblem,
  type LevenbergMarquardtResult,
} from "../optimize";
import { checkStrikeType, logShift, type ModelStrikeType } from "../strikes";
import { fromSurface, LOG_MONEYNESS_LIMIT, type WireSurface } from "../surface";
import { densityFactor, rawSvi, sliceParams, type SliceParams } from "../svi";

export { NOISE_RMSE_LIMIT, SANE_LIMITS } from "./report";

/** The quotes of one maturity. */
export interface SmileQuotes {
  /** Maturity in calendar days after the reference date (> 0). Smiles go shortest first, one per maturity. */
  maturity: number;
  /** The forward at this maturity (a price, > 0). Default `spot·exp(forwardRate·T)`. */
  forward?: number;
  /**
   * Strikes in the `strikeType` convention: 0 Absolute (prices), 1 PercentForward (100 = ATM forward),
   * 2 PercentSpot (100 = spot), `"logMoneyness"` (`k = ln(K/F)`), or `"delta"` (Black forward call delta
   * in (0, 1), each turned into k with its own quoted vol: `k = σ√T·(σ√T/2 − N⁻¹(delta))`).
   */
  strikes: ArrayLike<number>;
  strikeType: ModelStrikeType;
  /** Implied vols, decimal (0.2 = 20%), one per strike. */
  vols: ArrayLike<number>;
  /** Weights of the squared vol errors, one per strike (> 0). Default 1. */
  weights?: ArrayLike<number>;
}

/** A no-arbitrage constraint a fit can press against. */
export type CalibrationConstraint = "butterfly" | "calendar" | "lee" | "minVariance";

/** Inputs of {@link calibrate}. */
export interface CalibrateOptions {
  /** Spot reference `spot_ref` (> 0). */
  spot: number;
  /** Reference date: a `Date`, an ISO 8601 date-time with an offset, or `YYYY-MM-DD` (midnight UTC). */
  referenceDate: Date | string;
  /** The quotes, one smile per maturity, shortest first. */
  smiles: readonly SmileQuotes[];
  /** Forward drift per year (rate − dividend yield, continuously compounded) for smiles without a `forward`. Default 0. */
  forwardRate?: number;
  /**
   * How quotes are weighted, on top of their own `weights`: `"uniform"` (default) or `"vega"` (by Black
   * vega at the quote's own vol, `φ(d1)`, so the wings count less), floored at {@link VEGA_WEIGHT_FLOOR}
   * of the smile's largest so that no quote floats.
   */
  weighting?: "uniform" | "vega";
  /**
   * The quotes' noise: a standard deviation in vol bp (half the bid–ask spread is a fair choice). When
   * given, a slice whose weighted RMSE is above {@link NOISE_RMSE_LIMIT} (2) times it is not converged,
   * and its `reasons` say so. Default: none (the RMSE alone then does not decide `converged`).
   */
  noiseBp?: number;
  /** Most Levenberg–Marquardt iterations per solve of a slice (the unconstrained one, and each constrained one over all its rounds). Default {@link DEFAULT_MAX_ITERATIONS}. */
  maxIterations?: number;
  /**
   * Called after each maturity is fitted with (fitted so far, total): for a progress bar. It counts the
   * shortest-first pass; the longest-first pass, when the calendar bound spoiled a slice (module comment),
   * runs after (total, total).
   */
  onProgress?: (done: number, total: number) => void;
}

/** The fit of one maturity. Errors are in vol basis points (1 bp = 0.0001 vol, model − quote). */
export interface SliceFit {
  /** Maturity in days. */
  maturity: number;
  /** The forward used (a price). */
  forward: number;
  /** The fitted model parameters (as in the surface). */
  params: SliceParams;
  /** Root mean square of the vol errors over the quotes, unweighted, in vol bp. */
  rmseBp: number;
  /**
   * The objective the fit minimised, as a root mean square in vol bp: `sqrt(Σ w·e² / Σ w)` with each
   * quote's weight `w` (its `weights` times, when vega-weighted, its floored vega factor). Equal to
   * `rmseBp` under uniform weighting with no `weights`.
   */
  weightedRmseBp: number;
  /** Largest |vol error| over the quotes, in vol bp. */
  maxErrorBp: number;
  /** Levenberg–Marquardt iterations, over all solves of this slice. */
  iterations: number;
  /**
   * Constraints that bind at the fit: `"butterfly"` (g, of this smile or of an interpolated one),
   * `"calendar"` (against the previous maturity: total variance or wing slopes), `"lee"` (a wing slope at
   * Lee's bound), `"minVariance"` (the minimum total variance pressed down to ~0). Empty when the quotes
   * needed no constraint (the fit is then the unconstrained least-squares fit).
   */
  activeConstraints: CalibrationConstraint[];
  /**
   * True when the fit is good by the rule of calibrate-report.ts: the solver stopped on a tolerance or its
   * cost settled (not on its iteration budget), the slice passed the fine-grid no-arbitrage check, its
   * parameters are inside {@link SANE_LIMITS}, and (with `noiseBp`) the weighted RMSE is at most
   * {@link NOISE_RMSE_LIMIT} times the noise. `reasons` says which failed.
   */
  converged: boolean;
  /** Why the slice is not converged, one sentence per rule it fails (naming the figure and the limit); empty when converged. */
  reasons: string[];
  /** Log-forward-moneyness of each quote, in the order given. */
  k: number[];
  /** Model − quote per quote, in vol bp, in the order given. */
  residualsBp: number[];
}

/** What {@link calibrate} returns. */
export interface CalibrationResult {
  /** The fitted surface in wire form: what `fromSurface` and `GetVol` take. */
  surface: WireSurface;
  /** One entry per maturity, in the order of the smiles. */
  fit: SliceFit[];
  /** `diagnose(fromSurface(surface))`: butterfly, calendar and Lee, as {@link diagnose} checks them by default. */
  diagnostics: ArbitrageReport;
}

/**
 * Margins the fit keeps from each no-arbitrage boundary (see the module comment), so that a fit pressed
 * against one stays on its safe side: butterfly `g ≥ 1e−7`; Lee `b(1 ± rho) ≤ 2 − 1e−6` (so
 * `g(±∞) ≥ 2.5e−7`); calendar `w_i − w_{i−1} ≥ 1e−8·theta_{i−1} + 1e−10`; wing asymptotes at |k| = 1e4
 * apart by `1e−7`. Quotes from a surface inside these margins are fitted exactly.
 */
export const CALIBRATION_MARGINS = Object.freeze({
  butterfly: 1e-7,
  lee: 1e-6,
  calendarRelative: 1e-8,
  calendarAbsolute: 1e-10,
  asymptote: 1e-7,
});

/** Default of `maxIterations`: Levenberg–Marquardt iterations per solve of a slice. */
export const DEFAULT_MAX_ITERATIONS = 500;

/** Most augmented-Lagrangian rounds (multiplier updates) per constrained solve of a slice. */
export const MAX_OUTER = 40;

/**
 * The least weight vega weighting gives a quote, as a fraction of the largest vega weight of its smile
 * (weights of the squared vol errors, before the quote's own `weights`): 5%, so a wing quote's vol error
 * counts at least sqrt(0.05) ≈ 0.22 as much as an at-the-money one's and the wings stay pinned to their
 * quotes. (Unfloored, φ(d1) of a 60% strike at 14 days is ~1e−40: SPX quotes with 15 bp of noise came
 * back 329–469 bp off at 14 days; floored at 1%, 2%, 5% the worst of three seeds is 28, 20, 16 bp.)
 */
export const VEGA_WEIGHT_FLOOR = 0.05;

/** Fewest quotes a smile needs: the slice has five parameters. */
export const MIN_QUOTES = 5;

/**
 * A constrained solve of a slice has also converged when, feasible and passing the check in two rounds
 * in a row ({@link INNER_ITERATIONS} iterations each), the second lowered the weighted RMS of the quote
 * errors by at most this fraction of it: the fit has settled though a parameter may still creep along a
 * flat valley (the curvature and beta running together towards the minimum variance's bound, reached only
 * as the variables run to ±∞), where the step and gradient tolerances are never met: a 1-day smile of
 * issue 41's audit crept on for 5,000 iterations, gaining 0.004 bp. {@link SANE_LIMITS} judge where it stopped.
 */
const SETTLED = 1e-5;
const RHO0 = 1e4;
const RHO_GROWTH = 10;
const RHO_MAX = 1e10;
/** Levenberg–Marquardt iterations between multiplier updates: the inner solves need not be exact, and binding constraints get their multipliers (and a good linear model) early. */
const INNER_ITERATIONS = 30;
const GRID_STEP = 0.2;
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

// ---------------------------------------------------------------------------------------------------
// Validation

/** One smile, checked: quotes as log-forward-moneyness. */
interface ParsedSmile {
  index: number;
  maturity: number;
  T: number;
  forward: number;
  k: Float64Array;
  vols: Float64Array;
  /** sqrt of the normalised weights (mean 1). */
  sw: Float64Array;
}

function fail(message: string, field: string, condition: string, benchmark?: number): never {
  throw new VolModelError(message, { field, condition, benchmark });
}

const shown = (x: unknown): string =>
  typeof x === "number" ? fmt(x) : x === null ? "null" : typeof x === "string" ? JSON.stringify(x) : typeof x;

/** An array (or typed array) of numbers at `path`, elementwise errors naming `path[j]`. */
function readNumbers(value: unknown, path: string, benchmark: number): Float64Array {
  if (!(Array.isArray(value) || (ArrayBuffer.isView(value) && !(value instanceof DataView)))) {
    fail(`${path} must be an array of numbers (or a Float64Array); got ${shown(value)}`, path, "array", benchmark);
  }
  const a = value as ArrayLike<unknown>;
  const out = new Float64Array(a.length);
  for (let j = 0; j < a.length; j++) {
    const x = a[j];
    if (typeof x !== "number" || !Number.isFinite(x))
      fail(`${path}[${j}] must be a finite number; got ${shown(x)}`, `${path}[${j}]`, "finite", benchmark);
    out[j] = x;
  }
  return out;
}

/** The log-forward-moneyness of each quote of `smiles[i]` from its strikes in their convention (each checked). */
function logMoneyness(
  x: Float64Array,
  vols: Float64Array,
  strikeType: ModelStrikeType,
  at: { path: string; i: number; T: number; forward: number; spot: number },
): Float64Array {
  const { path, i } = at;
  const sqrtT = Math.sqrt(at.T);
  const k = new Float64Array(x.length);
  const shift = logShift(strikeType, Math.log(at.forward), Math.log(at.spot));
  for (let j = 0; j < x.length; j++) {
    const xj = x[j]!;
    const field = `${path}.strikes[${j}]`;
    if (shift !== undefined) {
      if (!(xj > 0)) fail(`${field} must be a finite number > 0; got ${fmt(xj)}`, field, "strike > 0", i);
      k[j] = Math.log(xj) + shift;
    } else if (strikeType === "delta") {
      if (!(xj > 0 && xj < 1))
        fail(`${field} must be a forward call delta in (0, 1); got ${fmt(xj)}`, field, "0 < delta < 1", i);
      const sw = vols[j]! * sqrtT;
      k[j] = sw * (sw / 2 - normInv(xj));
    } else {
      k[j] = xj;
    }
    if (!(Math.abs(k[j]!) <= LOG_MONEYNESS_LIMIT)) {
      fail(
        `${field}: log-moneyness ${fmt(k[j]!)} is beyond the model's limit |k| <= ${LOG_MONEYNESS_LIMIT}`,
        field,
        "|k| <= 1e4",
        i,
      );
    }
  }
  return k;
}

/** Reads `smiles[i].maturity`: days > 0, after the previous smile's. */
function readMaturity(s: Partial<SmileQuotes>, path: string, i: number, previous: ParsedSmile | undefined): number {
  const maturity = s.maturity;
  if (typeof maturity !== "number" || !Number.isFinite(maturity) || !(maturity > 0)) {
    fail(
      `${path}.maturity must be a finite number of days > 0; got ${shown(maturity)}`,
      `${path}.maturity`,
      "T > 0",
      i,
    );
  }
  if (previous && !(maturity > previous.maturity && maturity / DAYS_PER_YEAR > previous.T)) {
    const what =
      maturity === previous.maturity
        ? `repeats smiles[${i - 1}].maturity`
        : `comes before smiles[${i - 1}].maturity (${fmt(previous.maturity)} d)`;
    fail(
      `${path}.maturity (${fmt(maturity)} d) ${what}: smiles go shortest maturity first, one per maturity`,
      `${path}.maturity`,
      "strictly increasing",
      i,
    );
  }
  return maturity;
}

/** The smile's forward: `smiles[i].forward` when given, else spot·exp(rate·T); a finite price > 0. */
function readForward(s: Partial<SmileQuotes>, path: string, i: number, spot: number, rate: number, T: number): number {
  let forward = spot * Math.exp(rate * T);
  if (s.forward !== undefined) {
    if (typeof s.forward !== "number" || !Number.isFinite(s.forward) || !(s.forward > 0)) {
      fail(`${path}.forward must be a finite price > 0; got ${shown(s.forward)}`, `${path}.forward`, "F > 0", i);
    }
    forward = s.forward;
  }
  if (!(forward > 0 && forward < Infinity))
    fail(
      `${path}: the forward spot·exp(forwardRate·T) = ${fmt(forward)} is not a finite price > 0`,
      "forwardRate",
      "F > 0",
      i,
    );
  return forward;
}

/** Reads `smiles[i].vols`: one decimal vol > 0 per strike. */
function readVols(s: Partial<SmileQuotes>, path: string, i: number, n: number): Float64Array {
  const vols = readNumbers(s.vols, `${path}.vols`, i);
  if (vols.length !== n)
    fail(
      `${path}.vols has ${vols.length} values but ${path}.strikes has ${n}; give one vol per strike`,
      `${path}.vols`,
      "same length",
      i,
    );
  for (let j = 0; j < n; j++) {
    if (!(vols[j]! > 0))
      fail(`${path}.vols[${j}] must be a decimal vol > 0; got ${fmt(vols[j]!)}`, `${path}.vols[${j}]`, "vol > 0", i);
  }
  return vols;
}

/** Reads `smiles[i].weights` (all 1 when absent): one weight > 0 per strike. */
function readWeights(s: Partial<SmileQuotes>, path: string, i: number, n: number): Float64Array {
  const weights = new Float64Array(n).fill(1);
  if (s.weights === undefined) return weights;
  const w = readNumbers(s.weights, `${path}.weights`, i);
  if (w.length !== n)
    fail(
      `${path}.weights has ${w.length} values but ${path}.strikes has ${n}; give one weight per strike`,
      `${path}.weights`,
      "same length",
      i,
    );
  for (let j = 0; j < n; j++) {
    if (!(w[j]! > 0))
      fail(
        `${path}.weights[${j}] must be > 0; got ${fmt(w[j]!)} (leave a quote out rather than weight it 0)`,
        `${path}.weights[${j}]`,
        "weight > 0",
        i,
      );
  }
  weights.set(w);
  return weights;
}

/** sqrt of the weights (times φ(d1) when vega-weighted) normalised to mean 1. */
function sqrtWeights(
  weights: Float64Array,
  k: Float64Array,
  vols: Float64Array,
  T: number,
  weighting: "uniform" | "vega",
): Float64Array {
  const n = weights.length;
  const sqrtT = Math.sqrt(T);
  if (weighting === "vega") {
    const vega = Float64Array.from(k, (kj, j) => {
      const sw = vols[j]! * sqrtT;
      const d1 = -kj / sw + sw / 2;
      return Math.exp((-d1 * d1) / 2);
    });
    // φ(d1), floored at a fraction of the smile's largest: a quote far in a wing still counts, so the
    // wings cannot float away from their quotes (unfloored, a 60% strike at 14 days weighs ~1e-40).
    const floor = VEGA_WEIGHT_FLOOR * vega.reduce((a, v) => Math.max(a, v), 0);
    for (let j = 0; j < n; j++) weights[j] = weights[j]! * Math.max(vega[j]!, floor);
  }
  let mean = 0;
  for (let j = 0; j < n; j++) mean += weights[j]!;
  mean /= n;
  return weights.map((w) => Math.sqrt(w / mean));
}

/** Reads and checks `smiles[i]` (see {@link calibrate} for the conditions): log-moneyness of each quote, vols, and sqrt of the weights normalised to mean 1. */
function readSmile(
  raw: unknown,
  i: number,
  spot: number,
  rate: number,
  weighting: "uniform" | "vega",
  previous: ParsedSmile | undefined,
): ParsedSmile {
  const path = `smiles[${i}]`;
  if (raw === null || typeof raw !== "object")
    fail(`${path} must be an object { maturity, strikes, strikeType, vols }; got ${shown(raw)}`, path, "object", i);
  const s = raw as Partial<SmileQuotes>;
  const maturity = readMaturity(s, path, i, previous);
  const T = maturity / DAYS_PER_YEAR;
  const forward = readForward(s, path, i, spot, rate, T);
  try {
    checkStrikeType(s.strikeType);
  } catch (error) {
    if (error instanceof VolModelError)
      fail(`${path}.strikeType: ${error.message}`, `${path}.strikeType`, error.condition, i);
    throw error;
  }
  const strikeType = s.strikeType;
  const x = readNumbers(s.strikes, `${path}.strikes`, i);
  const n = x.length;
  const vols = readVols(s, path, i, n);
  const weights = readWeights(s, path, i, n);
  const k = logMoneyness(x, vols, strikeType, { path, i, T, forward, spot });
  const distinct = new Set(k).size;
  if (distinct < MIN_QUOTES) {
    fail(
      `${path} has ${distinct === n ? n : `${distinct} distinct strikes among ${n}`} quotes; a slice has ${MIN_QUOTES} parameters, so a smile needs at least ${MIN_QUOTES} quotes at distinct strikes`,
      `${path}.strikes`,
      `at least ${MIN_QUOTES} quotes`,
      i,
    );
  }
  const sw = sqrtWeights(weights, k, vols, T, weighting);
  return { index: i, maturity, T, forward, k, vols, sw };
}

// ---------------------------------------------------------------------------------------------------
// One slice in the fit's variables

/** A slice decoded from the fit's variables: model parameters, raw SVI, and what the penalties use. */
interface Slice extends SliceParams {
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
interface SliceSpace {
  T: number;
  putLo: number;
  callLo: number;
  putHi: number;
  callHi: number;
  /** 1: the neighbour fitted before this slice is the shorter maturity (this slice lies above it); −1: the longer. */
  dir: 1 | -1;
}

/** The upper end of the wing slopes: Lee's bound less its margin. */
const SLOPE_CAP = LEE_BOUND - CALIBRATION_MARGINS.lee;

const sigmoid = (x: number): number => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));

function decode(x: ArrayLike<number>, space: SliceSpace): Slice {
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
function encode(p: SliceParams, space: SliceSpace): Float64Array | undefined {
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
function totalVariance(sl: Slice, k: number): number {
  const d = k - sl.m;
  return sl.theta + sl.b * (sl.rho * k + (k * (k - 2 * sl.m)) / (Math.sqrt(d * d + sl.s2) + sl.R));
}

// ---------------------------------------------------------------------------------------------------
// Grids

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
const before = (x: number, y: number): boolean => x < y || (x === y && Object.is(x, -0) && !Object.is(y, -0));

/**
 * The union of the given point sets, ascending, each value once (−0 and 0 count as one, the first of
 * equal values kept): what sorting them all together and dropping repeats gives, by merging sorted runs.
 */
function union(...sets: Float64Array[]): Float64Array {
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
function constraintGrid(sl: Slice, prev: Slice | undefined, quotes: Float64Array, step: number): Float64Array {
  const sets = [quotes, sinhPoints(sl.m, sl.s, step), sinhPoints(0, sl.sqrtTheta, step)];
  if (prev) sets.push(sinhPoints(prev.m, prev.s, step), sinhPoints(0, prev.sqrtTheta, step));
  return union(...sets);
}

// ---------------------------------------------------------------------------------------------------
// The least-squares problem of one slice

/** Interpolated smiles whose butterfly is constrained, as {@link diagnose} checks them: fractions of the way from the previous slice, and multiples of the last maturity. */
const BETWEEN = INTERPOLATED_CHECKS.between;
const PAST_LAST = INTERPOLATED_CHECKS.pastLast;
/** The wing asymptotes are compared at |k| = this (the model's largest log-moneyness). */
const FAR_K = LOG_MONEYNESS_LIMIT;

/**
 * A constraint family sampled on the grid: `g ≥ 0` of a smile, or the calendar difference `w_i − w_{i−1} ≥ 0`
 * (`sign` 1: this slice minus its shorter neighbour; −1: its longer neighbour minus this slice). `between`'s
 * `x`: the fraction of the way from the neighbour to this slice.
 */
type Family =
  | { kind: "butterfly" }
  | { kind: "calendar"; sign: 1 | -1 }
  | { kind: "between"; x: number }
  | { kind: "past"; r: number };

/** w, w', w'' of a slice at k (centred form for w). */
function smileAt(sl: Slice, k: number, out: Float64Array): void {
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

function smileArrays(n: number): SmileArrays {
  return { w: new Float64Array(n), w1: new Float64Array(n), w2: new Float64Array(n) };
}

/** {@link smileAt} at every grid point (the same operations, so the same doubles). */
function smileOn(sl: Slice, grid: Float64Array, out: SmileArrays): void {
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
function familyOn(
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

/** Put and call asymptotes `w ≈ S·|k| + I` of a slice: `S = b(1 ∓ rho)`, `I = theta − b·(R ∓ m)`. */
function asymptote(sl: Slice, wing: "put" | "call"): { S: number; I: number } {
  return wing === "call"
    ? { S: sl.slopeCall, I: sl.theta - sl.b * (sl.R + sl.m) }
    : { S: sl.slopePut, I: sl.theta - sl.b * (sl.R - sl.m) };
}

/**
 * The constraint families of a slice: its own butterfly; with a neighbour, calendar and the interpolated
 * smiles between (at fractions of the way from the shorter to the longer: from the neighbour when it is the
 * shorter, `dir` 1); for the last slice, the smiles past it.
 */
function familiesOf(prev: Slice | undefined, last: boolean, dir: 1 | -1): Family[] {
  const out: Family[] = [{ kind: "butterfly" }];
  const between = (x: number) => ({ kind: "between" as const, x: dir === 1 ? x : 1 - x });
  if (prev) out.push({ kind: "calendar", sign: dir }, ...BETWEEN.map(between));
  if (last) out.push(...PAST_LAST.map((r) => ({ kind: "past" as const, r })));
  return out;
}

/** Scalar constraints, with a previous slice: the put and call wing asymptotes compared at |k| = FAR_K. */
const WING_ROWS = 2;

/**
 * The value of every family at one grid point, shifted by its margin (≥ 0 when it holds, vol-like units):
 * `cur` and `prv` hold w, w', w'' of this and the previous slice at k.
 */
function familyValue(
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
function scanMin(f: (k: number) => number, a: number, b: number, guess: number): number {
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
const REGION_EDGES = Object.freeze([
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
const REGIONS = REGION_EDGES.length - 1;
/** A stretch's grid minimum is refined only when it is below this (vol-like units): well above it the row is 0 either way. */
const REFINE_BELOW = 1e-3;
/** At most this many local minima of a stretch are refined (the lowest). */
const MAX_DIPS = 4;

/**
 * Levenberg–Marquardt's view of one slice under the augmented Lagrangian of its constraints. Rows:
 * `sw_q·(σ(k_q) − σ_q)` for the quotes; then, for each constraint family and each stretch of k
 * ({@link REGION_EDGES}), one row for the family's minimum over that stretch, `C(x) = min_k c(x, k)` (the
 * lowest grid point, refined by golden-section search between its neighbours), shifted by its margin;
 * then the scalar constraints. A constraint row is `sqrt(ρ)·max(0, μ/ρ − C)` (Powell–Hestenes–Rockafellar),
 * zero while the constraint holds and its multiplier μ is 0. Because the row follows the minimum wherever
 * it moves, it is a smooth function of x (envelope theorem: its gradient is ∂c/∂x at the minimiser, which
 * `prepare` holds fixed for the Jacobian), so the solver sees a few smooth constraints rather than a
 * thousand grid points switching on and off. With `penalties` false, the quotes alone.
 */
class SliceProblem implements LeastSquaresProblem {
  readonly parameters = 5;
  readonly rows: number;
  readonly always: number;
  /** Penalty parameter ρ. */
  rho: number;
  readonly #q: ParsedSmile;
  readonly #space: SliceSpace;
  readonly #prev: Slice | undefined;
  readonly #scalars: number;
  readonly #families: Family[];
  readonly #calScale: number;
  readonly #calMargin: number;
  /** Sorted grid (with every region edge in it); `#edges[r]` is the grid index of REGION_EDGES[r]. */
  #grid: Float64Array = new Float64Array(0);
  #edges = new Int32Array(REGION_EDGES.length);
  /** w, w', w'' of the previous slice and of the current one at each grid point. */
  #prevSmile = smileArrays(0);
  #curSmile = smileArrays(0);
  /** Multipliers, one per constraint row. */
  readonly #mu: Float64Array;
  /** The minimiser of each (family, region) at the point of the last `prepare`. */
  readonly #kStar: Float64Array;
  /** The minimisers found by the last `residuals`, and at which point: `prepare` at that point reuses them. */
  readonly #lastK: Float64Array;
  readonly #lastX = new Float64Array(5).fill(NaN);
  readonly #minimaOut: Float64Array;
  readonly #cur = new Float64Array(3);
  readonly #prv = new Float64Array(3);
  #values = new Float64Array(0);

  constructor(
    q: ParsedSmile,
    space: SliceSpace,
    prev: Slice | undefined,
    last: boolean,
    grid: ArrayLike<number>,
    rho: number,
    start: Slice,
    penalties = true,
  ) {
    this.#q = q;
    this.#space = space;
    this.#prev = prev;
    this.#scalars = penalties && prev ? WING_ROWS : 0;
    this.#families = penalties ? familiesOf(prev, last, space.dir) : [];
    this.rho = rho;
    this.always = q.k.length;
    // Total variance to vol near the money: dσ ≈ dw / (2·v·T).
    this.#calScale = 1 / (2 * start.vol * q.T);
    this.#calMargin = prev
      ? CALIBRATION_MARGINS.calendarRelative * prev.theta + CALIBRATION_MARGINS.calendarAbsolute
      : 0;
    const regionRows = REGIONS * this.#families.length;
    this.#mu = new Float64Array(regionRows + this.#scalars);
    this.#kStar = new Float64Array(regionRows);
    this.#lastK = new Float64Array(regionRows);
    this.#minimaOut = new Float64Array(regionRows);
    this.rows = this.always + this.#mu.length;
    if (penalties) this.addPoints(union(Float64Array.from(REGION_EDGES), Float64Array.from(grid)));
  }

  /** Adds points to the sampling grid of the constraint families. */
  addPoints(points: ArrayLike<number>): void {
    const grid = union(this.#grid, Float64Array.from(points));
    const prevSmile = smileArrays(grid.length);
    if (this.#prev) smileOn(this.#prev, grid, prevSmile);
    this.#curSmile = smileArrays(grid.length);
    this.#grid = grid;
    this.#edges = Int32Array.from(REGION_EDGES, (e) => grid.indexOf(e));
    this.#prevSmile = prevSmile;
    this.#values = new Float64Array(grid.length * this.#families.length);
    this.#lastX.fill(NaN);
  }

  prepare(x: Float64Array): void {
    if (x.every((v, i) => v === this.#lastX[i])) this.#kStar.set(this.#lastK);
    else this.#minima(decode(x, this.#space), this.#kStar, undefined);
  }

  residuals(x: Float64Array, out: Float64Array): void {
    const sl = decode(x, this.#space);
    const nq = this.always;
    for (let j = 0; j < nq; j++) out[j] = this.#quote(sl, j);
    if (this.#mu.length === 0) return;
    const R = this.#kStar.length;
    const minima = this.#minimaOut;
    this.#minima(sl, this.#lastK, minima);
    this.#lastX.set(x);
    const sqrtRho = Math.sqrt(this.rho);
    for (let c = 0; c < R; c++) out[nq + c] = this.#penalty(this.#mu[c]!, minima[c]!, sqrtRho);
    for (let s = 0; s < this.#scalars; s++)
      out[nq + R + s] = this.#penalty(this.#mu[R + s]!, this.#scalar(sl, s), sqrtRho);
  }

  residualRows(x: Float64Array, which: Int32Array, count: number, out: Float64Array): void {
    const sl = decode(x, this.#space);
    const sqrtRho = Math.sqrt(this.rho);
    for (let q = 0; q < count; q++) {
      const j = which[q]!;
      // Penalty rows unclamped (the solver's model takes max(0, ·) itself): a row just above 0 would
      // otherwise get half its slope from the central difference.
      out[q] =
        j < this.always
          ? this.#quote(sl, j)
          : sqrtRho * (this.#mu[j - this.always]! / this.rho - this.#constraintAtKStar(sl, j - this.always));
    }
  }

  /**
   * The multiplier update `μ ← max(0, μ − ρ·C(x))`. Returns the largest violation at x relative to its
   * tolerance (half the margin; 1e−13 for the wing slopes): at most 1 when x is feasible enough.
   */
  updateMultipliers(x: Float64Array): number {
    const values = this.#constraints(x);
    let worst = 0;
    for (let c = 0; c < values.length; c++) {
      const value = values[c]!;
      worst = Math.max(worst, value === value ? -value / this.#tolerance(c) : Infinity);
      this.#mu[c] = Math.max(0, this.#mu[c]! - this.rho * (value === value ? value : -1));
    }
    return worst;
  }

  /** Constraints that bind at x: a non-zero multiplier or a violation; the minimum variance when it is pressed down. */
  active(x: Float64Array): Set<CalibrationConstraint> {
    const values = this.#constraints(x);
    const out = new Set<CalibrationConstraint>();
    const R = this.#kStar.length;
    for (let c = 0; c < values.length; c++) {
      if (this.#mu[c] === 0 && !(values[c]! < 0)) continue;
      out.add(c < R && this.#familyOf(c).kind !== "calendar" ? "butterfly" : "calendar");
    }
    addPressed(decode(x, this.#space), this.#space, out);
    return out;
  }

  #familyOf(c: number): Family {
    return this.#families[Math.floor(c / REGIONS)]!;
  }

  /** Every constraint value at x (families' minima, then scalars), shifted by the margins. */
  #constraints(x: Float64Array): Float64Array {
    const sl = decode(x, this.#space);
    const R = this.#kStar.length;
    const values = new Float64Array(this.#mu.length);
    if (values.length === 0) return values;
    if (x.every((v, i) => v === this.#lastX[i])) values.set(this.#minimaOut);
    else this.#minima(sl, undefined, values);
    for (let s = 0; s < this.#scalars; s++) values[R + s] = this.#scalar(sl, s);
    return values;
  }

  /** Each family's minimum over each region: where (`kStar`) and its value (`minima`). */
  #minima(sl: Slice, kStar: Float64Array | undefined, minima: Float64Array | undefined): void {
    const F = this.#families.length;
    if (F === 0) return;
    this.#sampleFamilies(sl);
    const { n, grid, values, edges } = {
      n: this.#grid.length,
      grid: this.#grid,
      values: this.#values,
      edges: this.#edges,
    };
    for (let f = 0; f < F; f++) {
      const family = this.#families[f]!;
      const value = (k: number) => this.#familyAt(family, sl, k);
      for (let region = 0; region < REGIONS; region++) {
        const lo = edges[region]!;
        const hi = edges[region + 1]!;
        let best = lo;
        for (let p = lo + 1; p <= hi; p++) if (!(values[f * n + p]! >= values[f * n + best]!)) best = p;
        let k = grid[best]!;
        let vk = values[f * n + best]!;
        // Every low local minimum of the samples refined (the lowest few): two dips of nearly equal depth
        // would otherwise make the row jump between them as the grid's lowest point changes.
        const dips = this.#dips(f, lo, hi);
        for (const p of dips) {
          const kp = scanMin(value, grid[Math.max(lo, p - 1)]!, grid[Math.min(hi, p + 1)]!, grid[p]!);
          const vp = kp === grid[p] ? values[f * n + p]! : value(kp);
          if (vp < vk) [k, vk] = [kp, vp];
        }
        const c = f * REGIONS + region;
        if (kStar) kStar[c] = k;
        if (minima) minima[c] = vk;
      }
    }
  }

  /** Grid indices of the local minima of family f's samples in [lo, hi] below {@link REFINE_BELOW}, the lowest {@link MAX_DIPS}. */
  #dips(f: number, lo: number, hi: number): number[] {
    const n = this.#grid.length;
    const v = this.#values;
    const out: number[] = [];
    if (hi <= lo) return out;
    for (let p = lo; p <= hi; p++) {
      const vp = v[f * n + p]!;
      if (!(vp < REFINE_BELOW)) continue;
      if ((p > lo && !(vp <= v[f * n + p - 1]!)) || (p < hi && !(vp <= v[f * n + p + 1]!))) continue;
      out.push(p);
    }
    if (out.length > MAX_DIPS) out.sort((a, b) => v[f * n + a]! - v[f * n + b]!).length = MAX_DIPS;
    return out;
  }

  /** Every family's value at every grid point into `#values` (family-major). */
  #sampleFamilies(sl: Slice): void {
    const grid = this.#grid;
    const n = grid.length;
    smileOn(sl, grid, this.#curSmile);
    for (let f = 0; f < this.#families.length; f++) {
      familyOn(
        this.#families[f]!,
        grid,
        sl,
        this.#curSmile,
        this.#prevSmile,
        this.#calScale,
        this.#calMargin,
        this.#values,
        f * n,
      );
    }
  }

  #familyAt(family: Family, sl: Slice, k: number): number {
    smileAt(sl, k, this.#cur);
    if (this.#prev) smileAt(this.#prev, k, this.#prv);
    return familyValue(family, k, sl, this.#cur, this.#prv, this.#calScale, this.#calMargin);
  }

  #constraintAtKStar(sl: Slice, c: number): number {
    const R = this.#kStar.length;
    if (c < R) return this.#familyAt(this.#familyOf(c), sl, this.#kStar[c]!);
    return this.#scalar(sl, c - R);
  }

  #penalty(mu: number, value: number, sqrtRho: number): number {
    const v = mu / this.rho - value;
    // NaN (cannot happen on a decoded slice, whose total variance is > 0) counts as violated.
    return v > 0 ? sqrtRho * v : value === value ? 0 : sqrtRho;
  }

  #quote(sl: Slice, j: number): number {
    const q = this.#q;
    if (!sl.valid) return NaN;
    return q.sw[j]! * (Math.sqrt(totalVariance(sl, q.k[j]!) / sl.T) - q.vols[j]!);
  }

  /** Wing asymptote s (0 put, 1 call) against the previous slice's, at |k| = FAR_K. */
  #scalar(sl: Slice, s: number): number {
    const wing = s === 0 ? "put" : "call";
    const a = asymptote(this.#prev!, wing);
    const b = asymptote(sl, wing);
    return this.#calScale * (this.#space.dir * ((b.S - a.S) * FAR_K + (b.I - a.I)) - CALIBRATION_MARGINS.asymptote);
  }

  #tolerance(c: number): number {
    if (c < this.#kStar.length)
      return this.#familyOf(c).kind === "calendar"
        ? (this.#calScale * this.#calMargin) / 2
        : CALIBRATION_MARGINS.butterfly / 2;
    return (this.#calScale * CALIBRATION_MARGINS.asymptote) / 2;
  }
}

/** The bounds built into the variables that a slice presses against ({@link PRESSED}): Lee's, the neighbour's wing slopes, the minimum variance. */
function addPressed(sl: Slice, space: SliceSpace, out: Set<CalibrationConstraint>): void {
  const top = (position: number, hi: number): CalibrationConstraint | undefined =>
    position >= 1 - PRESSED ? (hi === SLOPE_CAP ? "lee" : "calendar") : undefined;
  for (const hit of [top(sl.putPosition, space.putHi), top(sl.callPosition, space.callHi)]) if (hit) out.add(hit);
  if ((space.putLo > 0 || space.callLo > 0) && (sl.putPosition <= PRESSED || sl.callPosition <= PRESSED))
    out.add("calendar");
  if (sl.curvatureSlack <= PRESSED) out.add("minVariance");
}

// ---------------------------------------------------------------------------------------------------
// Start and check

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
 * A starting slice of a smile (module comment, "Start"), always inside the model's range: wings from the
 * quotes, or the given ones (normalised by sqrt(theta), as the model's are).
 */
function initialGuess(q: ParsedSmile, space: SliceSpace, wings?: { putWing: number; callWing: number }): Float64Array {
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
 * A fitted slice as the surface will hold it: its wire parameters read back as `fromSurface` reads them
 * (raw SVI from `rawSvi`, `theta = v²·T`), which is what diagnose checks. Undefined when the model refuses
 * them (rounding at the edge of its range).
 */
function checkedSlice(sl: Slice, index: number, maturity: number): CheckedSlice | undefined {
  const params: SliceParams = {
    vol: sl.vol,
    skew: sl.skew,
    smile: sl.smile,
    putWing: sl.putWing,
    callWing: sl.callWing,
  };
  try {
    const { b, rho, m, s } = rawSvi(params, sl.T);
    return { index, maturity, theta: sl.vol * sl.vol * sl.T, b, rho, m, s };
  } catch (error) {
    if (error instanceof VolModelError) return undefined;
    throw error;
  }
}

/**
 * Where a slice is checked: the smile, its neighbour fitted before it as the surface holds it (`prev` the
 * shorter maturity in the shortest-first pass, `next` the longer in the longest-first one), whether it is
 * the last, and the checks kept for the final report.
 */
interface CheckContext {
  q: ParsedSmile;
  prev: CheckedSlice | undefined;
  next?: CheckedSlice | undefined;
  last: boolean;
  cache: DiagnoseCache;
}

/**
 * The check of a fitted slice: diagnose's own checks of it, as the surface will hold it (its butterfly;
 * calendar and the interpolated smiles' butterfly against the previous slice; the smiles past the last),
 * on diagnose's grids with every local minimum refined; they are kept for the final report. `failed` when
 * a true condition (`g ≥ 0`, `w_i ≥ w_{i−1}`) fails anywhere; `points`: where a constraint is below its
 * margin (the failures and the refined minima), for the constraint grid.
 */
function check(sl: Slice, at: CheckContext): { failed: boolean; points: number[]; clear: boolean } {
  const cur = checkedSlice(sl, at.q.index, at.q.maturity);
  if (!cur) return { failed: true, points: [], clear: false };
  const points: number[] = [];
  let failed = false;
  let clear = true;
  const shorter = at.prev ?? (at.next ? cur : undefined);
  const calMargin = shorter
    ? CALIBRATION_MARGINS.calendarRelative * shorter.theta + CALIBRATION_MARGINS.calendarAbsolute
    : 0;
  at.cache.check(
    cur,
    at.prev,
    at.last,
    (kind, grid, values, extraK, extraV) => {
      const margin = kind === "calendar" ? calMargin : CALIBRATION_MARGINS.butterfly;
      const clearOf = CLEAR * margin;
      for (let j = 0; j < grid.length; j++) {
        const v = values[j]!;
        if (!(v >= clearOf)) clear = false;
        if (v >= 0) continue;
        failed = true;
        points.push(grid[j]!);
      }
      for (let j = 0; j < extraK.length; j++) {
        const v = extraV[j]!;
        if (!(v >= clearOf)) clear = false;
        if (!(v >= 0)) failed = true;
        if (!(v >= margin)) points.push(extraK[j]!);
      }
    },
    at.next,
  );
  return { failed, points, clear: clear && !failed };
}

/**
 * How far clear of its margin each constraint must be, on diagnose's checks, for the unconstrained fit to
 * be taken as the constrained one (its penalty rows would all be 0 there, so the constrained solve would
 * not move it).
 */
const CLEAR = 10;

/** Weighted sum of squared vol errors of a slice. */
function dataCost(q: ParsedSmile, sl: Slice): number {
  let cost = 0;
  for (let j = 0; j < q.k.length; j++)
    cost += (q.sw[j]! * (Math.sqrt(totalVariance(sl, q.k[j]!) / q.T) - q.vols[j]!)) ** 2;
  return cost;
}

/**
 * The unconstrained fit as the constrained one, when it converged and diagnose's checks find every
 * constraint (butterfly, calendar, the interpolated smiles, and the wing asymptotes against the previous
 * slice) at least {@link CLEAR} times its margin inside: there the constrained problem's penalty rows are
 * all 0 and its solve would stop where it starts. Undefined otherwise (the constrained solve runs).
 */
function clearFit(at: CheckContext, space: SliceSpace, prev: Slice | undefined, free: LevenbergMarquardtResult) {
  if (!free.converged) return undefined;
  const sl = decode(free.x, space);
  if (!sl.valid) return undefined;
  if (prev) {
    for (const wing of ["put", "call"] as const) {
      const [a, b] = [asymptote(prev, wing), asymptote(sl, wing)];
      if (!(space.dir * ((b.S - a.S) * FAR_K + (b.I - a.I)) >= CLEAR * CALIBRATION_MARGINS.asymptote)) return undefined;
    }
  }
  if (!check(sl, at).clear) return undefined;
  const active = new Set<CalibrationConstraint>();
  addPressed(sl, space, active);
  const solve: SliceSolve = {
    x: free.x,
    iterations: 0,
    converged: true,
    passed: true,
    active,
    dataCost: dataCost(at.q, sl),
  };
  return solve;
}

/** The outcome of one constrained solve of a slice. */
interface SliceSolve {
  x: Float64Array;
  iterations: number;
  /** The solver stopped on a tolerance and the slice passed the fine-grid check. */
  converged: boolean;
  /** The slice passed the fine-grid check. */
  passed: boolean;
  active: Set<CalibrationConstraint>;
  /** Weighted sum of squared vol errors. */
  dataCost: number;
}

/**
 * The augmented-Lagrangian loop from x0 (module comment): solve, update the multipliers (raising ρ when
 * the violation did not fall fourfold), and once the constraints hold to their tolerances, the fine-grid
 * check, whose failures join the constraint grid.
 */
function constrainedSolve(
  at: CheckContext,
  space: SliceSpace,
  prev: Slice | undefined,
  x0: Float64Array,
  budget: number,
): SliceSolve {
  const { q, last } = at;
  let x = x0;
  const start = decode(x, space);
  const problem = new SliceProblem(q, space, prev, last, constraintGrid(start, prev, q.k, GRID_STEP), RHO0, start);
  let iterations = 0;
  let converged = false;
  let passed = false;
  let previousViolation = Infinity;
  let settledFrom = Infinity;
  for (let outer = 0; outer < MAX_OUTER && iterations < budget; outer++) {
    const result = levenbergMarquardt(problem, x, {
      maxIterations: Math.min(INNER_ITERATIONS, budget - iterations),
      scaling: "current",
    });
    x = result.x;
    iterations += result.iterations;
    const violation = problem.updateMultipliers(x);
    passed = false;
    if (violation <= 1) {
      const { failed, points } = check(decode(x, space), at);
      if (failed) {
        problem.addPoints(points);
        previousViolation = Infinity;
        continue;
      }
      passed = true;
      // Feasible: done once the solve itself converged (with the multipliers settled), or its cost settled.
      const cost = Math.sqrt(dataCost(q, decode(x, space)));
      if (result.converged || (settledFrom < Infinity && settledFrom - cost <= SETTLED * settledFrom)) {
        converged = true;
        break;
      }
      settledFrom = cost;
      continue;
    }
    settledFrom = Infinity;
    if (violation > 0.25 * previousViolation && problem.rho < RHO_MAX) problem.rho *= RHO_GROWTH;
    previousViolation = violation;
  }
  return { x, iterations, converged, passed, active: problem.active(x), dataCost: dataCost(q, decode(x, space)) };
}

/**
 * A start that meets the constraints: the previous slice lifted to this slice's ATM variance (wing slopes
 * raised 1% of their room), which is above it everywhere; in the longest-first pass, the longer neighbour
 * scaled down to this slice's ATM variance (raw SVI's a and b times theta/theta_next, at most 0.999), which
 * is below it everywhere; for the first slice a symmetric smile with the quotes' ATM vol. Undefined when it
 * does not fit in the variables.
 */
function feasibleStart(
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
function betterStart(quotesOnly: SliceProblem, a: Float64Array, b: Float64Array): Float64Array {
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
 * Fits one slice (module comment): an unconstrained solve from the quotes' start (inside the wing-slope
 * range), then the constrained solve from there. When that start breaks a constraint, the constrained
 * solve runs again from a start that meets them ({@link feasibleStart}), and the better of the two that
 * pass the check is kept.
 */
function fitSlice(
  at: CheckContext,
  prev: Slice | undefined,
  maxIterations: number,
  dir: 1 | -1,
): SliceOutcome & { slice: Slice } {
  const { q, last } = at;
  const space = sliceSpace(q.T, prev, dir);
  const x0 = initialGuess(q, space);
  const quotesOnly = new SliceProblem(q, space, prev, last, [], RHO0, decode(x0, space), false);
  const start = prev ? betterStart(quotesOnly, x0, initialGuess(q, space, prev)) : x0;
  const free = levenbergMarquardt(quotesOnly, start, { maxIterations });
  let best = clearFit(at, space, prev, free) ?? constrainedSolve(at, space, prev, free.x, maxIterations);
  let iterations = free.iterations + best.iterations;
  if (best.active.size > 0 || !best.passed) {
    const x1 = feasibleStart(q, space, prev, decode(free.x, space));
    if (x1) {
      const other = constrainedSolve(at, space, prev, x1, maxIterations);
      iterations += other.iterations;
      if ((other.passed && !best.passed) || (other.passed === best.passed && other.dataCost < best.dataCost))
        best = other;
    }
  }
  const repaired = repairRunaway(at, space, prev, best, decode(free.x, space), maxIterations);
  iterations += repaired.iterations;
  const { converged, passed, active, dataCost } = repaired.best;
  return { slice: decode(repaired.best.x, space), iterations, converged, passed, active, dataCost };
}

/**
 * The ATM-only start: the quotes' ATM vol, no skew, each wing slope `sqrt(theta)` above its lower end (at
 * most halfway up its range; wing 1 for a first slice), the smile raised until the slice is in the model's
 * range (as {@link initialGuess} does).
 */
function atmStart(guess: Slice, space: SliceSpace): Float64Array | undefined {
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

/**
 * A restart replaces a runaway fit only when its weighted RMSE is lower by at least this fraction: a better
 * fit, not one as good. (A runaway wing slope of ~0 bounds no later slice through the calendar condition;
 * a sane but steeper one put in its place at the same error bounded later slices' slopes from below and
 * spoiled them: 2.8 and 3.0 bp became 7.3 and 7.2 at 30 and 61 days in one audit surface.)
 */
const RUNAWAY_GAIN = 0.01;

/**
 * A slice whose parameters ran off ({@link SANE_LIMITS}) solved again from other starts: the quotes' ATM
 * vol with a symmetric smile (wing slopes halfway up their range), and the neighbour's wings. The first
 * restart that passes the check with sane parameters and a weighted RMSE at least {@link RUNAWAY_GAIN}
 * below the runaway's replaces it; when none does, the runaway fit stays, and `reasons` say what ran off.
 * (Bounding the wing variables away from 0 instead moved the solver onto worse local minima.)
 */
function repairRunaway(
  at: CheckContext,
  space: SliceSpace,
  prev: Slice | undefined,
  best: SliceSolve,
  guess: Slice,
  maxIterations: number,
): { best: SliceSolve; iterations: number } {
  let iterations = 0;
  if (insaneParameters(decode(best.x, space)).length === 0) return { best, iterations };
  const { q } = at;
  const starts = [atmStart(guess, space), prev ? initialGuess(q, space, prev) : undefined];
  const limit = (1 - RUNAWAY_GAIN) ** 2 * best.dataCost;
  for (const x of starts) {
    if (!x) continue;
    const other = constrainedSolve(at, space, prev, x, maxIterations);
    iterations += other.iterations;
    if (other.passed && other.dataCost <= limit && insaneParameters(decode(other.x, space)).length === 0)
      return { best: other, iterations };
  }
  return { best, iterations };
}

/** How one slice's fit ended. */
interface SliceOutcome {
  iterations: number;
  converged: boolean;
  passed: boolean;
  active: Set<CalibrationConstraint>;
  /** Weighted sum of squared vol errors. */
  dataCost: number;
}

/** The variables' space of a slice fitted after its neighbour `prev`, above it (`dir` 1) or below it (−1). */
function sliceSpace(T: number, prev: Slice | undefined, dir: 1 | -1): SliceSpace {
  if (prev && dir === 1)
    return { T, putLo: prev.slopePut, callLo: prev.slopeCall, putHi: SLOPE_CAP, callHi: SLOPE_CAP, dir };
  if (!prev) return { T, putLo: 0, callLo: 0, putHi: SLOPE_CAP, callHi: SLOPE_CAP, dir };
  // Below the longer neighbour, and above BELOW_FLOOR of its slopes: from 0 a short slice's wing, which
  // its quotes seldom pin, ran to 0.
  const [putHi, callHi] = [prev.slopePut, prev.slopeCall];
  return { T, putLo: BELOW_FLOOR * putHi, callLo: BELOW_FLOOR * callHi, putHi, callHi, dir };
}

/**
 * In the longest-first pass, a slice's wing slopes stay above this fraction of the longer neighbour's (a
 * bound the calendar condition does not need: the shortest-first pass instead bounds each slope by the
 * shorter slice's, which is how a noisy short wing spoiled the longer ones; the first pass's slopes as the
 * lower end kept 4 of the audit's 8 spoiled slices spoiled).
 */
const BELOW_FLOOR = 0.05;

/** The slices fitted one at a time in one order: shortest first (`dir` 1) or longest first (−1). */
interface Pass {
  slices: Slice[];
  outcomes: SliceOutcome[];
}

/** One pass over the smiles (module comment): each slice fitted against the neighbour fitted just before it. */
function fitPass(
  parsed: readonly ParsedSmile[],
  dir: 1 | -1,
  maxIterations: number,
  cache: DiagnoseCache,
  onFitted?: () => void,
  from?: Pass,
): Pass {
  const n = parsed.length;
  const slices: Slice[] = new Array<Slice>(n);
  const outcomes: SliceOutcome[] = new Array<SliceOutcome>(n);
  let neighbour: Slice | undefined;
  let checked: CheckedSlice | undefined;
  for (let step = 0; step < n; step++) {
    const i = dir === 1 ? step : n - 1 - step;
    const q = parsed[i]!;
    const last = i === n - 1;
    const at: CheckContext =
      dir === 1 ? { q, prev: checked, last, cache } : { q, prev: undefined, next: checked, last, cache };
    let { slice, ...outcome } = fitSlice(at, neighbour, maxIterations, dir);
    // The longest slice alone: where a wing its quotes do not pin ran off (to 0, which would bound every
    // shorter slice's wing to ~0), its shortest-first fit instead.
    if (from && step === 0 && insaneParameters(slice).length > 0) {
      slice = from.slices[i]!;
      outcome = from.outcomes[i]!;
    }
    checked = checkedSlice(slice, i, q.maturity);
    neighbour = slice;
    slices[i] = slice;
    outcomes[i] = outcome;
    onFitted?.();
  }
  return { slices, outcomes };
}

/**
 * How far a pass's slices are from their quotes: first the slices that would not be converged (failed the
 * check, used the solver's budget, or parameters beyond {@link SANE_LIMITS}), then the sum over slices of
 * the weighted RMSE (vol units). A sum of RMSEs, not of squares, so that no one slice's noise decides
 * alone, while one slice pushed far off its quotes by the calendar bound still counts fully.
 */
function misfit(parsed: readonly ParsedSmile[], pass: Pass): [number, number] {
  let failed = 0;
  let sum = 0;
  pass.outcomes.forEach((o, i) => {
    if (!o.passed || !o.converged || insaneParameters(pass.slices[i]!).length > 0) failed++;
    sum += Math.sqrt(o.dataCost / parsed[i]!.k.length);
  });
  return [failed, sum];
}

/**
 * A slice of the shortest-first pass counts as spoiled by the calendar bound when the bound is active and
 * its weighted RMSE is more than this many times that of its own unconstrained fit (no neighbour, wing
 * slopes from 0 to Lee's bound): then the longest-first pass is tried as well.
 */
const SPOILED = 1.5;

/** Weighted sum of squared vol errors of a smile's own unconstrained fit, with no neighbour bounding it. */
function ownCost(q: ParsedSmile, maxIterations: number): number {
  const space = sliceSpace(q.T, undefined, 1);
  const x0 = initialGuess(q, space);
  const problem = new SliceProblem(q, space, undefined, false, [], RHO0, decode(x0, space), false);
  return dataCost(q, decode(levenbergMarquardt(problem, x0, { maxIterations }).x, space));
}

/**
 * The shortest-first pass, and, when the calendar bound spoiled a slice in it ({@link SPOILED}), the
 * longest-first pass too: it is kept when it fits the quotes better by {@link misfit} with no more slices
 * flagged.
 */
function fitSlices(
  parsed: readonly ParsedSmile[],
  maxIterations: number,
  cache: DiagnoseCache,
  onProgress: ((done: number, total: number) => void) | undefined,
): Pass {
  let done = 0;
  const forward = fitPass(parsed, 1, maxIterations, cache, () => onProgress?.(++done, parsed.length));
  const spoiled = forward.outcomes.some(
    (o, i) => o.active.has("calendar") && o.dataCost > SPOILED ** 2 * ownCost(parsed[i]!, maxIterations),
  );
  if (!spoiled) return forward;
  const backward = fitPass(parsed, -1, maxIterations, cache, undefined, forward);
  const [f, b] = [misfit(parsed, forward), misfit(parsed, backward)];
  return b[1] < f[1] && b[0] <= f[0] ? backward : forward;
}

// ---------------------------------------------------------------------------------------------------

/**
 * Fits a surface of the local model to quoted implied vols: one benchmark per smile, fitted shortest
 * first by Levenberg–Marquardt in the model's parametrisation, free of butterfly arbitrage (GJ's g ≥ 0),
 * calendar arbitrage (`w_i(k) ≥ w_{i−1}(k)`, wings included) and inside Lee's moment bound, with the
 * minimum total variance kept ≥ 0 (see the module comment for the method and the constraint forms).
 * Quotes that an arbitrage-free surface produced are recovered exactly (to rounding); otherwise the fit
 * reports which constraints bind.
 *
 * Throws {@link VolModelError} naming the field path (`smiles[2].vols[5]`) and the reason for: a smile
 * with fewer than 5 quotes at distinct strikes, vols or strikes that are not finite and > 0 (or not a
 * delta in (0, 1), or a log-moneyness beyond the model's limit), maturities not strictly increasing,
 * arrays of different lengths, weights ≤ 0, and a bad spot, reference date, forward or option.
 *
 * ```ts
 * const { surface, fit, diagnostics } = vol.calibrate({ spot: 100, referenceDate: "2026-11-20",
 *   smiles: [{ maturity: 30, strikes: [80, 90, 100, 110, 120], strikeType: STRIKE_TYPE.PercentForward,
 *              vols: [0.28, 0.24, 0.21, 0.2, 0.205] }] });
 * fit[0].rmseBp; // vol bp
 * ```
 */
/** Reads and checks calibrate's options other than the smiles' contents. */
function readCalibrateOptions(options: CalibrateOptions) {
  if (!options || typeof options !== "object") {
    fail("options are required: { spot, referenceDate, smiles }", "options", "present");
  }
  const { spot, smiles } = options;
  if (typeof spot !== "number" || !Number.isFinite(spot) || !(spot > 0))
    fail(`spot must be a finite number > 0; got ${shown(spot)}`, "spot", "spot > 0");
  const date = dateTimeInput.safeParse(options.referenceDate);
  if (!date.success) {
    const why = namedDateProblem(options.referenceDate);
    fail(
      why
        ? `referenceDate: ${why}`
        : `referenceDate must be a Date or an ISO 8601 date-time with an offset (or YYYY-MM-DD); got ${options.referenceDate instanceof Date ? "Invalid Date" : shown(options.referenceDate)}`,
      "referenceDate",
      "date-time",
    );
  }
  const rate = options.forwardRate ?? 0;
  if (typeof rate !== "number" || !Number.isFinite(rate))
    fail(`forwardRate must be a finite number; got ${shown(rate)}`, "forwardRate", "finite");
  const weighting = options.weighting ?? "uniform";
  if (weighting !== "uniform" && weighting !== "vega")
    fail(`weighting must be "uniform" or "vega"; got ${shown(weighting)}`, "weighting", "known weighting");
  const maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  if (!Number.isInteger(maxIterations) || !(maxIterations > 0)) {
    fail(`maxIterations must be a whole number > 0; got ${shown(maxIterations)}`, "maxIterations", "integer > 0");
  }
  const onProgress = options.onProgress;
  if (onProgress !== undefined && typeof onProgress !== "function")
    fail(`onProgress must be a function (done, total) => void; got ${shown(onProgress)}`, "onProgress", "function");
  if (!Array.isArray(smiles) || smiles.length === 0) {
    fail(
      `smiles must be a non-empty array of { maturity, strikes, strikeType, vols }; got ${Array.isArray(smiles) ? "an empty array" : shown(smiles)}`,
      "smiles",
      "non-empty",
    );
  }
  const noiseBp = options.noiseBp;
  if (noiseBp !== undefined && !(typeof noiseBp === "number" && noiseBp > 0 && noiseBp < Infinity))
    fail(`noiseBp must be a finite number of vol bp > 0; got ${shown(noiseBp)}`, "noiseBp", "noise > 0");
  return { spot, smiles, referenceDate: date.data, rate, weighting, maxIterations, onProgress, noiseBp };
}

export function calibrate(options: CalibrateOptions): CalibrationResult {
  const { spot, smiles, referenceDate, rate, weighting, maxIterations, onProgress, noiseBp } =
    readCalibrateOptions(options);
  const parsed: ParsedSmile[] = [];
  for (let i = 0; i < smiles.length; i++) parsed.push(readSmile(smiles[i], i, spot, rate, weighting, parsed[i - 1]));

  // diagnose's checks of each fitted slice, made as the fit goes: the final report takes them from here.
  const cache = new DiagnoseCache();
  const { slices: fitted, outcomes } = fitSlices(parsed, maxIterations, cache, onProgress);
  const surface: WireSurface = {
    benchmark_fwd_factors: parsed.map((q) => q.forward / spot),
    smiles: fitted.map((s) => s.smile),
    benchmark_maturities: parsed.map((q) => q.maturity),
    vols: fitted.map((s) => s.vol),
    call_wings: fitted.map((s) => s.callWing),
    put_wings: fitted.map((s) => s.putWing),
    skews: fitted.map((s) => s.skew),
    reference_date: referenceDate,
    spot_ref: spot,
  };
  // Errors from the model itself, as it evaluates the surface returned.
  const model = fromSurface(surface);
  const order: CalibrationConstraint[] = ["butterfly", "calendar", "lee", "minVariance"];
  const fit: SliceFit[] = parsed.map((q, i) => {
    const modelVols = model.vols(q.maturity, q.k, "logMoneyness");
    const residualsBp = Array.from(q.vols, (v, j) => (modelVols[j]! - v) * 1e4);
    const { iterations, converged, passed, active } = outcomes[i]!;
    const params = {
      vol: surface.vols[i]!,
      skew: surface.skews[i]!,
      smile: surface.smiles[i]!,
      putWing: surface.put_wings[i]!,
      callWing: surface.call_wings[i]!,
    };
    const weightedRmseBp = weightedRms(
      residualsBp,
      Array.from(q.sw, (w) => w * w),
    );
    const reasons = convergenceReasons({
      solverStopped: converged,
      passed,
      params,
      weightedRmseBp,
      maxIterations,
      noiseBp,
    });
    return {
      maturity: q.maturity,
      forward: q.forward,
      params,
      rmseBp: Math.sqrt(residualsBp.reduce((acc, e) => acc + e * e, 0) / residualsBp.length),
      maxErrorBp: residualsBp.reduce((acc, e) => Math.max(acc, Math.abs(e)), 0),
      iterations,
      weightedRmseBp,
      activeConstraints: order.filter((c) => active.has(c)),
      converged: reasons.length === 0,
      reasons,
      k: Array.from(q.k),
      residualsBp,
    };
  });
  return { surface, fit, diagnostics: cache.report(model) };
}
