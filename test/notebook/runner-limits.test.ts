/**
 * The runner's limits under both kernels (tslab's executor in the runner's process, and Deno's kernel),
 * through the built CLI in a child process, as a user runs it:
 * - runner-busy.ipynb: a CPU-bound cell (`while (true) {}`) is stopped by `--cell-timeout` and written
 *   as timed out, the cells after it not run;
 * - runner-params.ipynb: a `--param` string holding U+2028 and U+2029 (line terminators to TypeScript's
 *   scanner, though not to JSON) arrives intact;
 * - runner-loud.ipynb: a cell printing 100 MB keeps 10 MiB and a note saying what was cut, the runner's
 *   memory stays bounded, and the next cell keeps its output.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CellOutputCap, MAX_CELL_OUTPUT_BYTES } from "../../src/notebook/run-shared";
import { injectParameters } from "../../src/notebook/params";
import {
  cellStatuses,
  cli,
  Executed,
  inCI,
  joined,
  notebookEnv,
  runCli,
  runCommand,
  missingDeno,
  type Run,
} from "./executed";

const CLI_TIMEOUT_MS = 120_000;
const busy = "test/notebook/runner-busy.ipynb";
const params = "test/notebook/runner-params.ipynb";
const loud = "test/notebook/runner-loud.ipynb";

const noDeno = missingDeno();
if (noDeno && !inCI) console.warn(`test/notebook/runner-limits: skipping the Deno runs: ${noDeno}`);

const outDir = mkdtempSync(path.join(tmpdir(), "rpl-runner-limits-"));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));
/**
 * Loaded before the CLI (`node -r`), and so in its worker process too (which runs the cells): appends the
 * process's peak RSS to the file $RPL_PEAK_RSS_LOG when it exits.
 */
const peakRss = path.join(outDir, "peak-rss.cjs");
writeFileSync(
  peakRss,
  'process.on("exit", () => require("node:fs").appendFileSync(process.env.RPL_PEAK_RSS_LOG, `peak RSS ${process.resourceUsage().maxRSS} KiB\\n`));\n',
);
/** The largest peak RSS of a run's processes (the CLI and its worker: both must have reported), MiB. */
const rssOf = (log: string) => {
  const peaks = [...readFileSync(log, "utf8").matchAll(/^peak RSS (\d+) KiB$/gm)].map((m) => Number(m[1]));
  expect(peaks.length, readFileSync(log, "utf8")).toBeGreaterThanOrEqual(2);
  return Math.max(...peaks) / 1024;
};

const NOTE = "x\u2028y\u2029z \u0085 \ufeff";
const TAGS = ["a\u2028b", "\ud83d\ude00"];

describe("injected parameters", () => {
  it("hold no raw U+2028 or U+2029 (line terminators in TypeScript source), whatever the value", () => {
    const nb = {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: {},
      cells: [
        {
          cell_type: "code" as const,
          id: "p",
          metadata: { tags: ["parameters"] },
          source: 'const note: string = "";\nconst o = {};',
        },
      ],
    };
    const injected = injectParameters(nb, { note: NOTE, o: { "k\u2029": ["\u2028"] } }, "x.ipynb").cells[1]!
      .source as string;
    expect(injected).not.toMatch(/[\u2028\u2029]/);
    expect(injected).toContain(String.raw`const note: string = "x\u2028y\u2029z`);
    expect(injected).toContain(String.raw`const o = {"k\u2029":["\u2028"]};`);
    const values = injected
      .split("\n")
      .slice(1)
      .map((l) => l.replace(/^const \w+(: string)? = (.*);$/, "$2"));
    expect(values.map((v) => JSON.parse(v) as unknown)).toEqual([NOTE, { "k\u2029": ["\u2028"] }]);
  });
});

describe("the output cap", () => {
  it("keeps printed text up to the limit, at a line's end, and counts what it cut", () => {
    const cap = new CellOutputCap(25);
    expect(cap.text("0123456789\n")).toBe("0123456789\n");
    expect(cap.text("abcdefghij\nklmnopqrst\n")).toBe("abcdefghij\n");
    expect(cap.text("more\n")).toBe("");
    expect(cap.note()).toBe(
      "[risk-portal-lab: this cell's output passed its limit of 25 bytes; not kept: 16 bytes (2 lines) of printed text]\n",
    );
  });

  it("never splits a character, and drops displays that do not fit, counting them", () => {
    const cap = new CellOutputCap(10);
    expect(cap.text("ééééé😀")).toBe("ééééé");
    expect(cap.display({ "text/plain": "x" })).toBe(false);
    expect(cap.note()).toMatch(/; not kept: 4 bytes \(1 line\) of printed text and 1 display\]/);
    expect(new CellOutputCap(100).display({ "text/html": "<b>x</b>" })).toBe(true);
    // An update counts what it adds to the display it replaces (a progress line updated often costs nothing more).
    const updates = new CellOutputCap(10);
    expect(updates.display({ "text/plain": "12345678" })).toBe(true);
    for (let i = 0; i < 100; i++)
      expect(updates.display({ "text/plain": "87654321" }, { "text/plain": "12345678" })).toBe(true);
    expect(updates.display({ "text/plain": "1234567890abc" }, { "text/plain": "87654321" })).toBe(false);
    expect(new CellOutputCap().note()).toBeUndefined();
    expect(MAX_CELL_OUTPUT_BYTES).toBe(10 * 1024 * 1024);
  });
});

const kernels: ("tslab" | "deno")[] = noDeno && !inCI ? ["tslab"] : ["tslab", "deno"];

describe.each(kernels)("risk-portal-lab run --kernel %s: limits", (kernel) => {
  let busyRun: Run;
  let paramsRun: Run;
  let loudRun: Run;
  const out = (name: string) => path.join(outDir, kernel, name);
  const rssLog = path.join(outDir, `peak-rss-${kernel}.log`);

  beforeAll(async () => {
    if (kernel === "deno" && noDeno) throw new Error(`The Deno runner must be tested in CI, but ${noDeno}`);
    const k = ["--kernel", kernel];
    [busyRun, paramsRun, loudRun] = await Promise.all([
      runCli(["run", busy, ...k, "--cell-timeout", "2", "--out", out("busy")], CLI_TIMEOUT_MS),
      runCli(
        ["run", params, ...k, "-p", `note=${NOTE}`, "-p", `tags=${JSON.stringify(TAGS)}`, "--out", out("params")],
        CLI_TIMEOUT_MS,
      ),
      runCommand(process.execPath, ["-r", peakRss, cli, "run", loud, ...k, "--out", out("loud")], {
        timeoutMs: CLI_TIMEOUT_MS,
        env: { ...notebookEnv(), RPL_PEAK_RSS_LOG: rssLog },
      }),
    ]);
  }, 2 * CLI_TIMEOUT_MS);

  it("--cell-timeout stops a CPU-bound cell (while (true) {}) and writes it as timed out", () => {
    expect(busyRun.code, busyRun.stderr).toBe(1);
    expect(busyRun.ms).toBeLessThan(30_000);
    expect(cellStatuses(busyRun.stderr)).toEqual(["1/3 ok", "2/3 timed out"]);
    expect(busyRun.stderr).toContain("CellTimeout: the cell ran longer than 2 s and was interrupted");
    const nb = Executed.read(path.join(out("busy"), "runner-busy.ipynb"));
    expect(nb.nb.metadata.risk_portal_lab).toMatchObject({ status: "failed", failed_cell: "busy" });
    expect(nb.stdout("ok")).toBe("first cell\n");
    const [printed, error] = nb.outputs("busy");
    expect(printed).toEqual({ output_type: "stream", name: "stdout", text: "spinning\n" });
    expect(error).toMatchObject({ output_type: "error", ename: "CellTimeout" });
    expect(nb.cell("never")).toMatchObject({ outputs: [], execution_count: null });
    expect(existsSync(path.join(out("busy"), "runner-busy.html"))).toBe(true);
  });

  it("a --param string holding U+2028 and U+2029 reaches the notebook intact", () => {
    expect(paramsRun.code, paramsRun.stderr).toBe(0);
    const nb = Executed.read(path.join(out("params"), "runner-params.ipynb"));
    expect(JSON.parse(nb.stdout("show"))).toEqual({ note: NOTE, tags: TAGS });
  });

  it("a cell printing 100 MB keeps 10 MiB and a note of what was cut; memory stays bounded", () => {
    expect(loudRun.code, loudRun.stderr).toBe(0);
    const file = path.join(out("loud"), "runner-loud.ipynb");
    expect(statSync(file).size).toBeLessThan(MAX_CELL_OUTPUT_BYTES + 1024 * 1024);
    expect(statSync(path.join(out("loud"), "runner-loud.html")).size).toBeLessThan(MAX_CELL_OUTPUT_BYTES + 1024 * 1024);
    const nb = Executed.read(file);
    const [kept, note] = nb.outputs("loud");
    const text = joined(kept?.text);
    expect(kept?.name).toBe("stdout");
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_CELL_OUTPUT_BYTES);
    expect(text.endsWith(`${"x".repeat(999)}\n`)).toBe(true);
    const cut = /passed its limit of 10 MiB; not kept: ([\d,]+) bytes \(([\d,]+) lines\) of printed text\]/.exec(
      joined(note?.text),
    );
    expect(cut, joined(note?.text)).not.toBeNull();
    const [bytes, lines] = [Number(cut![1]!.replace(/,/g, "")), Number(cut![2]!.replace(/,/g, ""))];
    expect(bytes + Buffer.byteLength(text)).toBe(100_000_000);
    expect(lines + text.split("\n").length - 1).toBe(100_000);
    expect(nb.stdout("after")).toBe("after the loud cell\n");
    expect(rssOf(rssLog), loudRun.stderr).toBeLessThan(400);
  });
});
