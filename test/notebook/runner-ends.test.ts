/**
 * A tslab cell that ends the notebook's process or never gives it back, through the built CLI in a child
 * process, as a user (or CI) runs it (issue 44, items 7 and 12):
 * - `process.exit(0)` in a cell: the run fails (exit 1), naming the cell, with the notebook written up to it;
 * - `await null; while (true) {}`: V8's limit on a cell's synchronous part does not reach code after an
 *   await, and no timer can fire in a process that never yields; the run still ends at `--cell-timeout`,
 *   the cell written as timed out.
 * The notebooks are written here, three code cells each: the second is the one under test.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cellStatuses, Executed, runCli, type Run } from "./executed";

const CLI_TIMEOUT_MS = 30_000;
const dir = mkdtempSync(path.join(tmpdir(), "rpl-runner-ends-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A tslab notebook `<name>.ipynb` in the temp dir: cells "before", "cell" (`source`), "never". */
function notebook(name: string, source: string): string {
  const code = (id: string, text: string) => ({
    cell_type: "code",
    id,
    metadata: {},
    source: text,
    outputs: [],
    execution_count: null,
  });
  const nb = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {},
    cells: [
      { cell_type: "markdown", id: "md", metadata: {}, source: `# ${name}` },
      code("before", 'console.log("before");'),
      code("cell", source),
      code("never", 'console.log("never printed");'),
    ],
  };
  const file = path.join(dir, `${name}.ipynb`);
  writeFileSync(file, JSON.stringify(nb, null, 1));
  return file;
}

const exits = notebook("exits", 'console.log("leaving");\nprocess.exit(0);');
const spins = notebook("spins", 'console.log("spinning");\nawait null;\nwhile (true) {\n  // never yields\n}');

describe("risk-portal-lab run (tslab): a cell that ends the process or never yields", () => {
  let exitRun: PromiseSettledResult<Run>;
  let spinRun: PromiseSettledResult<Run>;
  const out = (name: string) => path.join(dir, "out", name);
  /** The run, or its error (a run that outlived its time) thrown in the test that reads it. */
  const settled = (r: PromiseSettledResult<Run>): Run => {
    if (r.status === "rejected") throw r.reason;
    return r.value;
  };

  beforeAll(async () => {
    // Side by side (each is mostly tslab's converter starting); a run that hangs fails its own test only.
    [exitRun, spinRun] = await Promise.allSettled([
      runCli(["run", exits, "--kernel", "tslab", "--out", out("exits")], CLI_TIMEOUT_MS),
      runCli(["run", spins, "--kernel", "tslab", "--cell-timeout", "1", "--out", out("spins")], CLI_TIMEOUT_MS),
    ]);
  }, 2 * CLI_TIMEOUT_MS);

  it("process.exit(0) in a cell fails the run, names the cell, and writes the notebook up to it", () => {
    const run = settled(exitRun);
    expect(run.code, run.stderr).toBe(1);
    expect(cellStatuses(run.stderr)).toEqual(["1/3 ok", "2/3 failed"]);
    expect(run.stderr).toContain('exits.ipynb: code cell 2 of 3 (id "cell") failed');
    expect(run.stderr).toMatch(/cell 2 called process\.exit\(0\)/);
    const nb = Executed.read(path.join(out("exits"), "exits.ipynb"));
    expect(nb.nb.metadata.risk_portal_lab).toMatchObject({ status: "failed", failed_cell: "cell" });
    expect(nb.stdout("before")).toBe("before\n");
    // What the cell printed before it called process.exit is kept.
    expect(nb.stdout("cell")).toBe("leaving\n");
    const outputs = nb.outputs("cell");
    expect(outputs.at(-1)).toMatchObject({ output_type: "error", ename: "ProcessExit" });
    expect(outputs.at(-1)?.evalue).toMatch(/called process\.exit\(0\)/);
    expect(nb.cell("never")).toMatchObject({ outputs: [], execution_count: null });
    expect(existsSync(path.join(out("exits"), "exits.html"))).toBe(true);
    expect(run.stdout).toMatch(/1 failed, 0 passed/);
  });

  it("a cell that never yields (await null; while (true) {}) ends the run at --cell-timeout, written as timed out", () => {
    const run = settled(spinRun);
    expect(run.code, run.stderr).toBe(1);
    expect(cellStatuses(run.stderr)).toEqual(["1/3 ok", "2/3 timed out"]);
    expect(run.stderr).toContain('spins.ipynb: code cell 2 of 3 (id "cell") failed');
    expect(run.stderr).toMatch(/CellTimeout: the cell ran longer than 1 s/);
    const nb = Executed.read(path.join(out("spins"), "spins.ipynb"));
    expect(nb.nb.metadata.risk_portal_lab).toMatchObject({ status: "failed", failed_cell: "cell" });
    expect(nb.stdout("before")).toBe("before\n");
    expect(nb.outputs("cell").at(-1)).toMatchObject({ output_type: "error", ename: "CellTimeout" });
    expect(nb.cell("never")).toMatchObject({ outputs: [], execution_count: null });
    expect(existsSync(path.join(out("spins"), "spins.html"))).toBe(true);
    // papermill's record survives the killed worker: the cell that ended as the worker reported it, the
    // stopped one failed after its timeout, the one never reached pending; the run failed.
    const papermill = (id: string) => (nb.cell(id).metadata as { papermill?: { duration?: number } }).papermill;
    expect(papermill("before")).toMatchObject({ status: "completed", exception: false });
    expect(papermill("cell")).toMatchObject({ status: "failed", exception: true });
    expect(papermill("cell")!.duration).toBeGreaterThanOrEqual(1);
    expect(papermill("never")).toMatchObject({ status: "pending", start_time: null });
    expect(nb.nb.metadata.papermill).toMatchObject({ exception: true, parameters: {} });
  });
});
