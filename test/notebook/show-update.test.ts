/**
 * `plot.show(…)` returns a handle whose `update` replaces the output in place, from a later cell too, and
 * which prints nothing as a cell's last value: show-update.ipynb (show a chart, update it to a DataFrame
 * in the next cell, to another chart in the one after, close it, update after close) executed for real,
 * under tslab and under Deno's kernel, by our runner (`risk-portal-lab run`) and by `jupyter nbconvert
 * --execute` (nbclient, which the runner's saved outputs match): four runs at once.
 *
 * nbconvert runs with kernelspecs of its own (a private JUPYTER_PATH naming this checkout's tslab and
 * deno), so the machine's own are neither needed nor touched. Needs `jupyter-nbconvert`: skipped
 * locally without it, failing in CI.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Executed,
  inCI,
  joined,
  missingDeno,
  notebookEnv,
  PLOTLY_MIME,
  root,
  runCli,
  runCommand,
  type Output,
  type Run,
} from "./executed";
import { PLOTLY_PART_MIME } from "../../src/plot/plotly-parts";

const NOTEBOOK = path.join(__dirname, "show-update.ipynb");
const TIMEOUT_MS = 150_000;
const nbconvertMissing =
  spawnSync("jupyter-nbconvert", ["--version"], { env: notebookEnv() }).status === 0
    ? undefined
    : "jupyter-nbconvert is not installed";
const missing = missingDeno() ?? nbconvertMissing;
const why = missing ? ` (skipped: ${missing})` : "";

/** A JUPYTER_PATH whose tslab and deno kernelspecs start this checkout's own, with this Node first on PATH. */
function privateKernels(dir: string): NodeJS.ProcessEnv {
  const specs = {
    tslab: [path.join(root, "node_modules", ".bin", "tslab"), "kernel", "--config-path", "{connection_file}"],
    deno: [path.join(root, "node_modules", "deno", "deno"), "jupyter", "--kernel", "--conn", "{connection_file}"],
  };
  for (const [name, argv] of Object.entries(specs)) {
    mkdirSync(path.join(dir, "kernels", name), { recursive: true });
    const spec = { argv, display_name: name, language: "typescript" };
    writeFileSync(path.join(dir, "kernels", name, "kernel.json"), JSON.stringify(spec));
  }
  const env = notebookEnv();
  return { ...env, JUPYTER_PATH: dir, PATH: `${path.dirname(process.execPath)}${path.delimiter}${env.PATH ?? ""}` };
}

describe("a display updated in place, under tslab and Deno, by our runner and by nbconvert", () => {
  if (missing && inCI) {
    it("runs in CI", () => {
      throw new Error(`show-update.ipynb must run in CI, but ${missing}`);
    });
    return;
  }
  const outDir = mkdtempSync(path.join(tmpdir(), "rpl-show-update-"));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));
  const runs = new Map<string, { run: Run; nb: Executed }>();
  const WAYS = ["runner tslab", "runner deno", "nbconvert tslab", "nbconvert deno"] as const;

  beforeAll(async () => {
    if (missing) return;
    const env = privateKernels(path.join(outDir, "jupyter"));
    const nbconvert = (kernel: string) =>
      runCommand(
        "jupyter",
        ["nbconvert", "--to", "notebook", "--execute", `--ExecutePreprocessor.kernel_name=${kernel}`]
          .concat(["--ExecutePreprocessor.timeout=120", "--output-dir", path.join(outDir, `nbconvert-${kernel}`)])
          .concat([NOTEBOOK]),
        { cwd: __dirname, timeoutMs: TIMEOUT_MS, env },
      );
    const runner = (kernel: string) =>
      runCli(
        ["run", NOTEBOOK, "--kernel", kernel, "--no-images", "--out", path.join(outDir, `runner-${kernel}`)],
        TIMEOUT_MS,
      );
    const done = await Promise.all([runner("tslab"), runner("deno"), nbconvert("tslab"), nbconvert("deno")]);
    for (const [i, way] of WAYS.entries()) {
      const dir = path.join(outDir, way.replace(" ", "-"));
      const run = done[i]!;
      if (run.code !== 0) throw new Error(`${way} failed (${run.code}):\n${run.stderr.slice(-3000)}`);
      runs.set(way, { run, nb: Executed.read(path.join(dir, "show-update.ipynb")) });
    }
  }, TIMEOUT_MS + 10_000);

  /** A cell's outputs without plotly.js's parts (they follow the session's first chart, whoever shows it). */
  const outputs = (way: string, id: string): Output[] =>
    runs
      .get(way)!
      .nb.outputs(id)
      .filter((o) => !o.data?.[PLOTLY_PART_MIME]);
  const shape = (o: Output) =>
    o.output_type === "stream"
      ? `stream:${o.name}:${joined(o.text)}`
      : `${o.output_type}:${joined(o.data?.["text/plain"]) || Object.keys(o.data ?? {}).join(",")}`;

  it.skipIf(missing !== undefined)(
    `the first cell's output is the last update (a chart of step 3), the later cells' none${why}`,
    () => {
      for (const way of WAYS) {
        const shown = outputs(way, "su-show").filter((o) => o.output_type === "display_data");
        expect(shown.map(shape), way).toEqual(['display_data:Figure "step 3" (1 trace: bar)']);
        const figure = shown[0]!.data![PLOTLY_MIME] as { layout: { title: { text: string } } };
        expect(figure.layout.title.text, way).toBe("step 3");
        expect(outputs(way, "su-table"), way).toEqual([]);
        expect(outputs(way, "su-close").map(shape), way).toEqual(["stream:stdout:closed: true, 2 updates\n"]);
        expect(outputs(way, "su-after").map(shape), way).toEqual([
          "stream:stdout:plot.show(…).update: this display was closed (close() keeps its last content); call plot.show(…) for a new one\n",
        ]);
      }
    },
  );

  it.skipIf(missing !== undefined)(
    `the handle as a cell's last value shows nothing: no text; under Deno nbconvert keeps an empty result or none, our runner none${why}`,
    () => {
      const results = (way: string) =>
        outputs(way, "su-show")
          .filter((o) => o.output_type !== "display_data")
          .map(shape);
      expect(results("runner tslab")).toEqual([]);
      expect(results("nbconvert tslab")).toEqual([]);
      expect(results("runner deno")).toEqual([]);
      // Deno's kernel makes any value but undefined a result: the handle's is an empty bundle, which nbconvert
      // keeps (data {}) when the kernel's execute_result reaches it; now and then, on a loaded machine, none
      // came at all. Either way nothing is shown.
      expect(["", "execute_result:"]).toContain(results("nbconvert deno").join(","));
      const result = runs
        .get("nbconvert deno")!
        .nb.outputs("su-show")
        .find((o) => o.output_type === "execute_result");
      if (result) expect(result.data).toEqual({});
    },
  );
});
