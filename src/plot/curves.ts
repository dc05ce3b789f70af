/**
 * Shared reading of yield-curve tables (frames.yieldCurve / fetchYieldCurves): the curves in a table, one
 * per currency × market date, each with its points sorted by maturity, and linear interpolation on them.
 */
import type { RateAssetResponse } from "../api/rate-asset";
import { linearAt } from "../curves/linear";
import { concatColumns } from "../table/concat";
import { yieldCurveColumns } from "../frames/yield-curve";
import {
  columnsOf,
  groupBy,
  isTableInput,
  numbers,
  plotDate,
  texts,
  times,
  type Columns,
  type TableInput,
} from "./input";

/** What the curve builders take: a yield-curve table or frame (one or many curves), or `RateAsset` response(s). */
export type CurveInput = TableInput | RateAssetResponse | readonly RateAssetResponse[];

/** One curve of a table. */
export interface CurveRows {
  currency: string;
  /** Epoch ms of the market date (NaN when missing). */
  marketDate: number;
  /** `USD 2026-11-20`. */
  label: string;
  /** Row indices, by ascending maturity. */
  rows: number[];
}

export interface CurveTable {
  view: Columns;
  maturity: number[];
  value: number[];
  curves: CurveRows[];
  currencies: string[];
  marketDates: number[];
}

function isResponse(v: unknown): v is RateAssetResponse {
  return typeof v === "object" && v !== null && "yield_curve_model" in v;
}

/** The curves of `input`, reading `value` (default `rate`) against `maturity`. */
export function readCurves(input: CurveInput, caller: string, value = "rate"): CurveTable {
  let view: Columns;
  if (isResponse(input)) view = columnsOf(yieldCurveColumns(input), caller);
  else if (Array.isArray(input) && input.every(isResponse))
    view = columnsOf(
      concatColumns(
        input.map((r) => yieldCurveColumns(r)),
        "RateAsset",
      ),
      caller,
    );
  else if (isTableInput(input)) view = columnsOf(input, caller);
  else
    throw new TypeError(
      `${caller} expects a yield-curve table or DataFrame (frames.yieldCurve / fetchYieldCurves), or RateAsset response(s)`,
    );

  const maturity = numbers(view, "maturity");
  const values = numbers(view, value);
  const currency = view.has("currency") ? texts(view, "currency") : new Array<string | null>(view.rowCount).fill(null);
  const dates = view.has("market_date") ? times(view, "market_date") : new Array<number>(view.rowCount).fill(NaN);
  const groups = groupBy(view.rowCount, (i) => `${currency[i] ?? ""}\u0000${dates[i]}`);
  const curves: CurveRows[] = [];
  for (const rows of groups.values()) {
    const first = rows[0]!;
    const ccy = currency[first] ?? "";
    const date = dates[first]!;
    rows.sort((a, b) => maturity[a]! - maturity[b]!);
    const label = [ccy, plotDate(date) ?? ""].filter(Boolean).join(" ") || "curve";
    curves.push({ currency: ccy, marketDate: date, label, rows: rows.filter((i) => Number.isFinite(maturity[i]!)) });
  }
  const currencies = [...new Set(curves.map((c) => c.currency))];
  const marketDates = [...new Set(curves.map((c) => c.marketDate))].sort((a, b) => a - b);
  return { view, maturity, value: values, curves, currencies, marketDates };
}

/**
 * Linear interpolation of `ys` over ascending `xs` at `x`; `NaN` outside [first, last] (no
 * extrapolation: a gap says the curve does not reach that tenor) or when a neighbour is missing.
 */
export function interpolate(xs: readonly number[], ys: readonly number[], x: number): number {
  return linearAt(xs, ys, x, "none");
}

/** The value of `curve` at each tenor (years), by linear interpolation in maturity. */
export function curveAt(table: CurveTable, curve: CurveRows, tenors: readonly number[]): number[] {
  const rows = curve.rows.filter((i) => Number.isFinite(table.value[i]!));
  const xs = rows.map((i) => table.maturity[i]!);
  const ys = rows.map((i) => table.value[i]!);
  return tenors.map((t) => interpolate(xs, ys, t));
}

/** Axis title and hover format of a curve value column. */
export function valueAxis(value: string): { title: string; tickformat: string; hover: string } {
  switch (value) {
    case "discount_factor":
      return { title: "Discount factor", tickformat: ".3f", hover: ".5f" };
    case "forward_rate":
      return { title: "Forward rate (%, cont. comp.)", tickformat: ".2%", hover: ".3%" };
    case "rate":
      return { title: "Zero rate (%, cont. comp.)", tickformat: ".2%", hover: ".3%" };
    default:
      return { title: value, tickformat: "", hover: "" };
  }
}
