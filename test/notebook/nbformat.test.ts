/**
 * A headless run and the same notebook as a quant has it from Jupyter: re-saved by nbformat (text as lists
 * of lines, keys sorted), then executed by `jupyter nbconvert --to notebook --execute` under tslab (no
 * execution counts, nbclient's timings). `risk-portal-lab diff`, both ways, and `run --compare` show no
 * change and exit 0. The unit test test/ipynb/nbformat.test.ts reads stored copies of such runs.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inCI, JUPYTER_HINT, missingJupyter, root, runCli, runCommand, runJupyter, type Run } from "./executed";

const NAME = "nbformat-check";
const SOURCE = path.join("test", "notebook", `${NAME}.ipynb`);
const jupyterMissing = missingJupyter();
if (jupyterMissing && !inCI)
  console.warn(`test/notebook/nbformat.test.ts: skipping the nbconvert run: ${jupyterMissing}; ${JUPYTER_HINT}.`);

const dir = mkdtempSync(path.join(tmpdir(), "rpl-nbformat-"));
/** nbconvert runs a notebook in its own folder: the re-saved copy sits in the repository, so "risk-portal-lab" resolves. */
const copiesDir = mkdtempSync(path.join(root, ".replay-jupyter-nbformat-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(copiesDir, { recursive: true, force: true });
});
const headlessFile = path.join(dir, "headless", `${NAME}.ipynb`);
const jupyterFile = path.join(dir, "jupyter", `${NAME}.ipynb`);

/** The Python that runs nbconvert (its `#!` line): it has nbformat. */
function nbconvertPython(): string {
  const which = spawnSync("sh", ["-c", "command -v jupyter-nbconvert"], { encoding: "utf8" }).stdout.trim();
  const shebang = /^#!\s*(\S+python\S*)/.exec(readFileSync(which, "utf8").split("\n")[0] ?? "");
  return shebang?.[1] ?? "/usr/bin/python3";
}

let headless: Run;

describe("a headless run and the same notebook re-saved by nbformat and run by nbconvert (tslab)", () => {
  if (jupyterMissing && inCI) {
    it("runs in CI", () => {
      throw new Error(`The nbconvert run must happen in CI, but ${jupyterMissing}: ${JUPYTER_HINT}.`);
    });
    return;
  }
  const why = jupyterMissing ? ` (skipped: ${jupyterMissing}; ${JUPYTER_HINT})` : "";

  beforeAll(async () => {
    if (jupyterMissing) return;
    const copy = path.join(copiesDir, `${NAME}.ipynb`);
    const resave = await runCommand(
      nbconvertPython(),
      [
        "-c",
        "import nbformat, sys; nbformat.write(nbformat.read(sys.argv[1], as_version=4), sys.argv[2])",
        SOURCE,
        copy,
      ],
      { timeoutMs: 60_000 },
    );
    expect(resave.code, resave.stderr).toBe(0);
    expect(readFileSync(copy, "utf8")).toContain('"source": [\n');
    mkdirSync(path.dirname(jupyterFile), { recursive: true });
    const jupyter = await runJupyter([copy], path.dirname(jupyterFile), 180_000);
    expect(jupyter.code, jupyter.stderr.split("\n").slice(-20).join("\n")).toBe(0);
    // The headless run compared with the Jupyter one as it runs (run --compare): the Jupyter run is `before`.
    headless = await runCli(["run", SOURCE, "--out", path.dirname(headlessFile), "--compare", jupyterFile], 180_000);
  }, 400_000);

  it.skipIf(jupyterMissing !== undefined)(
    `nbconvert wrote what nbformat writes: lists of lines, no execution counts${why}`,
    () => {
      const nb = JSON.parse(readFileSync(jupyterFile, "utf8")) as {
        cells: { cell_type: string; execution_count?: number | null; outputs?: { text?: unknown }[] }[];
      };
      const code = nb.cells.filter((c) => c.cell_type === "code");
      expect(code.map((c) => c.execution_count)).toEqual(code.map(() => null));
      expect(
        code
          .flatMap((c) => c.outputs ?? [])
          .filter((o) => o.text !== undefined)
          .every((o) => Array.isArray(o.text)),
      ).toBe(true);
    },
  );

  it.skipIf(jupyterMissing !== undefined)(`run --compare with the Jupyter run: no change, exit 0${why}`, () => {
    expect(headless.code, headless.stderr).toBe(0);
    expect(headless.stdout).toContain(
      `  compared with ${jupyterFile}: ${NAME}: no change in 7 code cells (tolerance 1e-9) → `,
    );
  });

  it.skipIf(jupyterMissing !== undefined)(`risk-portal-lab diff, both ways: no change, exit 0${why}`, async () => {
    for (const [a, b] of [
      [headlessFile, jupyterFile],
      [jupyterFile, headlessFile],
    ] as const) {
      const run = await runCli(["diff", a, b, "--out", path.join(dir, "report.html")], 60_000);
      expect(run.stderr).toBe("");
      expect(run.stdout).toBe(
        `${NAME}: no change in 7 code cells (tolerance 1e-9) → ${path.join(dir, "report.html")}\n`,
      );
      expect(run.code).toBe(0);
    }
  });
});
