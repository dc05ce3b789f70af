/**
 * `risk-portal-lab export NB.ipynb --to pdf|html|md`: an executed notebook as a document to send or
 * commit. HTML: one self-contained page (plotly.js and images inlined, nothing loaded from elsewhere).
 * PDF: that page printed by headless Chromium, its charts as images, a header on every page with the
 * notebook's name, parameters and run date, cells kept whole on a page where they fit. Markdown: the
 * cells as Markdown with every chart and image written as a file into `<name>_files/` beside it.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { escapeHtml } from "../../plot/labels";
import { launchChromium } from "../../plot/chromium-launch";
import { parseNotebook, type Notebook } from "../ipynb";
import { renderHtml } from "../render-html";
import { titleOf } from "../run-shared";
import { rasterisedPage } from "./chromium";
import { notebookMarkdown } from "./markdown-file";
import { inlineImage, runRecord, type RunRecord } from "./record";

/** The formats `export` writes. */
export type ExportFormat = "pdf" | "html" | "md";

export interface ExportOptions {
  to: ExportFormat;
  /** The file to write. Default: beside the notebook, `<name>.pdf|.html|.md`. */
  out?: string;
  /** A Chromium already started (tests, many exports): used and left open. Default: one started and closed. */
  browser?: Browser;
  /** The Chromium to start when `browser` is not given (see `findChromium`). Default: the first found. */
  chromiumPath?: string;
}

export interface ExportResult {
  /** The file written (absolute). */
  file: string;
  bytes: number;
  /** Charts drawn as images (PDF, Markdown) or inlined interactive (HTML). */
  charts: number;
  /** Files written beside it (the Markdown export's images). */
  images: string[];
  /** What the export could not do and went on without (Markdown: charts not drawn for want of Chromium). */
  warning?: string;
}

/** Exports the notebook file (see the module comment); throws naming the file when it is not a notebook. */
export async function exportNotebook(file: string, options: ExportOptions): Promise<ExportResult> {
  const nb = parseNotebook(readFileSync(file, "utf8"), file);
  const record = runRecord(nb, file);
  const out = path.resolve(options.out ?? path.join(path.dirname(file), `${record.name}.${options.to}`));
  mkdirSync(path.dirname(out), { recursive: true });
  if (options.to === "md") {
    const md = await withBrowser(options, (b) => notebookMarkdown(nb, record, out, b));
    writeFileSync(out, md.text);
    return { file: out, bytes: statSync(out).size, charts: md.charts, images: md.images, warning: md.warning };
  }
  const title = titleOf(nb) ?? record.name;
  const image = inlineImage(file);
  if (options.to === "html") {
    const html = renderHtml(nb, { title, image, runDate: record.ran });
    writeFileSync(out, html);
    return { file: out, bytes: statSync(out).size, charts: chartCount(nb), images: [] };
  }
  const html = renderHtml(nb, { title, image, runDate: record.ran, preferImages: true, css: PRINT_CSS });
  const charts = await withBrowser(options, (b) => printPdf(b, html, record, out), "export --to pdf");
  return { file: out, bytes: statSync(out).size, charts, images: [] };
}

/** Runs `work` with the given browser, else with one started for it and closed after (only when `work` asks for one). */
async function withBrowser<T>(
  { browser: given, chromiumPath }: ExportOptions,
  work: (browser: () => Promise<Browser>) => Promise<T>,
  what = "export --to md",
): Promise<T> {
  let started: Browser | undefined;
  try {
    return await work(async () => given ?? (started ??= await launchChromium({ chromiumPath }, what)));
  } finally {
    await started?.close();
  }
}

/** Prints the page to `out`; returns how many charts were drawn in it (those with an image twin are already images). */
async function printPdf(browser: () => Promise<Browser>, html: string, record: RunRecord, out: string) {
  const { page, charts } = await rasterisedPage(await browser(), html);
  try {
    await page.pdf({
      path: out,
      format: "A4",
      printBackground: true,
      displayHeaderFooter: true,
      headerTemplate: pageHeader(record),
      footerTemplate: `<div style="font:8px sans-serif;color:#6e7781;width:100%;text-align:center"><span class="pageNumber"></span> / <span class="totalPages"></span></div>`,
      margin: { top: "16mm", bottom: "14mm", left: "12mm", right: "12mm" },
    });
  } finally {
    await page.context().close();
  }
  return charts.length + (html.match(/<img alt="figure" class="figure"/g)?.length ?? 0);
}

/** Every page's header: the notebook's name and parameters on the left, the run date on the right. */
function pageHeader(record: RunRecord): string {
  const params = record.parameters.length ? ` · ${record.parameters.join(", ")}` : "";
  return `<div style="font:8px sans-serif;color:#6e7781;width:100%;margin:0 12mm;display:flex;justify-content:space-between"><span>${escapeHtml(record.name + params)}</span><span>${escapeHtml(record.date)}</span></div>`;
}

/** Print rules: cells kept whole on a page where they fit, a heading kept with what follows, long lines wrapped. */
const PRINT_CSS = `
@media print{
body{max-width:none;margin:0;padding:0;font-size:12px}
section.code,section.md,.output,img,table,pre{break-inside:avoid}
section.md{break-after:avoid}h1,h2,h3,h4,h5,h6{break-after:avoid}
pre{white-space:pre-wrap;overflow-wrap:anywhere}
img.figure{max-width:100%;height:auto}
}`;

function chartCount(nb: Notebook): number {
  let n = 0;
  for (const cell of nb.cells)
    for (const o of cell.outputs ?? []) if ("data" in o && o.data["application/vnd.plotly.v1+json"] !== undefined) n++;
  return n;
}
