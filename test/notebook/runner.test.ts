/**
 * The headless runner (`risk-portal-lab run`): parameters injected after the `parameters` cell with
 * their declared types and visible in the outputs; stdout, results and rich displays stored in the
 * executed `.ipynb`; a failing cell stops the run with exit code 1 and a message naming the notebook,
 * the cell and the error; the HTML rendering's chart draws in headless Chromium with the network
 * refused.
 *
 * Through the built CLI (`node dist/cli.js`, built by test/global-setup.ts) in a child process, as a
 * user runs it; the notebooks import the package by name like every notebook. The parameter parsing
 * and injection are also tested directly.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Notebook } from "../../src/notebook/ipynb";
import {
  declaredParameters,
  injectParameters,
  parameterDeclarations,
  parseParameterValue,
} from "../../src/notebook/params";
import { drawnCharts, missingChromium, openOfflineBrowser, SETUP_HINT as CHROMIUM_HINT } from "../plot/browser";
import { cellStatuses, Executed, inCI, PLOTLY_MIME, runCli, withoutCellLines, type Run } from "./executed";
import { PLOTLY_PART_MIME } from "../../src/plot/plotly-parts";

const smoke = path.join(__dirname, "runner-smoke.ipynb");
const throwing = path.join(__dirname, "runner-throw.ipynb");
const rel = (file: string) => path.relative(path.resolve(__dirname, "..", ".."), file);
/** tslab's type-checker starts in each run (a few seconds), the smoke notebook also starts a simulator. */
const CLI_TIMEOUT_MS = 120_000;

const outDir = mkdtempSync(path.join(tmpdir(), "rpl-runner-"));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

function notebook(cells: Notebook["cells"]): Notebook {
  return { nbformat: 4, nbformat_minor: 5, metadata: {}, cells };
}
const params = {
  cell_type: "code" as const,
  id: "p",
  metadata: { tags: ["parameters"] },
  source:
    'let currency: string = "USD";\nconst days = 3;\nlet tenors: number[] = [1, 2];\nlet f: (x: number) => number = (x) => x;\nif (days) {\n  const inner = 1;\n}\n',
};
const body = { cell_type: "code" as const, id: "b", metadata: {}, source: "console.log(currency);" };

describe("parameters", () => {
  it("parseParameterValue reads JSON values with their type and anything else as a string", () => {
    expect(parseParameterValue("EUR")).toBe("EUR");
    expect(parseParameterValue("42")).toBe(42);
    expect(parseParameterValue("true")).toBe(true);
    expect(parseParameterValue("[0.25,2]")).toEqual([0.25, 2]);
    expect(parseParameterValue('"42"')).toBe("42");
    expect(parseParameterValue("2026-11-20")).toBe("2026-11-20");
  });

  it("the parameters cell declares its top-level names, with their type annotations", () => {
    expect(parameterDeclarations(params)).toEqual([
      { name: "currency", type: "string" },
      { name: "days" },
      { name: "tenors", type: "number[]" },
      { name: "f", type: "(x: number) => number" },
    ]);
    expect(declaredParameters(params)).toEqual(["currency", "days", "tenors", "f"]);
  });

  it("injectParameters adds a typed cell right after the parameters cell, replacing one from an earlier run", () => {
    const once = injectParameters(notebook([params, body]), { currency: "EUR", days: 5 }, "x.ipynb");
    expect(once.cells.map((c) => c.id)).toEqual(["p", "injected-parameters", "b"]);
    expect(once.cells[1]!.source).toBe(
      '// Parameters injected by risk-portal-lab run\nconst currency: string = "EUR";\nconst days = 5;',
    );
    expect(once.cells[1]!.metadata.tags).toEqual(["injected-parameters"]);
    const twice = injectParameters(once, { tenors: [5, 10] }, "x.ipynb");
    expect(twice.cells.map((c) => c.id)).toEqual(["p", "injected-parameters", "b"]);
    expect(twice.cells[1]!.source).toBe(
      "// Parameters injected by risk-portal-lab run\nconst tenors: number[] = [5,10];",
    );
  });

  it("injectParameters refuses an unknown parameter, or parameters for a notebook without a parameters cell", () => {
    expect(() => injectParameters(notebook([params, body]), { inner: 1 }, "x.ipynb")).toThrow(
      "x.ipynb: unknown parameter inner; its parameters cell declares currency, days, tenors, f",
    );
    expect(() => injectParameters(notebook([body]), { currency: "EUR" }, "y.ipynb")).toThrow(
      'y.ipynb has no cell tagged "parameters", so it takes no parameters (got currency)',
    );
    const untouched = notebook([body]);
    expect(injectParameters(untouched, {}, "y.ipynb")).toBe(untouched);
  });
});

describe("risk-portal-lab run", () => {
  let failed: Run;
  let passed: Run;
  let thrown: Run;
  const smokeDir = path.join(outDir, "smoke");
  const passDir = path.join(outDir, "pass");
  const throwDir = path.join(outDir, "throw");

  beforeAll(async () => {
    // Two at a time: a loaded two-core machine.
    [failed, passed] = await Promise.all([
      runCli(["run", rel(smoke), "--param", "currency=EUR", "-p", "days=5", "--out", smokeDir], CLI_TIMEOUT_MS),
      runCli(["run", rel(throwing), "--out", passDir], CLI_TIMEOUT_MS),
    ]);
    thrown = await runCli(
      ["run", rel(throwing), "--param", "fail=true", "--param", "message=kaboom", "--out", throwDir],
      CLI_TIMEOUT_MS,
    );
  }, CLI_TIMEOUT_MS * 2);

  it("exits 0 when every cell runs, with one result line and a summary on stdout", () => {
    expect(passed.code, passed.stderr).toBe(0);
    expect(passed.stdout).toMatch(
      /^✔ runner-throw {2}3 cells, 0 charts\s+\d+\.\d s {2}→ .*runner-throw\.html\n1 notebook passed in \d+\.\d s → open .*index\.html\n$/,
    );
    expect(withoutCellLines(passed.stderr)).toBe("");
    expect(cellStatuses(passed.stderr)).toEqual(["1/3 ok", "2/3 ok", "3/3 ok"]);
    const nb = Executed.read(path.join(passDir, "runner-throw.ipynb"));
    expect(nb.stdout("throw-check")).toBe("fail is false\n");
    expect(nb.stdout("throw-after")).toBe("after the check\n");
  });

  it("injects the parameters after the parameters cell, typed, and the notebook sees them", () => {
    const nb = Executed.read(path.join(smokeDir, "runner-smoke.ipynb"));
    const ids = nb.nb.cells.map((c) => c.id);
    expect(ids.slice(0, 3)).toEqual(["smoke-title", "smoke-params", "injected-parameters"]);
    expect(nb.cell("injected-parameters").source).toBe(
      '// Parameters injected by risk-portal-lab run\nconst currency: string = "EUR";\nconst days = 5;',
    );
    expect(nb.stdout("smoke-curve")).toBe("EUR curve: 18 points\n");
    // The cell's last expression is its result.
    expect(nb.outputs("smoke-curve").find((o) => o.output_type === "execute_result")?.data?.["text/plain"]).toBe("10");
    expect(nb.nb.metadata.risk_portal_lab).toMatchObject({
      parameters: { currency: "EUR", days: 5 },
      status: "failed",
      failed_cell: "smoke-bad",
    });
  });

  it("stores stdout, results and rich displays in the executed notebook", () => {
    const nb = Executed.read(path.join(smokeDir, "runner-smoke.ipynb"));
    expect(nb.stdout("smoke-connect")).toMatch(
      /^No RISK_PORTAL_BASE_URL set: started the embedded simulator at http:\/\/127\.0\.0\.1:\d+/,
    );
    const chart = nb.outputs("smoke-chart");
    // The chart with its PNG (drawn after the run: test/notebook/chart-images.test.ts); its HTML and the
    // plotly.js parts the session sent with it (src/plot/plotly-parts.ts) are gone from the stored notebook.
    expect(chart.map((o) => o.output_type)).toEqual(["display_data"]);
    expect(Object.keys(chart[0]!.data!).sort()).toEqual([PLOTLY_MIME, "image/png", "text/plain"].sort());
    expect(chart[0]!.data![PLOTLY_PART_MIME]).toBeUndefined();
    expect(nb.figures("smoke-chart")[0]!.layout.title?.text).toBe("EUR zero curve for the runner test");
    expect(nb.plotlyEmbeds()).toEqual({ count: 0 });
    expect(nb.outputs("smoke-html")).toEqual([
      { output_type: "display_data", data: { "text/html": "<b>bold</b>" }, metadata: {} },
    ]);
  });

  it("stops at a cell that does not type-check: exit 1, the cell and the error named, later cells not run", () => {
    expect(failed.code).toBe(1);
    expect(cellStatuses(failed.stderr)).toEqual([
      "1/8 ok",
      "2/8 ok",
      "3/8 ok",
      "4/8 ok",
      "5/8 ok",
      "6/8 ok",
      "7/8 failed",
    ]);
    expect(withoutCellLines(failed.stderr)).toBe(
      `✘ test/notebook/runner-smoke.ipynb: code cell 7 of 8 (id "smoke-bad") failed: const _bad: number = "x";\n    1:7 - Type 'string' is not assignable to type 'number'.\n`,
    );
    expect(failed.stdout).toMatch(/^images: 1 chart drawn as PNG in .*\n1 failed, 0 passed in \d+\.\d s/);
    const nb = Executed.read(path.join(smokeDir, "runner-smoke.ipynb"));
    expect(nb.outputs("smoke-bad")).toEqual([
      {
        output_type: "error",
        ename: "TSError",
        evalue: "1:7 - Type 'string' is not assignable to type 'number'.",
        traceback: ["1:7 - Type 'string' is not assignable to type 'number'."],
      },
    ]);
    expect(nb.cell("smoke-never")).toMatchObject({ outputs: [], execution_count: null });
  });

  it("stops at a cell that throws: exit 1, the cell and the exception named, the notebook's own stack kept", () => {
    expect(thrown.code).toBe(1);
    expect(cellStatuses(thrown.stderr)).toEqual(["1/4 ok", "2/4 ok", "3/4 failed"]);
    expect(withoutCellLines(thrown.stderr)).toBe(
      `✘ test/notebook/runner-throw.ipynb: code cell 3 of 4 (id "throw-check") failed: function check(value: boolean): void {\n    RangeError: kaboom (fail = true)\n`,
    );
    const nb = Executed.read(path.join(throwDir, "runner-throw.ipynb"));
    const [out, error] = nb.outputs("throw-check");
    expect(out).toEqual({ output_type: "stream", name: "stdout", text: "fail is true\n" });
    expect(error).toMatchObject({ output_type: "error", ename: "RangeError", evalue: "kaboom (fail = true)" });
    expect(error!.traceback).toContain("    at check (evalmachine.<anonymous>:5:15)");
    expect(error!.traceback!.join("\n")).not.toMatch(/tslab|runner\.js|node:vm/);
    expect(nb.cell("throw-after")).toMatchObject({ outputs: [], execution_count: null });
  });

  it("writes an HTML rendering that marks the failed cell", () => {
    const html = readFileSync(path.join(smokeDir, "runner-smoke.html"), "utf8");
    expect(html).toContain(
      '<p class="banner">Stopped at <a href="#cell-7">code cell 7</a>: 1:7 - Type &#39;string&#39; is not assignable to type &#39;number&#39;.</p>',
    );
    expect(html).toContain('<section class="code failed" id="cell-7">');
    expect(html).toContain("<h1>Runner smoke test</h1>");
    expect(html).toContain("Executed headless by risk-portal-lab with currency = &quot;EUR&quot;, days = 5");
    expect(html.split("embedded by risk-portal-lab (offline)").length - 1).toBe(1);
  });

  it("refuses an unknown parameter, naming it (exit 1), and a malformed --param (exit 2)", async () => {
    const unknown = await runCli(
      ["run", rel(throwing), "--param", "nope=1", "--out", path.join(outDir, "unknown")],
      CLI_TIMEOUT_MS,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      "✘ test/notebook/runner-throw.ipynb: unknown parameter nope; its parameters cell declares fail, message\n",
    );
    const malformed = await runCli(["run", rel(throwing), "--param", "fail"], CLI_TIMEOUT_MS);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/^risk-portal-lab: --param expects name=value, got "fail"\n\nusage:/);
  });

  const chromiumMissing = missingChromium();
  if (chromiumMissing && !inCI)
    console.warn(`test/notebook/runner: skipping the Chromium check: ${chromiumMissing}; ${CHROMIUM_HINT}.`);
  const skipBrowser = chromiumMissing !== undefined && !inCI;
  it.skipIf(skipBrowser)(
    `the HTML rendering's chart draws in Chromium, offline${skipBrowser ? ` (skipped: ${chromiumMissing}; ${CHROMIUM_HINT})` : ""}`,
    async () => {
      if (chromiumMissing)
        throw new Error(`The browser check must run in CI, but ${chromiumMissing}: ${CHROMIUM_HINT}.`);
      const b = await openOfflineBrowser();
      try {
        const page = await b.context.newPage();
        await page.goto(pathToFileURL(path.join(smokeDir, "runner-smoke.html")).href);
        const charts = await drawnCharts(page, 1);
        expect(charts.map((c) => [c.svg, c.traces])).toEqual([[true, 1]]);
        expect(await page.locator("section.md strong").first().textContent()).toBe("test");
        expect(b.external).toEqual([]);
        expect(b.errors).toEqual([]);
      } finally {
        await b.close();
      }
    },
    120_000,
  );
});
