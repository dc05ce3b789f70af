/** `spreadHistory`: a curve spread (2s10s) or butterfly (2s5s10s) over market dates, one line per currency. */
import type { Curve } from "../curves/curve";
import type { Interpolation } from "../curves/interpolation";
import { butterfly, spread } from "../curves/spread";
import { tenorText, type TimeInput } from "../curves/tenor";
import { curveObjects, type CurveObjectsInput } from "./curve-objects";
import type { Figure, Trace } from "./figure";
import { finiteOrNull, plotDate } from "./input";
import { displayable } from "./show";
import { axis, baseConfig, baseLayout, INK, seriesLine } from "./theme";

export interface SpreadHistoryOptions {
  /** Two tenors (a spread: long − short) or three (a butterfly: 2·belly − short − long). Default `["2Y", "10Y"]`. */
  legs?: readonly TimeInput[];
  /** `zero` (default: continuous zero rates) or `par` (annual par swap rates). */
  measure?: "zero" | "par";
  /** Interpolation of curves built here. Default `linear-zero`. */
  interpolation?: Interpolation;
  /** Chart title. Default: what is drawn and the date span. */
  title?: string;
}

const CALLER = "plot.spreadHistory";

/**
 * A spread (`["2Y", "10Y"]`: 10Y − 2Y, the 2s10s) or butterfly (`["2Y", "5Y", "10Y"]`: 2·5Y − 2Y − 10Y)
 * of each currency's curve over market dates, in basis points, read off each date's curve by tenor
 * (`curves.spread` / `curves.butterfly`), with the zero line marked.
 *
 * Takes the curves of many dates: `frames.fetchYieldCurvesColumns(rp, { currencies, marketDates })` (or
 * its `table` / `frame`), RateAsset responses, or `Curve`s.
 *
 * @example
 * ```ts
 * plot.show(plot.spreadHistory(await frames.fetchYieldCurvesColumns(rp, { currencies: ["USD", "EUR"], marketDates }), { legs: ["2Y", "10Y"] }));
 * ```
 */
export function spreadHistory(input: CurveObjectsInput, options: SpreadHistoryOptions = {}): Figure {
  const legs = options.legs ?? ["2Y", "10Y"];
  if (!Array.isArray(legs) || (legs.length !== 2 && legs.length !== 3))
    throw new RangeError(
      `${CALLER}: legs are two tenors (a spread, e.g. ["2Y", "10Y"]) or three (a butterfly, e.g. ["2Y", "5Y", "10Y"]); got ${JSON.stringify(legs)}`,
    );
  const measure = options.measure ?? "zero";
  const curves = curveObjects(input, CALLER, { interpolation: options.interpolation });
  const value = (c: Curve) =>
    legs.length === 2 ? spread(c, legs[0], legs[1], { measure }) : butterfly(c, legs[0], legs[1], legs[2], { measure });
  const names = legs.map((l) => tenorText(l));
  const what = legs.length === 2 ? `${names[1]} − ${names[0]}` : `2·${names[1]} − ${names[0]} − ${names[2]}`;
  const short = names.map((n) => n.replace(/Y$/, "")).join("s") + "s";

  const byCurrency = new Map<string, Curve[]>();
  for (const c of curves) {
    let list = byCurrency.get(c.currency);
    if (!list) byCurrency.set(c.currency, (list = []));
    list.push(c);
  }
  const data: Trace[] = [...byCurrency.entries()].map(([ccy, list], k) => {
    const sorted = [...list].sort((a, b) => a.marketDate.getTime() - b.marketDate.getTime());
    return {
      type: "scatter",
      mode: sorted.length > 1 ? "lines" : "markers",
      name: ccy,
      x: sorted.map((c) => plotDate(c.marketDate.getTime())),
      y: sorted.map((c) => finiteOrNull(value(c))),
      ...seriesLine(k, { width: 2 }),
      hovertemplate: `${ccy} %{x}: %{y:.1f} bp<extra></extra>`,
    };
  });
  // A loop, not Math.min(...times): spreading a long list overflows the call stack. NaN as Math.min gives it.
  let first = Infinity;
  let last = -Infinity;
  for (const c of curves) {
    const t = c.marketDate.getTime();
    first = Number.isNaN(t) || t < first ? t : first;
    last = Number.isNaN(t) || t > last ? t : last;
    if (Number.isNaN(t)) break;
  }
  const span = curves.length ? ` · ${plotDate(first)} to ${plotDate(last)}` : "";
  const rates = measure === "par" ? "par swap rates" : "zero rates";
  return displayable({
    data,
    layout: baseLayout(options.title ?? `${short} (${what}, ${rates})${span}`, {
      xaxis: axis("Market date", { type: "date" }),
      yaxis: axis(`${what} (bp)`, { zeroline: true, zerolinecolor: INK.zero, zerolinewidth: 1.5 }),
      hovermode: "x unified",
    }),
    config: baseConfig(),
  });
}
