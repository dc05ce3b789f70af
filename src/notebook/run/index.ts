/**
 * The headless notebook runner: runs a notebook under its kernel (tslab, in this process: ./tslab.ts's
 * engine; Deno's, as a kernel process over Jupyter's protocol: ./deno.ts's), papermill's shape either way.
 */
import { notebookSession } from "../../kernel/session";
import { notebookKernel, prepareRun, writeOutputs, type RunOptions, type RunResult } from "../run-shared";
import { runWithKernel } from "./deno";
import { executeCells } from "./tslab";

export type { CellFailure, Cell } from "../ipynb";
export {
  DEFAULT_CELL_TIMEOUT_MS,
  NotebookError,
  cellDoneLine,
  describeFailure,
  titleOf,
  type CellDone,
  type KernelName,
  type RunOptions,
  type RunResult,
} from "../run-shared";

export { keepConverters, runningCellOutputs } from "./tslab";

/**
 * Runs one notebook in papermill's shape — prepare (read, inject parameters) → execute the code cells →
 * write the executed `.ipynb` and its `.html`. Resolves with the result; rejects with NotebookError when a
 * cell fails (the outputs up to it are still written).
 * @example
 * ```ts
 * const result = await runNotebook("notebooks/01-yield-curves.ipynb", { outDir: "out", params: { currency: "EUR" } });
 * ```
 */
export async function runNotebook(file: string, options: RunOptions = {}): Promise<RunResult> {
  const kernel = options.kernel ?? (await notebookKernel(file));
  if (kernel === "deno") return runWithKernel(file, { ...options, kernel });
  if (kernel !== "tslab") throw new Error(`unknown kernel ${JSON.stringify(kernel)}: tslab or deno`);
  const started = performance.now();
  const run = await prepareRun(file, options);
  // A fresh notebook session (shared by every copy of the package this process loaded): this notebook's
  // first chart embeds plotly.js again, and its charts are numbered from 1.
  notebookSession().start();
  const failure = await executeCells(run, options);
  return writeOutputs(run, failure, performance.now() - started);
}
