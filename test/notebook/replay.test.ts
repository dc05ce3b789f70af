/**
 * Every showcase notebook re-runs offline from its committed cassette (fixtures/cassettes/<name>.json)
 * with its parameter `replay = true`: no server running, no RISK_PORTAL_* variable set, no simulator
 * started. Twice: headless (`risk-portal-lab demo --replay`, which injects `replay = true`), and under
 * the real Jupyter with the tslab kernel (nbconvert --execute) on copies with the parameter injected by
 * the runner's own params code, placed one directory below the repository root so that the notebooks'
 * relative paths (`../fixtures/…`) resolve as from notebooks/. Each run shows what the notebook is
 * about (the same checks as the live runs, test/notebook/expected.ts), says it replayed, and every
 * table says it came from the cassette.
 *
 * The two runs of each notebook are then compared, both ways, as a quant compares today's Jupyter notebook with
 * a headless run: nbconvert saves through nbformat (text as lists of lines, keys sorted) and tslab under Jupyter
 * leaves `execution_count` null, where the headless run stores strings and counts. `diff` sees no change.
 *
 * And a replay whose request changed (notebook 01 with currency SEK, never recorded) stops at the first
 * cell that asked, with the cassette's clear error: the closest recorded request and the difference.
 *
 * Jupyter needs `jupyter-nbconvert` and the tslab kernelspec (scripts/setup-jupyter.sh): without them
 * the Jupyter test is skipped locally and fails in CI.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffNotebookFiles } from "../../src/notebook/diff";
import { parseNotebook } from "../../src/notebook/ipynb";
import { injectParameters } from "../../src/notebook/params";
import {
  Executed,
  inCI,
  JUPYTER_HINT,
  joined,
  missingJupyter,
  root,
  runCli,
  runJupyter,
  withoutCellLines,
  type Run,
} from "./executed";
import { checkNotebook, connectCell, NOTEBOOK_DIR, NOTEBOOKS, provenanceLines, replayLine } from "./expected";

/** The replays run together with the other notebook tests on two cores. */
const RUN_TIMEOUT_MS = 300_000;

const jupyterMissing = missingJupyter();
if (jupyterMissing && !inCI)
  console.warn(
    `test/notebook: skipping the Jupyter replay of the showcase notebooks: ${jupyterMissing}; ${JUPYTER_HINT}.`,
  );

const outDir = mkdtempSync(path.join(tmpdir(), "rpl-replay-"));
const headlessDir = path.join(outDir, "headless");
const changedDir = path.join(outDir, "changed");
const jupyterDir = path.join(outDir, "jupyter");
/** The parameterised copies for Jupyter: beside notebooks/, so `../fixtures/cassettes/…` is the committed cassette. */
const copiesDir = mkdtempSync(path.join(root, ".replay-jupyter-"));
afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
  rmSync(copiesDir, { recursive: true, force: true });
});

let headless: Run;
let changed: Run;
let jupyter: Run | undefined;

beforeAll(async () => {
  const copies = NOTEBOOKS.map((name) => {
    const file = path.join(NOTEBOOK_DIR, `${name}.ipynb`);
    const nb = injectParameters(parseNotebook(readFileSync(file, "utf8"), file), { replay: true }, file);
    const copy = path.join(copiesDir, `${name}.ipynb`);
    writeFileSync(copy, `${JSON.stringify(nb, null, 1)}\n`);
    return copy;
  });
  mkdirSync(jupyterDir, { recursive: true });
  const jupyterRun = jupyterMissing
    ? Promise.resolve(undefined)
    : runJupyter(copies, jupyterDir, RUN_TIMEOUT_MS - 20_000);
  const headlessRuns = (async () => {
    // No PNGs (test/notebook/chart-images.test.ts and the demo of notebooks.test.ts draw them): no Chromium here.
    headless = await runCli(["demo", "--replay", "--no-images", "--out", headlessDir], RUN_TIMEOUT_MS - 60_000);
    changed = await runCli(
      [
        "run",
        "notebooks/01-yield-curves.ipynb",
        "--param",
        "replay=true",
        "--param",
        "currency=SEK",
        "--no-images",
        "--out",
        changedDir,
      ],
      60_000,
    );
  })();
  [jupyter] = await Promise.all([jupyterRun, headlessRuns]);
}, RUN_TIMEOUT_MS);

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

describe("risk-portal-lab demo --replay: every notebook from its committed cassette, headless, offline", () => {
  it("exits 0 and says where the answers come from", () => {
    expect(headless.code, headless.stderr).toBe(0);
    const lines = headless.stdout.trim().split("\n");
    expect(lines[0]).toBe(
      `risk-portal-lab demo: ${NOTEBOOKS.length} notebooks, run headless offline from their cassettes in fixtures/cassettes/ (recorded against the simulator, data as of 2026-11-20)`,
    );
    expect(lines.at(-1)).toMatch(
      new RegExp(`^${NOTEBOOKS.length} notebooks passed in \\d+\\.\\d s → open .*index\\.html$`),
    );
    expect(headless.stderr).toBe("");
    expect(readFileSync(path.join(headlessDir, "index.html"), "utf8")).toContain(
      "replaying its cassette (fixtures/cassettes/",
    );
  });

  for (const name of NOTEBOOKS) {
    it(`${name}: replays cleanly, shows what it is about, and every table came from the cassette`, () => {
      const nb = Executed.read(path.join(headlessDir, `${name}.ipynb`));
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
      for (const name of NOTEBOOKS) {
        const jupyterFile = path.join(jupyterDir, `${name}.ipynb`);
        const headlessFile = path.join(headlessDir, `${name}.ipynb`);
        for (const [a, b] of [
          [headlessFile, jupyterFile],
          [jupyterFile, headlessFile],
        ] as const) {
          const d = await diffNotebookFiles(a, b);
          expect(d.summary, `${path.basename(path.dirname(a))} → ${path.basename(path.dirname(b))}`).toMatch(
            new RegExp(`^${name}: no change in \\d+ code cells`),
          );
        }
      }
      // and through the CLI, its exit code: 0
      const cli = await runCli(
        [
          "diff",
          path.join(jupyterDir, `${NOTEBOOKS[0]}.ipynb`),
          path.join(headlessDir, `${NOTEBOOKS[0]}.ipynb`),
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
