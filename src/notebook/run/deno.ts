/**
 * The headless runner under Deno's Jupyter kernel, without Jupyter or Python: `deno jupyter --kernel`
 * is started with a connection file of our own and spoken to over Jupyter's messaging protocol
 * (jupyter/kernel.ts, a small ZMTP client in jupyter/zmtp.ts). Each code cell is one execute_request;
 * its outputs are routed by parent msg_id whenever they arrive (Deno's kernel sends idle before some of
 * them), and a fence after each cell gives back the outputs the kernel tagged as a later request's
 * (jupyter/outputs.ts). Parameters, the executed `.ipynb`, its `.html` and failures as under tslab
 * (run-shared.ts).
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { sourceOf, type Cell, type CellFailure } from "../ipynb";
import { findDeno } from "../jupyter/find-deno";
import { JupyterKernel, stripAnsi } from "../jupyter/kernel";
import { KernelOutputs, type CellState } from "../jupyter/outputs";
import type { Message } from "../jupyter/wire";
import {
  prepareRun,
  reportCell,
  timeoutMessage,
  writeOutputs,
  type PreparedRun,
  type RunOptions,
  type RunResult,
} from "../run-shared";

/** After the last cell, outputs still on their way are kept until the kernel is quiet this long, ms. */
const QUIET_MS = 500;
/** After a timed-out cell's interrupt_request, how long the cell may take to end before the kernel is killed, ms. */
const INTERRUPT_GRACE_MS = 1000;
/** The longest a fence may take to print its marker, ms. */
const FENCE_TIMEOUT_MS = 60_000;

/** Runs one notebook under Deno's kernel (see the module comment); rejects with NotebookError when a cell fails. */
export async function runWithKernel(file: string, options: RunOptions = {}): Promise<RunResult> {
  const started = performance.now();
  const run = await prepareRun(file, options);
  const kernel = await startDeno(run, options).catch((error: Error) => {
    throw new Error(`${run.file}: ${error.message}`);
  });
  run.versions = await kernelVersions(kernel);
  const book = new KernelOutputs(kernel);
  let failure: CellFailure | undefined;
  try {
    failure = await executeCells(run, options, kernel, book);
    if (!failure || failure.ename !== "CellTimeout") await book.quiet(QUIET_MS);
  } finally {
    book.detach();
    book.finish();
    await kernel.shutdown();
  }
  if (failure) clearAfter(run, failure.index);
  const extra = { late_outputs: book.late, reattributed_outputs: book.reattributed };
  return writeOutputs(run, failure, performance.now() - started, extra);
}

/** Deno's and its TypeScript's versions, as the kernel's kernel_info_reply gives them (none it does not give). */
async function kernelVersions(kernel: JupyterKernel): Promise<{ deno?: string; typescript?: string }> {
  const info = await Promise.race([
    kernel.request("shell", "kernel_info_request", {}).reply.then((m) => m.content),
    new Promise<undefined>((r) => setTimeout(() => r(undefined), 5000)),
  ]).catch(() => undefined);
  const content = (info ?? {}) as { implementation_version?: unknown; language_info?: { version?: unknown } };
  const text = (v: unknown) => (typeof v === "string" && v ? v : undefined);
  const deno = text(content.implementation_version);
  const typescript = text(content.language_info?.version);
  return { ...(deno ? { deno } : {}), ...(typescript ? { typescript } : {}) };
}

/** Deno's kernel for the notebook, in its folder, with its environment. */
async function startDeno(run: PreparedRun, options: RunOptions): Promise<JupyterKernel> {
  const dir = path.dirname(run.absolute);
  const deno = findDeno({ flag: options.deno, dirs: [dir, process.cwd()] });
  return JupyterKernel.start({
    argv: [deno, "jupyter", "--kernel", "--conn", "{connection_file}"],
    cwd: dir,
    env: kernelEnv(run.env),
    name: "Deno's kernel",
  });
}

/** process.env with `env` over it (undefined removes a variable). */
function kernelEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** Cells after a failure keep no stale outputs from a previous run. */
function clearAfter(run: PreparedRun, index: number): void {
  for (const cell of run.nb.cells.slice(index + 1)) {
    if (cell.cell_type !== "code") continue;
    cell.outputs = [];
    cell.execution_count = null;
  }
}

async function executeCells(
  run: PreparedRun,
  options: RunOptions,
  kernel: JupyterKernel,
  book: KernelOutputs,
): Promise<CellFailure | undefined> {
  let codeIndex = 0;
  for (let i = 0; i < run.nb.cells.length; i++) {
    const cell = run.nb.cells[i]!;
    if (cell.cell_type !== "code") continue;
    const at = { cell, index: i, codeIndex: ++codeIndex };
    const t0 = performance.now();
    const failure = await runCell(at, run, options, kernel, book);
    reportCell(options, run.codeCells, { cell, codeIndex }, failure, performance.now() - t0);
    if (failure) return failure;
  }
  return undefined;
}

type Outcome = { reply: Message } | { timedOut: true } | { died: Error };

/** One code cell: its request, its outputs until reply and idle, its fence; its failure if it failed. */
async function runCell(
  at: { cell: Cell; index: number; codeIndex: number },
  run: PreparedRun,
  options: RunOptions,
  kernel: JupyterKernel,
  book: KernelOutputs,
): Promise<CellFailure | undefined> {
  const code = sourceOf(at.cell);
  options.onCell?.({ index: at.codeIndex, total: run.codeCells, source: code, id: at.cell.id });
  const state = book.begin(at.cell, at.codeIndex);
  if (code.trim() === "") return undefined;
  const request = kernel.execute(code);
  book.track(request.msgId, state);
  const outcome = await settle(
    request.reply.then(async (reply) => (await state.idle, reply)),
    run.cellTimeoutMs,
    kernel,
  );
  if ("timedOut" in outcome) {
    await Promise.race([
      kernel.interrupt().then(() => request.reply),
      new Promise((r) => setTimeout(r, INTERRUPT_GRACE_MS)),
    ]).catch(() => undefined);
    return fail(at, state, "CellTimeout", timeoutMessage(run.cellTimeoutMs));
  }
  if ("died" in outcome) return fail(at, state, "KernelDied", outcome.died.message);
  const fenced = await fence(kernel, book, state, at);
  state.done = true;
  const content = outcome.reply.content as { status?: string; ename?: string; evalue?: string; traceback?: string[] };
  if (content.status === "ok") return fenced;
  if (content.status === "error") {
    const shown = state.outputs.some((o) => o.output_type === "error");
    if (!shown && lostPromise(content)) return fail(at, state, "Error", LOST_PROMISE);
    return fail(at, state, content.ename ?? "Error", content.evalue ?? "", shown ? undefined : content.traceback);
  }
  return fail(at, state, "Error", `the kernel answered ${JSON.stringify(content.status)}`);
}

/**
 * Deno's kernel (2.9) answers `Error: Execution failed`, with no traceback and no error on iopub, when
 * V8's inspector lost the cell's promise (its stderr says `Promise was collected`). It happened to cells
 * whose display of several MB was still being sent when the cell ended (a first chart carrying plotly.js
 * in one message, before plotly.js went in parts: `plotlyPartBundles`); not seen since. The cell's
 * code may well have run, but the kernel did not say it finished: the cell fails, saying so.
 */
const LOST_PROMISE =
  "Execution failed: Deno's kernel answered with no error or traceback (V8 lost the cell's promise; its stderr says 'Promise was collected'). The cell's code may have run; run the notebook again.";

function lostPromise(content: { ename?: string; evalue?: string; traceback?: string[] }): boolean {
  return content.ename === "Error" && content.evalue === "Execution failed" && (content.traceback ?? []).length === 0;
}

/** The reply (after idle), or the timeout, or the kernel's death, whichever comes first. */
async function settle(reply: Promise<Message>, timeoutMs: number, kernel: JupyterKernel): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Outcome>((resolve) => (timer = setTimeout(() => resolve({ timedOut: true }), timeoutMs)));
  try {
    return await Promise.race([
      reply.then((r) => ({ reply: r })),
      timeout,
      kernel.died.catch((e: Error) => ({ died: e })),
    ]);
  } catch (error) {
    return { died: error as Error };
  } finally {
    clearTimeout(timer);
  }
}

/** Sends the fence after a cell and waits for its marker (see jupyter/outputs.ts); a failure if it never prints. */
async function fence(
  kernel: JupyterKernel,
  book: KernelOutputs,
  state: CellState,
  at: { cell: Cell; index: number; codeIndex: number },
): Promise<CellFailure | undefined> {
  const marker = `--risk-portal-lab-fence-${randomUUID()}--`;
  const request = kernel.execute(`console.log(${JSON.stringify(marker)})`, { storeHistory: false });
  const printed = book.fence(request.msgId, state, marker);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), FENCE_TIMEOUT_MS)));
  try {
    const result = await Promise.race([printed, timeout, kernel.died.catch((e: Error) => e)]);
    if (result === "timeout")
      throw new Error(`the kernel did not print the fence after this cell within ${FENCE_TIMEOUT_MS / 1000} s`);
    if (result instanceof Error) throw result;
    return undefined;
  } catch (error) {
    const message = (error as Error).message;
    return fail(at, state, "KernelError", message);
  } finally {
    clearTimeout(timer);
  }
}

/** The cell's failure; an error output is added unless the kernel already sent one (`traceback` undefined). */
function fail(
  at: { cell: Cell; index: number; codeIndex: number },
  state: CellState,
  ename: string,
  evalue: string,
  traceback?: string[],
): CellFailure {
  const plainName = stripAnsi(ename);
  const plainValue = stripAnsi(evalue);
  const alreadyShown =
    traceback === undefined &&
    state.outputs.some((o) => o.output_type === "error") &&
    !["CellTimeout", "KernelDied", "KernelError"].includes(ename);
  if (!alreadyShown)
    state.outputs.push({
      output_type: "error",
      ename,
      evalue,
      traceback: traceback ?? [`${plainName}: ${plainValue}`],
    });
  const failure: CellFailure = {
    index: at.index,
    codeCell: at.codeIndex,
    source: sourceOf(at.cell),
    ename: plainName,
    error: `${plainName}: ${plainValue}`,
  };
  if (at.cell.id) failure.id = at.cell.id;
  return failure;
}
