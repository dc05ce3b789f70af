/**
 * What pricing reads of a vol surface model ({@link priceOptions} and the rest of its module): its
 * benchmarks and its smile functions. The model ({@link VolSurfaceModel}) implements it and builds its
 * pricing methods on those functions, so pricing takes this view instead of the class: no import cycle
 * between the two.
 */
import type { RawSvi, SliceParams } from "./svi";
import type { ModelStrikeType } from "./strikes";

/** One benchmark of a validated surface: its inputs, its raw SVI equivalent, and derived values. */
export interface Benchmark extends SliceParams, RawSvi {
  /** 0-based index. */
  readonly index: number;
  /** Maturity in calendar days after the reference date. */
  readonly maturity: number;
  /** Maturity in years (`maturity / DAYS_PER_YEAR`). */
  readonly T: number;
  /** `benchmark_fwd_factors[i]`. */
  readonly fwdFactor: number;
  /** Forward `F_i = spot_ref · fwdFactor`. */
  readonly forward: number;
  /** ATM total variance `theta = v²·T`. */
  readonly theta: number;
  /** Minimum total variance over k, `a + b·s·sqrt(1 − rho²)` (≥ 0 on a valid surface). */
  readonly minTotalVariance: number;
}

/** The part of `VolSurfaceModel` that pricing uses (the model implements it). */
export interface SurfaceView {
  readonly benchmarks: readonly Benchmark[];
  vols(maturityDays: number, strikes: ArrayLike<number>, strikeType: ModelStrikeType): Float64Array;
  totalVariance(maturityDays: number, k: ArrayLike<number>): Float64Array;
  forward(maturityDays: number): number;
  logMoneyness(maturityDays: number, strikes: ArrayLike<number>, strikeType: ModelStrikeType): Float64Array;
  absoluteStrikes(maturityDays: number, strikes: ArrayLike<number>, strikeType: ModelStrikeType): Float64Array;
}
