/**
 * `plot` as the package root exports it: one builder per chart, `figure` for one's own, `show` and the
 * two exports, the palette and the table views. The constants and the plumbing (`PLOTLY_MIME`,
 * `plotlySource`, `resetPlotlyEmbed`, `CHROMIUM_ARGS`, `pngRenderer`, …) are in `risk-portal-lab/plot`
 * (src/subpath/plot.ts), which holds the whole folder. Every type of the folder is here too.
 */
export type * from "../plot";
export {
  yieldCurve,
  curveHistory,
  curveSurface,
  curveTenorHeatmap,
  spreadHistory,
  volSmiles,
  volSurface,
  crossCheckHeatmap,
  reportStatus,
  transactions,
  concentration,
  positionEffects,
  figure,
  show,
  toHtml,
  toPng,
  tableHtml,
  tableText,
  PALETTE,
  PngExportError,
} from "../plot";
