/**
 * runNotebooks with `jobs` > 1 (what the demo does): the notebooks run side by side in worker
 * processes, and the batch still reports them in their order, with their cell events, a failing one as
 * failed (its error as the worker saw it), and a worker that dies (a cell calls process.exit) as a failed notebook naming
 * the cell and how it ended, written up to that cell, while the notebooks after it still run. Real runs of small notebooks under tslab's executor.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runNotebooks } from "../../src/notebook/batch";

const here = path.join(__dirname);
const outDir = mkdtempSync(path.join(tmpdir(), "rpl-batch-"));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe("runNotebooks with jobs: 2", () => {
  it(
    "runs the notebooks in two workers and reports them in order, a dead worker as a failed notebook",
    { timeout: 60_000 },
    async () => {
      const files = ["runner-params.ipynb", "batch-exit.ipynb", "runner-throw.ipynb", "runner-params.ipynb"].map((f) =>
        path.join(here, f),
      );
      // The same notebook twice writes the same files, with the same content.
      const lines: string[] = [];
      const errors: string[] = [];
      const done: string[] = [];
      const summary = await runNotebooks(files, {
        outDir,
        jobs: 2,
        params: { note: "parallel" },
        log: (l) => lines.push(l),
        logError: (l) => lines.push(l) && errors.push(l),
        onCellDone: (info) => done.push(`${path.basename(info.file)} ${info.index}/${info.total} ${info.status}`),
      });
      expect(summary.results.map((r) => [path.basename(r.file), r.ok])).toEqual([
        ["runner-params.ipynb", true],
        ["batch-exit.ipynb", false],
        ["runner-throw.ipynb", false],
        ["runner-params.ipynb", true],
      ]);
      expect(summary.failed).toBe(2);
      expect(summary.results[1]!.error).toMatch(
        /batch-exit\.ipynb: code cell 3 of 3 \(id "exit-cell"\) failed: console\.log\("leaving"\);\n\s+ProcessExit: cell 3 called process\.exit\(3\)/,
      );
      // The dead worker's notebook is written up to its cell, which says what happened.
      const exited = JSON.parse(readFileSync(path.join(outDir, "batch-exit.ipynb"), "utf8")) as {
        metadata: { risk_portal_lab: unknown };
      };
      expect(exited.metadata.risk_portal_lab).toMatchObject({ status: "failed", failed_cell: "exit-cell" });
      // The parameter crossed to the worker: the executed notebook printed it.
      const executed = readFileSync(path.join(outDir, "runner-params.ipynb"), "utf8");
      expect(executed).toContain('{\\"note\\":\\"parallel\\",\\"tags\\":[]}');
      // One line per notebook, in the notebooks' order, then the summary.
      expect(lines.map((l) => l.slice(0, 1))).toEqual(["✔", "✘", "✘", "✔", "2"]);
      expect(lines[0]).toMatch(/^✔ runner-params {2}/);
      expect(lines[4]).toMatch(/^2 failed, 2 passed in /);
      // A failure before any cell (an unknown parameter) comes back as the notebook's error.
      expect(errors[1]).toMatch(
        /runner-throw\.ipynb: unknown parameter note; its parameters cell declares fail, message$/,
      );
      // Cell events came back from the workers.
      const params = done.filter((d) => d.startsWith("runner-params.ipynb")).sort();
      expect(params).toEqual([1, 1, 2, 2, 3, 3].map((i) => `runner-params.ipynb ${i}/3 ok`));
    },
  );
});
