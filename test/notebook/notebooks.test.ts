/**
 * The showcase notebooks (notebooks/*.ipynb), executed three ways:
 * - live, headless, through the one-command demo (`node dist/cli.js demo`, the runner with tslab's executor)
 *   against the embedded simulator, recording every exchange (RISK_PORTAL_CASSETTE_MODE=record, to a
 *   temporary directory);
 * - offline from their committed cassettes (fixtures/cassettes/<name>.json), headless (`demo --replay`, which
 *   injects `replay = true`): no server running, no RISK_PORTAL_* variable set, no simulator started;
 * - offline from the same cassettes under the real Jupyter (`jupyter nbconvert --to notebook --execute`, tslab
 *   kernel), on copies with `replay = true` injected by the runner's own params code, placed one directory
 *   below the repository root so that the notebooks' relative paths (`../fixtures/…`) resolve as from
 *   notebooks/.
 * Each executed notebook must have no error output and no stderr, every code cell run, plotly.js embedded once
 * (in its first chart), and the outputs that make its point (test/notebook/expected.ts); a replay says it
 * replayed and every table says it came from the cassette.
 *
 * The runs are compared with `diff`, both ways, as a quant compares two runs: the live run with the committed
 * replay (so the committed cassettes answer as the simulator does today), and the Jupyter run with the headless
 * one (nbconvert saves through nbformat: text as lists of lines, keys sorted, `execution_count` null). Each
 * live run recorded a cassette holding the requests its committed cassette holds.
 *
 * Then the documented single-notebook command (`run notebooks/01-yield-curves.ipynb --param
 * currency=EUR`), a replay whose request changed (currency SEK, never recorded: the cassette's clear error),
 * and the demo's HTML renderings in headless Chromium with the network refused: every chart draws.
 *
 * The live path under Jupyter itself is run by test/package/consumer.test.ts (the packed package, both
 * kernels) and under Deno's kernel by test/notebook/deno-kernel.test.ts; the record → replay round trip of
 * one notebook, exactly, by test/notebook/diff.test.ts (`run --compare`).
 *
 * Jupyter needs `jupyter-nbconvert` and the tslab kernelspec (scripts/setup-jupyter.sh), Chromium
 * scripts/setup-chromium.sh: without them those tests are skipped locally and fail in CI.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffNotebookFiles } from "../../src/notebook/diff";
import { parseNotebook } from "../../src/notebook/ipynb";
import { injectParameters } from "../../src/notebook/params";
import { drawnCharts, missingChromium, openOfflineBrowser, SETUP_HINT as CHROMIUM_HINT } from "../plot/browser";
import {
  Executed,
  inCI,
  JUPYTER_HINT,
  joined,
  missingJupyter,
  notebookEnv,
  root,
  runCli,
  runJupyter,
  withoutCellLines,
  type Run,
} from "./executed";
import {
  checkNotebook,
  connectCall,
  connectCell,
  EXPECTED,
  NOTEBOOK_DIR,
  NOTEBOOKS,
  provenanceLines,
  replayLine,
} from "./expected";

/** All the runs together on a loaded two-core machine; each is about a minute when idle. */
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
const replayDir = path.join(outDir, "replay");
const jupyterDir = path.join(outDir, "jupyter");
const eurDir = path.join(outDir, "eur");
const changedDir = path.join(outDir, "changed");
const cassetteDir = path.join(outDir, "cassettes");
/** The parameterised copies for Jupyter: beside notebooks/, so `../fixtures/cassettes/…` is the committed cassette. */
const copiesDir = mkdtempSync(path.join(root, ".replay-jupyter-"));
afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
  rmSync(copiesDir, { recursive: true, force: true });
});

let demo: Run;
let replay: Run;
let eur: Run;
let changed: Run;
let jupyter: Run | undefined;

/** Copies of the notebooks with `replay = true` injected, for Jupyter (which takes no parameters). */
function replayCopies(): string[] {
  return NOTEBOOKS.map((name) => {
    const file = path.join(NOTEBOOK_DIR, `${name}.ipynb`);
    const nb = injectParameters(parseNotebook(readFileSync(file, "utf8"), file), { replay: true }, file);
    const copy = path.join(copiesDir, `${name}.ipynb`);
    writeFileSync(copy, `${JSON.stringify(nb, null, 1)}\n`);
    return copy;
  });
}

/**
 * The headless runs, one after the other: the live demo as `npm run demo` runs it (a notebook a core, each
 * in a worker of its own), the replay with `--jobs 1` (its seven notebooks in one worker, which loads the
 * package and builds tslab's type-checker once: 21 s of CPU instead of 26-32 s for two workers).
 */
async function headlessRuns(): Promise<void> {
  // No PNGs in any run: they were 17 of the demo's 60 s of CPU, and chart-images.test.ts draws them with the
  // demo's own code (addChartImages); here the charts are compared by their JSON and drawn in Chromium below.
  demo = await runCli(["demo", "--no-images", "--out", demoDir], RUN_TIMEOUT_MS - 20_000, {
    ...notebookEnv(),
    RISK_PORTAL_CASSETTE_MODE: "record",
    RISK_PORTAL_CASSETTE_DIR: cassetteDir,
  });
  replay = await runCli(["demo", "--replay", "--jobs", "1", "--no-images", "--out", replayDir], 180_000);
  eur = await runCli(
    ["run", "notebooks/01-yield-curves.ipynb", "--param", "currency=EUR", "--no-images", "--out", eurDir],
    120_000,
  );
  changed = await runCli(
    [
      ...["run", "notebooks/01-yield-curves.ipynb", "--param", "replay=true", "--param", "currency=SEK"],
      ...["--no-images", "--out", changedDir],
    ],
    60_000,
  );
}

beforeAll(async () => {
  mkdirSync(jupyterDir, { recursive: true });
  const jupyterRun = jupyterMissing
    ? Promise.resolve(undefined)
    : runJupyter(replayCopies(), jupyterDir, RUN_TIMEOUT_MS - 20_000);
  [jupyter] = await Promise.all([jupyterRun, headlessRuns()]);
}, RUN_TIMEOUT_MS);

/** The distinct requests of a cassette, without the address of the server it was recorded from. */
function cassetteRequests(file: string): string[] {
  const c = JSON.parse(readFileSync(file, "utf8")) as { baseUrl: string; exchanges: { request: unknown }[] };
  return [...new Set(c.exchanges.map((e) => JSON.stringify(e.request).split(c.baseUrl).join("BASE")))].sort();
}

/**
 * `diff` of two executed notebooks, both ways: no change, but in the cells of `timing` (id → the one line each
 * run shows there), whose text depends on how fast the machine ran.
 */
async function expectNoChange(name: string, a: string, b: string, timing: Record<string, RegExp> = {}): Promise<void> {
  for (const [from, to] of [
    [a, b],
    [b, a],
  ] as const) {
    const d = await diffNotebookFiles(from, to);
    const changed = d.cells.map((c) => c.id ?? c.firstLine).filter((id) => !(id in timing));
    expect(changed, `${path.basename(path.dirname(from))} → ${path.basename(path.dirname(to))}: ${d.summary}`).toEqual(
      [],
    );
    for (const [id, line] of Object.entries(timing))
      for (const file of [from, to]) expect(Executed.read(file).displayText(id), `${file}: ${id}`).toMatch(line);
  }
}

/**
 * What a live run may show otherwise than its committed replay: how many times notebook 03 polled its report
 * runs before both ended depends on the machine's speed (the replay shows the recording's count).
 */
const LIVE_TIMING: Record<string, Record<string, RegExp>> = {
  "03-reports": {
    "rp-follow": /^report runs · poll \d+ · 2 of 2 finished · done\nFigure "Report runs · 2 of 2 finished"/,
  },
};

/** What a replayed notebook must show on top of the notebook's own checks: it replayed, and every table says so. */
function checkReplayed(nb: Executed, name: string): void {
  expect(nb.stdout(connectCell(nb))).toMatch(replayLine(name));
  const all = nb.nb.cells
    .flatMap((c) => (c.outputs ?? []).map((o) => joined(o.text) + joined(o.data?.["text/plain"])))
    .join("\n");
  expect(all).not.toContain("started the embedded simulator");
  const sources = provenanceLines(nb);
  // Notebooks 02 and 05 show no table made from a response (their tables are built by hand or from CSV).
  if (!["02-vol-surface-crosscheck", "05-market-data-upload"].includes(name))
    expect(sources.length, name).toBeGreaterThan(0);
  for (const line of sources)
    expect(line).toMatch(
      new RegExp(` · cassette from http://127\\.0\\.0\\.1:\\d+ \\(cassette .*${name}\\.json\\) · recorded `),
    );
}

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

describe("the live runs against the committed cassettes", () => {
  it("every live run recorded a cassette holding the requests of its committed cassette", () => {
    expect(demo.code, demo.stderr).toBe(0);
    expect(readdirSync(cassetteDir).sort()).toEqual(NOTEBOOKS.map((n) => `${n}.json`));
    for (const name of NOTEBOOKS)
      expect(
        cassetteRequests(path.join(cassetteDir, `${name}.json`)),
        `${name}: the notebook's requests changed; record its cassette again (scripts/record-cassettes.mjs)`,
      ).toEqual(cassetteRequests(path.join(root, "fixtures", "cassettes", `${name}.json`)));
  });

  for (const name of NOTEBOOKS) {
    it(`${name}: the committed replay shows what the live run showed (diff, both ways: no change)`, async () => {
      const live = Executed.read(path.join(demoDir, `${name}.ipynb`));
      expect(live.stdout(connectCell(live))).toMatch(
        new RegExp(
          `^No RISK_PORTAL_BASE_URL set: started the embedded simulator at http://127\\.0\\.0\\.1:\\d+ \\(seed 1, data as of 2026-11-20\\); recording every exchange to .*${name}\\.json\\.\\n$`,
        ),
      );
      expect(
        provenanceLines(live).every((l) => / · live from http:\/\/127\.0\.0\.1:\d+ · received /.test(l)),
        provenanceLines(live).join("\n"),
      ).toBe(true);
      await expectNoChange(
        name,
        path.join(demoDir, `${name}.ipynb`),
        path.join(replayDir, `${name}.ipynb`),
        LIVE_TIMING[name],
      );
    });
  }
});

describe("risk-portal-lab demo --replay: every notebook from its committed cassette, headless, offline", () => {
  it("exits 0 and says where the answers come from", () => {
    expect(replay.code, replay.stderr).toBe(0);
    const lines = replay.stdout.trim().split("\n");
    expect(lines[0]).toBe(
      `risk-portal-lab demo: ${NOTEBOOKS.length} notebooks, run headless offline from their cassettes in fixtures/cassettes/ (recorded against the simulator, data as of 2026-11-20)`,
    );
    expect(lines.at(-1)).toMatch(
      new RegExp(`^${NOTEBOOKS.length} notebooks passed in \\d+\\.\\d s → open .*index\\.html$`),
    );
    expect(replay.stderr).toBe("");
    expect(readFileSync(path.join(replayDir, "index.html"), "utf8")).toContain(
      "replaying its cassette (fixtures/cassettes/",
    );
  });

  for (const name of NOTEBOOKS) {
    it(`${name}: replays cleanly, shows what it is about, and every table came from the cassette`, () => {
      const nb = Executed.read(path.join(replayDir, `${name}.ipynb`));
      expect(nb.nb.metadata.risk_portal_lab).toMatchObject({ parameters: { replay: true }, status: "ok" });
      checkNotebook(nb, name, { executionCounts: true });
      checkReplayed(nb, name);
    });
  }
});

describe("a replay whose request changed", () => {
  it("stops at the cell that asked, with the closest recorded request and the difference (notebook 01, currency SEK)", () => {
    expect(changed.code).toBe(1);
    const error = withoutCellLines(changed.stderr);
    // The first cell that asks is a batch (frames.fetchYieldCurvesColumns): a replay miss is not one failed date among others, it throws.
    expect(error).toMatch(
      /^✘ notebooks\/01-yield-curves\.ipynb: code cell \d+ of \d+ \(id "yc-today"\) failed: const allCurrencies = /,
    );
    expect(error).toMatch(
      /CassetteMissError: RateAsset: no recorded exchange in the cassette \S*fixtures\/cassettes\/01-yield-curves\.json \(\d+ exchanges\) matches this request\. The closest recorded request \(RateAsset\) differs in:/,
    );
    expect(error).toMatch(/ body\.currency: recorded "(USD|EUR|GBP|JPY|CHF)", now "SEK"/);
    expect(error).toContain('Record it again (mode "record" or "auto") if the request changed on purpose.');
    const nb = Executed.read(path.join(changedDir, "01-yield-curves.ipynb"));
    expect(nb.outputs("yc-today").at(-1)).toMatchObject({ output_type: "error", ename: "CassetteMissError" });
  });
});

describe("the showcase notebooks replayed under Jupyter (nbconvert --execute, tslab kernel, replay = true)", () => {
  if (jupyterMissing && inCI) {
    it("runs in CI", () => {
      throw new Error(`The Jupyter replays must happen in CI, but ${jupyterMissing}: ${JUPYTER_HINT}.`);
    });
    return;
  }
  const why = jupyterMissing ? ` (skipped: ${jupyterMissing}; ${JUPYTER_HINT})` : "";

  it.skipIf(jupyterMissing !== undefined)(`executes every notebook${why}`, () => {
    expect(jupyter?.code, `${jupyter?.stderr.split("\n").slice(-30).join("\n")}`).toBe(0);
  });

  it.skipIf(jupyterMissing !== undefined)(
    `each Jupyter run compared with the headless run of the same notebook, both ways: no change${why}`,
    async () => {
      const text = readFileSync(path.join(jupyterDir, `${NOTEBOOKS[0]}.ipynb`), "utf8");
      // nbformat's form, which the comparison must read: text as lists of lines, no execution counts
      expect(text).toContain('"source": [\n');
      expect(text).toContain('"execution_count": null');
      for (const name of NOTEBOOKS)
        await expectNoChange(name, path.join(replayDir, `${name}.ipynb`), path.join(jupyterDir, `${name}.ipynb`));
      // and through the CLI, its exit code: 0
      const cli = await runCli(
        [
          "diff",
          path.join(jupyterDir, `${NOTEBOOKS[0]}.ipynb`),
          path.join(replayDir, `${NOTEBOOKS[0]}.ipynb`),
          "--out",
          path.join(outDir, "diff.html"),
        ],
        60_000,
      );
      expect(cli.code, cli.stdout + cli.stderr).toBe(0);
    },
  );

  for (const name of NOTEBOOKS) {
    it.skipIf(jupyterMissing !== undefined)(
      `${name}: replays cleanly from the committed cassette and shows what it is about${why}`,
      () => {
        const nb = Executed.read(path.join(jupyterDir, `${name}.ipynb`));
        expect(joined(nb.cell("injected-parameters").source)).toBe(
          "// Parameters injected by risk-portal-lab run\nconst replay: boolean = true;",
        );
        checkNotebook(nb, name, { executionCounts: false });
        checkReplayed(nb, name);
      },
    );
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
