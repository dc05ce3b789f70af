/** `volSmiles`: one smile per maturity, vol against strike in the grid's strike convention. */
import type { Figure, Shape, Trace } from "./figure";
import { atmStrike, daysLabel, strikeAxisTitle } from "./labels";
import { axis, baseConfig, baseLayout, INK, rampColors } from "./theme";
import { groupSlider, sliderLayout } from "./controls";
import { readVols, type VolInput } from "./vol-grid";
import { displayable } from "./show";

export interface VolSmilesOptions {
  /**
   * The strike convention of the input's strikes, for the axis title: a wire `STRIKE_TYPE` (0 price,
   * 1 % of forward, 2 % of spot) or `"logMoneyness"` / `"delta"`. Default: what the input says.
   */
  strikeType?: number | string | object;
  /** Draw only these maturities (days). Default: all. */
  maturities?: readonly number[];
  /** Chart title. Default `Vol smiles`. */
  title?: string;
  /** A maturity slider under the chart: all smiles, or one at a time. Default false. */
  slider?: boolean;
}

/**
 * Vol smiles: one line per maturity (short = light, long = dark), strike on x in the grid's convention
 * (the axis says which; a dotted line marks at-the-money for percent strikes), vol as % on y.
 *
 * Takes a local-model grid (`vol.fromSurface(surface).grid(maturities, strikes, strikeType)`), or a
 * long vol table / DataFrame: `frames.volGridColumns(grid)`, `frames.volResultsColumns(results)` (the
 * service's `GetVol`), or their DataFrame twins.
 *
 * @example
 * ```ts
 * const grid = vol.fromSurface(surface).grid([30, 91, 365], [70, 80, 90, 100, 110, 120], STRIKE_TYPE.PercentForward);
 * plot.show(plot.volSmiles(grid));
 * plot.show(plot.volSmiles(grid, { slider: true }));   // one smile at a time, by maturity
 * ```
 */
export function volSmiles(input: VolInput, options: VolSmilesOptions = {}): Figure {
  const g = readVols(input, "plot.volSmiles", options.strikeType);
  const wanted = options.maturities ? new Set(options.maturities) : undefined;
  const rows = g.maturities.map((m, i) => ({ m, i })).filter(({ m }) => !wanted || wanted.has(m));
  // Darkest = longest maturity: the ramp runs dark → light, so reverse it.
  const colors = rampColors(rows.length).reverse();
  const xTitle = strikeAxisTitle(g.strikeType);
  const data: Trace[] = rows.map(({ m, i }, k) => ({
    type: "scatter",
    mode: g.strikes.length > 1 ? "lines" : "markers",
    name: daysLabel(m),
    x: g.strikes,
    y: g.vols[i]!,
    line: { color: colors[k], width: 2.2, shape: "spline", smoothing: 0.6 },
    marker: { color: colors[k] },
    hovertemplate: `${daysLabel(m)}, strike %{x}<br>vol %{y:.2%}<extra></extra>`,
  }));
  const shapes: Shape[] = [];
  const atm = atmStrike(g.strikeType);
  if (atm !== undefined && g.strikes.length > 0 && atm >= g.strikes[0]! && atm <= g.strikes[g.strikes.length - 1]!) {
    shapes.push({
      type: "line",
      xref: "x",
      yref: "paper",
      x0: atm,
      x1: atm,
      y0: 0,
      y1: 1,
      line: { color: INK.muted, width: 1, dash: "dot" },
    });
  }
  const slider =
    options.slider && rows.length > 1
      ? groupSlider(
          rows.map(({ m }, k) => ({ label: daysLabel(m), traces: [k] })),
          data.length,
          "Maturity",
        )
      : undefined;
  return displayable({
    data,
    layout: baseLayout(options.title ?? `Vol smiles · ${rows.length} maturities`, {
      xaxis: axis(xTitle),
      yaxis: axis("Implied vol (%)", { tickformat: ".0%", hoverformat: ".2%" }),
      hovermode: "closest",
      shapes,
      legend: { title: { text: "Maturity" }, orientation: "v", x: 1.02, xanchor: "left", y: 1, yanchor: "top" },
      margin: { l: 72, r: 24, t: 64, b: 64 },
      ...(slider ? sliderLayout(slider) : {}),
    }),
    config: baseConfig(),
  });
}
