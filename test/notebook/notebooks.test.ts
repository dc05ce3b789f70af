/**
 * The showcase notebooks (notebooks/*.ipynb), executed twice: headless through the one-command demo
 * (`node dist/cli.js demo`, the runner with tslab's executor), and by the real Jupyter (`jupyter
 * nbconvert --to notebook --execute` with the tslab kernel). Each executed notebook must have no error
 * output and no stderr, every code cell run, plotly.js embedded once (in its first chart), and the
 * outputs that make its point: the charts, the flagged residuals of the stale surface, the finished
 * reports, the unknown tradable reported, the rejected upload rows, … (test/notebook/expected.ts).
 *
 * The demo runs with RISK_PORTAL_CASSETTE_MODE=record (cassettes to a temporary directory), and the
 * recordings are then replayed headless (`run … --param replay=true`): every cell's outputs must be
 * identical to the recording run's, except for the lines that say where the data came from (the
 * connect line, the tables' provenance footers) and a batch's elapsed seconds.
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
import { Executed, inCI, JUPYTER_HINT, missingJupyter, notebookEnv, runCli, runJupyter, type Run } from "./executed";
import {
  checkNotebook,
  connectCall,
  connectCell,
  differingCells,
  EXPECTED,
  NOTEBOOK_DIR,
  NOTEBOOKS,
  provenanceLines,
} from "./expected";

/** Both runs together on a loaded two-core machine; each is about a minute when idle. */
const RUN_TIMEOUT_MS = 420_000;

const jupyterMissing = missingJupyter();
const chromiumMissing = missingChromium();
if (jupyterMissing && !inCI)
  console.warn(
    `test/notebook: skipping the Jupyter runs of the showcase notebooks: ${jupyterMissing}; ${JUPYTER_HINT}.`,
  );
if (chromiumMissing && !inCI)
  console.warn(
    `test/notebook: skipping the Chromium check of the rendered notebooks: ${chromiumMissing}; ${CHROMIUM_HINT}.`,
  );

const outDir = mkdtempSync(path.join(tmpdir(), "rpl-notebooks-"));
const demoDir = path.join(outDir, "demo");
const jupyterDir = path.join(outDir, "jupyter");
const eurDir = path.join(outDir, "eur");
const cassetteDir = path.join(outDir, "cassettes");
const replayDir = path.join(outDir, "replay");
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

let demo: Run;
let eur: Run;
let replay: Run;
let jupyter: Run | undefined;

beforeAll(async () => {
  const jupyterRun = jupyterMissing
    ? Promise.resolve(undefined)
    : runJupyter(
        NOTEBOOKS.map((n) => path.join(NOTEBOOK_DIR, `${n}.ipynb`)),
        jupyterDir,
        RUN_TIMEOUT_MS - 20_000,
      );
  const headless = (async () => {
    demo = await runCli(["demo", "--out", demoDir], RUN_TIMEOUT_MS - 20_000, {
      ...notebookEnv(),
      RISK_PORTAL_CASSETTE_MODE: "record",
      RISK_PORTAL_CASSETTE_DIR: cassetteDir,
    });
    replay = await runCli(
      // No PNGs here (the demo's charts have them, one Chromium for this file): compared by their JSON.
      [
        "run",
        ...NOTEBOOKS.map((n) => `notebooks/${n}.ipynb`),
        "--param",
        "replay=true",
        "--no-images",
        "--out",
        replayDir,
      ],
      180_000,
      {
        ...notebookEnv(),
        RISK_PORTAL_CASSETTE_DIR: cassetteDir,
      },
    );
    eur = await runCli(
      ["run", "notebooks/01-yield-curves.ipynb", "--param", "currency=EUR", "--no-images", "--out", eurDir],
      120_000,
    );
  })();
  [jupyter] = await Promise.all([jupyterRun, headless]);
}, RUN_TIMEOUT_MS);

describe("the showcase notebooks", () => {
  it("are the seven showcase notebooks (issue 7's five, issue 16's year of trades, issue 32's what changed), each with a parameters cell and one connect() call", () => {
    expect(NOTEBOOKS).toEqual(Object.keys(EXPECTED));
    for (const name of NOTEBOOKS) {
      const nb = Executed.read(path.join(NOTEBOOK_DIR, `${name}.ipynb`));
      const code = nb.nb.cells.filter((c) => c.cell_type === "code");
      expect(code[0]!.metadata.tags, name).toEqual(["parameters"]);
      const sources = code.map((c) => (Array.isArray(c.source) ? c.source.join("") : c.source));
      expect(
        sources.filter((s) => /\bawait connect\(/.test(s)),
        name,
      ).toHaveLength(1);
      // Its own cassette, replayed when the `replay` parameter (declared false) says so.
      expect(
        sources.filter((s) => s.includes(connectCall(name))),
        name,
      ).toHaveLength(1);
      expect(sources[0], name).toMatch(/^const replay: boolean = false;$/m);
      // Everything goes through the client (so it is recorded and replayed): no raw fetch.
      expect(sources.join("\n"), name).not.toMatch(/\bfetch\(/);
      // Committed clean: no outputs, and nothing that only works on one machine.
      expect(
        code.every((c) => (c.outputs ?? []).length === 0 && c.execution_count == null),
        name,
      ).toBe(true);
      expect(sources.join("\n"), name).not.toMatch(/\/work\/|\/home\/|\/tmp\/|C:\\/);
    }
  });
});

describe("npm run demo (every notebook through the headless runner)", () => {
  it("exits 0 and prints a line per notebook and a summary", () => {
    expect(demo.code, demo.stderr).toBe(0);
    const lines = demo.stdout.trim().split("\n");
    expect(lines[0]).toMatch(
      new RegExp(`^risk-portal-lab demo: ${NOTEBOOKS.length} notebooks, run headless against the embedded simulator`),
    );
    for (const [i, name] of NOTEBOOKS.entries())
      expect(lines[i + 1]).toMatch(
        new RegExp(`^✔ ${name}\\s+\\d+ cells, \\d+ charts?\\s+\\d+\\.\\d s\\s+→ .*${name}\\.html$`),
      );
    expect(lines.at(-1)).toMatch(
      new RegExp(`^${NOTEBOOKS.length} notebooks passed in \\d+\\.\\d s → open .*index\\.html$`),
    );
    expect(demo.stderr).toBe("");
  });

  it("writes index.html linking every rendered notebook and its executed .ipynb", () => {
    const index = readFileSync(path.join(demoDir, "index.html"), "utf8");
    for (const name of NOTEBOOKS) {
      expect(index).toContain(`<a href="./${name}.html">`);
      expect(index).toContain(`<a href="./${name}.ipynb">executed .ipynb</a>`);
      expect(existsSync(path.join(demoDir, `${name}.html`))).toBe(true);
    }
    expect(index).toContain(`all ${NOTEBOOKS.length} notebooks ran`);
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
      if (chromiumMissing)
        throw new Error(`The browser check must run in CI, but ${chromiumMissing}: ${CHROMIUM_HINT}.`);
      const b = await openOfflineBrowser();
      try {
        for (const name of NOTEBOOKS) {
          const nb = Executed.read(path.join(demoDir, `${name}.ipynb`));
          const expected = nb.nb.cells.flatMap((c) => nb.figures(c.id ?? "")).length;
          const page = await b.context.newPage();
          await page.goto(pathToFileURL(path.join(demoDir, `${name}.html`)).href);
          const charts = await drawnCharts(page, expected);
          expect(
            charts.map((c) => c.svg),
            name,
          ).toEqual(new Array(expected).fill(true));
          expect(
            charts.every((c) => c.traces > 0),
            name,
          ).toBe(true);
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

describe("the demo's recordings, replayed (run … --param replay=true): the same outputs, offline", () => {
  it("every notebook recorded a cassette and replayed it", () => {
    expect(demo.code, demo.stderr).toBe(0);
    expect(replay.code, replay.stderr).toBe(0);
    expect(readdirSync(cassetteDir).sort()).toEqual(NOTEBOOKS.map((n) => `${n}.json`));
  });

  for (const name of NOTEBOOKS) {
    it(`${name}: every cell's outputs are those of the recording run, but for where the data came from`, () => {
      const recorded = Executed.read(path.join(demoDir, `${name}.ipynb`));
      const replayed = Executed.read(path.join(replayDir, `${name}.ipynb`));
      expect(replayed.nb.metadata.risk_portal_lab).toMatchObject({ parameters: { replay: true }, status: "ok" });
      // The masked lines say what they should: recorded from a simulator, replayed from the cassette.
      const id = connectCell(recorded);
      expect(recorded.stdout(id)).toMatch(
        new RegExp(
          `^No RISK_PORTAL_BASE_URL set: started the embedded simulator at http://127\\.0\\.0\\.1:\\d+ \\(seed 1, data as of 2026-11-20\\); recording every exchange to .*${name}\\.json\\.\\n$`,
        ),
      );
      expect(replayed.stdout(id)).toMatch(
        new RegExp(
          `^Replaying .*${name}\\.json: \\d+ exchanges recorded \\d{4}-\\d{2}-\\d{2} from the simulator \\(seed 1, data as of 2026-11-20\\); no server is contacted\\.\\n$`,
        ),
      );
      const live = provenanceLines(recorded);
      expect(
        live.every((l) => / · live from http:\/\/127\.0\.0\.1:\d+ · received /.test(l)),
        live.join("\n"),
      ).toBe(true);
      expect(
        provenanceLines(replayed).map((l) =>
          l.replace(/ · cassette from (\S+) \(cassette [^)]*\) · recorded /, " · live from $1 · received "),
        ),
      ).toEqual(live);
      // Everything else is identical, cell by cell (plotly figures and their element ids included).
      expect(differingCells(recorded, replayed)).toEqual([]);
    });
  }
});

describe("risk-portal-lab run notebooks/01-yield-curves.ipynb --param currency=EUR", () => {
  it("injects the parameter after the parameters cell and the notebook uses it", () => {
    expect(eur.code, eur.stderr).toBe(0);
    expect(eur.stdout).toMatch(/^✔ 01-yield-curves\s+15 cells, 9 charts/);
    const nb = Executed.read(path.join(eurDir, "01-yield-curves.ipynb"));
    expect(nb.problems()).toEqual([]);
    const ids = nb.nb.cells.map((c) => c.id);
    expect(ids.indexOf("injected-parameters")).toBe(ids.indexOf("yc-params") + 1);
    expect(nb.cell("injected-parameters").source).toBe(
      '// Parameters injected by risk-portal-lab run\nconst currency: string = "EUR";',
    );
    expect(nb.stdout("yc-derived")).toMatch(/^EUR curve on 2026-11-20: 18 points, from EUR DEPO 1W to EUR SWAP 30Y/);
    expect(nb.figures("yc-history-chart")[0]!.layout.title?.text).toBe("EUR zero rates at chosen tenors");
    expect(nb.nb.metadata.risk_portal_lab).toMatchObject({ parameters: { currency: "EUR" }, status: "ok" });
    expect(readFileSync(path.join(eurDir, "01-yield-curves.html"), "utf8")).toContain(
      "Executed headless by risk-portal-lab with currency = &quot;EUR&quot;",
    );
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
