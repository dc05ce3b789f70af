/**
 * `fromSurface`: the local model of `GetVol` (vol-model.md), built once from a `surface` and evaluated
 * many times. Validation happens here, once; the evaluators check only their own arguments and then run
 * the loops of {@link volsFromStrikes} and {@link evaluate}.
 */
import { DAYS_PER_YEAR, STRIKE_TYPE } from "../api/assumptions";
import { VolModelError, fmt } from "./errors";
import { refuseThenables } from "../await-guard";
import {
  NAN_IN_KERNEL,
  evaluate,
  setSlice,
  sliceArrays,
  volsFromStrikes,
  type MaturityPlan,
  type SliceArrays,
} from "./kernel";
import {
  impliedDensity,
  localVol,
  priceOptions,
  type ImpliedDensity,
  type LocalVol,
  type LocalVolOptions,
  type OptionPrices,
  type PriceOptionsOptions,
} from "./pricing";
import {
  FORWARD_CALL_DELTA,
  checkStrikeType,
  deltaConvention,
  deltaFromK,
  kFromDelta,
  logShift,
  type ModelStrikeType,
} from "./strikes";
import { rawSvi, modelMinTotalVariance, type SliceParams } from "./svi";
import { readSurface, toFloat64, type SurfaceLike } from "./surface-input";
import type { Benchmark, SurfaceView } from "./surface-view";

export type { Benchmark } from "./surface-view";

/** Vols on a maturities × strikes grid. */
export interface VolGrid {
  /** Maturities in days (rows). */
  maturities: Float64Array;
  /** Strikes in the grid's convention (columns). */
  strikes: Float64Array;
  strikeType: ModelStrikeType;
  /** Row-major: `vols[i * strikes.length + j]` is maturity i, strike j (decimal vols). */
  vols: Float64Array;
}

/** The wire form of a surface: plain number arrays and an ISO 8601 `reference_date`. */
export interface WireSurface {
  benchmark_fwd_factors: number[];
  smiles: number[];
  benchmark_maturities: number[];
  vols: number[];
  call_wings: number[];
  put_wings: number[];
  skews: number[];
  reference_date: string;
  spot_ref: number;
}

function checkMaturity(maturityDays: unknown, field = "maturity"): number {
  if (typeof maturityDays !== "number" || !Number.isFinite(maturityDays) || !(maturityDays > 0)) {
    throw new VolModelError(
      `${field} must be a finite number of days > 0; got ${typeof maturityDays === "number" ? fmt(maturityDays) : JSON.stringify(maturityDays)}`,
      {
        field,
        condition: "T > 0",
      },
    );
  }
  return maturityDays;
}

/**
 * Largest |log-moneyness| the model takes as input (`"logMoneyness"` strikes, `totalVariance`). Any strike
 * a double can hold, at any forward a double can hold, has |k| < 1500; the limit keeps `(k − m)²` and
 * `rho·k` far from overflow, so no input can turn into ∞ − ∞ = NaN.
 */
export const LOG_MONEYNESS_LIMIT = 1e4;

function checkK(x: Float64Array, q: number, field: string): void {
  const k = x[q]!;
  if (!(Math.abs(k) <= LOG_MONEYNESS_LIMIT)) {
    throw new VolModelError(
      `${field}[${q}] must be a finite log-moneyness with |k| <= ${LOG_MONEYNESS_LIMIT}; got ${fmt(k)}`,
      {
        field,
        condition: "|k| <= 1e4",
      },
    );
  }
}

/** Throws when a kernel loop reported NaN (see {@link NAN_IN_KERNEL}); never hands NaN, or a vol of 0 for it, to the caller. */
function noNaN(ok: boolean): void {
  if (!ok) throw new VolModelError(NAN_IN_KERNEL, { condition: "no NaN" });
}

/** Smallest positive normal double: forwards below it would lose precision as subnormals. */
const MIN_NORMAL = 2.2250738585072014e-308;

/**
 * Whether a forward `F = exp(lnF)` is a normal, finite double (`lnF` in about [−708.40, 709.78]): the
 * one test of "the forward stays within double precision", used by the model to refuse a maturity and by
 * the tests as their oracle. Beyond it `F(T)` would overflow or turn subnormal.
 * @example
 * ```ts
 * import { forwardWithinDoublePrecision } from "risk-portal-lab/vol";
 * forwardWithinDoublePrecision(Math.log(5_000)); // true; false for ln F beyond ±709
 * ```
 */
export function forwardWithinDoublePrecision(lnF: number): boolean {
  const F = Math.exp(lnF);
  return F >= MIN_NORMAL && F < Infinity;
}

function strikeError(x: Float64Array, q: number, field = "strikes"): VolModelError {
  return new VolModelError(`${field}[${q}] must be a finite number > 0; got ${fmt(x[q]!)}`, {
    field,
    condition: "strike > 0",
  });
}

/**
 * A validated vol surface (vol-model.md): per-benchmark raw SVI, total-variance interpolation in maturity
 * at fixed log-forward-moneyness, log-linear forwards, and extrapolation on both ends. Maturities are
 * calendar days after `referenceDate` (`T = days / DAYS_PER_YEAR`). Build one with {@link fromSurface}.
 */
export class VolSurfaceModel implements SurfaceView {
  /** Spot reference (`spot_ref`); `F(0)`. */
  readonly spotRef: number;
  /** `reference_date`: maturities count calendar days from here. */
  readonly referenceDate: Date;
  /** Read-only raw SVI and model parameters per benchmark, in maturity order. */
  readonly benchmarks: readonly Benchmark[];
  readonly #sl: SliceArrays;
  readonly #forward: Float64Array;
  readonly #lnSpot: number;
  readonly #lastSlope: number;
  readonly #wire: WireSurface;

  /** Use {@link fromSurface}. */
  constructor(surface: SurfaceLike) {
    refuseThenables("vol.VolSurfaceModel", [surface]);
    const s = readSurface(surface);
    const n = s.maturities.length;
    const sl = sliceArrays(n);
    const forward = new Float64Array(n);
    const benchmarks: Benchmark[] = [];
    for (let i = 0; i < n; i++) {
      const maturity = s.maturities[i]!;
      const T = maturity / DAYS_PER_YEAR;
      const where = { benchmark: i, maturityDays: maturity };
      const fwdFactor = s.fwdFactors[i]!;
      const F = s.spotRef * fwdFactor;
      if (!(fwdFactor > 0) || !(F > 0 && F < Infinity)) {
        throw new VolModelError(
          `benchmark ${i} (maturity ${fmt(maturity)} d): forward F = spot_ref·benchmark_fwd_factors[${i}] must be finite and > 0; got factor ${fmt(fwdFactor)}, F = ${fmt(F)}`,
          {
            benchmark: i,
            field: "benchmark_fwd_factors",
            condition: "F > 0",
          },
        );
      }
      const params: SliceParams = {
        vol: s.vols[i]!,
        skew: s.skews[i]!,
        smile: s.smiles[i]!,
        putWing: s.putWings[i]!,
        callWing: s.callWings[i]!,
      };
      const raw = rawSvi(params, T, where);
      const vv = params.vol * params.vol;
      setSlice(sl, i, { T, lnF: Math.log(F), vv, b: raw.b, rho: raw.rho, m: raw.m, s: raw.s });
      forward[i] = F;
      benchmarks.push(
        Object.freeze({
          index: i,
          maturity,
          T,
          fwdFactor,
          forward: F,
          theta: vv * T,
          ...params,
          ...raw,
          minTotalVariance: modelMinTotalVariance(params, T),
        }),
      );
    }
    this.spotRef = s.spotRef;
    this.referenceDate = s.referenceDate;
    this.benchmarks = Object.freeze(benchmarks);
    this.#sl = sl;
    this.#forward = forward;
    this.#lnSpot = Math.log(s.spotRef);
    this.#lastSlope =
      n > 1
        ? (sl.lnF[n - 1]! - sl.lnF[n - 2]!) / (sl.T[n - 1]! - sl.T[n - 2]!)
        : (sl.lnF[0]! - this.#lnSpot) / sl.T[0]!;
    this.#wire = {
      benchmark_fwd_factors: Array.from(s.fwdFactors),
      smiles: Array.from(s.smiles),
      benchmark_maturities: Array.from(s.maturities),
      vols: Array.from(s.vols),
      call_wings: Array.from(s.callWings),
      put_wings: Array.from(s.putWings),
      skews: Array.from(s.skews),
      reference_date: s.referenceDateIso,
      spot_ref: s.spotRef,
    };
  }

  /** Benchmark maturities in days (a copy). */
  get maturities(): Float64Array {
    return Float64Array.from(this.benchmarks, (b) => b.maturity);
  }

  /**
   * Implied vols (decimal) at one maturity (days, > 0) for many strikes, the `GetVol` semantics: strikes
   * in the `strikeType` convention (0 Absolute, 1 PercentForward, 2 PercentSpot, or locally
   * `"logMoneyness"`, `"delta"` (forward call delta) or a delta convention such as
   * `{ type: "delta", kind: "put", premiumAdjusted: true, spot: { discountFactor: 0.99 } }`). `strikes` may be
   * a plain array or a Float64Array (the fast path). Throws {@link VolModelError} for a maturity that is not
   * a finite number > 0, a strike that is not finite and > 0 (log-moneyness: not finite; delta: out of its
   * range or not reached), or an unknown strike type. Never returns NaN.
   * @example
   * ```ts
   * const s = vol.fromSurface(surface);
   * s.vols(91, [80, 100, 120], STRIKE_TYPE.PercentForward); // Float64Array, as GetVol answers
   * ```
   */
  vols(maturityDays: number, strikes: ArrayLike<number>, strikeType: ModelStrikeType): Float64Array {
    const plan = this.#plan(checkMaturity(maturityDays));
    checkStrikeType(strikeType);
    const x = toFloat64(strikes, "strikes", { allowEmpty: true, finite: false });
    const out = new Float64Array(x.length);
    this.#evaluate(out, 0, x, strikeType, plan, true);
    return out;
  }

  /**
   * Vols on a grid of many maturities (days, > 0) × many strikes in one convention. Strikes given as
   * prices or percentages are logged once for the whole grid.
   * @example
   * ```ts
   * const s = vol.fromSurface(surface);
   * const grid = s.grid([30, 91, 365], [80, 100, 120], STRIKE_TYPE.PercentForward);
   * plot.show(plot.volSmiles(grid));
   * ```
   */
  grid(maturitiesDays: ArrayLike<number>, strikes: ArrayLike<number>, strikeType: ModelStrikeType): VolGrid {
    checkStrikeType(strikeType);
    const mats = toFloat64(maturitiesDays, "maturities", { allowEmpty: true, finite: false }).slice();
    for (let i = 0; i < mats.length; i++) checkMaturity(mats[i], `maturities[${i}]`);
    const x = toFloat64(strikes, "strikes", { allowEmpty: true, finite: false }).slice();
    const n = x.length;
    const vols = new Float64Array(mats.length * n);
    const shiftable = logShift(strikeType, 0, 0) !== undefined;
    let lx = x;
    if (shiftable) {
      lx = new Float64Array(n);
      for (let q = 0; q < n; q++) {
        const K = x[q]!;
        if (!(K > 0 && K < Infinity)) throw strikeError(x, q);
        lx[q] = Math.log(K);
      }
    }
    for (let i = 0; i < mats.length; i++) {
      const plan = this.#plan(mats[i]!);
      if (shiftable)
        noNaN(evaluate(vols, i * n, lx, n, logShift(strikeType, plan.lnF, this.#lnSpot)!, this.#sl, plan, true));
      else this.#evaluate(vols, i * n, x, strikeType, plan, true);
    }
    return { maturities: mats, strikes: x, strikeType, vols };
  }

  /**
   * Total implied variance `w(k, T) = σ²·T` at one maturity (days, > 0) for log-forward-moneyness values
   * `k` (finite, |k| ≤ {@link LOG_MONEYNESS_LIMIT}).
   * @example
   * ```ts
   * const s = vol.fromSurface(surface);
   * s.totalVariance(91, [-0.1, 0, 0.1]); // w(k) = σ²T at log-moneyness k
   * ```
   */
  totalVariance(maturityDays: number, k: ArrayLike<number>): Float64Array {
    const plan = this.#plan(checkMaturity(maturityDays));
    const x = toFloat64(k, "k", { allowEmpty: true, finite: false });
    for (let q = 0; q < x.length; q++) checkK(x, q, "k");
    const out = new Float64Array(x.length);
    noNaN(evaluate(out, 0, x, x.length, 0, this.#sl, plan, false));
    return out;
  }

  /**
   * The forward `F(T)` at a maturity in days (> 0): `ln F` is piecewise linear in T through
   * `(0, ln spot_ref)` and the benchmarks, continued beyond the last with the last segment's slope.
   * Exactly `spot_ref · benchmark_fwd_factors[i]` at a benchmark maturity.
   * @example
   * ```ts
   * const s = vol.fromSurface(surface);
   * s.forward(91);
   * ```
   */
  forward(maturityDays: number): number {
    const plan = this.#plan(checkMaturity(maturityDays));
    return plan.exactNode >= 0 ? this.#forward[plan.exactNode]! : Math.exp(plan.lnF);
  }

  /**
   * Log-forward-moneyness `k = ln(K / F(T))` of strikes in any convention, at one maturity (days).
   * @example
   * ```ts
   * const s = vol.fromSurface(surface);
   * s.logMoneyness(91, [90, 100, 110], STRIKE_TYPE.PercentForward); // ln(K/F)
   * ```
   */
  logMoneyness(maturityDays: number, strikes: ArrayLike<number>, strikeType: ModelStrikeType): Float64Array {
    const plan = this.#plan(checkMaturity(maturityDays));
    checkStrikeType(strikeType);
    const x = toFloat64(strikes, "strikes", { allowEmpty: true, finite: false });
    return this.#logMoneyness(x, strikeType, plan);
  }

  /**
   * Absolute strikes `K = F(T)·e^k` (prices) of strikes in any convention, at one maturity (days). Absolute strikes come back unchanged.
   * @example
   * ```ts
   * const s = vol.fromSurface(surface);
   * s.absoluteStrikes(91, [90, 100, 110], STRIKE_TYPE.PercentForward); // prices
   * ```
   */
  absoluteStrikes(maturityDays: number, strikes: ArrayLike<number>, strikeType: ModelStrikeType): Float64Array {
    const plan = this.#plan(checkMaturity(maturityDays));
    checkStrikeType(strikeType);
    const x = toFloat64(strikes, "strikes", { allowEmpty: true, finite: false });
    const k = this.#logMoneyness(x, strikeType, plan);
    if (strikeType === STRIKE_TYPE.Absolute) return Float64Array.from(x);
    for (let q = 0; q < k.length; q++) {
      const K = Math.exp(plan.lnF + k[q]!);
      if (!(K > 0 && K < Infinity)) {
        throw new VolModelError(
          `strikes[${q}]: log-moneyness ${fmt(k[q]!)} gives a strike outside double precision (K = F·e^k = exp(${fmt(plan.lnF + k[q]!)}))`,
          { field: "strikes", condition: "finite strike" },
        );
      }
      k[q] = K;
    }
    return k;
  }

  /**
   * Black forward call delta `N(d1)`, `d1 = −k/sqrt(w) + sqrt(w)/2` with the model's own total variance
   * `w(k, T)` (not premium-adjusted), of strikes in any convention at one maturity (days).
   * @example
   * ```ts
   * const s = vol.fromSurface(surface);
   * s.callDelta(91, [90, 100, 110], STRIKE_TYPE.PercentForward);
   * ```
   */
  callDelta(maturityDays: number, strikes: ArrayLike<number>, strikeType: ModelStrikeType): Float64Array {
    const plan = this.#plan(checkMaturity(maturityDays));
    checkStrikeType(strikeType);
    const x = toFloat64(strikes, "strikes", { allowEmpty: true, finite: false });
    const k = this.#logMoneyness(x, strikeType, plan);
    const w = new Float64Array(k.length);
    noNaN(evaluate(w, 0, k, k.length, 0, this.#sl, plan, false));
    for (let q = 0; q < k.length; q++) k[q] = deltaFromK(k[q]!, w[q]!, FORWARD_CALL_DELTA);
    return k;
  }

  /**
   * Black-76 prices and sticky-strike greeks of European options at one maturity (days), each strike at
   * this surface's vol: {@link priceOptions} on this model.
   *
   * @example
   * ```ts
   * s.price(91, [90, 100, 110], STRIKE_TYPE.PercentForward, { kind: "put", discountFactor: 0.99 }).price;
   * ```
   */
  price(
    maturityDays: number,
    strikes: ArrayLike<number>,
    strikeType: ModelStrikeType,
    options: PriceOptionsOptions,
  ): OptionPrices {
    return priceOptions(this, maturityDays, strikes, strikeType, options);
  }

  /**
   * The risk-neutral density of the terminal price at one maturity (days): {@link impliedDensity} on this model.
   * @example
   * ```ts
   * const s = vol.fromSurface(surface);
   * const { density } = s.density(91, [90, 100, 110], STRIKE_TYPE.PercentForward);
   * ```
   */
  density(maturityDays: number, strikes: ArrayLike<number>, strikeType: ModelStrikeType): ImpliedDensity {
    return impliedDensity(this, maturityDays, strikes, strikeType);
  }

  /**
   * Dupire local vol at one maturity (days): {@link localVol} on this model.
   * @example
   * ```ts
   * const s = vol.fromSurface(surface);
   * s.localVol(91, [90, 100, 110], STRIKE_TYPE.PercentForward);
   * ```
   */
  localVol(
    maturityDays: number,
    strikes: ArrayLike<number>,
    strikeType: ModelStrikeType,
    options: LocalVolOptions = {},
  ): LocalVol {
    return localVol(this, maturityDays, strikes, strikeType, options);
  }

  /**
   * The surface in wire form (plain arrays, ISO `reference_date`), as validated: what `GetVol` takes as `surface`.
   * @example
   * ```ts
   * const s = vol.fromSurface(surface);
   * const again = vol.fromSurface(JSON.parse(JSON.stringify(s))); // the wire surface GetVol takes
   * ```
   */
  toJSON(): WireSurface {
    const w = this.#wire;
    return {
      benchmark_fwd_factors: [...w.benchmark_fwd_factors],
      smiles: [...w.smiles],
      benchmark_maturities: [...w.benchmark_maturities],
      vols: [...w.vols],
      call_wings: [...w.call_wings],
      put_wings: [...w.put_wings],
      skews: [...w.skews],
      reference_date: w.reference_date,
      spot_ref: w.spot_ref,
    };
  }

  #logMoneyness(x: Float64Array, strikeType: ModelStrikeType, plan: Plan): Float64Array {
    const n = x.length;
    const k = new Float64Array(n);
    const shift = logShift(strikeType, plan.lnF, this.#lnSpot);
    if (shift !== undefined) {
      for (let q = 0; q < n; q++) {
        const K = x[q]!;
        if (!(K > 0 && K < Infinity)) throw strikeError(x, q);
        k[q] = Math.log(K) + shift;
      }
    } else if (strikeType !== "logMoneyness") {
      const convention = deltaConvention(strikeType);
      for (let q = 0; q < n; q++) k[q] = kFromDelta(x[q]!, this.#sl, plan, q, convention);
    } else {
      for (let q = 0; q < n; q++) checkK(x, q, "strikes");
      k.set(x);
    }
    return k;
  }

  #evaluate(
    out: Float64Array,
    offset: number,
    x: Float64Array,
    strikeType: ModelStrikeType,
    plan: Plan,
    asVol: boolean,
  ): void {
    const shift = logShift(strikeType, plan.lnF, this.#lnSpot);
    if (shift !== undefined && offset === 0 && asVol) {
      const bad = volsFromStrikes(out, x, x.length, shift, this.#sl, plan);
      if (bad >= 0) throw strikeError(x, bad);
      noNaN(bad === -1);
      return;
    }
    const k = this.#logMoneyness(x, strikeType, plan);
    noNaN(evaluate(out, offset, k, k.length, 0, this.#sl, plan, asVol));
  }

  /**
   * Everything that depends on the maturity alone (see {@link MaturityPlan}). The forward must be a normal
   * finite double ({@link forwardWithinDoublePrecision}): only an absurd maturity with a steep forward curve
   * breaks this.
   */
  #plan(maturityDays: number): Plan {
    const plan = this.#planUnchecked(maturityDays);
    if (!forwardWithinDoublePrecision(plan.lnF)) {
      throw new VolModelError(
        `maturity ${fmt(maturityDays)} d is too far out: the forward F(T) = exp(${fmt(plan.lnF)}) is outside double precision (a normal double)`,
        {
          field: "maturity",
          condition: "finite forward",
        },
      );
    }
    return plan;
  }

  #planUnchecked(maturityDays: number): Plan {
    const sl = this.#sl;
    const Ts = sl.T;
    const n = Ts.length;
    const T = maturityDays / DAYS_PER_YEAR;
    const T0 = Ts[0]!;
    const Tn = Ts[n - 1]!;
    const plan: Plan = { T, lnF: 0, i: 0, j: 0, A: 1, B: 0, C: 0, twoSlices: false, exactNode: -1 };
    if (T <= T0) {
      // w = (T/T_1)·w_1(k): the implied variance of benchmark 1, unscaled.
      if (T === T0) {
        plan.exactNode = 0;
        plan.lnF = sl.lnF[0]!;
      } else {
        plan.lnF = this.#lnSpot + (sl.lnF[0]! - this.#lnSpot) * (T / T0);
      }
      return plan;
    }
    if (T >= Tn) {
      // w = w_n(k) + theta_n·(T/T_n − 1): flat ATM vol, wing slopes kept.
      plan.i = plan.j = n - 1;
      if (T === Tn) {
        plan.exactNode = n - 1;
        plan.lnF = sl.lnF[n - 1]!;
      } else {
        const r = Tn / T;
        plan.A = r;
        plan.C = sl.vv[n - 1]! * (1 - r);
        plan.lnF = sl.lnF[n - 1]! + this.#lastSlope * (T - Tn);
      }
      return plan;
    }
    // T_0 < T < T_n: the last i with T_i <= T.
    let lo = 0;
    let hi = n - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (Ts[mid]! <= T) lo = mid;
      else hi = mid;
    }
    plan.i = plan.j = lo;
    if (T === Ts[lo]) {
      plan.exactNode = lo;
      plan.lnF = sl.lnF[lo]!;
      return plan;
    }
    const Ti = Ts[lo]!;
    const Tj = Ts[hi]!;
    const x = (T - Ti) / (Tj - Ti);
    plan.j = hi;
    plan.twoSlices = true;
    plan.A = ((1 - x) * Ti) / T;
    plan.B = (x * Tj) / T;
    plan.lnF = sl.lnF[lo]! + x * (sl.lnF[hi]! - sl.lnF[lo]!);
    return plan;
  }
}

interface Plan extends MaturityPlan {
  /** The benchmark index when T is exactly a benchmark maturity, else −1. */
  exactNode: number;
}

/**
 * Builds the local model from a `GetVol` surface, validating it once: the wire JSON (`reference_date` an
 * ISO string or a `Date`; arrays `number[]` or `Float64Array`). Throws {@link VolModelError} naming the
 * field, the benchmark index and its maturity, and the failed condition of vol-model.md.
 *
 * @example
 * ```ts
 * const s = vol.fromSurface(surface);
 * s.vols(90, [80, 100, 120], STRIKE_TYPE.PercentForward); // Float64Array of decimal vols
 * ```
 */
export function fromSurface(surface: SurfaceLike | VolSurfaceModel): VolSurfaceModel {
  return surface instanceof VolSurfaceModel ? surface : new VolSurfaceModel(surface);
}
