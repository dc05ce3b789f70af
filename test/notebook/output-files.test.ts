/**
 * What the runner, the index and `diff` write replaces the previous file whole or not at all: each new
 * file is written beside its target and renamed over it. The failing writes here are real ones: a child
 * process whose file size limit (`ulimit -f`, as a full disk would) stops the write midway.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runNotebooks } from "../../src/notebook/batch";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-out-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const dist = (module: string) => path.resolve(__dirname, "..", "..", "dist", "notebook", `${module}.js`);

/** Runs `script` (CommonJS) in a node process limited to files of `kib` KiB; its exit code and stderr. */
function limited(kib: number, script: string, ...args: string[]): { code: number | null; stderr: string } {
  const wrapped = `(async () => { ${script} })().catch((e) => { process.stderr.write(String(e && e.message)); process.exitCode = 3; });`;
  const r = spawnSync(
    "bash",
    ["-c", `ulimit -f ${kib} && exec "$0" -e "$1" -- "$@"`, process.execPath, wrapped, ...args],
    {
      encoding: "utf8",
    },
  );
  return { code: r.status, stderr: r.stderr };
}

/** The files of `folder` and their bytes. */
const snapshot = (folder: string) =>
  Object.fromEntries(readdirSync(folder).map((f) => [f, readFileSync(path.join(folder, f), "utf8")]));

const BIG = "x".repeat(100 * 1024);

describe("a write that fails midway keeps the previous files", () => {
  it("the run's .ipynb and .html", () => {
    const out = path.join(dir, "run");
    const prepared = (text: string) => ({
      file: "nb.ipynb",
      absolute: path.join(dir, "nb.ipynb"),
      outDir: out,
      base: "nb",
      cellTimeoutMs: 1000,
      params: {},
      codeCells: 1,
      env: {},
      recordFile: path.join(dir, "no-connect.jsonl"),
      kernel: "tslab",
      versions: {},
      nb: {
        nbformat: 4,
        nbformat_minor: 5,
        metadata: {},
        cells: [
          {
            cell_type: "code",
            id: "c",
            source: "1",
            metadata: {},
            execution_count: 1,
            outputs: [{ output_type: "stream", name: "stdout", text }],
          },
        ],
      },
    });
    const script = `const { writeOutputs } = require(process.argv[2]); await writeOutputs(JSON.parse(process.argv[3]), undefined, 1);`;
    expect(limited(64, script, dist("run-shared"), JSON.stringify(prepared("good\n")))).toEqual({
      code: 0,
      stderr: "",
    });
    const before = snapshot(out);
    expect(Object.keys(before).sort()).toEqual(["nb.html", "nb.ipynb"]);

    const failed = limited(64, script, dist("run-shared"), JSON.stringify(prepared(BIG)));
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(new RegExp(`^could not write ${path.join(out, "nb.ipynb")}: EFBIG: file too large`));
    expect(failed.stderr).toContain("nb.ipynb and nb.html are as they were");
    expect(snapshot(out)).toEqual(before);
  });

  it("index.json and index.html", () => {
    const out = path.join(dir, "index");
    const script = `
      const { writeIndex } = require(process.argv[2]);
      const [out, summary] = process.argv.slice(3);
      require("node:fs").writeFileSync(out + "/nb.html", "<html></html>");
      await writeIndex(out, [{ file: "nb.ipynb", ok: true, durationMs: 1, cells: 1, charts: 0, htmlPath: out + "/nb.html", summary }], "notebooks", "");`;
    mkdirSync(out);
    expect(limited(64, script, dist("batch"), out, "good")).toEqual({ code: 0, stderr: "" });
    const before = snapshot(out);
    expect(Object.keys(before).sort()).toEqual(["index.html", "index.json", "nb.html"]);

    const failed = limited(64, script, dist("batch"), out, BIG);
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(
      new RegExp(`^could not write ${path.join(out, "index.json")}: EFBIG: file too large`),
    );
    expect(failed.stderr).toContain("index.json and index.html are as they were");
    expect(snapshot(out)).toEqual(before);
  });

  it("a diff report", () => {
    const out = path.join(dir, "diff");
    const script = `
      const { writeReport } = require(process.argv[2]);
      const side = { name: "a.ipynb", parameters: {}, codeCells: 1 };
      await writeReport({ before: side, after: side, tolerance: 1e-9, parameters: [], environment: [], cells: [], edited: 0, changed: false, summary: process.argv[4] }, process.argv[3]);`;
    const report = path.join(out, "a.diff.html");
    expect(limited(64, script, dist("diff/report"), report, "no change")).toEqual({ code: 0, stderr: "" });
    const before = snapshot(out);

    const failed = limited(64, script, dist("diff/report"), report, BIG);
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(new RegExp(`^could not write ${report}: EFBIG: file too large`));
    expect(failed.stderr).toContain("the previous file is as it was");
    expect(snapshot(out)).toEqual(before);
  });
});

describe("a notebook named index.ipynb", () => {
  it("gets the page index.ipynb.html: index.html stays the index, linking to it", async () => {
    const out = path.join(dir, "named-index");
    const notebook = path.join(dir, "index.ipynb");
    writeFileSync(
      notebook,
      JSON.stringify({
        nbformat: 4,
        nbformat_minor: 5,
        metadata: {},
        cells: [{ cell_type: "markdown", id: "t", metadata: {}, source: "# The index notebook\n\nIts prose." }],
      }),
    );
    const lines: string[] = [];
    const summary = await runNotebooks([notebook], { outDir: out, log: (l) => lines.push(l) });
    expect(summary.results[0]).toMatchObject({ ok: true, htmlPath: path.join(out, "index.ipynb.html") });
    expect(readdirSync(out).sort()).toEqual(["index.html", "index.ipynb", "index.ipynb.html", "index.json"]);
    expect(readFileSync(path.join(out, "index.ipynb.html"), "utf8")).toContain("Its prose.");
    const index = readFileSync(path.join(out, "index.html"), "utf8");
    expect(index).toContain("<h1>risk-portal-lab notebooks</h1>");
    expect(index).toContain('<a href="./index.ipynb.html">The index notebook</a>');
    expect(lines[0]).toMatch(/→ .*index\.ipynb\.html \(not index\.html: that name is the index of the directory\)$/);
  });
});
