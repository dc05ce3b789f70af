/**
 * The showcase notebooks (notebooks/*.ipynb), executed twice: headless through the one-command demo
 * (`node dist/cli.js demo`, the runner with tslab's executor), and by the real Jupyter (`jupyter
 * nbconvert --to notebook --execute` with the tslab kernel). Each executed notebook must have no error
 * output and no stderr, every code cell run, plotly.js embedded once (in its first chart), and the
 * outputs that make its point: the charts, the flagged residuals of the stale surface, the finished
 * reports, the unknown tradable reported, the rejected upload rows, ….
 *
 * Then the documented single-notebook command (`run notebooks/01-yield-curves.ipynb --param
 * currency=EUR`), and the demo's HTML renderings in headless Chromium with the network refused: every
 * chart draws.
 *
 * Jupyter needs `jupyter-nbconvert` and the tslab kernelspec (scripts/setup-jupyter.sh), Chromium
 * scripts/setup-chromium.sh: without them those tests are skipped locally and fail in CI. The demo and
 * the Jupyter run start together (two cores: about a minute each on an idle machine).
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drawnCharts, missingChromium, openOfflineBrowser, SETUP_HINT as CHROMIUM_HINT } from "../plot/browser";
import { Executed, inCI, JUPYTER_HINT, missingJupyter, root, runCli, runCommand, type Run } from "./executed";

const NOTEBOOK_DIR = path.join(root, "notebooks");
const NOTEBOOKS = readdirSync(NOTEBOOK_DIR)
  .filter((f) => f.endsWith(".ipynb"))
  .sort()
  .map((f) => path.basename(f, ".ipynb"));
/** Both runs together on a loaded two-core machine; each is about a minute when idle. */
const RUN_TIMEOUT_MS = 420_000;

const jupyterMissing = missingJupyter();
const chromiumMissing = missingChromium();
if (jupyterMissing && !inCI) console.warn(`test/notebook: skipping the Jupyter runs of the showcase notebooks: ${jupyterMissing}; ${JUPYTER_HINT}.`);
if (chromiumMissing && !inCI) console.warn(`test/notebook: skipping the Chromium check of the rendered notebooks: ${chromiumMissing}; ${CHROMIUM_HINT}.`);

const outDir = mkdtempSync(path.join(tmpdir(), "rpl-notebooks-"));
const demoDir = path.join(outDir, "demo");
const jupyterDir = path.join(outDir, "jupyter");
const eurDir = path.join(outDir, "eur");
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

let demo: Run;
let eur: Run;
let jupyter: Run | undefined;

beforeAll(async () => {
  const jupyterRun = jupyterMissing
    ? Promise.resolve(undefined)
    : runCommand(
        "jupyter",
        [
          "nbconvert",
          "--to",
          "notebook",
          "--execute",
          // Record errors instead of stopping at the first notebook: each notebook is judged on its outputs.
          "--allow-errors",
          "--output-dir",
          jupyterDir,
          "--ExecutePreprocessor.timeout=180",
          "--ExecutePreprocessor.kernel_name=tslab",
          ...NOTEBOOKS.map((n) => path.join(NOTEBOOK_DIR, `${n}.ipynb`)),
        ],
        { timeoutMs: RUN_TIMEOUT_MS - 20_000 },
      );
  const headless = (async () => {
    demo = await runCli(["demo", "--out", demoDir], RUN_TIMEOUT_MS - 20_000);
    eur = await runCli(["run", "notebooks/01-yield-curves.ipynb", "--param", "currency=EUR", "--out", eurDir], 120_000);
  })();
  [jupyter] = await Promise.all([jupyterRun, headless]);
}, RUN_TIMEOUT_MS);

/** What each notebook must show, whoever ran it. */
const EXPECTED: Record<string, (nb: Executed) => void> = {
  "01-yield-curves": (nb) => {
    const today = nb.figures("yc-today");
    expect(today).toHaveLength(1);
    expect(today[0]!.data.map((t) => t.name).sort()).toEqual(["CHF", "EUR", "GBP", "JPY", "USD"]);
    expect(nb.stdout("yc-derived")).toMatch(/^USD curve on 2026-11-20: \d+ points, from USD DEPO 1W to USD SWAP 30Y/);
    expect(nb.html("yc-derived")).toContain("<th>discount_factor</th><th>forward_rate</th>");
    expect(nb.figures("yc-derived-charts").map((f) => f.layout.title?.text)).toEqual(["USD forward rates between pillars · 2026-11-20", "USD discount factors · 2026-11-20"]);
    const check = /= (0\.\d{6}); frames says (0\.\d{6})/.exec(nb.stdout("yc-derived-check"));
    expect(check?.[1]).toBe(check?.[2]);
    expect(nb.displayText("yc-history")).toMatch(/^yield curves 53\/53 \(100%\)/);
    expect(nb.stdout("yc-history")).toContain("over 53 dates; 0 failed");
    expect(nb.figures("yc-history-chart")[0]!.data).toHaveLength(5);
    expect(nb.figures("yc-surface")[0]!.data.map((t) => t.type)).toEqual(["surface"]);
    expect(nb.stdout("yc-moves")).toMatch(/change \(bp\)[\s\S]*'30y'/);
  },
  "02-vol-surface-crosscheck": (nb) => {
    const diag = nb.stdout("vs-diag");
    expect(diag).toContain("clean surface: no arbitrage found (0 butterfly, 0 calendar, 0 Lee violations)");
    expect(diag).toMatch(/re-marked surface: ARBITRAGE\n\s+✘ butterfly: benchmark 4 \(maturity 182 d\): butterfly g\(k\) < 0/);
    expect(nb.figures("vs-g")[0]!.data).toHaveLength(2);
    // The service and the local model agree exactly: no breach in the heatmap.
    expect(nb.stdout("vs-crosscheck")).toMatch(/^13\/13 maturities answered, 117 rows; max \|service − local\| = 0 .*; 0 beyond tolerance/);
    const clean = nb.figures("vs-crosscheck")[0]!;
    expect(clean.data.find((t) => t.name?.startsWith("beyond"))?.x).toEqual([]);
    // The stale local copy: residuals flagged, in the stdout and as ✕ marks in the heatmap.
    const stale = /^(\d+) of 117 residuals beyond 1 vol bp, in maturities ([\d, ]+) d/.exec(nb.stdout("vs-stale"));
    expect(stale, nb.stdout("vs-stale")).not.toBeNull();
    const flagged = Number(stale![1]);
    expect(flagged).toBeGreaterThan(0);
    expect(stale![2]).toContain("91");
    const heatmap = nb.figures("vs-stale")[0]!;
    expect(heatmap.layout.title?.text).toContain("stale 91-day mark");
    expect(heatmap.data.find((t) => t.name?.startsWith("beyond"))?.x).toHaveLength(flagged);
    expect(nb.figures("vs-smiles")[0]!.data).toHaveLength(9);
    expect(nb.figures("vs-surface")[0]!.data.map((t) => t.type)).toEqual(["surface"]);
    expect(nb.stdout("vs-sim")).toMatch(/^simulator's SPX surface: .*no arbitrage found/);
  },
  "03-reports": (nb) => {
    expect(nb.stdout("rp-catalogue")).toMatch(/^8 reports defined; look-backs: 6M, 1Y/);
    expect(nb.stdout("rp-launch")).toBe("VaR launcher item: created\nPnL launcher item: created\n");
    // The progress line was overwritten in place: one output, the final state.
    const follow = nb.outputs("rp-follow");
    expect(follow, JSON.stringify(follow)).toHaveLength(1);
    expect(nb.displayText("rp-follow")).toMatch(/^\d+\.\d s · (VaR|PnL): (succeeded|warning|failed).* · (VaR|PnL): (succeeded|warning|failed).* · done$/);
    expect(nb.displayText("rp-finished")).toMatch(/^ColumnTable · 2 rows × 13 columns/);
    expect(nb.stdout("rp-history")).toBe("242 report infos over 30 pricing dates; 0 dates failed\n");
    expect(nb.figures("rp-history")[0]!.data.every((t) => t.type === "bar")).toBe(true);
    expect(nb.displayText("rp-by-portfolio")).toMatch(/DataFrame · 4 rows × 6 columns[\s\S]*GLOBAL-MACRO/);
    expect(nb.stdout("rp-failures").trim().split("\n")).toHaveLength(5);
  },
  "04-transactions": (nb) => {
    expect(nb.displayText("tx-table")).toMatch(/^ColumnTable · [\d,]+ rows × 13 columns · from GetTransactionTable/);
    expect(nb.figures("tx-chart")[0]!.data.length).toBeGreaterThan(2);
    expect(nb.stdout("tx-positions")).toMatch(/^cash from trading: USD -?[\d.]+m/);
    expect(nb.figures("tx-monthly")[0]!.data.every((t) => t.type === "bar")).toBe(true);
    const events = /^(\d+) next events, (\d+) applied \(\d+ short or flat positions left out\), (\d+) position effects/.exec(nb.stdout("tx-events"));
    expect(events, nb.stdout("tx-events")).not.toBeNull();
    expect(Number(events![2])).toBeGreaterThan(3);
    expect(Number(events![3])).toBeGreaterThanOrEqual(Number(events![2]));
    expect(nb.figures("tx-effect")[0]!.layout.title?.text).toMatch(/^CouponEvent of .* on the [\d,]+ held$/);
    const briefs = nb.stdout("tx-briefs").trim().split("\n");
    expect(briefs).toHaveLength(4);
    expect(briefs.slice(0, 3).every((b) => b.startsWith("✔ "))).toBe(true);
    expect(briefs[3]).toBe("✘ NOPE.XXXX: not found (HTTP 404: No tradable with id 'NOPE.XXXX')");
  },
  "05-market-data-upload": (nb) => {
    expect(nb.displayText("up-bonds-raw")).toMatch(/^DataFrame · 11 rows × 9 columns/);
    const validate = nb.stdout("up-bonds-validate");
    expect(validate).toMatch(/^9 valid records; 2 problems:\n\s+✘ line 8 \(row 6\): bond_identifier\.code: missing\n\s+✘ line 9 \(row 7\): traded_price: expected number, got "95\.5O"/);
    expect(validate).toContain("uploadBondPrices: UploadBondPriceData: 2 invalid rows, nothing was sent");
    const upload = nb.stdout("up-bonds-upload");
    expect(upload).toMatch(/^all-or-nothing: is_success false; nothing was stored: 3 of 9 record\(s\) invalid/);
    expect(upload).toContain("best effort: 6 stored, 3 rejected by the service:");
    const rejected = nb.html("up-bonds-upload");
    for (const code of ["XS1234567890", "GB00BL68HJ26", "JP1103721L69"]) expect(rejected).toContain(code);
    const effect = nb.stdout("up-bonds-effect");
    expect(effect).toMatch(/EUR curve: 18 points before, 19 after; bond points:/);
    expect(effect).toContain("BOND DE0001102580: 7.24y");
    expect(effect).toContain("Last uploaded price 101.07 on 2026-11-20 (in the curve)");
    expect(nb.figures("up-bonds-effect")[0]!.data.map((t) => t.name)).toEqual(expect.arrayContaining(["EUR before upload", "EUR after upload"]));
    expect(nb.stdout("up-vols-validate")).toMatch(/^13 rows → 4 valid curves \(AAPL, SAP, MSFT, TSLA\); 1 problem:\n\s+✘ line 13 \(row 11\): maturity: expected number, got "3M"/);
    expect(nb.stdout("up-vols-upload")).toMatch(/^best effort: 2 curves stored, 2 rejected by the service:\n.*24\.5 is not a plausible decimal vol.*\n.*unknown asset "TSLA"/);
    expect(nb.stdout("up-vols-effect")).toContain("Uploaded ATM vol curve of 2026-11-20: 30d 26.2%, 91d 25.1%, 182d 24.4%, 365d 23.8%");
    expect(nb.displayText("up-vols-effect")).toMatch(/ATM vol before %\s+ATM vol after %/);
  },
};

/**
 * The checks every executed showcase notebook passes, then its own. (The tslab kernel does not report
 * execution counts to Jupyter, so only the runner's notebooks say which cells ran.)
 */
function checkNotebook(nb: Executed, name: string, options: { executionCounts: boolean }): void {
  expect(nb.problems(), JSON.stringify(nb.problems(), null, 1).slice(0, 4000)).toEqual([]);
  if (options.executionCounts) expect(nb.unexecuted()).toEqual([]);
  // Every output of plot.show carries plotly.js once per kernel session: in the notebook's first chart.
  expect(nb.plotlyEmbeds()).toEqual({ count: 1, first: nb.firstChartCell() });
  const expected = EXPECTED[name];
  if (!expected) throw new Error(`no expectations for notebooks/${name}.ipynb: add them to EXPECTED in test/notebook/notebooks.test.ts`);
  expected(nb);
}

describe("the showcase notebooks", () => {
  it("are the five of issue 7, each with a parameters cell and one connect() call", () => {
    expect(NOTEBOOKS).toEqual(Object.keys(EXPECTED));
    for (const name of NOTEBOOKS) {
      const nb = Executed.read(path.join(NOTEBOOK_DIR, `${name}.ipynb`));
      const code = nb.nb.cells.filter((c) => c.cell_type === "code");
      expect(code[0]!.metadata.tags, name).toEqual(["parameters"]);
      const sources = code.map((c) => (Array.isArray(c.source) ? c.source.join("") : c.source));
      expect(sources.filter((s) => /\bawait connect\(\)/.test(s)), name).toHaveLength(1);
      // Committed clean: no outputs, and nothing that only works on one machine.
      expect(code.every((c) => (c.outputs ?? []).length === 0 && c.execution_count == null), name).toBe(true);
      expect(sources.join("\n"), name).not.toMatch(/\/work\/|\/home\/|\/tmp\/|C:\\/);
    }
  });
});

describe("npm run demo (every notebook through the headless runner)", () => {
  it("exits 0 and prints a line per notebook and a summary", () => {
    expect(demo.code, demo.stderr).toBe(0);
    const lines = demo.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^risk-portal-lab demo: 5 notebooks, run headless against the embedded simulator/);
    for (const [i, name] of NOTEBOOKS.entries()) expect(lines[i + 1]).toMatch(new RegExp(`^✔ ${name}\\s+\\d+ cells, \\d+ charts?\\s+\\d+\\.\\d s\\s+→ .*${name}\\.html$`));
    expect(lines.at(-1)).toMatch(/^5 notebooks passed in \d+\.\d s → open .*index\.html$/);
    expect(demo.stderr).toBe("");
  });

  it("writes index.html linking every rendered notebook and its executed .ipynb", () => {
    const index = readFileSync(path.join(demoDir, "index.html"), "utf8");
    for (const name of NOTEBOOKS) {
      expect(index).toContain(`<a href="${name}.html">`);
      expect(index).toContain(`<a href="${name}.ipynb">executed .ipynb</a>`);
      expect(existsSync(path.join(demoDir, `${name}.html`))).toBe(true);
    }
    expect(index).toContain("all 5 notebooks ran");
  });

  for (const name of NOTEBOOKS) {
    it(`${name}: runs cleanly and shows what it is about`, () => {
      const nb = Executed.read(path.join(demoDir, `${name}.ipynb`));
      checkNotebook(nb, name, { executionCounts: true });
      expect(nb.nb.metadata.risk_portal_lab).toMatchObject({ parameters: {}, status: "ok" });
    });
  }

  const skipBrowser = chromiumMissing !== undefined && !inCI;
  it.skipIf(skipBrowser)(
    `renders every notebook to HTML whose charts all draw in Chromium, offline${skipBrowser ? ` (skipped: ${chromiumMissing}; ${CHROMIUM_HINT})` : ""}`,
    async () => {
      if (chromiumMissing) throw new Error(`The browser check must run in CI, but ${chromiumMissing}: ${CHROMIUM_HINT}.`);
      const b = await openOfflineBrowser();
      try {
        for (const name of NOTEBOOKS) {
          const nb = Executed.read(path.join(demoDir, `${name}.ipynb`));
          const expected = nb.nb.cells.flatMap((c) => nb.figures(c.id ?? "")).length;
          const page = await b.context.newPage();
          await page.goto(pathToFileURL(path.join(demoDir, `${name}.html`)).href);
          const charts = await drawnCharts(page, expected);
          expect(charts.map((c) => c.svg), name).toEqual(new Array(expected).fill(true));
          expect(charts.every((c) => c.traces > 0), name).toBe(true);
          await page.close();
        }
        expect(b.external).toEqual([]);
        expect(b.errors).toEqual([]);
      } finally {
        await b.close();
      }
    },
    180_000,
  );
});

describe("risk-portal-lab run notebooks/01-yield-curves.ipynb --param currency=EUR", () => {
  it("injects the parameter after the parameters cell and the notebook uses it", () => {
    expect(eur.code, eur.stderr).toBe(0);
    expect(eur.stdout).toMatch(/^✔ 01-yield-curves\s+12 cells, 5 charts/);
    const nb = Executed.read(path.join(eurDir, "01-yield-curves.ipynb"));
    expect(nb.problems()).toEqual([]);
    const ids = nb.nb.cells.map((c) => c.id);
    expect(ids.indexOf("injected-parameters")).toBe(ids.indexOf("yc-params") + 1);
    expect(nb.cell("injected-parameters").source).toBe('// Parameters injected by risk-portal-lab run\nconst currency: string = "EUR";');
    expect(nb.stdout("yc-derived")).toMatch(/^EUR curve on 2026-11-20: 18 points, from EUR DEPO 1W to EUR SWAP 30Y/);
    expect(nb.figures("yc-history-chart")[0]!.layout.title?.text).toBe("EUR zero rates at chosen tenors");
    expect(nb.nb.metadata.risk_portal_lab).toMatchObject({ parameters: { currency: "EUR" }, status: "ok" });
    expect(readFileSync(path.join(eurDir, "01-yield-curves.html"), "utf8")).toContain('Executed headless by risk-portal-lab with currency = &quot;EUR&quot;');
  });
});

describe("the showcase notebooks under Jupyter (nbconvert --execute, tslab kernel)", () => {
  if (jupyterMissing && inCI) {
    it("runs in CI", () => {
      throw new Error(`The Jupyter runs must happen in CI, but ${jupyterMissing}: ${JUPYTER_HINT}.`);
    });
    return;
  }
  const why = jupyterMissing ? ` (skipped: ${jupyterMissing}; ${JUPYTER_HINT})` : "";

  it.skipIf(jupyterMissing !== undefined)(`executes every notebook${why}`, () => {
    expect(jupyter?.code, `${jupyter?.stderr.split("\n").slice(-30).join("\n")}`).toBe(0);
  });

  for (const name of NOTEBOOKS) {
    it.skipIf(jupyterMissing !== undefined)(`${name}: runs cleanly and shows what it is about${why}`, () => {
      checkNotebook(Executed.read(path.join(jupyterDir, `${name}.ipynb`)), name, { executionCounts: false });
    });
  }
});
