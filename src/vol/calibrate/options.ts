/**
 * What {@link calibrate} takes and returns, and the constants its doc comments name: the public
 * face of the folder, which the folder's index re-exports.
 */
import type { ArbitrageReport } from "../diagnostics";
import type { ModelStrikeType } from "../strikes";
import type { WireSurface } from "../surface";
import type { SliceParams } from "../svi";

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
   * shortest-first pass; the longest-first pass, when the calendar bound spoiled a slice,
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
   * True when the fit is good: the solver stopped on a tolerance or its
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
 * Margins the fit keeps from each no-arbitrage boundary (see {@link calibrate}), so that a fit pressed
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
 * quotes. (Unfloored, φ(d1) of a 60% strike at 14 days is ~1e−40, and a short smile's wings then float
 * hundreds of bp off their quotes; a lower floor leaves them further off.)
 */
export const VEGA_WEIGHT_FLOOR = 0.05;

/** Fewest quotes a smile needs: the slice has five parameters. */
export const MIN_QUOTES = 5;
