/**
 * A static twin for every chart of a headless run: after the notebooks of a run have run and been written,
 * each chart output (a bundle holding `application/vnd.plotly.v1+json`) gets an `image/png` of the chart,
 * drawn by plotly.js in one headless Chromium for the whole run (`plot.pngRenderer`), in the chart's own
 * size and theme (its layout). GitHub's and nbviewer's previews, VS Code's, and `jupyter nbconvert --to
 * markdown|pdf|latex` show the image; JupyterLab and VS Code still draw the plotly JSON, and the runner's
 * own page draws it from the JSON too (render-html.ts).
 *
 * The chart's `text/html` part (a script that needs plotly.js on the page) goes from a bundle that got its
 * image: nbconvert's markdown exporter prefers `text/html` to any image, and a script is nothing without
 * JavaScript. A chart whose image could not be drawn keeps its HTML. When every chart of a notebook has
 * its image, the plotly.js parts the session sent with its first chart (`PLOTLY_PART_CHARS` at a time, 4.8 MB
 * of script that only the charts' HTML used) go too.
 */
import { readFile } from "node:fs/promises";
import { replaceFiles } from "../files/replace-files";
import type { Notebook, Output } from "./ipynb";

const PLOTLY_MIME = "application/vnd.plotly.v1+json";
/** plotly-parts.ts's PLOTLY_PART_MIME (not imported: that module reads plotly.js). */
const PLOTLY_PART_MIME = "application/vnd.risk-portal-lab.plotly-part+json";

/** What adding the images did: charts drawn, their time (Chromium's start apart), and what went wrong. */
export interface ChartImagesReport {
  /** Charts that got an image. */
  charts: number;
  /** Notebooks rewritten with their images. */
  notebooks: number;
  /** Starting Chromium and loading plotly.js in it, ms (0 when nothing was drawn). */
  startMs: number;
  /** Drawing the charts, ms (all of them). */
  renderMs: number;
  /** Why there are no images at all (no Chromium, no playwright-core): a sentence saying how to get them. */
  unavailable?: string;
  /** Charts that could not be drawn, one line each (`out/a.ipynb: chart 3: …`); they keep their HTML. */
  failures: string[];
}

/** A chart output: a display or result whose bundle holds plotly JSON. */
type ChartOutput = Output & { output_type: "display_data" | "execute_result" };

/** The chart outputs of an executed notebook, in order. */
export function chartOutputs(nb: Notebook): ChartOutput[] {
  return nb.cells
    .flatMap((c) => c.outputs ?? [])
    .filter(
      (o): o is ChartOutput =>
        (o.output_type === "display_data" || o.output_type === "execute_result") &&
        typeof o.data[PLOTLY_MIME] === "object" &&
        o.data[PLOTLY_MIME] !== null,
    );
}

type Renderer = import("../plot/to-png").PngRenderer;

/**
 * Adds an `image/png` to every chart of each executed notebook (paths of `.ipynb` files the runner wrote),
 * rewriting each notebook that has charts, with one Chromium started for all of them (and none when no
 * notebook has a chart; `browser`: which Chromium, see `plot.pngRenderer`). Never throws for a missing Chromium or a chart that cannot be drawn: the report
 * says so (see {@link describeChartImages}).
 */
export async function addChartImages(
  ipynbPaths: readonly string[],
  browser: import("../plot/to-png").BrowserOptions = {},
): Promise<ChartImagesReport> {
  const report: ChartImagesReport = { charts: 0, notebooks: 0, startMs: 0, renderMs: 0, failures: [] };
  let renderer: Renderer | undefined;
  try {
    for (const file of ipynbPaths) {
      const nb = JSON.parse(await readFile(file, "utf8")) as Notebook;
      const charts = chartOutputs(nb);
      if (charts.length === 0) continue;
      if (!renderer) {
        const t0 = performance.now();
        const started = await startRenderer(browser);
        report.startMs = performance.now() - t0;
        if (typeof started === "string") return { ...report, unavailable: started };
        renderer = started;
      }
      const t0 = performance.now();
      const drawn = await drawCharts(renderer, charts, file, report.failures);
      report.renderMs += performance.now() - t0;
      if (drawn === 0) continue;
      if (drawn === charts.length) dropPlotlyParts(nb);
      report.charts += drawn;
      report.notebooks++;
      // The runner's own form (one-space indent, a final newline), replaced whole or not at all.
      await replaceFiles([{ path: file, data: `${JSON.stringify(nb, null, 1)}\n` }], "addChartImages");
    }
  } finally {
    await renderer?.close().catch(() => undefined);
  }
  return report;
}

/** Chromium with plotly.js loaded, or the sentence saying why there is none and how to get one. */
async function startRenderer(browser: import("../plot/to-png").BrowserOptions): Promise<Renderer | string> {
  const { pngRenderer, PngExportError } = await import("../plot/to-png");
  try {
    return await pngRenderer(browser);
  } catch (error) {
    if (error instanceof PngExportError && error.missing !== "render")
      return error.message.replace(/^toPng needs/, "a static image of each chart needs");
    return `a static image of each chart could not be drawn: ${(error as Error).message.split("\n")[0]}`;
  }
}

/** Draws each chart into its bundle (PNG in, HTML out); returns how many were drawn. */
async function drawCharts(
  renderer: Renderer,
  charts: readonly ChartOutput[],
  file: string,
  failures: string[],
): Promise<number> {
  let drawn = 0;
  for (const [i, output] of charts.entries()) {
    const fig = output.data[PLOTLY_MIME] as import("../plot/figure").Figure;
    try {
      const png = await renderer.render(fig);
      const { width, height } = pngSize(png);
      output.data["image/png"] = png.toString("base64");
      delete output.data["text/html"];
      output.metadata = { ...output.metadata, "image/png": { width, height } };
      drawn++;
    } catch (error) {
      failures.push(`${file}: chart ${i + 1}: ${(error as Error).message.split("\n")[0]}`);
    }
  }
  return drawn;
}

/** Removes the plotly.js parts (displays marked {@link PLOTLY_PART_MIME}) from every cell. */
function dropPlotlyParts(nb: Notebook): void {
  for (const cell of nb.cells) {
    if (!cell.outputs) continue;
    cell.outputs = cell.outputs.filter(
      (o) => !((o.output_type === "display_data" || o.output_type === "execute_result") && PLOTLY_PART_MIME in o.data),
    );
  }
}

/** A PNG's width and height in pixels, from its IHDR chunk; throws when the bytes are not a PNG. */
export function pngSize(png: Uint8Array): { width: number; height: number } {
  const bytes = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  const magic = "89504e470d0a1a0a";
  if (
    bytes.length < 24 ||
    bytes.subarray(0, 8).toString("hex") !== magic ||
    bytes.toString("latin1", 12, 16) !== "IHDR"
  )
    throw new Error(`not a PNG image (${bytes.length} bytes, starting ${bytes.subarray(0, 8).toString("hex")})`);
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/**
 * The lines a run prints about its images: `images: 8 charts drawn as PNG in 2.1 s (Chromium start 0.6 s,
 * then 0.19 s a chart); --no-images skips this` on `log`; a missing Chromium (once) and charts that could
 * not be drawn on `logError`. Nothing when no notebook had a chart.
 */
export function describeChartImages(
  report: ChartImagesReport,
  log: (line: string) => void,
  logError: (line: string) => void,
): void {
  if (report.unavailable) {
    logError(
      `images: the charts have no static image, so GitHub, nbviewer and nbconvert's Markdown and PDF show nothing where they are: ${report.unavailable} (--no-images skips this)`,
    );
    return;
  }
  for (const line of report.failures) logError(`images: ${line} (the chart keeps its HTML only)`);
  if (report.charts === 0) return;
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const each = (report.renderMs / report.charts / 1000).toFixed(2);
  log(
    `images: ${report.charts} chart${report.charts === 1 ? "" : "s"} drawn as PNG in ${s(report.startMs + report.renderMs)} (Chromium start ${s(report.startMs)}, then ${each} s a chart); --no-images skips this`,
  );
}
