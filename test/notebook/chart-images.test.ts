/**
 * A run is readable without JavaScript: `risk-portal-lab run` adds a PNG of each chart to its display
 * bundle (drawn in one headless Chromium after the notebook ran, in the chart's own size), drops the
 * chart's script-only HTML and plotly.js's parts, so `jupyter nbconvert --to markdown` shows one image per
 * chart; `--no-images` leaves the charts as they were, and `diff` sees no change between the two runs.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addChartImages, pngSize } from "../../src/notebook/chart-images";
import { diffNotebookFiles } from "../../src/notebook/diff";
import { missingChromium, SETUP_HINT as CHROMIUM_HINT } from "../plot/browser";
import { Executed, inCI, missingJupyter, PLOTLY_MIME, root, runCli, runCommand, type Run } from "./executed";

const PLOTLY_PART_MIME = "application/vnd.risk-portal-lab.plotly-part+json";
const notebook = path.relative(root, path.join(__dirname, "runner-charts.ipynb"));
const outDir = mkdtempSync(path.join(tmpdir(), "rpl-chart-images-"));
const imagesDir = path.join(outDir, "images");
const plainDir = path.join(outDir, "plain");
const chromiumMissing = missingChromium();
const skip = chromiumMissing !== undefined && !inCI;
const why = skip ? ` (skipped: ${chromiumMissing}; ${CHROMIUM_HINT})` : "";

let images: Run;
let plain: Run;

beforeAll(async () => {
  if (skip) return;
  [images, plain] = await Promise.all([
    runCli(["run", notebook, "--out", imagesDir], 120_000),
    runCli(["run", notebook, "--no-images", "--out", plainDir], 120_000),
  ]);
}, 240_000);

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe.skipIf(skip)(`run: a static image for every chart${why}`, () => {
  it("adds a PNG of each chart, in the chart's size, to its bundle; the bundle's HTML and plotly.js's parts go", () => {
    expect(images.code, images.stderr).toBe(0);
    expect(images.stdout).toMatch(
      /\nimages: 2 charts drawn as PNG in \d+\.\d s \(Chromium start \d+\.\d s, then \d+\.\d\d s a chart\); --no-images skips this\n1 notebook passed in /,
    );
    const nb = Executed.read(path.join(imagesDir, "runner-charts.ipynb"));
    const charts = nb.nb.cells.flatMap((c) => c.outputs ?? []).filter((o) => o.data?.[PLOTLY_MIME]);
    expect(charts).toHaveLength(2);
    const sizes = charts.map((o) => pngSize(Buffer.from(o.data!["image/png"] as string, "base64")));
    // The first chart has no width of its own (inline, it fills the output): plot.DEFAULT_WIDTH; the second its own.
    expect(sizes).toEqual([
      { width: 900, height: 500 },
      { width: 640, height: 360 },
    ]);
    for (const [i, o] of charts.entries()) {
      expect(Object.keys(o.data!).sort()).toEqual([PLOTLY_MIME, "image/png", "text/plain"]);
      expect((o as { metadata?: unknown }).metadata).toEqual({ "image/png": sizes[i] });
    }
    expect(nb.nb.cells.flatMap((c) => c.outputs ?? []).filter((o) => o.data?.[PLOTLY_PART_MIME])).toEqual([]);
    // The runner's page still draws the charts from their plotly JSON.
    const page = readFileSync(path.join(imagesDir, "runner-charts.html"), "utf8");
    expect(page.match(/Plotly\.newPlot\(/g)?.length).toBe(2);
  });

  it("--no-images leaves the charts as the kernel showed them, and diff sees no change between the two runs", async () => {
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).not.toContain("images:");
    const nb = Executed.read(path.join(plainDir, "runner-charts.ipynb"));
    const charts = nb.nb.cells.flatMap((c) => c.outputs ?? []).filter((o) => o.data?.[PLOTLY_MIME]);
    expect(charts.map((o) => Object.keys(o.data!).sort())).toEqual(
      new Array(2).fill([PLOTLY_MIME, "text/html", "text/plain"]),
    );
    const d = await diffNotebookFiles(
      path.join(plainDir, "runner-charts.ipynb"),
      path.join(imagesDir, "runner-charts.ipynb"),
    );
    expect(d.summary).toMatch(/^runner-charts: no change in 2 code cells/);
  });

  const jupyterMissing = missingJupyter();
  it.skipIf(jupyterMissing !== undefined)(
    `jupyter nbconvert --to markdown shows one image per chart, and no script${jupyterMissing ? ` (skipped: ${jupyterMissing})` : ""}`,
    async () => {
      const mdDir = path.join(outDir, "md");
      const converted = await runCommand(
        "jupyter",
        ["nbconvert", "--to", "markdown", "--output-dir", mdDir, path.join(imagesDir, "runner-charts.ipynb")],
        { timeoutMs: 60_000 },
      );
      expect(converted.code, converted.stderr).toBe(0);
      const md = readFileSync(path.join(mdDir, "runner-charts.md"), "utf8");
      const refs = [...md.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]!);
      expect(refs).toHaveLength(2);
      for (const ref of refs) expect(existsSync(path.join(mdDir, decodeURI(ref))), ref).toBe(true);
      expect(md).not.toContain("<script");
    },
    60_000,
  );
});

describe("addChartImages without Chromium", () => {
  it("says how to get one, once, and leaves the notebooks as they were", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rpl-chart-images-none-"));
    try {
      const files = ["a", "b"].map((n) => path.join(dir, `${n}.ipynb`));
      const source = path.join(__dirname, "..", "ipynb", "fixtures", "headless.ipynb");
      for (const f of files) copyFileSync(source, f);
      const report = await addChartImages(files, { chromiumPath: path.join(dir, "no-chromium") });
      expect(report.charts).toBe(0);
      expect(report.unavailable).toMatch(
        /^a static image of each chart needs Chromium, and none was found \(tried .*no-chromium\)\. Install it \(Debian\/Ubuntu: `apt-get install -y chromium`/,
      );
      for (const f of files) expect(readFileSync(f, "utf8")).toBe(readFileSync(source, "utf8"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
