/**
 * `risk-portal-lab run --kernel deno`: the runner speaks Jupyter's messaging protocol to the real Deno
 * kernel (`deno jupyter --kernel`, from the npm registry's `deno` package in node_modules), no Jupyter,
 * no Python. Through the built CLI in a child process, as a user runs it:
 * - deno-runner.ipynb: parameters injected with their types; printed text, a chart and a table shown
 *   with `plot.show` (the chart's plotly MIME bundle, plotly.js embedded once), a line updated in place
 *   (one output), stderr, a 2,000-line burst and the cell after it (no line in the wrong cell), results
 *   as a cell's last expression (Deno's kernel may send them after its idle: they are kept);
 * - deno-runner-fail.ipynb: exit 1 at the failing cell, naming the notebook, the cell and the error;
 * - deno-runner-slow.ipynb: `--cell-timeout 2` stops the slow cell, which is written as timed out;
 * - a line per cell on stderr as it finishes; `run --help`; a missing deno named with its install line;
 * - the kernel is killed and its connection file removed after a run, a timeout and a SIGINT.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findDeno } from "../../src/notebook/jupyter/find-deno";
import { cli, Executed, inCI, joined, notebookEnv, PLOTLY_MIME, root, runCli, missingDeno, type Run } from "./executed";

const CLI_TIMEOUT_MS = 120_000;
const main = "test/notebook/deno-runner.ipynb";
const failing = "test/notebook/deno-runner-fail.ipynb";
const slow = "test/notebook/deno-runner-slow.ipynb";

const missing = missingDeno();
if (missing && !inCI) console.warn(`test/notebook/deno-runner: skipping: ${missing}`);

const outDir = mkdtempSync(path.join(tmpdir(), "rpl-deno-runner-"));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

const CELL_LINE = /^([\w-]+): cell (\d+\/\d+ (?:ok|failed|timed out)) (\d+\.\d) s(?:: (.*))?$/gm;
const cellStatuses = (stderr: string, name: string) =>
  [...stderr.matchAll(CELL_LINE)].filter((m) => m[1] === name).map((m) => m[2]);
// eslint-disable-next-line no-control-regex -- Deno colours a result's text/plain
const plain = (text: unknown) => joined(text).replace(/\x1b\[[0-9;]*m/g, "");

const kernelDirs = () => new Set(readdirSync(tmpdir()).filter((d) => d.startsWith("rpl-kernel-")));
/** Processes whose command line names `dir` (Linux: /proc); empty elsewhere. */
function processesNaming(dir: string): string[] {
  if (!existsSync("/proc")) return [];
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, "utf8").includes(dir);
      } catch {
        return false;
      }
    });
}

/** Whether process `pid` is `ancestor` or runs under it, at any depth (Linux: /proc/PID/stat). */
function descendsFrom(pid: string, ancestor: string): boolean {
  for (let p: string | undefined = pid, depth = 0; p && p !== "0" && depth < 64; p = parentOf(p), depth++)
    if (p === ancestor) return true;
  return false;
}

/** The parent pid of process `pid` (Linux: /proc/PID/stat). */
function parentOf(pid: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[1];
  } catch {
    return undefined;
  }
}

describe.skipIf(missing !== undefined && !inCI)(
  "risk-portal-lab run --kernel deno (the real kernel, no Jupyter)",
  () => {
    let passed: Run;
    let failed: Run;
    let timedOut: Run;
    let before: Set<string>;

    beforeAll(async () => {
      if (missing) throw new Error(`The Deno runner must be tested in CI, but ${missing}`);
      before = kernelDirs();
      [passed, failed, timedOut] = await Promise.all([
        runCli(
          [
            "run",
            main,
            "--kernel",
            "deno",
            "--param",
            "greeting=hi",
            "-p",
            "lines=4",
            "--out",
            path.join(outDir, "main"),
          ],
          CLI_TIMEOUT_MS,
        ),
        // No --kernel: the notebook's kernelspec (deno) decides.
        runCli(["run", failing, "--out", path.join(outDir, "fail")], CLI_TIMEOUT_MS),
        runCli(
          ["run", slow, "--kernel", "deno", "--cell-timeout", "2", "--out", path.join(outDir, "slow")],
          CLI_TIMEOUT_MS,
        ),
      ]);
    }, CLI_TIMEOUT_MS);

    const read = (dir: string, name: string) => Executed.read(path.join(outDir, dir, `${name}.ipynb`));

    it("runs every cell: exit 0, a line per cell on stderr, the result line on stdout", () => {
      expect(passed.code, passed.stderr).toBe(0);
      expect(cellStatuses(passed.stderr, "deno-runner")).toEqual(
        Array.from({ length: 12 }, (_, i) => `${i + 1}/12 ok`),
      );
      expect(passed.stderr.replace(CELL_LINE, "").trim()).toBe("");
      expect(passed.stdout).toMatch(
        /^✔ deno-runner {2}12 cells, 1 chart\s+\d+\.\d s {2}→ .*deno-runner\.html\nimages: 1 chart drawn as PNG in [^\n]*\n1 notebook passed in \d+\.\d s → open .*index\.html\n$/,
      );
      const nb = read("main", "deno-runner");
      expect(nb.nb.metadata.risk_portal_lab).toMatchObject({
        parameters: { greeting: "hi", lines: 4 },
        status: "ok",
        kernel: "deno",
      });
      expect(nb.cell("injected-parameters").source).toBe(
        '// Parameters injected by risk-portal-lab run\nconst greeting: string = "hi";\nconst lines: number = 4;',
      );
      expect(nb.unexecuted()).toEqual([]);
      expect(nb.stdout("setup")).toBe("hi from Deno\n");
    });

    it("keeps a chart and a table shown with plot.show, and a line updated in place as one output", () => {
      const nb = read("main", "deno-runner");
      // The figure is one display (plotly MIME, text, and the PNG the run drew after the notebook ran, which
      // replaces its HTML and the plotly.js that came with the notebook's first chart).
      const figures = nb.outputs("chart").filter((o) => o.data?.[PLOTLY_MIME]);
      expect(figures).toHaveLength(1);
      expect(Object.keys(figures[0]!.data!).sort()).toEqual([PLOTLY_MIME, "image/png", "text/plain"].sort());
      expect(nb.figures("chart")[0]!.layout.title?.text).toBe("shown chart");
      expect(nb.plotlyEmbeds()).toEqual({ count: 0 });
      expect(nb.stdout("chart")).toBe("after the chart\n");
      expect(joined(nb.outputs("table")[0]!.data!["text/plain"])).toMatch(
        /^ColumnTable · 18 rows × \d+ columns · from RateAsset/,
      );
      expect(nb.html("table")).toContain("<th>fitted_instrument_name</th>");
      const line = nb.outputs("line");
      expect(line.map((o) => `${o.output_type}${o.name ? `:${o.name}` : ""}`)).toEqual([
        "display_data",
        "stream:stderr",
      ]);
      expect(joined(line[0]!.data!["text/plain"])).toBe("step 5 of 5");
      expect(joined(line[1]!.text)).toBe("a warning on stderr\n");
    });

    it("what a cell prints stays in that cell, even right after a cell that printed 2,000 lines", () => {
      const nb = read("main", "deno-runner");
      const burst = Array.from({ length: 2000 }, (_, i) => `burst line ${i + 1}\n`).join("");
      expect(
        nb.stdout("burst") === burst,
        `the burst cell has ${nb.stdout("burst").split("\n").length - 1} lines`,
      ).toBe(true);
      expect(nb.stdout("after-burst")).toBe("after the burst\n");
      expect(nb.stdout("result-1")).toBe("line 1\nline 2\nline 3\nline 4\n");
      expect(nb.stdout("close")).toBe("");
    });

    it("keeps every cell's result, however late the kernel sends it", () => {
      const nb = read("main", "deno-runner");
      const result = (id: string) => nb.outputs(id).filter((o) => o.output_type === "execute_result");
      expect(
        ["result-1", "result-2", "result-3"].map((id) => result(id).map((o) => plain(o.data!["text/plain"]))),
      ).toEqual([["41"], ["42"], ['"forty-three"']]);
      expect(readFileSync(path.join(outDir, "main", "deno-runner.html"), "utf8")).toContain("shown chart");
      expect(readFileSync(path.join(outDir, "main", "index.html"), "utf8")).toContain("deno-runner.html");
    });

    it("stops at a failing cell: exit 1, the notebook, the cell and the error named; later cells not run", () => {
      expect(failed.code).toBe(1);
      expect(cellStatuses(failed.stderr, "deno-runner-fail")).toEqual(["1/3 ok", "2/3 failed"]);
      expect(failed.stderr).toContain("deno-runner-fail: cell 2/3 failed");
      expect(failed.stderr).toContain(
        `✘ test/notebook/deno-runner-fail.ipynb: code cell 2 of 3 (id "throws") failed: console.log("about to fail");\n    TypeError: Cannot read properties of undefined (reading 'x')\n`,
      );
      const nb = read("fail", "deno-runner-fail");
      const [out, error] = nb.outputs("throws");
      expect(out).toEqual({ output_type: "stream", name: "stdout", text: "about to fail\n" });
      expect(error).toMatchObject({ output_type: "error", ename: "TypeError" });
      expect(nb.cell("never")).toMatchObject({ outputs: [], execution_count: null });
      expect(nb.nb.metadata.risk_portal_lab).toMatchObject({ status: "failed", failed_cell: "throws", kernel: "deno" });
    });

    it("--cell-timeout stops a slow cell, writes it as timed out, and kills the kernel", () => {
      expect(timedOut.code).toBe(1);
      expect(timedOut.ms).toBeLessThan(20_000);
      expect(cellStatuses(timedOut.stderr, "deno-runner-slow")).toEqual(["1/3 ok", "2/3 timed out"]);
      expect(timedOut.stderr).toContain("CellTimeout: the cell ran longer than 2 s and was interrupted");
      const nb = read("slow", "deno-runner-slow");
      const [out, error] = nb.outputs("slow");
      expect(out).toEqual({ output_type: "stream", name: "stdout", text: "waiting\n" });
      expect(error).toMatchObject({ output_type: "error", ename: "CellTimeout" });
      expect(nb.cell("never")).toMatchObject({ outputs: [], execution_count: null });
      // Every kernel these runs started is gone, with its connection file.
      expect(timedOut.stderr + passed.stderr + failed.stderr).not.toContain("rpl-kernel-");
      expect([...kernelDirs()].filter((d) => !before.has(d) && processesNaming(d).length === 0)).toEqual([]);
    });

    it.skipIf(!existsSync("/proc"))(
      "on SIGINT, kills the kernel and removes its connection file",
      async () => {
        const child = spawn(
          process.execPath,
          [cli, "run", slow, "--kernel", "deno", "--out", path.join(outDir, "sigint")],
          {
            cwd: root,
            env: notebookEnv(),
            stdio: ["ignore", "pipe", "pipe"],
          },
        );
        let stderr = "";
        child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
        const exited = new Promise<number | null>((resolve) =>
          child.on("close", (code, signal) => resolve(code ?? (signal ? 128 : null))),
        );
        await expect.poll(() => stderr, { timeout: 30_000 }).toContain("deno-runner-slow: cell 1/3 ok");
        // The kernel this run started, named with its connection file: a process under the run's own
        // (`run` executes each notebook in a worker process it supervises, and the worker starts the kernel).
        const kernel = processesNaming("rpl-kernel-").find((p) => descendsFrom(p, String(child.pid)));
        expect(kernel, "no kernel process started by the run").toBeDefined();
        const connectionFile = readFileSync(`/proc/${kernel}/cmdline`, "utf8")
          .split("\0")
          .find((a) => a.includes("rpl-kernel-"))!;
        const dir = path.dirname(connectionFile);
        expect(existsSync(dir)).toBe(true);
        child.kill("SIGINT");
        await exited;
        expect(existsSync(dir)).toBe(false);
        await expect.poll(() => processesNaming(dir), { timeout: 5000 }).toEqual([]);
        await expect.poll(() => existsSync(`/proc/${kernel}`), { timeout: 5000 }).toBe(false);
      },
      60_000,
    );

    it("run --help prints the usage with every option", async () => {
      const help = await runCli(["run", "--help"], 30_000);
      expect(help.code).toBe(0);
      for (const option of [
        "--kernel",
        "tslab",
        "deno",
        "--out",
        "--param",
        "--cell-timeout",
        "--deno",
        "DENO_BIN",
        "npm install deno",
        "--params-file",
        "--grid",
        "--inspect",
      ])
        expect(help.stdout).toContain(option);
    });

    it("names the install line when there is no deno", async () => {
      const run = await runCli(
        ["run", main, "--kernel", "deno", "--deno", "/nonexistent/deno", "--out", path.join(outDir, "nodeno")],
        30_000,
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("--deno /nonexistent/deno: no executable there");
      const empty = mkdtempSync(path.join(tmpdir(), "rpl-no-deno-"));
      try {
        expect(() => findDeno({ dirs: [empty], env: { PATH: "" } })).toThrow(
          /none was found .*: install it next to your notebooks with `npm install deno`/,
        );
      } finally {
        rmSync(empty, { recursive: true, force: true });
      }
    });
  },
);
