/** `curveTenorHeatmap`: a curve history as a market date × tenor heatmap of zero rates. */
import type { RateAssetResponse } from "../api/rate-asset";
import { Curve } from "../curves/curve";
import type { Interpolation } from "../curves/interpolation";
import { tenorText, type TimeInput } from "../curves/tenor";
import { curveTenorsColumns } from "../frames/curve-tenors";
import { curveObjects, isCurveLike } from "./curve-objects";
import type { Figure } from "./figure";
import { columnsOf, finiteOrNull, isTableInput, numbers, plotDate, texts, times, type TableInput } from "./input";
import { axis, baseConfig, baseLayout, INK } from "./theme";
import { displayable } from "./show";

/** Tenors drawn when none are chosen. */
export const DEFAULT_HEATMAP_TENORS = ["1M", "3M", "6M", "1Y", "2Y", "3Y", "5Y", "7Y", "10Y", "15Y", "20Y", "30Y"] as const;

export interface CurveTenorHeatmapOptions {
  /** Tenors across (in this order). Default {@link DEFAULT_HEATMAP_TENORS}; for a `curveTenors` table, its own tenors. */
  tenors?: readonly TimeInput[];
  /** The currency to draw when the input holds several. Default: the only one (several without this is an error). */
  currency?: string;
  /** Interpolation of curves built here from responses or a yield-curve table. Default `linear-zero`. */
  interpolation?: Interpolation;
  /** Chart title. Default `<currency> zero rates by tenor · <first date> to <last date>`. */
  title?: string;
}

/**
 * What `curveTenorHeatmap` takes: `frames.curveTenors(…)` (table or DataFrame), a yield-curve table of
 * many dates (`frames.fetchYieldCurves(…)` / its `table` / `frame`), or the curves themselves (`Curve`s
 * or RateAsset responses, one per market date).
 */
export type CurveTenorHeatmapInput = TableInput | readonly (Curve | RateAssetResponse)[];

interface Cells {
  currency: string;
  dates: number[];
  tenors: readonly string[];
  /** Zero rate (decimal) by date, then tenor. */
  z: (number | null)[][];
}

const CALLER = "plot.curveTenorHeatmap";

/**
 * Zero rates of one currency's curve over many market dates: market dates down (oldest at the bottom),
 * tenors across, each cell the zero rate (continuous, in %) at that tenor on that date's curve, on a
 * sequential colour scale. Reads the tenor values off each date's curve (`curves.fromResponse`), so `1M`
 * means one calendar month from each market date.
 *
 * ```ts
 * const history = await Promise.all(dates.map((market_date) => rp.rateAsset.getCurve({ currency: "USD", market_date })));
 * plot.show(plot.curveTenorHeatmap(history, { tenors: ["3M", "1Y", "2Y", "5Y", "10Y", "30Y"] }));
 * ```
 */
export function curveTenorHeatmap(input: CurveTenorHeatmapInput, options: CurveTenorHeatmapOptions = {}): Figure {
  const cells = readCells(input, options);
  const span = cells.dates.length ? ` · ${plotDate(cells.dates[0]!)} to ${plotDate(cells.dates[cells.dates.length - 1]!)}` : "";
  let lo = Infinity;
  let hi = -Infinity;
  for (const row of cells.z) {
    for (const v of row) {
      if (v === null) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  return displayable({
    data: [
      {
        type: "heatmap",
        name: `${cells.currency} zero rate`.trim(),
        x: [...cells.tenors],
        y: cells.dates.map(plotDate),
        z: cells.z.map((row) => row.map((v) => (v === null ? null : v * 100))),
        colorscale: "Viridis",
        ...(Number.isFinite(lo) ? { zmin: lo * 100, zmax: hi * 100 } : {}),
        colorbar: { title: { text: "zero rate (%)", side: "right" }, thickness: 14, len: 0.9, ticksuffix: "%" },
        hovertemplate: "%{y} · %{x}: %{z:.3f}%<extra></extra>",
        xgap: 1,
        ygap: 0,
      },
    ],
    layout: baseLayout(options.title ?? `${cells.currency ? `${cells.currency} ` : ""}zero rates by tenor${span}`, {
      xaxis: axis("Tenor", { type: "category", showgrid: false, ticks: "" }),
      yaxis: axis("Market date", { type: "date", showgrid: false }),
      margin: { l: 88, r: 24, t: 64, b: 64 },
      hovermode: "closest",
      font: { color: INK.text },
    }),
    config: baseConfig(),
  });
}

/** The input as one currency's dates × tenors zero rates. */
function readCells(input: CurveTenorHeatmapInput, options: CurveTenorHeatmapOptions): Cells {
  const tenors = options.tenors ?? DEFAULT_HEATMAP_TENORS;
  if (Array.isArray(input) && input.every(isCurveLike)) return fromTidy(curveTenorsColumns(pick(input, options), tenors, options), options, undefined);
  if (!isTableInput(input))
    throw new TypeError(`${CALLER} expects frames.curveTenors(…), a yield-curve table of many dates, or an array of Curves / RateAsset responses`);
  const view = columnsOf(input, CALLER);
  if (view.has("tenor") && view.has("zero_rate")) return fromTidy(input, options, options.tenors?.map(tenorText));
  // A long yield-curve table: one curve per currency × market date, made a Curve and read at the tenors.
  return fromTidy(curveTenorsColumns(pick(curveObjects(input, CALLER, options.interpolation), options), tenors, options), options, undefined);
}

/** The curves of the chosen currency (all when they are of one). */
function pick<C extends Curve | RateAssetResponse>(curves: readonly C[], options: CurveTenorHeatmapOptions): C[] {
  const ccy = (c: C) => (c instanceof Curve ? c.currency : c.yield_curve_model.currency);
  if (options.currency !== undefined) {
    const chosen = curves.filter((c) => ccy(c) === options.currency);
    if (chosen.length === 0)
      throw new RangeError(`${CALLER}: no curve in ${options.currency}; the input has ${[...new Set(curves.map(ccy))].join(", ") || "none"}`);
    return chosen;
  }
  return [...curves];
}

/** Cells from a tidy table (currency, market_date, tenor, zero_rate); `only` keeps those tenors, in that order. */
function fromTidy(input: TableInput, options: CurveTenorHeatmapOptions, only: readonly string[] | undefined): Cells {
  const view = columnsOf(input, CALLER);
  const currency = view.has("currency") ? texts(view, "currency") : new Array<string | null>(view.rowCount).fill(null);
  const dates = times(view, "market_date");
  const tenor = texts(view, "tenor");
  const zero = numbers(view, "zero_rate");
  const currencies = [...new Set(currency.map((c) => c ?? ""))];
  const want = options.currency ?? (currencies.length === 1 ? currencies[0]! : undefined);
  if (want === undefined) throw new RangeError(`${CALLER} draws one currency; the input has ${currencies.join(", ")}: choose one with { currency }`);
  const rows = [...Array(view.rowCount).keys()].filter((i) => (currency[i] ?? "") === want);
  if (rows.length === 0 && view.rowCount > 0) throw new RangeError(`${CALLER}: no curve in ${want}; the input has ${currencies.join(", ")}`);
  const levels = view.levels("tenor");
  const seen = [...new Set(rows.map((i) => tenor[i]!).filter((t) => t !== null))];
  const tenors = only ?? (levels ? levels.filter((l) => seen.includes(l)) : seen);
  const dateList = [...new Set(rows.map((i) => dates[i]!))].sort((a, b) => a - b);
  const di = new Map(dateList.map((d, k) => [d, k]));
  const ti = new Map(tenors.map((t, k) => [t, k]));
  const z = dateList.map(() => new Array<number | null>(tenors.length).fill(null));
  for (const i of rows) {
    const k = ti.get(tenor[i]!);
    if (k !== undefined) z[di.get(dates[i]!)!]![k] = finiteOrNull(zero[i]!);
  }
  return { currency: want, dates: dateList, tenors, z };
}
