/**
 * The package from a real notebook: runs import-check.ipynb under the tslab (TypeScript) Jupyter kernel
 * with `jupyter nbconvert --execute`, and checks that the cells ran without errors, that the client
 * printed (through its custom inspect, without the token) and that importing the package loaded neither
 * danfo/tensorflow nor plotly.
 *
 * Needs `jupyter-nbconvert` and the `tslab` kernelspec (scripts/setup-jupyter.sh sets both up). Without
 * them the test is skipped locally, and fails in CI (`CI` set), where it must run. tslab type-checks each
 * cell, and imports the package by name through node_modules/risk-portal-lab (the `file:` devDependency
 * that links to the repo root); dist/ is built by test/global-setup.ts.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { joined, missingJupyter } from "./executed";

const run = promisify(execFile);
const notebook = path.join(__dirname, "import-check.ipynb");

/** Kernel start, the first type-check and the cells take ~9 s on an idle machine; allow for a busy one. */
const NOTEBOOK_TIMEOUT_MS = 180_000;

// jupyter prints a pydevd "frozen modules" warning on every start without this.
const env = { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: "1" };

interface Output {
  output_type: string;
  name?: string;
  text?: string | string[];
  ename?: string;
  evalue?: string;
}
interface Cell {
  cell_type: string;
  source: string | string[];
  outputs?: Output[];
}

const missing = missingJupyter();
const SETUP_HINT = "run `bash scripts/setup-jupyter.sh` (after `npm ci`)";
const inCI = Boolean(process.env.CI) && process.env.CI !== "false" && process.env.CI !== "0";
if (missing && !inCI) console.warn(`test/notebook: skipping the tslab notebook test: ${missing}; ${SETUP_HINT}.`);

describe("import-check.ipynb under the tslab kernel", () => {
  if (missing && inCI) {
    it("runs in CI", () => {
      throw new Error(`The notebook test must run in CI, but ${missing}: ${SETUP_HINT}.`);
    });
    return;
  }

  it.skipIf(missing !== undefined)(
    `imports risk-portal-lab, prints the client and loads no heavy module${missing ? ` (skipped: ${missing}; ${SETUP_HINT})` : ""}`,
    async () => {
      const outDir = mkdtempSync(path.join(tmpdir(), "risk-portal-lab-nb-"));
      try {
        try {
          await run(
            "jupyter",
            [
              "nbconvert",
              "--to",
              "notebook",
              "--execute",
              "--output-dir",
              outDir,
              "--ExecutePreprocessor.timeout=120",
              "--ExecutePreprocessor.kernel_name=tslab",
              notebook,
            ],
            { encoding: "utf8", env, timeout: NOTEBOOK_TIMEOUT_MS - 10_000, maxBuffer: 16 * 1024 * 1024 },
          );
        } catch (error) {
          // A cell error (tslab reports type errors on stderr with an error reply) makes nbconvert exit 1.
          const { stderr = "", message } = error as { stderr?: string; message: string };
          throw new Error(
            `jupyter nbconvert --execute failed: ${message}\n${stderr.split("\n").slice(-40).join("\n")}`,
          );
        }

        const executed = JSON.parse(readFileSync(path.join(outDir, "import-check.ipynb"), "utf8")) as { cells: Cell[] };
        const outputs = executed.cells.flatMap((c) => c.outputs ?? []);
        const errors = outputs.filter(
          (o) => o.output_type === "error" || (o.output_type === "stream" && o.name === "stderr"),
        );
        expect(errors, JSON.stringify(errors, null, 2)).toEqual([]);

        const stdout = outputs
          .filter((o) => o.output_type === "stream" && o.name === "stdout")
          .map((o) => joined(o.text))
          .join("");
        expect(stdout).toMatch(/^RiskPortalClient \{ baseUrl: "http:\/\/127\.0\.0\.1:9"/m);
        expect(stdout).not.toContain("t-1234");
        expect(stdout).toContain("loaded danfojs-node: false");
        expect(stdout).toContain("loaded @tensorflow: false");
        expect(stdout).toContain("loaded plotly.js-dist: false");
        expect(stdout).toContain("heavy modules loaded: false");
      } finally {
        rmSync(outDir, { recursive: true, force: true });
      }
    },
    NOTEBOOK_TIMEOUT_MS,
  );
});
