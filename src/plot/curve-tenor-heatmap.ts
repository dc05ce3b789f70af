/** `curveTenorHeatmap`: a curve history as a market date × tenor heatmap of zero rates. */
import type { RateAssetResponse } from "../api/rate-asset";
import { Curve } from "../curves/curve";
import type { Interpolation } from "../curves/interpolation";
import type { TenorDateOptions } from "../curves/tenor-dates";
import { tenorText, type TimeInput } from "../curves/tenor";
import { curveTenorsColumns } from "../frames/curve-tenors";
import { curveObjects, isCurveLike } from "./curve-objects";
import type { Annotation, Figure, Trace } from "./figure";
import {
  columnsOf,
  finiteOrNull,
  groupBy,
  isTableInput,
  numbers,
  plotDate,
  texts,
  times,
  type TableInput,
} from "./input";
import { escapeHtml } from "./labels";
import { axis, baseConfig, baseLayout, INK } from "./theme";
import { displayable } from "./show";

/** Tenors drawn when none are chosen. */
export const DEFAULT_HEATMAP_TENORS = [
  "1M",
  "3M",
  "6M",
  "1Y",
  "2Y",
  "3Y",
  "5Y",
  "7Y",
  "10Y",
  "15Y",
  "20Y",
  "30Y",
] as const;

/**
 * `calendar`, `roll`, `spotLag`: for curves built here (from responses or a yield-curve table), tenors on
 * business days (see `curves.CurveOptions`); each cell's hover then names the day its tenor landed on.
 */
export interface CurveTenorHeatmapOptions extends TenorDateOptions {
  /** Tenors across (in this order). Default {@link DEFAULT_HEATMAP_TENORS}; for a `curveTenors` table, its own tenors. */
  tenors?: readonly TimeInput[];
  /** The one currency to draw when the input holds several. Default: every currency, one panel each. */
  currency?: string;
  /** Interpolation of curves built here from responses or a yield-curve table. Default `linear-zero`. */
  interpolation?: Interpolation;
  /** Chart title. Default `<currency> zero rates by tenor · <first date> to <last date>` (several: `Zero rates by tenor · USD, EUR · …`). */
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
  /** The day each cell's tenor landed on (`"2026-03-02"`), by date then tenor; null when the input has no `date` column. */
  days: (string | null)[][] | null;
}

const CALLER = "plot.curveTenorHeatmap";

/**
 * Zero rates over many market dates: market dates down (oldest at the bottom), tenors across, each cell
 * the zero rate (continuous, in %) at that tenor on that date's curve, on a sequential colour scale.
 * Reads the tenor values off each date's curve (`curves.fromResponse`), so `1M` means one calendar
 * month from each market date. Several currencies (without `currency`) draw one panel per currency,
 * side by side (three to a row), each titled with its currency, on one colour scale and one date axis.
 *
 * @example
 * ```ts
 * const history = await Promise.all(dates.map((market_date) => rp.rateAsset.getCurve({ currency: "USD", market_date })));
 * plot.show(plot.curveTenorHeatmap(history, { tenors: ["3M", "1Y", "2Y", "5Y", "10Y", "30Y"] }));
 * plot.show(plot.curveTenorHeatmap(await frames.fetchYieldCurvesColumns(rp, { currencies: ["USD", "EUR", "GBP"], marketDates })));
 * ```
 */
export function curveTenorHeatmap(input: CurveTenorHeatmapInput, options: CurveTenorHeatmapOptions = {}): Figure {
  const panels = readPanels(input, options);
  if (panels.length > 1) return panelsFigure(panels, options);
  const cells = panels[0] ?? { currency: options.currency ?? "", dates: [], tenors: [], z: [], days: null };
  const span = dateSpan(cells.dates);
  const { lo, hi } = zRange(panels);
  return displayable({
    data: [
      {
        type: "heatmap",
        name: `${cells.currency} zero rate`.trim(),
        x: [...cells.tenors],
        y: cells.dates.map(plotDate),
        z: percent(cells.z),
        colorscale: "Viridis",
        ...(Number.isFinite(lo) ? { zmin: lo * 100, zmax: hi * 100 } : {}),
        colorbar: COLORBAR,
        ...hover("", cells),
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

const COLORBAR = { title: { text: "zero rate (%)", side: "right" }, thickness: 14, len: 0.9, ticksuffix: "%" };

/** Panels per row when several currencies are drawn. */
const PANELS_PER_ROW = 3;

/** ` · <first date> to <last date>` of ascending dates, or nothing. */
function dateSpan(dates: readonly number[]): string {
  return dates.length ? ` · ${plotDate(dates[0]!)} to ${plotDate(dates[dates.length - 1]!)}` : "";
}

/** The lowest and highest zero rate of all panels (±Infinity when there is none). */
function zRange(panels: readonly Cells[]): { lo: number; hi: number } {
  let lo = Infinity;
  let hi = -Infinity;
  for (const cells of panels)
    for (const row of cells.z)
      for (const v of row) {
        if (v === null) continue;
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
  return { lo, hi };
}

/**
 * A cell's hover: `USD 2026-11-20 · 3M: 3.412%`, or with the days tenors landed on (a calendar),
 * `USD 2026-11-20 · 3M (2027-02-22): 3.412%`.
 */
function hover(prefix: string, cells: Cells): { hovertemplate: string; customdata?: (string | null)[][] } {
  if (cells.days === null) return { hovertemplate: `${prefix}%{y} · %{x}: %{z:.3f}%<extra></extra>` };
  return { hovertemplate: `${prefix}%{y} · %{x} (%{customdata}): %{z:.3f}%<extra></extra>`, customdata: cells.days };
}

const percent = (z: (number | null)[][]) => z.map((row) => row.map((v) => (v === null ? null : v * 100)));

/**
 * One heatmap per currency in a grid of panels (three to a row): each panel its own tenor axis, one
 * date axis shared by all (`matches`), one colour scale (`coloraxis`) so that a colour is the same rate
 * in every panel, the currency above each panel.
 */
function panelsFigure(panels: readonly Cells[], options: CurveTenorHeatmapOptions): Figure {
  const cols = Math.min(PANELS_PER_ROW, panels.length);
  const rows = Math.ceil(panels.length / cols);
  const gapX = 0.06;
  const gapY = rows > 1 ? 0.14 / (rows - 1) : 0;
  const width = (1 - gapX * (cols - 1)) / cols;
  const height = (1 - gapY * (rows - 1)) / rows;
  const { lo, hi } = zRange(panels);
  const layout: Record<string, unknown> = {};
  const annotations: Annotation[] = [];
  const data: Trace[] = panels.map((cells, k) => {
    const suffix = k === 0 ? "" : String(k + 1);
    const x0 = (k % cols) * (width + gapX);
    const y1 = 1 - Math.floor(k / cols) * (height + gapY);
    // The tenor title under the lowest panel of each column, the date title left of each row.
    layout[`xaxis${suffix}`] = axis(k + cols >= panels.length ? "Tenor" : "", {
      type: "category",
      showgrid: false,
      ticks: "",
      domain: [x0, x0 + width],
      anchor: `y${suffix}`,
    });
    layout[`yaxis${suffix}`] = axis(k % cols === 0 ? "Market date" : "", {
      type: "date",
      showgrid: false,
      domain: [y1 - height, y1],
      anchor: `x${suffix}`,
      ...(k > 0 ? { matches: "y", showticklabels: k % cols === 0 } : {}),
    });
    annotations.push(panelTitle(cells.currency || "(no currency)", x0 + width / 2, y1));
    return {
      type: "heatmap",
      name: `${cells.currency} zero rate`.trim(),
      x: [...cells.tenors],
      y: cells.dates.map(plotDate),
      z: percent(cells.z),
      coloraxis: "coloraxis",
      ...hover(`${cells.currency} `, cells),
      xgap: 1,
      ygap: 0,
      xaxis: `x${suffix}`,
      yaxis: `y${suffix}`,
    };
  });
  const dates = panels.flatMap((p) => p.dates).sort((a, b) => a - b);
  const title =
    options.title ??
    `Zero rates by tenor · ${panels.map((p) => p.currency || "(no currency)").join(", ")}${dateSpan(dates)}`;
  return displayable({
    data,
    layout: baseLayout(title, {
      ...layout,
      annotations,
      coloraxis: {
        colorscale: "Viridis",
        ...(Number.isFinite(lo) ? { cmin: lo * 100, cmax: hi * 100 } : {}),
        colorbar: COLORBAR,
      },
      height: Math.max(500, 120 + rows * 380),
      margin: { l: 88, r: 24, t: 96, b: 64 },
      hovermode: "closest",
      font: { color: INK.text },
    }),
    config: baseConfig(),
  });
}

/** A panel's heading: its currency, centred above it. */
function panelTitle(text: string, x: number, top: number): Annotation {
  return {
    text: `<b>${escapeHtml(text)}</b>`,
    x,
    xref: "paper",
    xanchor: "center",
    y: top,
    yref: "paper",
    yanchor: "bottom",
    yshift: 4,
    showarrow: false,
    font: { size: 13, color: INK.text },
  };
}

/** The input as dates × tenors zero rates, one panel per currency (the chosen one only with `currency`). */
function readPanels(input: CurveTenorHeatmapInput, options: CurveTenorHeatmapOptions): Cells[] {
  const tenors = options.tenors ?? DEFAULT_HEATMAP_TENORS;
  if (Array.isArray(input) && input.every(isCurveLike))
    return fromTidy(curveTenorsColumns(pick(input, options), tenors, options), options, undefined);
  if (!isTableInput(input))
    throw new TypeError(
      `${CALLER} expects frames.curveTenors(…), a yield-curve table of many dates, or an array of Curves / RateAsset responses`,
    );
  const view = columnsOf(input, CALLER);
  if (view.has("tenor") && view.has("zero_rate")) return fromTidy(input, options, options.tenors?.map(tenorText));
  // A long yield-curve table: one curve per currency × market date, made a Curve and read at the tenors.
  return fromTidy(
    curveTenorsColumns(pick(curveObjects(input, CALLER, options), options), tenors, options),
    options,
    undefined,
  );
}

/** The curves of the chosen currency (all when none is chosen). */
function pick<C extends Curve | RateAssetResponse>(curves: readonly C[], options: CurveTenorHeatmapOptions): C[] {
  const ccy = (c: C) => (c instanceof Curve ? c.currency : c.yield_curve_model.currency);
  if (options.currency !== undefined) {
    const chosen = curves.filter((c) => ccy(c) === options.currency);
    if (chosen.length === 0)
      throw new RangeError(
        `${CALLER}: no curve in ${options.currency}; the input has ${[...new Set(curves.map(ccy))].join(", ") || "none"}`,
      );
    return chosen;
  }
  return [...curves];
}

/**
 * Panels from a tidy table (currency, market_date, tenor, zero_rate), one per currency in order of first
 * appearance (only `options.currency`'s when given); `only` keeps those tenors, in that order.
 */
function fromTidy(input: TableInput, options: CurveTenorHeatmapOptions, only: readonly string[] | undefined): Cells[] {
  const view = columnsOf(input, CALLER);
  const currency = view.has("currency") ? texts(view, "currency") : new Array<string | null>(view.rowCount).fill(null);
  const columns = {
    dates: times(view, "market_date"),
    tenor: texts(view, "tenor"),
    zero: numbers(view, "zero_rate"),
    levels: view.levels("tenor"),
    day: view.has("date") ? texts(view, "date") : null,
  };
  const byCurrency = groupBy(view.rowCount, (i) => currency[i] ?? "");
  const currencies = [...byCurrency.keys()];
  if (options.currency === undefined) return currencies.map((ccy) => cellsOf(ccy, byCurrency.get(ccy)!, columns, only));
  const rows = byCurrency.get(options.currency) ?? [];
  if (rows.length === 0 && view.rowCount > 0)
    throw new RangeError(`${CALLER}: no curve in ${options.currency}; the input has ${currencies.join(", ")}`);
  return [cellsOf(options.currency, rows, columns, only)];
}

/** One currency's cells from its rows of a tidy table. */
function cellsOf(
  currency: string,
  rows: readonly number[],
  c: {
    dates: number[];
    tenor: (string | null)[];
    zero: number[];
    levels: readonly string[] | undefined;
    day: (string | null)[] | null;
  },
  only: readonly string[] | undefined,
): Cells {
  const seen = [...new Set(rows.map((i) => c.tenor[i]!).filter((t) => t !== null))];
  const seenSet = new Set(seen);
  const tenors = only ?? (c.levels ? c.levels.filter((l) => seenSet.has(l)) : seen);
  const dateList = [...new Set(rows.map((i) => c.dates[i]!))].sort((a, b) => a - b);
  const di = new Map(dateList.map((d, k) => [d, k]));
  const ti = new Map(tenors.map((t, k) => [t, k]));
  const z = dateList.map(() => new Array<number | null>(tenors.length).fill(null));
  const days = c.day && dateList.map(() => new Array<string | null>(tenors.length).fill(null));
  for (const i of rows) {
    const k = ti.get(c.tenor[i]!);
    if (k === undefined) continue;
    z[di.get(c.dates[i]!)!]![k] = finiteOrNull(c.zero[i]!);
    if (days) days[di.get(c.dates[i]!)!]![k] = c.day![i] ?? null;
  }
  return { currency, dates: dateList, tenors, z, days };
}
