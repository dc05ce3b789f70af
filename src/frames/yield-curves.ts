/**
 * Many curves at once: currencies × market dates fetched with bounded concurrency into one long frame,
 * with the calls that failed listed beside it (not thrown, not dropped), and a pivot to one column per
 * curve.
 */
import type { DataFrame } from "../../vendor/danfo";
import type { CallOptions } from "../client/pipeline";
import type { RiskPortalClient } from "../client/client";
import { asColumnTable, emptyTable, type ColumnTable } from "../table/column-table";
import { concatColumns } from "../table/concat";
import { fromDataFrame, toDataFrame } from "./danfo";
import { dateText } from "../batch/failure";
import type { ProgressOptions } from "../batch/progress";
import { runBatch, type BatchColumns, type BatchFrame } from "../batch/run";
import { pivotColumns, type PivotAgg } from "./pivot";
import { YIELD_CURVE_COLUMNS, yieldCurveColumns, type YieldCurveOptions } from "./yield-curve";
import { batchDateWarnings, datesOf, withoutDateWarnings } from "./answered-dates";

export interface YieldCurvesOptions extends YieldCurveOptions, ProgressOptions {
  currencies: readonly string[];
  /** Market dates: `Date`s, ISO date-times with an offset, or `YYYY-MM-DD`. */
  marketDates: readonly (string | Date)[];
  /** Calls in flight at once. Default 4. */
  concurrency?: number;
  /** Stops starting new calls (calls not started are listed as failures). */
  signal?: AbortSignal;
  /** Per-call options (`timeoutMs`, `retry`, `headers`). */
  call?: Omit<CallOptions, "signal" | "throwOnFailure">;
}

/** A curve that could not be fetched: which one, and why. */
export interface CurveFailure {
  currency: string;
  /** The market date as asked for (a `Date` as its ISO string). */
  market_date: string;
  error: string;
  /** HTTP status, when the server answered. */
  status?: number;
}

/**
 * Every currency × market date curve as one long column table (currency-major, in the order given),
 * with the failures beside it; `meta.provenance` has one entry per curve fetched, in the same order. Dates
 * asked that came back as another date's curve (a weekend, a holiday, after the data: an earlier day's)
 * are named in `meta.warnings`, one line per currency, with the rows that are then duplicates.
 * @example
 * ```ts
 * const { table, failures } = await frames.fetchYieldCurvesColumns(rp, { currencies: ["USD", "EUR"], marketDates: ["2026-11-19", "2026-11-20"] });
 * ```
 */
export async function fetchYieldCurvesColumns(
  rp: RiskPortalClient,
  options: YieldCurvesOptions,
): Promise<BatchColumns<CurveFailure>> {
  const { currencies, marketDates } = options;
  if (!Array.isArray(currencies) || currencies.length === 0)
    throw new TypeError('currencies must be a non-empty array, e.g. ["USD", "EUR"]');
  if (!Array.isArray(marketDates) || marketDates.length === 0)
    throw new TypeError('marketDates must be a non-empty array, e.g. ["2026-11-20"]');
  const jobs = currencies.flatMap((currency) => marketDates.map((market_date) => ({ currency, market_date })));
  const derived = { derived: options.derived, compounding: options.compounding };
  const { results, failures } = await runBatch(
    {
      what: "yield curves",
      jobs,
      label: ({ currency, market_date }) => `${currency} ${dateText(market_date)}`,
      run: async ({ currency, market_date }) => {
        const answer = await rp.rateAsset.getCurve(
          { currency, market_date },
          { ...options.call, signal: options.signal },
        );
        return { table: withoutDateWarnings(yieldCurveColumns(answer, derived)), dates: datesOf(answer) };
      },
      failure: ({ currency, market_date }, reason): CurveFailure => ({
        currency,
        market_date: dateText(market_date),
        ...reason,
      }),
    },
    options,
  );
  // With every call failed, the frame still has the curve columns (and no rows).
  const tables = results.map((r) => r.table);
  const table = tables.length > 0 ? concatColumns(tables, "RateAsset") : emptyTable("RateAsset", YIELD_CURVE_COLUMNS);
  // Dates asked that came back as another date's curve (a weekend: Friday's), once per currency (A23).
  table.meta.warnings.push(...batchDateWarnings(results.map((r) => r.dates)));
  return { table, failures };
}

/**
 * Every currency × market date curve as one long danfo DataFrame, with the failures beside it.
 *
 * @example
 * ```ts
 * const { frame, failures } = await frames.fetchYieldCurves(rp, { currencies: ["USD", "EUR"], marketDates: ["2026-11-19", "2026-11-20"] });
 * ```
 */
export async function fetchYieldCurves(
  rp: RiskPortalClient,
  options: YieldCurvesOptions,
): Promise<BatchFrame<CurveFailure>> {
  const { table, failures } = await fetchYieldCurvesColumns(rp, options);
  return { frame: toDataFrame(table), failures };
}

export interface PivotCurvesOptions {
  /** The value in the cells: `rate` (default), or `discount_factor` / `forward_rate` (fetch with `derived`). */
  value?: string;
  /** How to combine two points of one curve at the same maturity (default: such a curve is an error; see `frames.pivot`). */
  agg?: PivotAgg;
}

/**
 * The long curves wide: one row per maturity (ascending), one column per curve (`"EUR 2026-11-20"`);
 * a curve without a point at some maturity is missing there (curves have their own pillars).
 * @example
 * ```ts
 * const wide = frames.pivotCurvesColumns(await frames.fetchYieldCurvesColumns(rp, { currencies: ["USD", "EUR"], marketDates: ["2026-11-20"] }));
 * ```
 */
export function pivotCurvesColumns(
  curves: ColumnTable | DataFrame | BatchColumns<unknown> | BatchFrame<unknown>,
  options: PivotCurvesOptions = {},
): ColumnTable {
  const table =
    "table" in curves
      ? curves.table
      : "frame" in curves
        ? fromDataFrame(curves.frame)
        : (asColumnTable(curves) ?? fromDataFrame(curves as DataFrame));
  return pivotColumns(table, {
    index: "maturity",
    columns: ["currency", "market_date"],
    values: options.value ?? "rate",
    agg: options.agg,
  });
}

/**
 * {@link pivotCurvesColumns} as a danfo DataFrame.
 *
 * @example
 * ```ts
 * const wide = frames.pivotCurves(await frames.fetchYieldCurves(rp, { currencies, marketDates }));
 * ```
 */
export function pivotCurves(
  curves: ColumnTable | DataFrame | BatchColumns<unknown> | BatchFrame<unknown>,
  options: PivotCurvesOptions = {},
): DataFrame {
  return toDataFrame(pivotCurvesColumns(curves, options));
}
