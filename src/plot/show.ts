/**
 * `show(figOrFrame)`: one call from a notebook cell to a chart or a table, under either kernel.
 *
 * In a notebook (tslab or Deno's kernel, `findKernelDisplay`) it sends ONE display message per figure or
 * table whose bundle holds, for a figure, `application/vnd.plotly.v1+json` (frontends with a plotly
 * renderer use it), an HTML rendering (everything else, and HTML exports: no CDN, no network) and
 * `text/plain`; for a table, `text/html` and `text/plain`. The first chart of a kernel session is
 * followed by plotly.js (~4.8 MB) in small parts, each its own display (`plotlyPartBundles`): no
 * message is big enough for Deno's kernel to announce idle before it is out. Charts wait for plotly.js
 * on the page, so their order does not matter. Outside a kernel, `show` writes an HTML file and prints
 * its path.
 *
 * The same bundles answer `Symbol.for("Jupyter.display")` on figures, tables and DataFrames, so in Deno's
 * kernel a bare `fig` as a cell's last expression displays as `plot.show(fig)` does.
 */
import { notebookSession } from "../kernel/session";
import type { DataFrame } from "../../vendor/danfo";
import { isTypedColumnTable, type ColumnTable, type TypedColumnTable } from "../table/column-table";
import { isFigure, type Figure } from "./figure";
import { figureFragment, figurePage, titleText } from "./html";
import { writePage } from "./page-file";
import { plotlyPartBundles } from "./plotly-parts";
import { isColumnTable, isDataFrame, isSeries, type SeriesLike } from "./input";
import {
  findKernelDisplay,
  makeDisplayable,
  setBundleMaker,
  setValuePrinter,
  type KernelDisplay,
  type MimeBundle,
} from "../kernel/display";
import { DisplayHandle } from "./display-handle";
import { DEFAULT_TABLE_ROWS, tableHtml, tableText, type TableLike } from "./table-view";
import type { Digits } from "./number-text";

/** The mime type of plotly figures (JupyterLab, VS Code and nteract render it with their plotly extension). */
export const PLOTLY_MIME = "application/vnd.plotly.v1+json";

/**
 * What `show` displays: a figure, a table, a DataFrame or Series (a column, what `describe()` returns), or
 * a batch result (`{ table }` / `{ frame }`).
 */
export type Showable =
  | Figure
  | ColumnTable
  | TypedColumnTable
  | DataFrame
  | SeriesLike
  | { table: ColumnTable; failures?: unknown[] }
  | { frame: DataFrame; failures?: unknown[] };

export interface ShowOptions {
  /**
   * In a notebook: `once` (default) sends plotly.js (in parts, after the chart) with the first chart of
   * the kernel session only; `always` sends it with this chart too (use it after clearing the outputs
   * that held it).
   */
  plotlyJs?: "once" | "always";
  /** Table rows shown from the top and from the bottom. Default 5. */
  rows?: number;
  /**
   * Decimal places of a table's numbers: `4` for every column holding a fraction, `{ rate: 6 }` per
   * column. Default: up to 10 significant digits per column (more where values would read alike), never
   * float noise. Only the display rounds (see `TableViewOptions`).
   */
  digits?: Digits;
  /**
   * Outside a kernel: the directory of the HTML file (created 0700 when missing). Default
   * `$RISK_PORTAL_LAB_PLOT_DIR`, else `<tmp>/risk-portal-lab-plots-<uid>`: this user's own, or, when that
   * is not (another user's, open to others, a symlink), a fresh private one beside it. Pages are 0600.
   */
  outDir?: string;
}

/** Whether this process (= this kernel session) has sent plotly.js to the notebook. */
let plotlyEmbedded = false;

/**
 * The mime bundle of a figure: the plotly JSON, a self-contained HTML rendering (with plotly.js when
 * `plotly` is true) and a one-line text.
 * @example
 * ```ts
 * import { mimeBundle, PLOTLY_MIME } from "risk-portal-lab/plot";
 * const bundle = mimeBundle(plot.yieldCurve(frames.yieldCurveColumns(curve)), { plotly: false });
 * bundle[PLOTLY_MIME]; // the JSON a frontend with plotly's renderer draws
 * ```
 */
export function mimeBundle(fig: Figure, options: { plotly: boolean }): MimeBundle {
  return {
    [PLOTLY_MIME]: { data: fig.data, layout: fig.layout ?? {}, config: fig.config ?? {} },
    "text/html": figureFragment(fig, { plotly: options.plotly }),
    "text/plain": figureSummary(fig),
  };
}

/**
 * `Figure "USD zero curve · 2026-11-20" (1 trace: scatter)`.
 * @example
 * ```ts
 * import { figureSummary } from "risk-portal-lab/plot";
 * figureSummary(plot.yieldCurve(frames.yieldCurveColumns(curve))); // 'Figure "…" (1 trace: scatter)'
 * ```
 */
export function figureSummary(fig: Figure): string {
  const counts = new Map<string, number>();
  for (const t of fig.data) counts.set(t.type ?? "scatter", (counts.get(t.type ?? "scatter") ?? 0) + 1);
  const kinds = [...counts].map(([k, c]) => (c > 1 ? `${k} ×${c}` : k)).join(", ");
  const title = titleText(fig);
  return `Figure${title ? ` "${title}"` : ""} (${fig.data.length} trace${fig.data.length === 1 ? "" : "s"}${kinds ? `: ${kinds}` : ""})`;
}

/**
 * Displays a figure or a table and returns a {@link DisplayHandle} on what it showed: `update(next)`
 * replaces it in place, `close()` ends it (see there); as a cell's last value the handle prints nothing.
 * In a notebook (tslab or Deno's kernel): inline, as one display message under a display id of its own
 * (the session's first chart followed by plotly.js in parts; see the module comment). Elsewhere: writes an
 * HTML file (a figure: a standalone page with plotly.js inline; a table: the HTML table), prints
 * `plot: <path>`, and the handle's `file` is that path.
 *
 * @example
 * ```ts
 * plot.show(plot.yieldCurve(df));                  // a chart (df: a yield curve's frame)
 * const trades = frames.transactionTable(response);
 * plot.show(trades);                                // shape, column types, head and tail
 * plot.show(trades["notional"]);                    // a Series: its index and values
 * plot.show(trades.describe());                     // count, mean, std, … per column
 * const chart = plot.show(plot.yieldCurve(df));     // a handle on what it showed
 * chart.update(plot.yieldCurve(df));                // the same output, redrawn in place
 * ```
 */
export function show(value: Showable, options: ShowOptions = {}): DisplayHandle<Showable> {
  return showWith(findKernelDisplay(), value, options);
}

/** {@link show} with the display given (tests, or a caller that found the kernel itself). */
export function showWith(
  display: KernelDisplay | undefined,
  value: Showable,
  options: ShowOptions = {},
): DisplayHandle<Showable> {
  const rows = options.rows ?? DEFAULT_TABLE_ROWS;
  if (!(Number.isInteger(rows) && rows > 0)) throw new RangeError(`show: rows must be a whole number > 0; got ${rows}`);
  checkShowable(value);
  // `plotlyJs: "always"` is for the show itself: an update sends plotly.js only if the session has not had it.
  let plotlyJs = options.plotlyJs;
  return new DisplayHandle<Showable>(display, value, {
    bundles(next) {
      checkShowable(next);
      const bundles = displayBundles(next, { rows, digits: options.digits, plotlyJs });
      plotlyJs = undefined;
      return bundles;
    },
    page(next) {
      checkShowable(next);
      if (isFigure(next)) return writeHtml(figurePage(next), titleText(next) ?? "chart", options);
      const page = `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Table</title></head><body style="margin:16px">${tableView(next, rows, options.digits).html}</body></html>\n`;
      return writeHtml(page, "table", options);
    },
  });
}

function checkShowable(value: Showable): void {
  if (!isFigure(value) && !tableOf(value))
    throw new TypeError(
      "show expects a plotly figure (plot.yieldCurve(...), …), a frames column table, a danfo DataFrame or Series, or a { table } / { frame } batch result",
    );
}

/**
 * The mime bundles `show` sends for a figure or a table in a notebook, in order: the value's own bundle,
 * then, after the session's first chart (or with `plotlyJs: "always"`), plotly.js in parts; this records
 * that they were sent. Throws for anything else.
 */
export function displayBundles(
  value: Showable,
  options: { rows?: number; digits?: Digits; plotlyJs?: "once" | "always" } = {},
): MimeBundle[] {
  if (isFigure(value)) {
    const figure = mimeBundle(value, { plotly: false });
    if (plotlyEmbedded && options.plotlyJs !== "always") return [figure];
    const parts = plotlyPartBundles();
    plotlyEmbedded = true;
    return [figure, ...parts];
  }
  const { html, text } = tableView(value, options.rows ?? DEFAULT_TABLE_ROWS, options.digits);
  return [{ "text/html": html, "text/plain": text }];
}

/** The HTML and text of a table (or batch result), with a note when some of the batch's calls failed. */
function tableView(value: Showable, rows: number, digits: Digits | undefined): { html: string; text: string } {
  const table = tableOf(value);
  if (!table) throw new TypeError("show: not a figure or a table");
  const failures = (value as { failures?: unknown[] }).failures;
  const note =
    Array.isArray(failures) && failures.length > 0
      ? `${failures.length} call${failures.length === 1 ? "" : "s"} failed (see .failures)`
      : "";
  return {
    html:
      tableHtml(table, { rows, digits }) +
      (note ? `<p style="color:#e15759;font:13px system-ui,sans-serif">${note}</p>` : ""),
    text: tableText(table, { rows, digits }) + (note ? `\n${note}` : ""),
  };
}

/**
 * Marks a figure as displayable (see {@link makeDisplayable}): in Deno's kernel, the figure as a cell's
 * last expression displays as `plot.show(fig)` does. Every figure builder returns its figure through it.
 */
export function displayable<F extends Figure>(fig: F): F {
  return makeDisplayable(fig);
}
/**
 * The bundle a figure, table or DataFrame answers `Symbol.for("Jupyter.display")` with (Deno's kernel
 * sends it as the cell's result): show's bundle of the value. When plotly.js parts go with it, they are
 * sent to the kernel display first, and the bundle comes after a short wait (Deno awaits it) in which
 * the kernel puts them on the wire. Outside a kernel, nothing is sent and plotly.js counts as not sent.
 */
export function resultBundle(
  value: Showable,
  display: KernelDisplay | undefined = findKernelDisplay(),
): MimeBundle | Promise<MimeBundle> {
  const [own, ...parts] = displayBundles(value);
  if (parts.length === 0) return own!;
  if (!display) {
    plotlyEmbedded = false;
    return own!;
  }
  for (const part of parts) display.send(part);
  return new Promise((resolve) => setTimeout(() => resolve(own!), RESULT_AFTER_PARTS_MS));
}
/** How long a bare figure's result waits after its plotly.js parts (the kernel finishes sending them meanwhile). */
const RESULT_AFTER_PARTS_MS = 50;
// Figures, tables and DataFrames that answer Symbol.for("Jupyter.display") get show's bundle.
setBundleMaker((value) => resultBundle(value as Showable));
// Under tslab, the same values as a cell's last value are shown, and named in one line elsewhere.
setValuePrinter({
  show: (value) => void show(value as Showable),
  describe: (value) => describeValue(value as Showable),
});

/**
 * One line naming a figure or table and how to show it: what `console.log(df)` prints under tslab.
 * `DataFrame · 18 rows × 5 columns · from … — write plot.show(…) to see it as a table`.
 */
export function describeValue(value: Showable): string {
  if (isFigure(value)) return `${figureSummary(value)} — write plot.show(…) to see it as a chart`;
  const table = tableOf(value);
  if (!table) return Object.prototype.toString.call(value);
  return `${tableText(table, 1).split("\n", 1)[0]} — write plot.show(…) to see it as a table`;
}

/**
 * Forget that plotly.js was sent to the notebook: the next `show` embeds it again (for when the output
 * that held it was cleared, so that a saved or exported notebook keeps its charts).
 * @example
 * ```ts
 * import { resetPlotlyEmbed } from "risk-portal-lab/plot";
 * resetPlotlyEmbed(); // after clearing the outputs: the next plot.show embeds plotly.js again
 * ```
 */
export function resetPlotlyEmbed(): void {
  plotlyEmbedded = false;
}
// A new notebook session embeds plotly.js again with its first chart.
notebookSession().onStart(resetPlotlyEmbed);

function tableOf(value: unknown): TableLike | undefined {
  if (isColumnTable(value) || isTypedColumnTable(value) || isDataFrame(value) || isSeries(value)) return value;
  if (typeof value !== "object" || value === null) return undefined;
  const batch = value as { table?: unknown; frame?: unknown };
  if (isColumnTable(batch.table)) return batch.table;
  if (isDataFrame(batch.frame)) return batch.frame;
  return undefined;
}

/** Writes the page to a fresh file of this user's own (see `writePage`), prints and returns its path. */
function writeHtml(page: string, name: string, options: ShowOptions): string {
  const { file, note } = writePage(page, name, options.outDir ?? process.env.RISK_PORTAL_LAB_PLOT_DIR);
  if (note) console.log(`plot: ${note}`);
  console.log(`plot: ${file}`);
  return file;
}
