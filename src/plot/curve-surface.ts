/** `curveSurface`: a currency's curve over market dates as a 3D surface (market date × maturity). */
import { curveAt, readCurves, valueAxis, type CurveInput } from "./curves";
import type { Figure } from "./figure";
import { finiteOrNull, plotDate } from "./input";
import { baseConfig, baseLayout, sceneAxis } from "./theme";
import { displayable } from "./show";

export interface CurveSurfaceOptions {
  /** The currency to draw when the table holds several. Default: the first. */
  currency?: string;
  /**
   * Maturities (years) of the grid each curve is interpolated on. Default: the pillars of the latest
   * curve (its maturities as published).
   */
  maturities?: readonly number[];
  /** The column to draw: `rate` (default), `discount_factor` or `forward_rate`. */
  value?: string;
  /** Chart title. Default `<currency> zero curve history`. */
  title?: string;
}

/**
 * A curve's history as a surface: maturity (years) × market date → rate, each date's curve linearly
 * interpolated onto one maturity grid (cells beyond a curve's last point stay empty).
 *
 * Takes the long table of many dates (see `curveHistory`); one currency is drawn (`options.currency`).
 *
 * @example
 * ```ts
 * plot.show(plot.curveSurface(await frames.fetchYieldCurvesColumns(rp, { currencies: ["EUR"], marketDates })));
 * ```
 */
export function curveSurface(input: CurveInput, options: CurveSurfaceOptions = {}): Figure {
  const value = options.value ?? "rate";
  const t = readCurves(input, "plot.curveSurface", value);
  const currency = options.currency ?? t.currencies[0] ?? "";
  if (options.currency !== undefined && !t.currencies.includes(options.currency)) {
    throw new RangeError(
      `plot.curveSurface: no curve for currency "${options.currency}"; the table has ${t.currencies.map((c) => `"${c}"`).join(", ")}`,
    );
  }
  const curves = t.curves.filter((k) => k.currency === currency).sort((a, b) => a.marketDate - b.marketDate);
  const latest = curves[curves.length - 1];
  const maturities = options.maturities
    ? [...options.maturities].sort((a, b) => a - b)
    : latest
      ? latest.rows.map((i) => t.maturity[i]!)
      : [];
  const z = curves.map((k) => curveAt(t, k, maturities).map(finiteOrNull));
  const dates = curves.map((k) => plotDate(k.marketDate));
  const fmt = valueAxis(value);
  const short = fmt.title.split(" (")[0]!;

  return displayable({
    data: [
      {
        type: "surface",
        name: currency,
        x: maturities,
        y: dates,
        z,
        colorscale: "Viridis",
        colorbar: { title: { text: short }, tickformat: fmt.tickformat, len: 0.7, thickness: 14, x: 0.92 },
        contours: { z: { show: true, usecolormap: true, highlightcolor: "#ffffff", project: { z: false } } },
        hovertemplate: `%{y}<br>maturity %{x:.2f}y<br>${short} %{z:${fmt.hover}}<extra></extra>`,
      },
    ],
    layout: baseLayout(options.title ?? `${currency} zero curve history · ${curves.length} market dates`.trim(), {
      scene: {
        xaxis: sceneAxis("Maturity (years)"),
        yaxis: sceneAxis("Market date", { type: "date" }),
        zaxis: sceneAxis(fmt.title, { tickformat: fmt.tickformat }),
        // Low and close, looking a little below the centre: the surface fills the frame.
        camera: { eye: { x: 1.4, y: -1.45, z: 0.65 }, center: { x: 0, y: 0, z: -0.32 } },
        aspectmode: "manual",
        aspectratio: { x: 1.25, y: 1.45, z: 0.75 },
        domain: { x: [0, 0.9], y: [0, 1] },
      },
      margin: { l: 10, r: 10, t: 56, b: 10 },
    }),
    config: baseConfig(),
  });
}
