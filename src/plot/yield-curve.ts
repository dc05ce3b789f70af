/** `yieldCurve`: one or several zero curves against maturity, the fitted instrument of each point on hover. */
import { readCurves, valueAxis, type CurveInput } from "./curves";
import type { Figure, Trace } from "./figure";
import { finiteOrNull, plotDate, texts, times } from "./input";
import { groupSlider, sliderLayout } from "./controls";
import { axis, baseConfig, baseLayout, seriesLine, seriesLook } from "./theme";
import { displayable } from "./show";

export interface YieldCurveOptions {
  /** Chart title. Default: `Zero curves · <date>` (or the currency when there is one). */
  title?: string;
  /** The column to draw: `rate` (default), `discount_factor` or `forward_rate` (fetch with `{ derived: true }`). */
  value?: string;
  /** Also draw each fitted instrument's own rate as an open marker. Default false. */
  instrumentRates?: boolean;
  /** With several market dates, a date slider under the chart: every curve, or one date's at a time. Default false. */
  slider?: boolean;
}

/** Each fitted instrument's own rate as an open marker, without a legend entry. */
function instrumentsTrace(
  rows: number[],
  label: string,
  color: string,
  maturity: number[],
  instrumentRate: ArrayLike<unknown>,
  name: (string | null)[],
): Trace {
  return {
    type: "scatter",
    mode: "markers",
    name: `${label} instruments`,
    x: rows.map((i) => finiteOrNull(maturity[i]!)),
    y: rows.map((i) => (typeof instrumentRate[i] === "number" ? finiteOrNull(instrumentRate[i]) : null)),
    marker: { color, size: 8, symbol: "circle-open", line: { width: 1.5 } },
    text: rows.map((i) => name[i] ?? ""),
    hovertemplate: `<b>%{text}</b><br>instrument rate %{y:.3%}<extra></extra>`,
    showlegend: false,
  };
}

/**
 * Zero curves: one line per currency × market date (`maturity` in years on x, `rate` as % on y), each
 * point's fitted instrument, expiry and instrument rate on hover.
 *
 * Takes a yield-curve table or DataFrame — `frames.yieldCurveColumns(response)` /
 * `frames.yieldCurve(response)`, or the batch `frames.fetchYieldCurvesColumns(rp, …)` /
 * `frames.fetchYieldCurves(rp, …)` for many currencies and dates — or `RateAsset` response(s) directly.
 *
 * @example
 * ```ts
 * plot.show(plot.yieldCurve(frames.yieldCurve(await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" }))));
 * plot.show(plot.yieldCurve(history, { slider: true }));   // many dates: one date's curves at a time
 * ```
 */
export function yieldCurve(input: CurveInput, options: YieldCurveOptions = {}): Figure {
  const value = options.value ?? "rate";
  const t = readCurves(input, "plot.yieldCurve", value);
  const { view } = t;
  const name = view.has("fitted_instrument_name") ? texts(view, "fitted_instrument_name") : [];
  const expiry = view.has("expiry") ? times(view, "expiry") : [];
  const instrumentRate = view.has("fitted_instrument_rate") ? view.values("fitted_instrument_rate") : [];
  const fmt = valueAxis(value);
  const oneDate = t.marketDates.length === 1;
  const oneCurrency = t.currencies.length === 1;

  const data: Trace[] = [];
  /** The traces of each market date, for the slider. */
  const byDate = new Map<number, number[]>();
  t.curves.forEach((curve, k) => {
    const dateTraces = byDate.get(curve.marketDate) ?? [];
    byDate.set(curve.marketDate, dateTraces);
    dateTraces.push(data.length);
    const color = seriesLook(k).color;
    // Legend: what differs between the curves.
    const label =
      oneDate && !oneCurrency
        ? curve.currency
        : oneCurrency && !oneDate
          ? (plotDate(curve.marketDate) ?? curve.label)
          : curve.label;
    // A forward between pillars is constant from the previous pillar (0 for the first) up to its own:
    // a step, vertical then across, starting at maturity 0.
    const step = value === "forward_rate";
    const rows = step && curve.rows.length ? [curve.rows[0]!, ...curve.rows] : curve.rows;
    data.push({
      type: "scatter",
      mode: step ? "lines" : "lines+markers",
      name: label,
      x: rows.map((i, n) => (step && n === 0 ? 0 : finiteOrNull(t.maturity[i]!))),
      y: rows.map((i) => finiteOrNull(t.value[i]!)),
      ...seriesLine(k, { width: 2.2, ...(step ? { shape: "vh" } : {}) }, { size: 6 }),
      customdata: rows.map((i) => [
        name[i] ?? "",
        plotDate(expiry[i] ?? NaN) ?? "",
        typeof instrumentRate[i] === "number" && Number.isFinite(instrumentRate[i])
          ? `${(instrumentRate[i] * 100).toFixed(3)}%`
          : "n/a",
      ]),
      hovertemplate:
        `<b>%{customdata[0]}</b><br>${curve.label}<br>maturity %{x:.2f}y (expiry %{customdata[1]})<br>` +
        `${fmt.title.split(" (")[0]} %{y:${fmt.hover}}<br>instrument rate %{customdata[2]}<extra></extra>`,
    });
    if (options.instrumentRates && instrumentRate.length > 0) {
      dateTraces.push(data.length);
      data.push(instrumentsTrace(curve.rows, label, color, t.maturity, instrumentRate, name));
    }
  });

  const subject = oneCurrency ? `${t.currencies[0] || ""} zero curve${oneDate ? "" : "s"}` : "Zero curves";
  const when = oneDate ? ` · ${plotDate(t.marketDates[0]!) ?? ""}` : ` · ${t.marketDates.length} market dates`;
  const slider =
    options.slider && byDate.size > 1
      ? groupSlider(
          t.marketDates.map((date) => ({ label: plotDate(date) ?? String(date), traces: byDate.get(date) ?? [] })),
          data.length,
          "Market date",
        )
      : undefined;
  return displayable({
    data,
    layout: baseLayout(options.title ?? `${subject.trim()}${t.curves.length ? when : ""}`, {
      xaxis: axis("Maturity (years)", { rangemode: "tozero" }),
      yaxis: axis(fmt.title, { tickformat: fmt.tickformat }),
      hovermode: "closest",
      showlegend: t.curves.length > 1,
      // With a slider under the plot, the legend moves to the right.
      ...(slider
        ? {
            ...sliderLayout(slider),
            legend: { orientation: "v", x: 1.02, xanchor: "left", y: 1, yanchor: "top", font: { size: 12 } },
          }
        : {}),
    }),
    config: baseConfig(),
  });
}
