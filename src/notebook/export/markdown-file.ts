/**
 * An executed notebook as a Markdown file: Markdown cells as written, code in fenced blocks, outputs as
 * text blocks (ANSI codes removed), HTML (tables) as it is, and every image written as a file into
 * `<name>_files/` beside the Markdown: a chart's `image/png` twin, else the chart drawn by plotly.js in
 * headless Chromium (started only when such a chart is there; without one, the chart is a line saying so
 * and the export goes on).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { sourceOf, type Cell, type MimeBundle, type Notebook, type Output } from "../ipynb";
import { PngExportError } from "../../plot/to-png";
import { stripAnsi } from "./ansi";
import { rasterisedPage } from "./chromium";
import type { RunRecord } from "./record";

const PLOTLY_MIME = "application/vnd.plotly.v1+json";
const PLOTLY_PART_MIME = "application/vnd.risk-portal-lab.plotly-part+json";

/** The Markdown text, the image files written (absolute) and how many charts are among them. */
export async function notebookMarkdown(
  nb: Notebook,
  record: RunRecord,
  out: string,
  browser: () => Promise<Browser>,
): Promise<{ text: string; images: string[]; charts: number; warning?: string }> {
  const folder = `${path.basename(out, path.extname(out))}_files`;
  const images: string[] = [];
  const write = (name: string, bytes: Buffer): string => {
    const file = path.join(path.dirname(out), folder, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, bytes);
    images.push(file);
    return `${encodeURI(folder)}/${encodeURI(name)}`;
  };
  let drawn = new Map<unknown, string>();
  let warning: string | undefined;
  try {
    drawn = await drawCharts(nb, browser);
  } catch (error) {
    if (!(error instanceof PngExportError) || error.missing === "render") throw error;
    warning = `charts without a static image are not drawn: ${error.message}`;
  }
  const parts = [header(record)];
  let code = 0;
  let charts = 0;
  for (const cell of nb.cells) {
    if (cell.cell_type === "markdown") parts.push(withAttachments(cell, write));
    if (cell.cell_type !== "code") continue;
    code++;
    parts.push(fenced(sourceOf(cell), languageOf(nb)));
    (cell.outputs ?? []).forEach((output, k) => {
      const name = `cell${code}_${k + 1}`;
      const isChart = "data" in output && output.data[PLOTLY_MIME] !== undefined;
      const text = outputMarkdown(output, name, write, drawn);
      if (isChart && text.startsWith("![")) charts++;
      if (text) parts.push(text);
    });
  }
  return { text: `${parts.join("\n\n")}\n`, images, charts, warning };
}

function header(record: RunRecord): string {
  const params = record.parameters.length
    ? `with ${record.parameters.map((p) => `\`${p}\``).join(", ")}`
    : "with the default parameters";
  return `> ${record.name}: run by risk-portal-lab ${params}, ${record.date}.`;
}

/** Charts without an image twin, drawn as PNGs (data: URLs) in one page, in notebook order. */
async function drawCharts(nb: Notebook, browser: () => Promise<Browser>): Promise<Map<unknown, string>> {
  const figures = nb.cells.flatMap((c) =>
    (c.outputs ?? []).flatMap((o) =>
      "data" in o && o.data[PLOTLY_MIME] !== undefined && !o.data["image/png"] && !o.data["image/svg+xml"]
        ? [o.data[PLOTLY_MIME]]
        : [],
    ),
  );
  const drawn = new Map<unknown, string>();
  if (!figures.length) return drawn;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const html = require("../../plot/html") as typeof import("../../plot/html");
  const page = `<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0">${figures
    .map((f, i) => html.figureFragment(f as never, { plotly: false, id: `chart-${i}` }))
    .join("\n")}${html.plotlyScripts()}</body></html>`;
  const { page: p, charts } = await rasterisedPage(await browser(), page);
  await p.context().close();
  figures.forEach((f, i) => drawn.set(f, charts[i]!));
  return drawn;
}

function outputMarkdown(
  output: Output,
  name: string,
  write: (name: string, bytes: Buffer) => string,
  drawn: Map<unknown, string>,
): string {
  if (output.output_type === "stream") return fenced(stripAnsi(output.text), "");
  if (output.output_type === "error") return fenced(stripAnsi(output.traceback.join("\n")), "");
  const data: MimeBundle = output.data;
  if (data[PLOTLY_PART_MIME] !== undefined) return "";
  const alt = data[PLOTLY_MIME] !== undefined ? "chart" : "figure";
  if (typeof data["image/png"] === "string")
    return `![${alt}](${write(`${name}.png`, Buffer.from(data["image/png"], "base64"))})`;
  if (typeof data["image/svg+xml"] === "string")
    return `![${alt}](${write(`${name}.svg`, Buffer.from(data["image/svg+xml"]))})`;
  const chart = drawn.get(data[PLOTLY_MIME]);
  if (chart) return `![chart](${write(`${name}.png`, Buffer.from(chart.slice(chart.indexOf(",") + 1), "base64"))})`;
  if (data[PLOTLY_MIME] !== undefined)
    return "*(a chart: not drawn here, as no Chromium was found; `export --to html` shows it)*";
  if (typeof data["text/markdown"] === "string") return data["text/markdown"];
  if (typeof data["text/html"] === "string") return data["text/html"].trim();
  if (data["text/plain"] !== undefined) return fenced(stripAnsi(String(data["text/plain"])), "");
  return "";
}

/** A Markdown cell, its attachments (`attachment:NAME` images) written as files and referred to there. */
function withAttachments(cell: Cell, write: (name: string, bytes: Buffer) => string): string {
  const attachments = (cell as { attachments?: Record<string, MimeBundle> }).attachments ?? {};
  let text = sourceOf(cell);
  for (const [name, bundle] of Object.entries(attachments)) {
    const mime = Object.keys(bundle).find((m) => m.startsWith("image/"));
    if (!mime) continue;
    const raw = String(bundle[mime]);
    const bytes = mime === "image/svg+xml" ? Buffer.from(raw) : Buffer.from(raw, "base64");
    const ref = write(`${cell.id ?? "cell"}_${path.basename(name)}`, bytes);
    text = text.split(`attachment:${name}`).join(ref);
  }
  return text;
}

/** `text` in a fence longer than any run of backticks in it. */
function fenced(text: string, language: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${language}\n${text.replace(/\n$/, "")}\n${fence}`;
}

function languageOf(nb: Notebook): string {
  const info = nb.metadata?.language_info as { name?: string } | undefined;
  const spec = nb.metadata?.kernelspec as { language?: string } | undefined;
  return (info?.name ?? spec?.language ?? "typescript").toLowerCase();
}
