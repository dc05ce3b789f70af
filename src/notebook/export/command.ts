/** The `export` command's flags and lines (the CLI hands its arguments here). */
import path from "node:path";
import { parseArgs } from "node:util";

/** `risk-portal-lab export --help`. */
export const EXPORT_USAGE = `usage: risk-portal-lab export NOTEBOOK.ipynb --to pdf|html|md [--out FILE]

An executed notebook as a document: pdf (printed by headless Chromium: charts as images, a header with
the notebook's name, parameters and run date on every page, cells kept whole on a page where they fit),
html (one self-contained page: plotly.js and images inlined, nothing loaded from elsewhere) or md
(Markdown, with its charts and images as files in <name>_files/ beside it). Prints what it wrote; exits 2
on bad input, 1 when the export fails (no Chromium for a PDF, say).

  --to FORMAT     pdf, html or md
  --out FILE      the file to write (default: beside the notebook, <name>.pdf|.html|.md)
`;

/** Runs `export` with its arguments; returns the exit code. */
export async function exportCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { to: { type: "string" }, out: { type: "string" }, help: { type: "boolean", short: "h" } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return (process.stdout.write(EXPORT_USAGE), 0);
  const bad = (message: string) => (process.stderr.write(`risk-portal-lab export: ${message}\n\n${EXPORT_USAGE}`), 2);
  if (positionals.length !== 1) return bad(`needs one notebook, got ${positionals.length}`);
  const to = values.to;
  if (to !== "pdf" && to !== "html" && to !== "md")
    return bad(`--to must be pdf, html or md, got ${to === undefined ? "nothing" : JSON.stringify(to)}`);
  const { exportNotebook } = await import("./index");
  let result;
  try {
    result = await exportNotebook(positionals[0]!, { to, out: values.out });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const input = code === "ENOENT" || /is not a notebook|nbformat/.test((error as Error).message);
    const message = code === "ENOENT" ? `${positionals[0]}: no such file` : (error as Error).message;
    process.stderr.write(`risk-portal-lab export: ${message}\n`);
    return input ? 2 : 1;
  }
  const kb = (result.bytes / 1024).toFixed(result.bytes < 10240 ? 1 : 0);
  const charts = result.charts ? `, ${result.charts} chart${result.charts === 1 ? "" : "s"}` : "";
  const images = result.images.length
    ? `, ${result.images.length} image${result.images.length === 1 ? "" : "s"} in ${relative(path.dirname(result.images[0]!))}`
    : "";
  if (result.warning) process.stderr.write(`risk-portal-lab export: ${result.warning}\n`);
  process.stdout.write(`wrote ${relative(result.file)} (${kb} KB${charts}${images})\n`);
  return 0;
}

function relative(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel.startsWith("..") ? file : rel;
}
