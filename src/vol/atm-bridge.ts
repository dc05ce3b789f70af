/**
 * From an `UploadEquityVolCurves` curve (ATM vols by maturity, A8) to a `GetVol` surface for the local
 * model: the curve gives the maturities, ATM vols and spot, {@link buildSurface} the rest (forwards, skew,
 * smile, wings).
 */
import { DAYS_PER_YEAR } from "../api/assumptions";
import type { IdentifierInput } from "../api/common";
import type { EquityVolCurveInput } from "../api/market-data";
import { buildSurface, type BuildSurfaceOptions } from "./build-surface";
import { VolModelError, fmt } from "./errors";
import type { WireSurface } from "./surface";
import { toFloat64 } from "./surface-input";

/**
 * The fields of an equity vol curve the bridge reads, in wire form (`EquityVolCurve`, as
 * `frames.equityVolCurveRecords` returns it) or input form (`Date`, `Float64Array`). `asset_id` only names
 * the curve in errors.
 */
export type EquityVolCurveLike = Pick<EquityVolCurveInput, "reference_date" | "maturities" | "vols"> & {
  spot_ref?: number | null;
  asset_id?: Partial<IdentifierInput> | null;
};

/**
 * Options of {@link surfaceFromEquityVolCurve}: what the curve does not carry, as {@link buildSurface} takes
 * them (forward drift or factors, skew, smile, wings; scalars apply to every maturity, defaults
 * `BUILD_DEFAULTS`), and a `spot` (> 0) that replaces the curve's `spot_ref`.
 */
export type SurfaceFromEquityVolCurveOptions = Omit<
  BuildSurfaceOptions,
  "spot" | "referenceDate" | "maturities" | "atmVols"
> & { spot?: number };

/**
 * Slack of the ATM calendar check, in total variance: `theta_i` may fall below `theta_{i−1}` by this much
 * (rounding of vols quoted to a few digits), no more. The same default as `diagnose`.
 */
export const ATM_CALENDAR_TOLERANCE = 1e-12;

function curveName(curve: EquityVolCurveLike): string {
  const id = curve.asset_id;
  if (!id || typeof id.code !== "string") return "";
  return `curve ${id.code}${id.market_identification_code ? `/${id.market_identification_code}` : ""}: `;
}

type Bad = (message: string, field: string, condition: string, benchmark?: number) => never;

/** An equity vol curve's maturities: > 0 days and strictly increasing. */
function checkCurveMaturities(maturities: Float64Array, bad: Bad): void {
  maturities.forEach((d, i) => {
    if (!(d > 0))
      bad(`maturities[${i}] must be > 0 days after reference_date; got ${fmt(d)}`, "maturities", "maturity > 0", i);
    if (i > 0) {
      const prev = maturities[i - 1]!;
      if (d === prev)
        bad(
          `maturities[${i}] = ${fmt(d)} d repeats maturities[${i - 1}]; one vol per maturity`,
          "maturities",
          "strictly increasing",
          i,
        );
      if (d < prev) {
        bad(
          `maturities[${i}] = ${fmt(d)} d comes before maturities[${i - 1}] = ${fmt(prev)} d; sort the curve by maturity`,
          "maturities",
          "strictly increasing",
          i,
        );
      }
    }
  });
}

/** No calendar arbitrage at the money: vol²·T must not fall with maturity. */
function checkAtmCalendar(maturities: Float64Array, vols: Float64Array, bad: Bad): void {
  for (let i = 1; i < maturities.length; i++) {
    const [d0, d1] = [maturities[i - 1]!, maturities[i]!];
    const theta0 = (vols[i - 1]! * vols[i - 1]! * d0) / DAYS_PER_YEAR;
    const theta1 = (vols[i]! * vols[i]! * d1) / DAYS_PER_YEAR;
    if (theta1 - theta0 < -ATM_CALENDAR_TOLERANCE) {
      bad(
        `calendar arbitrage at the money: the ATM total variance falls from ${fmt(theta0)} at ${fmt(d0)} d (vols[${i - 1}] = ${fmt(vols[i - 1]!)}) ` +
          `to ${fmt(theta1)} at ${fmt(d1)} d (vols[${i}] = ${fmt(vols[i]!)}); vol²·T must not fall with maturity ` +
          `(vols[${i}] must be >= ${fmt(Math.sqrt(theta0 / (d1 / DAYS_PER_YEAR)))}). To build the surface anyway, call buildSurface directly`,
        "vols",
        "vols[i]²·T_i >= vols[i-1]²·T_(i-1)",
        i,
      );
    }
  }
}

/**
 * The surface of an equity vol curve: {@link buildSurface} with the curve's maturities (days) and ATM vols,
 * the curve's `spot_ref` (or `options.spot`), `reference_date`, and the forward and shape options, each
 * defaulting to `BUILD_DEFAULTS` (no drift, skew 0, smile 0.5, wings 1). Returns the wire surface, valid for
 * `fromSurface`, `diagnose` and `GetVol`.
 *
 * Checks, each a {@link VolModelError} naming the field, the index (as `benchmark`) and the condition:
 * - `maturities` finite, > 0 and strictly increasing (an unsorted or repeated maturity names both indices);
 *   `vols` finite, > 0, one per maturity;
 * - a spot: `options.spot`, else the curve's `spot_ref` (field `spot_ref` when there is neither);
 * - no calendar arbitrage at the money: the ATM total variance `theta_i = vols[i]²·maturities[i]/365` must
 *   not fall with maturity (beyond {@link ATM_CALENDAR_TOLERANCE}). Thrown, not returned as a warning: at
 *   k = 0 every benchmark's total variance is its `theta_i` whatever the skew, smile and wings, so no
 *   option can repair it; it is a property of the curve. The message names both maturities and variances.
 *   To build such a surface anyway (to reproduce the service, say), call `buildSurface` directly; `diagnose`
 *   then reports the calendar violations.
 * Anything else (a skew or wing the model cannot take) is buildSurface's error.
 *
 * @example
 * ```ts
 * const { curves } = frames.equityVolCurveRecords({ csvFile: "vols.csv" });
 * const surface = vol.surfaceFromEquityVolCurve(curves[0], { forwardRate: 0.03, skew: -0.15, putWing: 1.2, callWing: 0.6 });
 * const grid = vol.fromSurface(surface).grid([30, 91, 365], [80, 90, 100, 110, 120], STRIKE_TYPE.PercentForward);
 * ```
 */
export function surfaceFromEquityVolCurve(
  curve: EquityVolCurveLike,
  options: SurfaceFromEquityVolCurveOptions = {},
): WireSurface {
  if (!curve || typeof curve !== "object") {
    throw new VolModelError(
      `an equity vol curve is required: { reference_date, maturities, vols, spot_ref? }; got ${curve === null ? "null" : typeof curve}`,
      {
        field: "curve",
        condition: "present",
      },
    );
  }
  const name = curveName(curve);
  const bad = (message: string, field: string, condition: string, benchmark?: number): never => {
    throw new VolModelError(`${name}${message}`, { field, condition, benchmark });
  };
  const maturities = toFloat64(curve.maturities, "maturities", { perBenchmark: true });
  const vols = toFloat64(curve.vols, "vols", { perBenchmark: true });
  if (vols.length !== maturities.length) {
    bad(
      `vols has ${vols.length} values but maturities has ${maturities.length}; give one vol per maturity`,
      "vols",
      "same length",
    );
  }
  checkCurveMaturities(maturities, bad);
  vols.forEach((v, i) => {
    if (!(v > 0)) bad(`vols[${i}] must be > 0 (decimal, 0.2 = 20%); got ${fmt(v)}`, "vols", "vol > 0", i);
  });

  const spotGiven = options.spot !== undefined;
  const spot = spotGiven ? options.spot : (curve.spot_ref ?? undefined);
  if (spot === undefined) bad("the curve has no spot_ref; give options.spot", "spot_ref", "spot_ref or options.spot");
  if (typeof spot !== "number" || !Number.isFinite(spot) || !(spot > 0)) {
    bad(
      `${spotGiven ? "spot" : "spot_ref"} must be a finite number > 0; got ${typeof spot === "number" ? fmt(spot) : JSON.stringify(spot)}`,
      spotGiven ? "spot" : "spot_ref",
      "spot > 0",
    );
  }

  checkAtmCalendar(maturities, vols, bad);

  const { spot: _, ...shape } = options;
  return buildSurface({
    ...shape,
    spot: spot as number,
    referenceDate: curve.reference_date,
    maturities: Array.from(maturities),
    atmVols: Array.from(vols),
  });
}
