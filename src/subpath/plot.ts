/**
 * `risk-portal-lab/plot`: the whole plot folder, for what the root's `plot` namespace
 * leaves out. At run time it is the same code as the root's (dist/subpath/plot.js reads it from the one
 * bundle, dist/index.js), so a class or error from here is the root's own.
 */
export * from "../plot";
// The root namespace's functions, behind the Promise guard ({@link guardAnswers}): the same values here.
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
} from "../surface/plot";
