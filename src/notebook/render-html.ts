/**
 * An executed notebook as one standalone HTML page: markdown, code, and outputs in order. Plotly
 * outputs are drawn from their `application/vnd.plotly.v1+json` data with plotly.js embedded once at
 * the end of the page (no network), so the plotly.js parts a kernel session sent with its first chart
 * (`plotlyPartBundles`) are left out; tables and other HTML outputs are kept as they are, images
 * inline.
 */
import { escapeHtml } from "../plot/labels";
import { ANSI_CSS, ansiToHtml, stripAnsi } from "./export/ansi";
import { markdownHtml } from "./export/markdown";
import { normalizeNotebook, sourceOf, type Cell, type CellFailure, type Notebook, type Output } from "./ipynb";

const PLOTLY_MIME = "application/vnd.plotly.v1+json";
/** The cell given to `image` for a `text/markdown` output (it has no attachments). */
const NO_CELL: Cell = { cell_type: "markdown", source: "", metadata: {} };
/** plotly-parts.ts's PLOTLY_PART_MIME (not imported: the plot module loads only when a chart is there). */
const PLOTLY_PART_MIME = "application/vnd.risk-portal-lab.plotly-part+json";

export interface RenderOptions {
  title: string;
  failure?: CellFailure;
  /** Show a chart's `image/png` (or SVG) twin instead of drawing its plotly JSON, when it has one (for print). Default false. */
  preferImages?: boolean;
  /** What a Markdown cell's image `src` becomes (see `MarkdownOptions.image`; `cell` holds its attachments). Default: as written. */
  image?: (src: string, cell: Cell) => string | undefined;
  /** When the notebook ran (shown in the header line), if known. */
  runDate?: string;
  /** More CSS for the page (the PDF export's print rules). */
  css?: string;
}

/**
 * Renders the notebook (read as nbformat allows it: text as one string or a list of lines, see
 * `normalizeNotebook`); plotly.js comes from the plot module, loaded only when a chart is present.
 */
export function renderHtml(notebook: Notebook, options: RenderOptions): string {
  const nb = normalizeNotebook(notebook);
  let charts = 0;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const plot = () => require("../plot/html") as typeof import("../plot/html");
  const body: string[] = [];
  let codeIndex = 0;
  // A notebook that opens with a `# Title` has its own page heading; otherwise the page gets one.
  const firstMarkdown = nb.cells.find((c) => c.cell_type === "markdown");
  const ownTitle = firstMarkdown !== undefined && /^#\s/.test(sourceOf(firstMarkdown).trimStart());
  const headingOffset = ownTitle ? 0 : 1;
  for (const cell of nb.cells) {
    const source = sourceOf(cell);
    if (cell.cell_type === "markdown") {
      body.push(
        `<section class="md">${markdownToHtml(source, headingOffset, options.image && ((src) => options.image!(src, cell)))}</section>`,
      );
      continue;
    }
    if (cell.cell_type !== "code") continue;
    codeIndex++;
    const failed = options.failure?.codeCell === codeIndex;
    const tags = cell.metadata?.tags?.length
      ? ` <span class="tags">${cell.metadata.tags.map(escapeHtml).join(", ")}</span>`
      : "";
    body.push(
      `<section class="code${failed ? " failed" : ""}" id="cell-${codeIndex}"><div class="prompt">[${cell.execution_count ?? " "}]${tags}</div><pre class="source">${escapeHtml(source)}</pre>`,
    );
    for (const output of cell.outputs ?? []) {
      const html = renderOutput(output, options, () => {
        charts++;
        return plot();
      });
      if (html) body.push(`<div class="output">${html}</div>`);
    }
    body.push("</section>");
  }
  const banner = options.failure
    ? `<p class="banner">Stopped at <a href="#cell-${options.failure.codeCell}">code cell ${options.failure.codeCell}</a>: ${escapeHtml(stripAnsi(options.failure.error).split("\n")[0] ?? "")}</p>`
    : "";
  const run = nb.metadata?.risk_portal_lab as { parameters?: Record<string, unknown>; duration_s?: number } | undefined;
  const params = Object.entries(run?.parameters ?? {}).map(([k, v]) => `${k} = ${JSON.stringify(v)}`);
  const meta = run
    ? `<p class="meta">Executed headless by risk-portal-lab${params.length ? ` with ${escapeHtml(params.join(", "))}` : " with the default parameters"}${run.duration_s !== undefined ? ` in ${run.duration_s} s` : ""}${options.runDate ? ` on ${escapeHtml(options.runDate)}` : ""}.</p>`
    : "";
  // Under the notebook's own title when it opens with one, else at the top.
  body.splice(ownTitle && nb.cells[0] === firstMarkdown ? 1 : 0, 0, meta + banner);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(options.title)}</title>
<style>
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1100px;margin:2rem auto;padding:0 1rem;color:#1f2328}
pre{background:#f6f8fa;padding:.6rem .8rem;overflow:auto;border-radius:6px;font:13px/1.45 ui-monospace,Menlo,Consolas,monospace}
section.code{margin:1rem 0;border-left:3px solid #d0d7de;padding-left:.8rem}
section.code.failed{border-left-color:#cf222e}
.prompt{color:#6e7781;font:12px ui-monospace,monospace}.tags{color:#8250df}
.output pre{background:#fff;border:1px solid #eaeef2}.stderr{color:#9a6700}.error{color:#cf222e}
.meta{color:#6e7781;font-size:13px}.banner{background:#ffebe9;border:1px solid #cf222e;padding:.6rem;border-radius:6px}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #d0d7de;padding:2px 6px}
blockquote{margin:0;padding:0 1em;color:#59636e;border-left:.25em solid #d0d7de}img{max-width:100%}
${ANSI_CSS}${options.css ?? ""}
</style></head><body>
${ownTitle ? "" : `<h1>${escapeHtml(options.title)}</h1>`}
${body.join("\n")}
${charts ? plot().plotlyScripts() : ""}
</body></html>
`;
}

function renderOutput(output: Output, options: RenderOptions, plot: () => typeof import("../plot/html")): string {
  switch (output.output_type) {
    case "stream":
      return `<pre class="${output.name}">${ansiToHtml(output.text)}</pre>`;
    case "error":
      return `<pre class="error">${ansiToHtml(output.traceback.join("\n"))}</pre>`;
    case "display_data":
    case "execute_result": {
      const data = output.data;
      if (data[PLOTLY_PART_MIME] !== undefined) return "";
      const image = data["image/png"] ?? data["image/svg+xml"];
      if (data[PLOTLY_MIME] && !(options.preferImages && image))
        return plot().figureFragment(data[PLOTLY_MIME] as never, { plotly: false });
      if (typeof data["text/html"] === "string") return data["text/html"];
      if (data["image/png"])
        return `<img alt="figure" class="figure" src="data:image/png;base64,${textOf(data["image/png"]).replace(/\s+/g, "")}">`;
      if (data["image/svg+xml"]) return textOf(data["image/svg+xml"]);
      if (data["text/markdown"])
        return markdownToHtml(
          textOf(data["text/markdown"]),
          1,
          options.image && ((src) => options.image!(src, NO_CELL)),
        );
      if (data["text/plain"] !== undefined) return `<pre>${escapeHtml(textOf(data["text/plain"]))}</pre>`;
      return "";
    }
  }
}

/** A text entry of a mime bundle, already one string (normalizeNotebook); anything else shown as JSON. */
function textOf(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * Notebook Markdown as sanitised HTML (markdown-it, see export/markdown.ts). `headingOffset` shifts
 * heading levels (`#` becomes `<h2>` with the default 1).
 */
export function markdownToHtml(md: string, headingOffset = 1, image?: (src: string) => string | undefined): string {
  return markdownHtml(md, { headingOffset, image });
}
