/** `volSurface`: implied vol over maturity × strike, in 3D. */
import type { Figure } from "./figure";
import { strikeAxisTitle } from "./labels";
import { baseConfig, baseLayout, sceneAxis } from "./theme";
import { readVols, type VolInput } from "./vol-grid";
import { displayable } from "./show";

export interface VolSurfaceOptions {
  /** The strike convention, for the axis title (see `volSmiles`). Default: what the input says. */
  strikeType?: number | string;
  /** Chart title. Default `Vol surface`. */
  title?: string;
}

/**
 * The vol surface in 3D: strike (x, in the grid's convention) × maturity in days (y) → vol as % (z).
 * Takes the same inputs as `volSmiles` (a model grid, or a long vol table / DataFrame); cells the
 * table lacks stay empty.
 *
 * @example
 * ```ts
 * plot.show(plot.volSurface(vol.fromSurface(surface).grid(maturities, strikes, STRIKE_TYPE.PercentForward)));
 * ```
 */
export function volSurface(input: VolInput, options: VolSurfaceOptions = {}): Figure {
  const g = readVols(input, "plot.volSurface", options.strikeType);
  const xTitle = strikeAxisTitle(g.strikeType);
  return displayable({
    data: [
      {
        type: "surface",
        name: "vol",
        x: g.strikes,
        y: g.maturities,
        z: g.vols,
        colorscale: "Viridis",
        colorbar: { title: { text: "Vol" }, tickformat: ".0%", len: 0.7, thickness: 14, x: 0.92 },
        hovertemplate: "maturity %{y}d, strike %{x}<br>vol %{z:.2%}<extra></extra>",
      },
    ],
    layout: baseLayout(
      options.title ?? `Vol surface · ${g.maturities.length} maturities × ${g.strikes.length} strikes`,
      {
        scene: {
          xaxis: sceneAxis(xTitle),
          yaxis: sceneAxis("Maturity (days)"),
          zaxis: sceneAxis("Implied vol (%)", { tickformat: ".0%" }),
          // Low and close, looking a little below the centre: the surface fills the frame.
          camera: { eye: { x: -1.3, y: -1.3, z: 0.6 }, center: { x: 0, y: 0, z: -0.3 } },
          aspectmode: "manual",
          aspectratio: { x: 1.35, y: 1.35, z: 0.8 },
          domain: { x: [0, 0.9], y: [0, 1] },
        },
        margin: { l: 10, r: 10, t: 56, b: 10 },
      },
    ),
    config: baseConfig(),
  });
}
