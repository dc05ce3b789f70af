/** `toHtml`: a figure as a standalone HTML file that opens offline. */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { checkFigure, type Figure } from "./figure";
import { figurePage } from "./html";

/**
 * Writes the figure as one standalone HTML page with plotly.js inline (~4.8 MB): it opens from disk,
 * offline, in any browser, and can be mailed or attached as is. Creates the directory if needed.
 * Returns the absolute path.
 *
 * @example
 * ```ts
 * plot.toHtml(plot.volSurface(grid), "out/vol-surface.html");
 * ```
 */
export function toHtml(fig: Figure, file: string, options: { title?: string } = {}): string {
  checkFigure(fig, "toHtml");
  if (typeof file !== "string" || file === "") throw new TypeError('toHtml needs a file path, e.g. "out/chart.html"');
  const target = path.resolve(file);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, figurePage(fig, options.title));
  return target;
}
