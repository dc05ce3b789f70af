/**
 * `export --to pdf|html|md` of an executed notebook (test/ipynb/fixtures/headless.ipynb: the runner's
 * output, a heading, a table and a plotly chart): the PDF's text has the heading and its page shows the
 * chart as an image (poppler's pdftotext and pdfimages read it), the HTML page loads nothing from
 * elsewhere, the Markdown has its chart as a PNG beside it. One Chromium for the whole file.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../src/plot/chromium-launch";
import { inCI, missingChromium, SETUP_HINT } from "../../plot/browser";
import { cli, root } from "../executed";

// The built module, as the CLI runs it: the HTML rendering loads the plot module with require() only
// where a chart is, which the test runner's TypeScript transform does not see.
const { exportNotebook } = createRequire(__filename)(
  path.join(root, "dist", "notebook", "export"),
) as typeof import("../../../src/notebook/export");

const FIXTURE = path.resolve(__dirname, "..", "..", "ipynb", "fixtures", "headless.ipynb");
const ESC = String.fromCharCode(27);
/** A 1×1 PNG: a chart's static twin. */
const TWIN = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
const noChromium = missingChromium();
const poppler = spawnSync("pdftotext", ["-v"]).error === undefined;
if ((noChromium || !poppler) && inCI)
  throw new Error(`export tests need Chromium and poppler-utils in CI: ${noChromium ?? "no pdftotext"}; ${SETUP_HINT}`);

let dir: string;
let notebook: string;
let browser: Browser;

/** The fixture with a Markdown cell holding a pipe table, a hostile cell, and a Deno-coloured traceback. */
function record(): object {
  const nb = JSON.parse(readFileSync(FIXTURE, "utf8")) as { cells: object[]; metadata: Record<string, unknown> };
  nb.metadata.papermill = { start_time: "2026-11-20T09:30:00.000Z", parameters: { currency: "USD" } };
  nb.cells.splice(1, 0, {
    cell_type: "markdown",
    metadata: {},
    source: "## Pillars\n\n| tenor | instrument |\n|---|---|\n| 1W | USD DEPO 1W |\n",
  });
  // A chart whose bundle has a static twin (as `run` adds): the twin is used, not drawn again.
  nb.cells.push(
    {
      cell_type: "code",
      metadata: {},
      source: "plot.show(fig)",
      execution_count: 8,
      outputs: [
        {
          output_type: "display_data",
          metadata: {},
          data: {
            "application/vnd.plotly.v1+json": { data: [{ type: "bar", x: ["a"], y: [1] }], layout: {} },
            "image/png": TWIN.toString("base64"),
            "text/plain": "chart",
          },
        },
      ],
    },
    {
      cell_type: "markdown",
      metadata: {},
      source: "<script>document.title='pwned'</script>\n\n[run me](javascript:document.title='pwned')\n",
    },
    {
      cell_type: "code",
      metadata: {},
      source: "throw new Error('boom')",
      execution_count: 9,
      outputs: [
        {
          output_type: "error",
          ename: "Error",
          evalue: "boom",
          traceback: [`${ESC}[31mError${ESC}[0m: boom`, `    at ${ESC}[36m<anonymous>${ESC}[39m:1:7`],
        },
      ],
    },
  );
  return nb;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "rpl-export-"));
  notebook = path.join(dir, "record.ipynb");
  writeFileSync(notebook, JSON.stringify(record()));
  if (!noChromium) browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(noChromium || !poppler)("export --to pdf", () => {
  it("prints the headings and parameters as text, the chart as an image, and a header on every page", async () => {
    const out = path.join(dir, "record.pdf");
    const result = await exportNotebook(notebook, { to: "pdf", out, browser });
    expect(readFileSync(out).subarray(0, 5).toString()).toBe("%PDF-");
    expect(result.charts).toBe(2);
    const text = execFileSync("pdftotext", ["-layout", out, "-"], { encoding: "utf8" });
    expect(text).toContain("nbformat check");
    expect(text).toContain("Pillars");
    expect(text).toContain("USD DEPO 1W");
    // The table's last column, past the page's width on screen: zoomed to fit, not cut off.
    expect(text).toContain("fitted_instrument_rate");
    // The header: name, parameters and run date (from metadata.papermill), on each page.
    const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync("pdfinfo", [out], { encoding: "utf8" }))![1]);
    const headers = text.match(/record · currency = "USD"\s+2026-11-20 09:30 UTC/g) ?? [];
    expect(headers.length).toBe(pages);
    // The chart is an image (drawn by plotly.js, rasterised): pdfimages lists it, at least 600 px wide.
    const images = execFileSync("pdfimages", ["-list", out], { encoding: "utf8" }).split("\n").slice(2);
    const widths = images.filter((l) => /\bimage\b/.test(l)).map((l) => Number(l.trim().split(/\s+/)[3]));
    expect(Math.max(...widths)).toBeGreaterThanOrEqual(600);
    // The second chart is its twin, as it is (1 px), not drawn again.
    expect(widths).toContain(1);
    expect(text).not.toContain(ESC);
    expect(text).not.toMatch(/\[3\dm/);
  }, 60_000);
});

describe.skipIf(noChromium)("export --to html and md", () => {
  it("writes one self-contained page: heading, table, interactive chart, nothing loaded from elsewhere", async () => {
    const out = path.join(dir, "page.html");
    await exportNotebook(notebook, { to: "html", out });
    const html = readFileSync(out, "utf8");
    expect(html).toContain("<h1>nbformat check</h1>");
    expect(html).toMatch(/<table>[\s\S]*<td>1W<\/td>\s*<td>USD DEPO 1W<\/td>/);
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+stylesheet|<iframe|<object|url\(\s*['"]?\/\//i);
    expect(html).not.toMatch(/<img(?![^>]*src="data:)[^>]*>/i);
    expect(html).toContain('<span class="ansi-red">Error</span>');
    // Opened offline in Chromium: the chart draws, the hostile cell neither runs nor links.
    const page = await (await browser.newContext({ offline: true })).newPage();
    const external: string[] = [];
    await page.route("**/*", (r) =>
      r.request().url().startsWith("file:") ? r.continue() : (external.push(r.request().url()), r.abort()),
    );
    await page.goto(`file://${out}`);
    await page.waitForSelector(".risk-portal-lab-figure .main-svg");
    expect(await page.title()).toBe("nbformat check");
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(external).toEqual([]);
    await page.context().close();
  }, 60_000);

  it("writes Markdown with the chart as a PNG in <name>_files/ and the traceback without ANSI codes", async () => {
    const out = path.join(dir, "md", "record.md");
    const result = await exportNotebook(notebook, { to: "md", out, browser });
    const md = readFileSync(out, "utf8");
    expect(md).toContain("# nbformat check");
    const refs = [...md.matchAll(/!\[chart\]\(([^)]+)\)/g)].map((m) => m[1]!);
    expect(refs).toEqual(["record_files/cell4_1.png", "record_files/cell8_1.png"]);
    expect(readFileSync(path.join(dir, "md", refs[1]!))).toEqual(TWIN);
    const png = readFileSync(path.join(dir, "md", refs[0]!));
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect(png.readUInt32BE(16)).toBeGreaterThanOrEqual(600); // IHDR width
    expect(result.images).toEqual(refs.map((r) => path.join(dir, "md", r)));
    expect(md).toContain("Error: boom\n    at <anonymous>:1:7");
    expect(md).not.toContain(ESC);
  }, 60_000);
});

describe("without Chromium", () => {
  it("a PDF says what is missing; Markdown goes on, its charts without a twin a line saying so", async () => {
    const chromiumPath = path.join(dir, "no-chromium");
    await expect(exportNotebook(notebook, { to: "pdf", out: path.join(dir, "x.pdf"), chromiumPath })).rejects.toThrow(
      `export --to pdf needs Chromium, and none was found (tried ${chromiumPath}). Install it (Debian/Ubuntu: \`apt-get install -y chromium\``,
    );
    const out = path.join(dir, "bare", "record.md");
    const result = await exportNotebook(notebook, { to: "md", out, chromiumPath });
    expect(result.warning).toMatch(/^charts without a static image are not drawn: export --to md needs Chromium/);
    const md = readFileSync(out, "utf8");
    expect(md).toContain("*(a chart: not drawn here, as no Chromium was found; `export --to html` shows it)*");
    expect([...md.matchAll(/!\[chart\]\(([^)]+)\)/g)].map((m) => m[1])).toEqual(["record_files/cell8_1.png"]);
  });
});

describe("the export command", () => {
  it("says what is wrong with its input, and exits 2", () => {
    const run = (...args: string[]) => spawnSync(process.execPath, [cli, "export", ...args], { encoding: "utf8" });
    const bad = run(notebook, "--to", "docx");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('risk-portal-lab export: --to must be pdf, html or md, got "docx"');
    const missing = run(path.join(dir, "nope.ipynb"), "--to", "html");
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain(`risk-portal-lab export: ${path.join(dir, "nope.ipynb")}: no such file`);
    const ok = run(notebook, "--to", "html");
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/^wrote .*record\.html \(\d+ KB, 2 charts\)\n$/);
    expect(existsSync(path.join(dir, "record.html"))).toBe(true);
  }, 30_000);
});
