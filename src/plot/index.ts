/**
 * plot: plotly figures for the service's data, shown inline in a notebook with one call, offline, and
 * exported to standalone HTML or PNG.
 *
 * - Figure builders return plain plotly figures (`{ data, layout, config }`) to tweak before showing:
 *   `yieldCurve`, `curveHistory`, `curveSurface`, `curveTenorHeatmap`, `volSmiles`, `volSurface`, `crossCheckHeatmap`,
 *   `reportStatus`, `transactions`, `positionEffects`, `spreadHistory`, `concentration`. Each takes a frames column table, a danfo
 *   DataFrame, or the raw response (see each one's comment).
 * - `show(figOrFrame)`: in a tslab kernel, one display message with the plotly JSON and a
 *   self-contained HTML rendering (plotly.js embedded once per kernel session); tables, DataFrames and
 *   Series (a column, `describe()`) as HTML with shape, column types, head and tail. Elsewhere: an HTML
 *   file, its path printed. Returns a `DisplayHandle`: `update(next)` redraws the output in place.
 * - `toHtml(fig, path)`: standalone, offline page. `toPng(fig, path)`: headless Chromium.
 *
 * Importing this module loads neither plotly.js (read from disk on first display), danfo, nor
 * playwright-core (loaded by `toPng`).
 *
 * ```ts
 * import { frames, plot } from "risk-portal-lab";
 * plot.show(plot.yieldCurve(frames.yieldCurve(await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" }))));
 * ```
 */
export type { Figure, Trace, Layout, Axis, AxisTitle, Config, Shape, Annotation } from "./figure";
export { isFigure } from "./figure";
export { figure, type FigureSpec } from "./themed";
export type { TableInput } from "./input";
export { PALETTE, STATUS_COLORS, DEFAULT_WIDTH, DEFAULT_HEIGHT } from "./theme";

// Figure builders
export { yieldCurve, type YieldCurveOptions } from "./yield-curve";
export { curveHistory, DEFAULT_TENORS, type CurveHistoryOptions } from "./curve-history";
export { curveSurface, type CurveSurfaceOptions } from "./curve-surface";
export {
  curveTenorHeatmap,
  DEFAULT_HEATMAP_TENORS,
  type CurveTenorHeatmapOptions,
  type CurveTenorHeatmapInput,
} from "./curve-tenor-heatmap";
export type { CurveInput } from "./curves";
export { volSmiles, type VolSmilesOptions } from "./vol-smiles";
export { volSurface, type VolSurfaceOptions } from "./vol-surface";
export type { VolInput, VolGridLike } from "./vol-grid";
export { crossCheckHeatmap, type CrossCheckHeatmapOptions, type CrossCheckInput } from "./cross-check-heatmap";
export { reportStatus, type ReportStatusOptions } from "./report-status";
export { transactions, type TransactionsOptions } from "./transactions";
export { spreadHistory, type SpreadHistoryOptions } from "./spread-history";
export { concentration, concentrationStats, type ConcentrationOptions, type ConcentrationStats } from "./concentration";
export { positionEffects, type PositionEffectsOptions } from "./position-effects";

// Display and export
export {
  show,
  mimeBundle,
  figureSummary,
  resetPlotlyEmbed,
  PLOTLY_MIME,
  type ShowOptions,
  type Showable,
} from "./show";
export { DisplayHandle, type CloseOptions } from "./display-handle";
export type { MimeBundle } from "../kernel/display";
export { tableHtml, tableText, type TableViewOptions } from "./table-view";
export type { Digits } from "./number-text";
export { toHtml } from "./to-html";
export {
  toPng,
  pngRenderer,
  findChromium,
  PngExportError,
  CHROMIUM_ARGS,
  type PngOptions,
  type BrowserOptions,
  type PngRenderer,
} from "./to-png";
export { plotlySource, type PlotlySource } from "./plotly-source";
