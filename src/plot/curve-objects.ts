/** Curve objects (`curves.Curve`) from whatever a curve chart takes: Curves, RateAsset responses, or a long yield-curve table. */
import type { RateAssetResponse } from "../api/rate-asset";
import { Curve, fromResponse, type CurveOptions } from "../curves/curve";
import { readCurves, type CurveInput } from "./curves";

/** Curves, RateAsset responses (one per currency × market date), or a long yield-curve table of them. */
export type CurveObjectsInput = CurveInput | readonly (Curve | RateAssetResponse)[];

export function isCurveLike(v: unknown): v is Curve | RateAssetResponse {
  return v instanceof Curve || (typeof v === "object" && v !== null && "yield_curve_model" in v);
}

/**
 * One `Curve` per currency × market date of the input; those made here with `options` (interpolation,
 * calendar, roll, spot lag), the Curves given kept as they are.
 */
export function curveObjects(input: CurveObjectsInput, caller: string, options: CurveOptions = {}): Curve[] {
  const { interpolation, calendar, roll, spotLag } = options;
  const own: CurveOptions = { interpolation, calendar, roll, spotLag };
  if (Array.isArray(input) && input.length > 0 && input.every(isCurveLike))
    return input.map((c: Curve | RateAssetResponse) => (c instanceof Curve ? c : fromResponse(c, own)));
  const table = readCurves(input as CurveInput, caller);
  return table.curves.map(
    (c) =>
      new Curve(
        c.currency,
        new Date(c.marketDate),
        c.rows.map((i) => ({ t: table.maturity[i]!, rate: table.value[i]!, expiry: null, instrument: null })),
        own,
      ),
  );
}
