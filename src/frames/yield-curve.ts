/** The discount curve of `RateAsset` (operation 4) as a frame, one row per curve point. */
import type { DataFrame } from "../../vendor/danfo";
import type { RateAssetResponse, YieldCurveModel } from "../api/rate-asset";
import { isRecord } from "../api/operation";
import { finishColumn, type ColumnTable } from "../table/column-table";
import { curveMeasures, DEFAULT_COMPOUNDING, type Compounding } from "../curves/compounding";
import { toDataFrame } from "./danfo";
import { parseIsoDate } from "../table/iso-date";
import { provenanceFrom } from "./provenance";
import { withDateWarnings } from "./answered-dates";
import { otherFields, tableFromRecords } from "./records";

export interface YieldCurveOptions {
  /** Add `discount_factor` and `forward_rate` (between consecutive maturities). Default false. */
  derived?: boolean;
  /** How `rate` compounds, for the derived columns. Default `continuous` (the service's convention). */
  compounding?: Compounding;
}

/** The columns, in order; `maturity` is in years, `rate` decimal. */
export const YIELD_CURVE_COLUMNS = [
  "currency",
  "market_date",
  "maturity",
  "rate",
  "fitted_instrument_name",
  "expiry",
  "fitted_instrument_rate",
] as const;

const SOURCE = "RateAsset";

/**
 * A yield curve as a column table: `currency, market_date, maturity, rate, fitted_instrument_name,
 * expiry, fitted_instrument_rate` (dates as `Date`), any extra point fields, and with `derived`,
 * `discount_factor` and `forward_rate` under `compounding`. Takes the `RateAsset` response or its
 * `yield_curve_model`; `$type` and `latest_market_date` go to `meta.fields`, the response's provenance
 * to `meta.provenance` (none when given the `yield_curve_model` alone). A response for another market date than
 * its request asked for (a weekend, a holiday, a date after the data) carries a warning naming both dates.
 * @example
 * ```ts
 * const table = frames.yieldCurveColumns(await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" }));
 * table.rowCount; table.columns; // no danfo loaded
 * ```
 */
export function yieldCurveColumns(
  response: RateAssetResponse | YieldCurveModel,
  options: YieldCurveOptions = {},
): ColumnTable {
  const model = (
    isRecord(response) && "yield_curve_model" in response ? response.yield_curve_model : response
  ) as YieldCurveModel;
  const fields = {
    ...otherFields(response, ["yield_curve_model"]),
    ...otherFields(model, ["data", "currency", "market_date"]),
  };
  const points = Array.isArray(model.data) ? model.data : [];
  const marketDate = typeof model.market_date === "string" ? parseIsoDate(model.market_date) : NaN;
  const table = tableFromRecords(
    points,
    [
      { name: "currency", hint: "string", get: () => model.currency ?? null },
      {
        name: "market_date",
        hint: "date",
        get: () => (Number.isNaN(marketDate) ? (model.market_date ?? null) : new Date(marketDate)),
      },
      { name: "maturity", hint: "number" },
      { name: "rate", hint: "number" },
      { name: "fitted_instrument_name", hint: "string" },
      { name: "expiry", hint: "date" },
      { name: "fitted_instrument_rate", hint: "number" },
    ],
    { source: SOURCE, fields, provenance: provenanceFrom(response) },
  );
  // A curve of another date than asked (a Saturday answered with Friday's) says so (A23).
  withDateWarnings(table, response);
  if (options.derived) addCurveMeasures(table, options.compounding ?? DEFAULT_COMPOUNDING);
  return table;
}

/**
 * A yield curve as a danfo DataFrame (see {@link yieldCurveColumns}).
 *
 * @example
 * ```ts
 * const df = frames.yieldCurve(await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" }), { derived: true });
 * ```
 */
export function yieldCurve(response: RateAssetResponse | YieldCurveModel, options: YieldCurveOptions = {}): DataFrame {
  return toDataFrame(yieldCurveColumns(response, options));
}

/** Appends `discount_factor` and `forward_rate` to a one-curve table (or says why it cannot). */
function addCurveMeasures(table: ColumnTable, compounding: Compounding): void {
  const numeric = table.kinds.maturity === "number" && table.kinds.rate === "number";
  const maturities = numeric ? (table.data.maturity as number[]) : [];
  const rates = numeric ? (table.data.rate as number[]) : [];
  const m = curveMeasures(maturities, rates, compounding);
  if (!numeric && table.rowCount > 0)
    table.meta.warnings.push({
      message: "maturity and rate are not both numeric: discount_factor and forward_rate are missing",
    });
  const pad = (values: number[]) => (numeric ? values : new Array<number>(table.rowCount).fill(NaN));
  for (const [name, values] of [
    ["discount_factor", pad(m.discountFactors)],
    ["forward_rate", pad(m.forwardRates)],
  ] as const) {
    if (Object.hasOwn(table.data, name)) {
      table.meta.warnings.push({
        column: name,
        message: `the curve points already have a "${name}" field: it is kept and the derived column is not added`,
      });
      continue;
    }
    const done = finishColumn(name, values, { hint: "number", owned: true });
    table.columns.push(name);
    table.data[name] = done.values;
    table.kinds[name] = done.kind;
    table.meta.missing[name] = done.missing;
  }
  table.meta.warnings.push(...m.problems.map((message) => ({ message })));
}
