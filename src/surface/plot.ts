/**
 * `plot` as the package root exports it: one builder per chart, `figure` for one's own, `show` and the
 * two exports, the palette and the table views. The constants and the plumbing (`PLOTLY_MIME`,
 * `plotlySource`, `resetPlotlyEmbed`, `CHROMIUM_ARGS`, `pngRenderer`, …) are in `risk-portal-lab/plot`,
 * which holds the whole folder. Every type of the folder is here too.
 */
import * as folder from "../plot";
import { guardAnswers } from "../await-guard";

export type * from "../plot";
export { PALETTE, PngExportError } from "../plot";
// Each function behind the one guard ({@link guardAnswers}): a Promise where an answer belongs is an
// error naming the function. Same function, name, length and type; the values above are the folder's own.
export const yieldCurve = guardAnswers("plot.yieldCurve", folder.yieldCurve);
export const curveHistory = guardAnswers("plot.curveHistory", folder.curveHistory);
export const curveSurface = guardAnswers("plot.curveSurface", folder.curveSurface);
export const curveTenorHeatmap = guardAnswers("plot.curveTenorHeatmap", folder.curveTenorHeatmap);
export const spreadHistory = guardAnswers("plot.spreadHistory", folder.spreadHistory);
export const volSmiles = guardAnswers("plot.volSmiles", folder.volSmiles);
export const volSurface = guardAnswers("plot.volSurface", folder.volSurface);
export const crossCheckHeatmap = guardAnswers("plot.crossCheckHeatmap", folder.crossCheckHeatmap);
export const reportStatus = guardAnswers("plot.reportStatus", folder.reportStatus);
export const transactions = guardAnswers("plot.transactions", folder.transactions);
export const concentration = guardAnswers("plot.concentration", folder.concentration);
export const positionEffects = guardAnswers("plot.positionEffects", folder.positionEffects);
export const figure = guardAnswers("plot.figure", folder.figure);
export const show = guardAnswers("plot.show", folder.show);
export const toHtml = guardAnswers("plot.toHtml", folder.toHtml);
export const toPng = guardAnswers("plot.toPng", folder.toPng);
export const tableHtml = guardAnswers("plot.tableHtml", folder.tableHtml);
export const tableText = guardAnswers("plot.tableText", folder.tableText);
