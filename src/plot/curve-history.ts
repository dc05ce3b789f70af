/** `curveHistory`: chosen tenors of a curve over market dates. */
import { curveAt, readCurves, valueAxis, type CurveInput } from "./curves";
import type { Figure, Trace } from "./figure";
import { finiteOrNull, plotDate } from "./input";
import { tenorLabel } from "./labels";
import { axis, baseConfig, baseLayout, PALETTE, paletteColor, rampColors, variantLook } from "./theme";
import { displayable } from "./show";

/** Tenors drawn when none are chosen, in years (those the curves reach). */
export const DEFAULT_TENORS = [0.25, 1, 2, 5, 10, 30] as const;

export interface CurveHistoryOptions {
  /** Tenors in years. Default {@link DEFAULT_TENORS} (those within the curves' maturities). */
  tenors?: readonly number[];
  /** The column to follow: `rate` (default), `discount_factor` or `forward_rate`. */
  value?: string;
  /** Chart title. Default `<currency> zero rates by tenor`. */
  title?: string;
}

/**
 * Rates at fixed tenors over market dates: one line per tenor (per currency × tenor when the table
 * holds several currencies), each value linearly interpolated in maturity on that date's curve (never
 * extrapolated: a tenor beyond a curve's last point is a gap).
 *
 * Takes the long table of many dates: `frames.fetchYieldCurvesColumns(rp, { currencies, marketDates })` (or
 * its `table`), `frames.fetchYieldCurves(...)` (or its `frame`), or RateAsset responses.
 *
 * @example
 * ```ts
 * plot.show(plot.curveHistory(await frames.fetchYieldCurvesColumns(rp, { currencies: ["USD"], marketDates }), { tenors: [2, 10, 30] }));
 * ```
 */
export function curveHistory(input: CurveInput, options: CurveHistoryOptions = {}): Figure {
  const value = options.value ?? "rate";
  const t = readCurves(input, "plot.curveHistory", value);
  const fmt = valueAxis(value);
  let maxMaturity = 0;
  for (const m of t.maturity) if (m > maxMaturity) maxMaturity = m;
  const tenors = options.tenors ? [...options.tenors] : DEFAULT_TENORS.filter((x) => x <= maxMaturity + 1e-9);
  for (const x of tenors)
    if (!(typeof x === "number" && x > 0 && Number.isFinite(x)))
      throw new RangeError(`plot.curveHistory: tenors are years > 0, e.g. [2, 10, 30]; got ${String(x)}`);

  const data: Trace[] = [];
  const multi = t.currencies.length > 1;
  // One currency: a colour per tenor (a ramp, short to long). Several: a colour per currency and a dash
  // and marker per tenor (variantLook), legend grouped by currency, so no two series look alike; past
  // the palette's colours, each round of currencies takes the next tenors' looks.
  const ramp = rampColors(tenors.length);
  const colorOf = (c: number, j: number) => (multi ? paletteColor(c) : ramp[j]!);
  const lookOf = (c: number, j: number) => variantLook(Math.floor(c / PALETTE.length) * tenors.length + j);
  // Each currency's curves, found in one pass (not a filter of every curve per currency).
  const byCurrency = new Map(t.currencies.map((ccy) => [ccy, [] as typeof t.curves]));
  for (const k of t.curves) byCurrency.get(k.currency)!.push(k);
  t.currencies.forEach((ccy, c) => {
    const curves = byCurrency.get(ccy)!.sort((a, b) => a.marketDate - b.marketDate);
    const dates = curves.map((k) => plotDate(k.marketDate));
    const at = curves.map((k) => curveAt(t, k, tenors));
    tenors.forEach((tenor, j) => {
      const label = multi ? `${ccy} ${tenorLabel(tenor)}` : tenorLabel(tenor);
      data.push({
        type: "scatter",
        mode: curves.length > 1 ? "lines" : "markers",
        name: label,
        x: dates,
        y: at.map((values) => finiteOrNull(values[j]!)),
        line: { color: colorOf(c, j), width: 2, dash: multi ? lookOf(c, j).dash : "solid" },
        marker: { color: colorOf(c, j), symbol: multi ? lookOf(c, j).symbol : "circle" },
        ...(multi ? { legendgroup: ccy, legendgrouptitle: j === 0 ? { text: ccy } : undefined } : {}),
        hovertemplate: `${label}: %{y:${fmt.hover}}<extra></extra>`,
      });
    });
  });

  const who = t.currencies.length === 1 ? `${t.currencies[0] || ""} ` : "";
  const what = value === "rate" ? "zero rates" : value.replace(/_/g, " ") + "s";
  const span =
    t.marketDates.length > 1
      ? ` · ${plotDate(t.marketDates[0]!)} to ${plotDate(t.marketDates[t.marketDates.length - 1]!)}`
      : "";
  return displayable({
    data,
    layout: baseLayout(options.title ?? `${who}${what} by tenor${span}`, {
      xaxis: axis("Market date", { type: "date" }),
      yaxis: axis(fmt.title, { tickformat: fmt.tickformat }),
      hovermode: "x unified",
    }),
    config: baseConfig(),
  });
}
