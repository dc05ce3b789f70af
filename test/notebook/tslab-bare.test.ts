/**
 * Bare values under tslab (issue 41, item 7): tslab-bare.ipynb ends cells with a DataFrame, a Series, a
 * column table and a figure, logs a DataFrame, and uses a shorthand property `{ surface }` naming an
 * earlier cell's variable. Run twice, at the same time: by the headless runner (`risk-portal-lab run`,
 * tslab's executor in-process) and by `jupyter nbconvert --execute` with the tslab kernel. In both, each
 * bare value displays as `plot.show` shows it (a table's text/html, a figure's plotly JSON), as under
 * Deno's kernel, never as the object's internals; `console.log(df)` prints one line saying what it is and
 * how to show it; the shorthand cell's ReferenceError says why and what to write instead.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Executed,
  inCI,
  joined,
  JUPYTER_HINT,
  missingJupyter,
  PLOTLY_MIME,
  runCli,
  runJupyter,
  withoutCellLines,
  type Output,
  type Run,
} from "./executed";

const notebook = path.join(__dirname, "tslab-bare.ipynb");
/** Kernel start and tslab's first type-check (tens of seconds on a loaded two-core machine). */
const TIMEOUT_MS = 240_000;
const missing = missingJupyter();
if (missing && !inCI)
  console.warn(`test/notebook: skipping tslab-bare.ipynb under Jupyter: ${missing}; ${JUPYTER_HINT}.`);

const outDir = mkdtempSync(path.join(tmpdir(), "rpl-tslab-bare-"));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

let runner: Run;
let jupyter: Run | undefined;
beforeAll(async () => {
  [runner, jupyter] = await Promise.all([
    // No PNG of the chart: nothing here looks at it, and it would start Chromium (chart-images.test.ts draws them).
    runCli(["run", notebook, "--no-images", "--out", path.join(outDir, "run")], TIMEOUT_MS),
    missing ? Promise.resolve(undefined) : runJupyter([notebook], path.join(outDir, "jupyter"), TIMEOUT_MS),
  ]);
}, TIMEOUT_MS + 20_000);

const SHORTHAND_HINT =
  "surface is not defined: `surface` is from an earlier cell, and tslab does not carry a shorthand property `{ surface }` across cells; write `{ surface: surface }`";

/** The outputs that carry a mime bundle (results and displays). */
const bundles = (outputs: Output[]) => outputs.filter((o) => o.data);
const html = (o: Output | undefined) => {
  const text = o?.data?.["text/html"];
  return Array.isArray(text) ? text.join("") : String(text ?? "");
};

/** What both runs must show for the bare values. */
function checkBareValues(nb: Executed): void {
  for (const id of ["bare-frame", "bare-series", "bare-table"]) {
    const shown = bundles(nb.outputs(id));
    expect(shown, `${id}: ${JSON.stringify(nb.outputs(id)).slice(0, 300)}`).toHaveLength(1);
    expect(html(shown[0]), id).toContain("<table");
    // A bare value's display is all the cell shows: no line of internals, no stray empty line.
    expect(
      nb.outputs(id).filter((o) => o.output_type === "stream"),
      id,
    ).toEqual([]);
  }
  expect(nb.displayText("bare-frame")).toMatch(/^DataFrame · 18 rows × \d+ columns/);
  const figures = nb.figures("bare-figure");
  expect(figures).toHaveLength(1);
  expect(figures[0]!.data.length).toBeGreaterThan(0);
  expect(nb.outputs("bare-figure").filter((o) => o.output_type === "stream")).toEqual([]);
  expect(nb.stdout("bare-log")).toMatch(
    /^DataFrame · 18 rows × \d+ columns.* — write plot\.show\(…\) to see it as a table\n$/,
  );
  expect(JSON.stringify(nb.nb)).not.toContain("$dataIncolumnFormat");
}

describe("tslab-bare.ipynb under the runner", () => {
  it("shows each bare value as plot.show does and counts the chart", () => {
    const nb = Executed.read(path.join(outDir, "run", "tslab-bare.ipynb"));
    checkBareValues(nb);
    // The cell's result, as Deno's kernel stores a bare value (after plotly.js, with the first chart).
    for (const id of ["bare-frame", "bare-series", "bare-table", "bare-figure"])
      expect(
        nb.outputs(id).filter((o) => o.output_type === "execute_result"),
        id,
      ).toHaveLength(1);
    expect(nb.outputs("bare-figure").at(-1)?.data?.[PLOTLY_MIME]).toBeDefined();
    // Other last values print as before.
    expect(nb.displayText("bare-number")).toBe("36");
    const index = JSON.parse(readFileSync(path.join(outDir, "run", "index.json"), "utf8")) as {
      notebooks: { cells: number; charts: number }[];
    };
    expect(index.notebooks[0]).toMatchObject({ cells: 9, charts: 1 });
  });

  it("explains the shorthand property's ReferenceError in the cell and in the run's message", () => {
    const nb = Executed.read(path.join(outDir, "run", "tslab-bare.ipynb"));
    const error = nb.outputs("bare-shorthand").find((o) => o.output_type === "error");
    expect(error?.evalue).toBe(SHORTHAND_HINT);
    expect(error?.traceback).toContain(`ReferenceError: ${SHORTHAND_HINT}`);
    expect(runner.code).toBe(1);
    expect(withoutCellLines(runner.stderr)).toContain(`ReferenceError: ${SHORTHAND_HINT}`);
  });
});

describe("tslab-bare.ipynb under Jupyter's tslab kernel", () => {
  if (missing) {
    it.runIf(inCI)("runs in CI", () => {
      throw new Error(`The notebook test must run in CI, but ${missing}: ${JUPYTER_HINT}.`);
    });
    return;
  }

  it("shows each bare value as plot.show does", () => {
    expect(jupyter?.code, jupyter?.stderr).toBe(0);
    const nb = Executed.read(path.join(outDir, "jupyter", "tslab-bare.ipynb"));
    checkBareValues(nb);
    // tslab prints other last values as before (as stdout).
    expect(nb.stdout("bare-number")).toBe("36\n");
  });

  it("explains the shorthand property's ReferenceError", () => {
    const nb = Executed.read(path.join(outDir, "jupyter", "tslab-bare.ipynb"));
    // tslab prints a cell's error on stderr.
    const stderr = nb
      .outputs("bare-shorthand")
      .filter((o) => o.output_type === "stream" && o.name === "stderr")
      .map((o) => joined(o.text))
      .join("");
    expect(stderr).toContain(`ReferenceError: ${SHORTHAND_HINT}\n`);
  });
});
