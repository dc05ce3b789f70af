/**
 * The runner's tslab engine: executes a tslab TypeScript notebook in this process with tslab's own
 * executor (the same type-check and transpile as the Jupyter kernel, no Python), injects parameters
 * after the `parameters` cell, records stdout/stderr, results and rich display outputs in the executed
 * `.ipynb`, writes an HTML rendering with working charts, and stops at the first failing cell, naming
 * it and the error.
 *
 * Several notebooks may run one after the other in one process (the demo): each gets a fresh executor,
 * its own working directory and environment, and plotly.js is embedded again in its first chart.
 */
import { notebookSession } from "../../kernel/session";
import { TSLAB_EXECUTOR_FRAME, loadRunnerTslab, withSyncLimit, type TslabRunnerParts } from "../../kernel/tslab";
import path from "node:path";
import { format } from "node:util";
import { sourceOf, type Cell, type CellFailure, type MimeBundle, type Output } from "../ipynb";
import { tslabVersion } from "../run-record";
import {
  CellOutputCap,
  CellTimeout,
  reportCell,
  timeoutMessage,
  withTimeout,
  type PreparedRun,
  type RunOptions,
} from "../run-shared";

/** What figures, tables and DataFrames answer to display themselves (`JUPYTER_DISPLAY`; a registered symbol: any copy's). */
const JUPYTER_DISPLAY = Symbol.for("Jupyter.display");

/** A cell's error as nbformat stores it. */
interface CellError {
  ename: string;
  evalue: string;
  traceback: string[];
}

/** Stack frames from here down are tslab's and the runner's, not the notebook's: not worth showing. */
const INTERNAL_FRAME = new RegExp(
  `${TSLAB_EXECUTOR_FRAME.source}|[\\\\/]notebook[\\\\/]run[\\\\/]tslab\\.[jt]s|\\(node:(vm|internal[\\\\/]process[\\\\/]task_queues):`,
);

function cellError(value: unknown): CellError {
  if (value instanceof Error) {
    const lines = (value.stack ?? `${value.name}: ${value.message}`).split("\n");
    const cut = lines.findIndex((l) => INTERNAL_FRAME.test(l));
    const traceback = (cut > 0 ? lines.slice(0, cut) : lines).filter(
      (l, i, all) => !(l.trim() === "" && i === all.length - 1),
    );
    return { ename: value.name || "Error", evalue: value.message, traceback };
  }
  const text = typeof value === "string" ? value : format("%O", value);
  return { ename: "Error", evalue: text, traceback: [`Error: ${text}`] };
}

/** The outputs of the cell running now in this process, if one is (see {@link runningCellOutputs}). */
let runningCell: CellOutputs | undefined;

/**
 * What the cell running now has shown so far, as it would be stored; undefined between cells. For a
 * worker process whose cell calls `process.exit` (batch-worker.ts reads it as the process ends).
 */
export function runningCellOutputs(): Output[] | undefined {
  return runningCell && stripTransient([...runningCell.finish()]);
}

/** Runs the code cells in order with tslab's executor; stops at the first that fails and returns it. */
export async function executeCells(run: PreparedRun, options: RunOptions): Promise<CellFailure | undefined> {
  const tslab = loadRunnerTslab();
  run.versions = { tslab: tslabVersion(tslab.dir) };
  const out = new CellOutputs();
  const kernel = createKernel(tslab, path.dirname(run.absolute), out);
  const proc = enterNotebookProcess(run, options, out, tslab);
  let failure: CellFailure | undefined;
  try {
    let codeIndex = 0;
    for (let i = 0; i < run.nb.cells.length && !failure; i++) {
      const cell = run.nb.cells[i]!;
      if (cell.cell_type !== "code") continue;
      const started = performance.now();
      failure = await runCell({ cell, index: i, codeIndex: ++codeIndex }, run, options, kernel, out, proc);
      reportCell(options, run.codeCells, { cell, codeIndex }, failure, performance.now() - started);
    }
  } finally {
    await proc.leave();
    kernel.close();
  }
  // Cells after a failure keep no stale outputs from a previous run.
  if (failure) {
    for (const cell of run.nb.cells.slice(failure.index + 1)) {
      if (cell.cell_type !== "code") continue;
      cell.outputs = [];
      cell.execution_count = null;
    }
  }
  return failure;
}

type Kernel = ReturnType<TslabRunnerParts["createExecutor"]>;

type Converter = ReturnType<TslabRunnerParts["createConverter"]>;

/**
 * Converters kept between the notebooks this process runs, by working directory and kind, while
 * {@link keepConverters} is on (a batch). A converter holds tslab's TypeScript program: its first cell
 * parses the standard library, @types/node and this package's declarations (about 700 files, a second
 * or more), which the next notebook in the same folder then reuses. Off (one run, the CLI's `run`), each
 * notebook's converters are closed with it, so nothing keeps the process alive.
 */
const kept = new Map<string, Converter>();
let keeping = false;

/** Keeps tslab's converters between this process's notebooks (`true`), or closes the kept ones (`false`). */
export function keepConverters(on: boolean): void {
  keeping = on;
  if (on) return;
  for (const converter of kept.values()) converter.close();
  kept.clear();
}

/** A converter for cells run in the current directory: a kept one when keeping, else a new one. */
function converterFor(tslab: TslabRunnerParts, isBrowser: boolean): Converter {
  if (!keeping) return tslab.createConverter({ isJS: false, isBrowser });
  const key = `${isBrowser ? "browser" : "node"} ${process.cwd()}`;
  let converter = kept.get(key);
  if (!converter) kept.set(key, (converter = tslab.createConverter({ isJS: false, isBrowser })));
  return converter;
}

/** tslab's executor for a notebook in `dir`, its outputs going to `out` (converters made on first use). */
function createKernel(tslab: TslabRunnerParts, dir: string, out: CellOutputs): Kernel {
  let node: Converter | undefined;
  let browser: Converter | undefined;
  const convs = {
    get node() {
      return (node ??= converterFor(tslab, false));
    },
    get browser() {
      return (browser ??= converterFor(tslab, true));
    },
    close() {
      for (const converter of [node, browser]) {
        if (converter && ![...kept.values()].includes(converter)) converter.close();
      }
      node = browser = undefined;
    },
  };
  return tslab.createExecutor(dir, convs, {
    log: (...args) => out.log(...args),
    error: (...args) => out.error(...args),
  });
}

/** One code cell: runs it (with its timeout), stores its outputs, and returns its failure if it failed. */
async function runCell(
  at: { cell: Cell; index: number; codeIndex: number },
  run: PreparedRun,
  options: RunOptions,
  kernel: Kernel,
  out: CellOutputs,
  proc: NotebookProcess,
): Promise<CellFailure | undefined> {
  const { cell, index, codeIndex } = at;
  const code = sourceOf(cell);
  options.onCell?.({ index: codeIndex, total: run.codeCells, source: code, id: cell.id });
  out.startCell(codeIndex);
  proc.captureWrites();
  runningCell = out;
  let ok: boolean;
  try {
    ok = code.trim() === "" ? true : await executeWithin(kernel, code, run.cellTimeoutMs, options.onCellRunning);
  } catch (error) {
    if (!(error instanceof CellTimeout)) throw error;
    ok = false;
    out.errors.length = 0;
    out.errors.push({ ename: "CellTimeout", evalue: error.message, traceback: [`CellTimeout: ${error.message}`] });
  } finally {
    await out.settled();
    proc.releaseWrites();
    runningCell = undefined;
  }
  cell.execution_count = codeIndex;
  if (ok) {
    if (out.errors.length) out.stream("stderr", `${out.errors.map((e) => e.traceback.join("\n")).join("\n")}\n`);
    cell.outputs = stripTransient(out.finish());
    return undefined;
  }
  const first = out.errors[0] ?? { ename: "Error", evalue: "the cell failed", traceback: ["the cell failed"] };
  const evalue = first.ename === "TSError" ? out.errors.map((e) => e.evalue).join("\n") : first.evalue;
  const traceback = first.ename === "TSError" ? out.errors.map((e) => e.evalue) : first.traceback;
  out.outputs.push({ output_type: "error", ename: first.ename, evalue, traceback });
  cell.outputs = stripTransient(out.finish());
  const failure: CellFailure = {
    index,
    codeCell: codeIndex,
    source: code,
    ename: first.ename,
    error: first.ename === "TSError" ? evalue : `${first.ename}: ${evalue}`,
  };
  if (cell.id) failure.id = cell.id;
  return failure;
}

/**
 * Runs a cell with tslab's executor, or throws CellTimeout after `ms`: a cell that awaits is interrupted
 * then; a CPU-bound one is stopped by V8 when its code has run that long (withSyncLimit).
 */
async function executeWithin(kernel: Kernel, code: string, ms: number, onRun?: () => void): Promise<boolean> {
  const { ok, timedOut } = await withTimeout(
    withSyncLimit(ms, () => kernel.execute(code), onRun),
    ms,
    () => kernel.interrupt(),
  );
  if (timedOut) throw new CellTimeout(timeoutMessage(ms));
  return ok;
}

/**
 * One cell's outputs as the kernel would send them: stdout and stderr merged into streams, results,
 * display data (an update replaces the outputs shown with its display id, in this cell or an earlier one:
 * progress lines, `plot.show(…).update`), and the errors kept apart until the cell ends.
 */
class CellOutputs {
  outputs: Output[] = [];
  readonly errors: CellError[] = [];
  #executionCount = 0;
  /** The cell's budget of stored output, and the note of what it cut (pushed at the first cut, filled in at the end). */
  #cap = new CellOutputCap();
  #note: (Output & { output_type: "stream" }) | undefined;

  startCell(executionCount: number): void {
    this.outputs = [];
    this.errors.length = 0;
    this.#executionCount = executionCount;
    this.#cap = new CellOutputCap();
    this.#note = undefined;
  }

  /** The cell's outputs, the note saying what was cut (if anything was) filled in. */
  finish(): Output[] {
    if (this.#note) this.#note.text = this.#cap.note() ?? "";
    return this.outputs;
  }

  #cut(): void {
    if (this.#note || !this.#cap.cut) return;
    this.#note = { output_type: "stream", name: "stderr", text: "" };
    this.outputs.push(this.#note);
  }

  stream(name: "stdout" | "stderr", chunk: string): void {
    const text = this.#cap.text(chunk);
    if (text) this.#append(name, text);
    this.#cut();
  }

  #append(name: "stdout" | "stderr", text: string): void {
    const last = this.outputs.at(-1);
    if (last?.output_type === "stream" && last.name === name) last.text += text;
    else this.outputs.push({ output_type: "stream", name, text });
  }

  /** tslab's executor prints a cell's last value (and nothing else) here. */
  log(...args: unknown[]): void {
    if (args.length === 1 && this.#displayResult(args[0])) return;
    const value = args.length === 1 && typeof args[0] !== "string" ? format("%O", args[0]) : format(...args);
    this.#result({ "text/plain": value });
  }

  #result(data: MimeBundle, executionCount = this.#executionCount): void {
    // An empty bundle (a display handle's: its output is already there) draws nothing: nothing stored.
    if (Object.keys(data).length === 0) return;
    if (!this.#cap.display(data)) return this.#cut();
    this.outputs.push({ output_type: "execute_result", data, metadata: {}, execution_count: executionCount });
  }

  /**
   * A last value that displays itself (a figure, table, DataFrame or Series: `Symbol.for("Jupyter.display")`,
   * the kernel room's display) becomes the cell's result with its bundle, as Deno's kernel stores it; its bundle may
   * come later (a first chart's, after plotly.js: {@link settled} waits for it). False for any other value.
   */
  #displayResult(value: unknown): boolean {
    const method =
      typeof value === "object" && value !== null ? (value as Record<symbol, unknown>)[JUPYTER_DISPLAY] : undefined;
    if (typeof method !== "function") return false;
    let bundle: unknown;
    try {
      bundle = method.call(value);
    } catch {
      return false;
    }
    const executionCount = this.#executionCount;
    if (bundle instanceof Promise)
      this.#pending.push(
        bundle.then(
          (b: MimeBundle) => this.#result(b, executionCount),
          (e: unknown) => this.error(e),
        ),
      );
    else this.#result(bundle as MimeBundle);
    return true;
  }

  #pending: Promise<void>[] = [];

  /** Resolves when the cell's results that come later are in its outputs. */
  async settled(): Promise<void> {
    while (this.#pending.length) await Promise.all(this.#pending.splice(0));
  }

  /** Type errors (a format string and its values) and exceptions (one Error): the cell's error output when it fails, stderr text when it does not. */
  error(...args: unknown[]): void {
    if (args.length === 1) this.errors.push(cellError(args[0]));
    else this.errors.push({ ename: "TSError", evalue: format(...args), traceback: [format(...args)] });
  }

  /**
   * A display, as nbclient (nbconvert, papermill) stores it: one with a display id first replaces every
   * output shown under that id so far, in this cell or an earlier one, then (`display_data`) is added
   * too; an update (`update_display_data`) only replaces, and one whose id nothing showed is dropped.
   * The stored outputs carry no display id (nbformat has none); the ids are kept here, for the run.
   */
  display(
    data: { data: MimeBundle; metadata?: Record<string, unknown>; transient?: Record<string, unknown> },
    update: boolean,
  ): void {
    const id = (data.transient as { display_id?: unknown } | undefined)?.display_id;
    const metadata = data.metadata ?? {};
    if (typeof id === "string") this.#replace(id, data.data, metadata);
    if (update) return;
    const output: Output = { output_type: "display_data", data: data.data, metadata };
    if (!this.#cap.display(output.data)) return this.#cut();
    this.outputs.push(output);
    if (typeof id === "string") this.#shown.set(id, [...(this.#shown.get(id) ?? []), { output, cap: this.#cap }]);
  }

  /** The outputs shown under each display id, in every cell of the run, with their cell's output budget. */
  #shown = new Map<string, { output: Output & { output_type: "display_data" }; cap: CellOutputCap }[]>();

  /** Every output shown under `id` takes `data` (an earlier cell's within that cell's budget: said when over it). */
  #replace(id: string, data: MimeBundle, metadata: Record<string, unknown>): void {
    for (const shown of this.#shown.get(id) ?? []) {
      if (!shown.cap.display(data, shown.output.data)) {
        if (shown.cap === this.#cap) this.#cut();
        else
          this.stream(
            "stderr",
            `an update of display ${id}, shown in an earlier cell, is over that cell's output limit: not kept\n`,
          );
        continue;
      }
      shown.output.data = data;
      shown.output.metadata = metadata;
    }
  }
}

interface NotebookProcess {
  /** stdout and stderr go to the cell's outputs (while a cell runs). */
  captureWrites(): void;
  releaseWrites(): void;
  /** Everything back as it was; the notebook session ends (simulators it started stop). */
  leave(): Promise<void>;
}

/**
 * The process as the notebook sees it, as under Jupyter: its own directory as the working directory, its
 * environment, tslab's display going to the cell, and a stray rejection or exception of notebook code
 * (a promise nobody awaited, a throwing timer) going to the cell's stderr instead of ending this process.
 */
function enterNotebookProcess(
  run: PreparedRun,
  options: RunOptions,
  out: CellOutputs,
  tslab: TslabRunnerParts,
): NotebookProcess {
  const previousCwd = process.cwd();
  const previousEnv = { ...process.env };
  const realWrite = { out: process.stdout.write, err: process.stderr.write };
  const previousDisplay = tslab.jupyter.lastWriteDisplayData;
  const text = (chunk: string | Uint8Array) =>
    typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  const capture = {
    out: ((chunk: string | Uint8Array) => (out.stream("stdout", text(chunk)), true)) as typeof process.stdout.write,
    err: ((chunk: string | Uint8Array) => (out.stream("stderr", text(chunk)), true)) as typeof process.stderr.write,
  };
  const onStray = (kind: string) => (reason: unknown) =>
    out.stream("stderr", `${kind}: ${cellError(reason).traceback.join("\n")}\n`);
  const onRejection = onStray("Unhandled promise rejection");
  const onException = onStray("Uncaught exception");
  const releaseWrites = () => {
    process.stdout.write = realWrite.out;
    process.stderr.write = realWrite.err;
  };

  process.chdir(path.dirname(run.absolute));
  for (const [key, value] of Object.entries(run.env)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  process.on("unhandledRejection", onRejection);
  process.on("uncaughtException", onException);
  tslab.jupyter.lastWriteDisplayData = (data, update) => out.display(data, update);
  // plot.show and progress display through this tslab while the notebook runs (`loadRunnerTslab`).
  const session = notebookSession();
  const previousTslabDir = session.tslabDir;
  session.tslabDir = tslab.dir;
  return {
    captureWrites() {
      process.stdout.write = capture.out;
      process.stderr.write = capture.err;
    },
    releaseWrites,
    async leave() {
      releaseWrites();
      tslab.jupyter.lastWriteDisplayData = previousDisplay;
      session.tslabDir = previousTslabDir;
      // Simulators the notebook started (whichever copy of the package it loaded) stop with its session.
      await session.end();
      process.off("unhandledRejection", onRejection);
      process.off("uncaughtException", onException);
      process.chdir(previousCwd);
      for (const key of Object.keys(process.env)) if (!(key in previousEnv)) delete process.env[key];
      Object.assign(process.env, previousEnv);
    },
  };
}

/** Outputs as nbformat stores them: display ids are runtime-only. */
function stripTransient(outputs: Output[]): Output[] {
  return outputs.map((o) => {
    if (o.output_type !== "display_data" || !o.transient) return o;
    const { transient: _transient, ...rest } = o;
    return rest;
  });
}
