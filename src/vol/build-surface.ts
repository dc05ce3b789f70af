/**
 * `buildSurface`: a valid `GetVol` surface from a few numbers (ATM term structure plus skew, smile and
 * wings), for notebooks and tests.
 */
import { DAYS_PER_YEAR } from "../api/assumptions";
import { dateTimeInput } from "../api/common";
import { namedDateProblem } from "../api/field-messages";
import { VolModelError } from "./errors";
import { fromSurface, type WireSurface } from "./surface";
import { toFloat64 } from "./surface-input";

/** A number for every benchmark, or one number for all of them. */
export type PerBenchmark = number | ArrayLike<number>;

/** Inputs of {@link buildSurface}. Scalars apply to every benchmark; arrays give one value per benchmark. */
export interface BuildSurfaceOptions {
  /** Spot reference `spot_ref` (> 0). */
  spot: number;
  /** Reference date: a `Date`, an ISO 8601 date-time with an offset, or `YYYY-MM-DD` (midnight UTC). */
  referenceDate: Date | string;
  /** Benchmark maturities in calendar days after the reference date, strictly increasing. */
  maturities: ArrayLike<number>;
  /** ATM-forward vols, decimal (0.2 = 20%). */
  atmVols: PerBenchmark;
  /**
   * Continuously compounded forward drift per year (rate − dividend yield, decimal):
   * `benchmark_fwd_factors[i] = exp(forwardRate · T_i)`. Default 0. Give this or `fwdFactors`, not both.
   */
  forwardRate?: number;
  /** Forward factors `F_i / spot` per benchmark (> 0). */
  fwdFactors?: PerBenchmark;
  /** Skew `psi = sqrt(T)·dσ/dk` at the money. Default 0 (symmetric smile). */
  skew?: PerBenchmark;
  /** Smile `kappa = sqrt(T)·d²σ/dk²` at the money. Default 0.5. */
  smile?: PerBenchmark;
  /** Put wing `p` (slope of total variance as k → −∞, in units of sqrt(theta)). Default 1. */
  putWing?: PerBenchmark;
  /** Call wing `c` (slope of total variance as k → +∞, in units of sqrt(theta)). Default 1. */
  callWing?: PerBenchmark;
}

/** Defaults of {@link buildSurface}: a symmetric smile, free of butterfly and calendar arbitrage for ATM vols up to about 100% and maturities up to a few years. */
export const BUILD_DEFAULTS = Object.freeze({ forwardRate: 0, skew: 0, smile: 0.5, putWing: 1, callWing: 1 });

function broadcast(value: PerBenchmark, n: number, field: string): number[] {
  if (typeof value === "number") {
    if (!Number.isFinite(value))
      throw new VolModelError(`${field} must be a finite number; got ${value}`, { field, condition: "finite" });
    return new Array<number>(n).fill(value);
  }
  const a = toFloat64(value, field, { perBenchmark: true });
  if (a.length !== n)
    throw new VolModelError(
      `${field} has ${a.length} values but maturities has ${n}; give one per benchmark or a single number`,
      {
        field,
        condition: "same length",
      },
    );
  return Array.from(a);
}

/**
 * Builds a `surface` for `GetVol` and the local model (plain number arrays, ISO `reference_date`) and
 * validates it with {@link fromSurface}, so what comes back is always valid; otherwise throws
 * {@link VolModelError} naming the benchmark and condition.
 *
 * @example
 * ```ts
 * const surface = vol.buildSurface({ spot: 100, referenceDate: "2026-11-20", maturities: [30, 91, 182, 365],
 *   atmVols: [0.24, 0.22, 0.21, 0.2], forwardRate: 0.03, skew: -0.15, smile: 0.4, putWing: 1.1, callWing: 0.6 });
 * ```
 */
export function buildSurface(options: BuildSurfaceOptions): WireSurface {
  if (!options || typeof options !== "object")
    throw new VolModelError("options are required: { spot, referenceDate, maturities, atmVols }", {
      field: "options",
      condition: "present",
    });
  const maturities = Array.from(toFloat64(options.maturities, "maturities", { perBenchmark: true }));
  const n = maturities.length;
  if (options.forwardRate !== undefined && options.fwdFactors !== undefined) {
    throw new VolModelError("give forwardRate or fwdFactors, not both", {
      field: "fwdFactors",
      condition: "one forward input",
    });
  }
  const rate = options.forwardRate ?? BUILD_DEFAULTS.forwardRate;
  if (!Number.isFinite(rate))
    throw new VolModelError(`forwardRate must be a finite number; got ${rate}`, {
      field: "forwardRate",
      condition: "finite",
    });
  const fwdFactors =
    options.fwdFactors !== undefined
      ? broadcast(options.fwdFactors, n, "fwdFactors")
      : maturities.map((d) => Math.exp((rate * d) / DAYS_PER_YEAR));
  const date = dateTimeInput.safeParse(options.referenceDate);
  if (!date.success) {
    const why = namedDateProblem(options.referenceDate);
    throw new VolModelError(
      why
        ? `referenceDate: ${why}`
        : `referenceDate must be a Date or an ISO 8601 date-time with an offset (or YYYY-MM-DD); got ${JSON.stringify(options.referenceDate)}`,
      {
        field: "referenceDate",
        condition: "date-time",
      },
    );
  }
  const surface: WireSurface = {
    benchmark_fwd_factors: fwdFactors,
    smiles: broadcast(options.smile ?? BUILD_DEFAULTS.smile, n, "smile"),
    benchmark_maturities: maturities,
    vols: broadcast(options.atmVols, n, "atmVols"),
    call_wings: broadcast(options.callWing ?? BUILD_DEFAULTS.callWing, n, "callWing"),
    put_wings: broadcast(options.putWing ?? BUILD_DEFAULTS.putWing, n, "putWing"),
    skews: broadcast(options.skew ?? BUILD_DEFAULTS.skew, n, "skew"),
    reference_date: date.data,
    spot_ref: options.spot,
  };
  fromSurface(surface);
  return surface;
}
