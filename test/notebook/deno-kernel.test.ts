/**
 * The showcase notebooks under Deno's Jupyter kernel (`deno jupyter`, from the npm registry's `deno`
 * package): the same seven notebooks, the same cells, executed by `risk-portal-lab run --kernel deno`
 * (the runner speaks Jupyter's messaging protocol to the real kernel itself, src/notebook/jupyter/),
 * must pass the same checks as under tslab (test/notebook/expected.ts): every chart inline as a plotly
 * MIME bundle with its HTML rendering, tables as HTML, progress lines updated in place. Then the executed
 * notebooks are exported to HTML by Jupyter (`jupyter nbconvert --to html`) and opened in headless
 * Chromium with the network refused: every chart draws.
 *
 * Deno's kernel (2.9) sends a cell's `idle` before some of its outputs and tags printed text with the
 * request current when its stdio task sends it; the runner keeps late outputs and fences each cell (as
 * scripts/jupyter-execute.py did for nbclient, which these tests used before).
 *
 * Also deno-check.ipynb: a bare figure, table or DataFrame as a cell's last expression displays as
 * `plot.show` would, `frames.notebookLine()` updates one line in place, and what a cell prints stays
 * that cell's output even when the kernel is slow to send it.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drawnCharts, missingChromium, openOfflineBrowser, SETUP_HINT as CHROMIUM_HINT } from "../plot/browser";
import {
  EMBED_MARKER,
  Executed,
  inCI,
  joined,
  JUPYTER_HINT,
  missingDeno,
  missingJupyter,
  notebookEnv,
  PLOTLY_MIME,
  runCli,
  type Run,
} from "./executed";
import { checkNotebook, NOTEBOOK_DIR, NOTEBOOKS } from "./expected";

const RUN_TIMEOUT_MS = 420_000;
const run = promisify(execFile);

const missing = missingDeno();
const DENO_HINT = "run `npm ci` (the deno package is a dev dependency)";
// Only the HTML export needs Jupyter (nbconvert).
const jupyterMissing = missingJupyter("deno");
const chromiumMissing = missingChromium();
if (missing && !inCI) console.warn(`test/notebook: skipping the Deno kernel runs: ${missing}; ${DENO_HINT}.`);

const outDir = mkdtempSync(path.join(tmpdir(), "rpl-deno-"));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));
const CHECK = path.join(__dirname, "deno-check.ipynb");

let result: Run | undefined;

describe("the showcase notebooks under Deno's kernel (risk-portal-lab run --kernel deno)", () => {
  if (missing && inCI) {
    it("runs in CI", () => {
      throw new Error(`The Deno kernel runs must happen in CI, but ${missing}: ${DENO_HINT}.`);
    });
    return;
  }
  const why = missing ? ` (skipped: ${missing}; ${DENO_HINT})` : "";

  beforeAll(async () => {
    if (missing) return;
    const files = [...NOTEBOOKS.map((n) => path.join(NOTEBOOK_DIR, `${n}.ipynb`)), CHECK];
    // No PNG twins: this is about what Deno's kernel displays (test/notebook/chart-images.test.ts draws them).
    result = await runCli(
      ["run", "--kernel", "deno", "--no-images", "--out", outDir, ...files],
      RUN_TIMEOUT_MS - 20_000,
    );
  }, RUN_TIMEOUT_MS);

  it.skipIf(missing !== undefined)(`executes every notebook${why}`, () => {
    expect(result?.code, `${result?.stdout}\n${result?.stderr.split("\n").slice(-30).join("\n")}`).toBe(0);
  });

  for (const name of NOTEBOOKS) {
    it.skipIf(missing !== undefined)(`${name}: runs cleanly and shows what it is about, as under tslab${why}`, () => {
      const nb = Executed.read(path.join(outDir, `${name}.ipynb`));
      checkNotebook(nb, name, { executionCounts: true });
      expect(nb.nb.metadata.kernelspec).toMatchObject({ name: "tslab" }); // the very notebooks, unchanged
    });
  }

  it.skipIf(missing !== undefined)(
    `a bare figure, table or DataFrame displays as plot.show would; a notebook line updates in place${why}`,
    () => {
      const nb = Executed.read(path.join(outDir, "deno-check.ipynb"));
      expect(nb.problems()).toEqual([]);
      // plotly.js in parts (the session's first chart), then the figure as the cell's result.
      const fig = nb.outputs("deno-check-2").at(-1);
      expect(nb.outputs("deno-check-2").length).toBeGreaterThan(20);
      expect(fig?.output_type).toBe("execute_result");
      expect(Object.keys(fig!.data!).sort()).toEqual([PLOTLY_MIME, "text/html", "text/plain"].sort());
      expect((fig!.data![PLOTLY_MIME] as { layout: { title: { text: string } } }).layout.title.text).toBe(
        "bare figure",
      );
      expect(nb.html("deno-check-2").includes(EMBED_MARKER)).toBe(true);
      const table = nb.outputs("deno-check-3")[0]!;
      expect(joined(table.data!["text/plain"])).toMatch(/^ColumnTable · 18 rows × \d+ columns · from RateAsset/);
      expect(joined(table.data!["text/html"])).toContain("<th>fitted_instrument_name</th>");
      expect(joined(nb.outputs("deno-check-4")[0]!.data!["text/plain"])).toMatch(/^DataFrame · 3 rows/);
      const line = nb.outputs("deno-check-5");
      expect(line.map((o) => o.output_type)).toEqual(["display_data", "stream"]);
      expect(joined(line[0]!.data!["text/plain"])).toBe("step 5 of 5");
      expect(nb.stdout("deno-check-5")).toBe("a notebook line\n");
    },
  );

  it.skipIf(missing !== undefined)(
    `what a cell prints is that cell's output, even right after a cell that printed 2,000 lines${why}`,
    () => {
      // Deno's kernel tags printed text with the request current when its stdio task gets to it, which may
      // be the next cell's: the runner fences each cell (src/notebook/jupyter/outputs.ts).
      const nb = Executed.read(path.join(outDir, "deno-check.ipynb"));
      const burst = Array.from({ length: 2000 }, (_, i) => `burst line ${i + 1}\n`).join("");
      expect(
        nb.stdout("deno-check-burst") === burst,
        `the burst cell printed ${nb.stdout("deno-check-burst").split("\n").length - 1} lines`,
      ).toBe(true);
      expect(nb.stdout("deno-check-after-burst")).toBe("after the burst\n");
      expect(nb.stdout("deno-check-6")).toBe("");
    },
  );

  const skipBrowser =
    missing !== undefined || ((chromiumMissing !== undefined || jupyterMissing !== undefined) && !inCI);
  const skipped = missing
    ? why
    : chromiumMissing
      ? ` (skipped: ${chromiumMissing}; ${CHROMIUM_HINT})`
      : jupyterMissing
        ? ` (skipped: ${jupyterMissing}; ${JUPYTER_HINT})`
        : "";
  it.skipIf(skipBrowser)(
    `exported to HTML by Jupyter, every chart draws in Chromium with the network refused${skipped}`,
    async () => {
      if (chromiumMissing)
        throw new Error(`The browser check must run in CI, but ${chromiumMissing}: ${CHROMIUM_HINT}.`);
      if (jupyterMissing) throw new Error(`The HTML export must run in CI, but ${jupyterMissing}: ${JUPYTER_HINT}.`);
      const files = NOTEBOOKS.map((n) => path.join(outDir, `${n}.ipynb`));
      await run("jupyter", ["nbconvert", "--to", "html", "--output-dir", outDir, ...files], {
        encoding: "utf8",
        env: notebookEnv(),
        timeout: 120_000,
        maxBuffer: 16 * 1024 * 1024,
      });
      const b = await openOfflineBrowser();
      try {
        for (const name of NOTEBOOKS) {
          const nb = Executed.read(path.join(outDir, `${name}.ipynb`));
          const expected = nb.nb.cells.flatMap((c) => nb.figures(c.id ?? "")).length;
          expect(expected, name).toBeGreaterThan(0);
          const page = await b.context.newPage();
          await page.goto(pathToFileURL(path.join(outDir, `${name}.html`)).href);
          const charts = await drawnCharts(page, expected);
          expect(
            charts.map((c) => c.svg && c.traces > 0),
            name,
          ).toEqual(new Array(expected).fill(true));
          await page.close();
        }
        // The export template may try its own assets (MathJax, require.js); nothing of ours, and no plotly CDN.
        expect(b.external.filter((u) => /plotly/i.test(u))).toEqual([]);
        expect(b.errors).toEqual([]);
      } finally {
        await b.close();
      }
    },
    240_000,
  );
});
