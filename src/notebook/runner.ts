/**
 * The headless notebook runner: executes a tslab TypeScript notebook in this process with tslab's own
 * executor (the same type-check and transpile as the Jupyter kernel, no Python), injects parameters
 * after the `parameters` cell, records stdout/stderr, results and rich display outputs in the executed
 * `.ipynb`, writes an HTML rendering with working charts, and stops at the first failing cell, naming
 * it and the error.
 *
 * Several notebooks may run one after the other in one process (the demo): each gets a fresh executor,
 * its own working directory and environment, and plotly.js is embedded again in its first chart.
 */
import { notebookSession } from "../session";
import { RiskPortalError } from "../client/errors";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { format } from "node:util";
import { parseNotebook, sourceOf, type Cell, type MimeBundle, type Notebook, type Output } from "./ipynb";
import { injectParameters } from "./params";
import { renderHtml } from "./render-html";

export interface RunOptions {
  /** Parameters injected after the `parameters` cell (values as given, see `parseParameterValue`). */
  params?: Record<string, unknown>;
  /** Directory for the executed `.ipynb` and its `.html`. Default: `out/` under the current directory. */
  outDir?: string;
  /** Called before each code cell runs (progress). Runs with the real stdout/stderr, not the cell's. */
  onCell?: (info: { index: number; total: number; source: string; id?: string }) => void;
  /** Environment the notebook sees (merged over `process.env`), e.g. to force the simulator. */
  env?: Record<string, string | undefined>;
  /**
   * Longest a cell may run, ms; then it is interrupted and fails (only a cell that awaits can be
   * interrupted: a synchronous endless loop cannot). Default 10 minutes.
   */
  cellTimeoutMs?: number;
}

export interface CellFailure {
  /** 0-based index among all cells of the executed notebook, and 1-based among code cells. */
  index: number;
  codeCell: number;
  /** The cell's `id`, when the notebook has cell ids (nbformat 4.5). */
  id?: string;
  source: string;
  /** The error's name (`TypeError`, `NotFoundError`, …; `TSError` for a type-check error). */
  ename: string;
  /** The error: its name and message (type errors: every diagnostic, one a line). */
  error: string;
}

export interface RunResult {
  notebook: Notebook;
  ipynbPath: string;
  htmlPath: string;
  durationMs: number;
  /** Set when a cell failed; the cells after it did not run. */
  failure?: CellFailure;
}

/** The notebook failed: `failure` names the cell and the error; the partial outputs were still written. */
export class NotebookError extends RiskPortalError {
  constructor(
    message: string,
    readonly result: RunResult,
  ) {
    super(message, { operation: "runNotebook" });
  }
}

/** Default {@link RunOptions.cellTimeoutMs}. */
export const DEFAULT_CELL_TIMEOUT_MS = 10 * 60_000;

interface TslabParts {
  createConverter: (o: { isJS: boolean; isBrowser: boolean }) => { close(): void };
  createExecutor: (root: string, convs: unknown, console: { log: (...a: unknown[]) => void; error: (...a: unknown[]) => void }) => {
    execute(src: string): Promise<boolean>;
    interrupt(): void;
    close(): void;
  };
  jupyter: { lastWriteDisplayData: ((data: { data: MimeBundle; metadata?: Record<string, unknown>; transient?: Record<string, unknown> }, update: boolean) => void) | null };
}

function loadTslab(): TslabParts {
  try {
    /* eslint-disable @typescript-eslint/no-require-imports */
    return {
      createConverter: require("tslab/dist/converter").createConverter,
      createExecutor: require("tslab/dist/executor").createExecutor,
      jupyter: require("tslab/dist/jupyter"),
    };
    /* eslint-enable @typescript-eslint/no-require-imports */
  } catch (error) {
    throw new Error(`the notebook runner needs tslab (npm install tslab): ${(error as Error).message}`);
  }
}

/** A cell's error as nbformat stores it. */
interface CellError {
  ename: string;
  evalue: string;
  traceback: string[];
}

/** Stack frames from here down are tslab's and the runner's, not the notebook's: not worth showing. */
const INTERNAL_FRAME = /[\\/](tslab[\\/]dist[\\/]executor\.js|notebook[\\/]runner\.[jt]s)|\(node:(vm|internal[\\/]process[\\/]task_queues):/;

function cellError(value: unknown): CellError {
  if (value instanceof Error) {
    const lines = (value.stack ?? `${value.name}: ${value.message}`).split("\n");
    const cut = lines.findIndex((l) => INTERNAL_FRAME.test(l));
    const traceback = (cut > 0 ? lines.slice(0, cut) : lines).filter((l, i, all) => !(l.trim() === "" && i === all.length - 1));
    return { ename: value.name || "Error", evalue: value.message, traceback };
  }
  const text = typeof value === "string" ? value : format("%O", value);
  return { ename: "Error", evalue: text, traceback: [`Error: ${text}`] };
}

/** Runs one notebook. Resolves with the result; rejects with NotebookError when a cell fails. */
export async function runNotebook(file: string, options: RunOptions = {}): Promise<RunResult> {
  const started = performance.now();
  const absolute = path.resolve(file);
  const outDir = path.resolve(options.outDir ?? "out");
  const base = path.basename(absolute, ".ipynb");
  const cellTimeoutMs = options.cellTimeoutMs ?? DEFAULT_CELL_TIMEOUT_MS;
  if (!(cellTimeoutMs > 0)) throw new RangeError(`cellTimeoutMs must be > 0, got ${cellTimeoutMs}`);
  const source = parseNotebook(await readFile(absolute, "utf8"), file);
  const params = options.params ?? {};
  const nb = injectParameters(structuredClone(source), params, file);
  const tslab = loadTslab();

  // A fresh notebook session (shared by every copy of the package this process loaded): this notebook's
  // first chart embeds plotly.js again, and its charts are numbered from 1.
  notebookSession().start();

  let node: { close(): void } | undefined;
  let browser: { close(): void } | undefined;
  const convs = {
    get node() {
      return (node ??= tslab.createConverter({ isJS: false, isBrowser: false }));
    },
    get browser() {
      return (browser ??= tslab.createConverter({ isJS: false, isBrowser: true }));
    },
    close() {
      node?.close();
      browser?.close();
      node = browser = undefined;
    },
  };
  let outputs: Output[] = [];
  const errors: CellError[] = [];
  const stream = (name: "stdout" | "stderr", text: string) => {
    const last = outputs.at(-1);
    if (last?.output_type === "stream" && last.name === name) last.text += text;
    else outputs.push({ output_type: "stream", name, text });
  };
  let executionCount = 0;
  const executor = tslab.createExecutor(path.dirname(absolute), convs, {
    log: (...args) => {
      const value = args.length === 1 && typeof args[0] !== "string" ? format("%O", args[0]) : format(...args);
      outputs.push({ output_type: "execute_result", data: { "text/plain": value }, metadata: {}, execution_count: executionCount });
    },
    // Type errors (a format string and its values) and exceptions (one Error): kept apart, they become
    // the cell's error output when it fails, stderr text when it does not.
    error: (...args) => {
      if (args.length === 1) errors.push(cellError(args[0]));
      else errors.push({ ename: "TSError", evalue: format(...args), traceback: [format(...args)] });
    },
  });

  const previousCwd = process.cwd();
  const previousEnv = { ...process.env };
  const realWrite = { out: process.stdout.write, err: process.stderr.write };
  const previousDisplay = tslab.jupyter.lastWriteDisplayData;
  const capture = {
    out: ((chunk: string | Uint8Array) => (stream("stdout", typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")), true)) as typeof process.stdout.write,
    err: ((chunk: string | Uint8Array) => (stream("stderr", typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")), true)) as typeof process.stderr.write,
  };
  // A stray rejection or exception of notebook code (a promise nobody awaited, a throwing timer) would
  // end this process; it goes to the current cell's stderr instead.
  const onStray = (kind: string) => (reason: unknown) => stream("stderr", `${kind}: ${cellError(reason).traceback.join("\n")}\n`);
  const onRejection = onStray("Unhandled promise rejection");
  const onException = onStray("Uncaught exception");

  let failure: CellFailure | undefined;
  const codeCells = nb.cells.filter((c) => c.cell_type === "code").length;
  let codeIndex = 0;
  try {
    // A notebook runs with its own directory as the working directory, as under Jupyter.
    process.chdir(path.dirname(absolute));
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    process.on("unhandledRejection", onRejection);
    process.on("uncaughtException", onException);
    tslab.jupyter.lastWriteDisplayData = (data, update) => {
      const output: Output = { output_type: "display_data", data: data.data, metadata: data.metadata ?? {} };
      const id = (data.transient as { display_id?: string } | undefined)?.display_id;
      if (update && id) {
        // update_display_data replaces the output with the same display id (progress lines).
        const i = outputs.findIndex((o) => o.output_type === "display_data" && (o.transient as { display_id?: string } | undefined)?.display_id === id);
        if (i >= 0) {
          outputs[i] = { ...output, transient: data.transient };
          return;
        }
      }
      outputs.push(id ? { ...output, transient: data.transient } : output);
    };
    for (let i = 0; i < nb.cells.length; i++) {
      const cell = nb.cells[i]!;
      if (cell.cell_type !== "code") continue;
      codeIndex++;
      const code = sourceOf(cell);
      options.onCell?.({ index: codeIndex, total: codeCells, source: code, id: cell.id });
      outputs = [];
      errors.length = 0;
      executionCount = codeIndex;
      process.stdout.write = capture.out;
      process.stderr.write = capture.err;
      let ok: boolean;
      try {
        ok = code.trim() === "" ? true : await withTimeout(executor.execute(code), cellTimeoutMs, () => executor.interrupt());
      } catch (error) {
        if (!(error instanceof CellTimeout)) throw error;
        ok = false;
        errors.length = 0;
        errors.push({ ename: "CellTimeout", evalue: error.message, traceback: [`CellTimeout: ${error.message}`] });
      } finally {
        process.stdout.write = realWrite.out;
        process.stderr.write = realWrite.err;
      }
      cell.execution_count = executionCount;
      if (!ok) {
        const first = errors[0] ?? { ename: "Error", evalue: "the cell failed", traceback: ["the cell failed"] };
        const evalue = first.ename === "TSError" ? errors.map((e) => e.evalue).join("\n") : first.evalue;
        const traceback = first.ename === "TSError" ? errors.map((e) => e.evalue) : first.traceback;
        outputs.push({ output_type: "error", ename: first.ename, evalue, traceback });
        cell.outputs = stripTransient(outputs);
        failure = { index: i, codeCell: codeIndex, source: code, ename: first.ename, error: first.ename === "TSError" ? evalue : `${first.ename}: ${evalue}` };
        if (cell.id) failure.id = cell.id;
        break;
      }
      if (errors.length) stream("stderr", `${errors.map((e) => e.traceback.join("\n")).join("\n")}\n`);
      cell.outputs = stripTransient(outputs);
    }
  } finally {
    process.stdout.write = realWrite.out;
    process.stderr.write = realWrite.err;
    tslab.jupyter.lastWriteDisplayData = previousDisplay;
    // Simulators the notebook started (whichever copy of the package it loaded) stop with its session.
    await notebookSession().end();
    process.off("unhandledRejection", onRejection);
    process.off("uncaughtException", onException);
    process.chdir(previousCwd);
    for (const key of Object.keys(process.env)) if (!(key in previousEnv)) delete process.env[key];
    Object.assign(process.env, previousEnv);
    executor.close();
  }

  // Cells after a failure keep no stale outputs from a previous run.
  if (failure) {
    for (const cell of nb.cells.slice(failure.index + 1)) {
      if (cell.cell_type !== "code") continue;
      cell.outputs = [];
      cell.execution_count = null;
    }
  }
  const durationMs = performance.now() - started;
  nb.metadata = {
    ...nb.metadata,
    risk_portal_lab: { parameters: params, status: failure ? "failed" : "ok", duration_s: Math.round(durationMs / 100) / 10, ...(failure ? { failed_cell: failure.id ?? failure.codeCell } : {}) },
  };
  await mkdir(outDir, { recursive: true });
  const ipynbPath = path.join(outDir, `${base}.ipynb`);
  const htmlPath = path.join(outDir, `${base}.html`);
  await writeFile(ipynbPath, JSON.stringify(nb, null, 1) + "\n");
  await writeFile(htmlPath, renderHtml(nb, { title: titleOf(nb) ?? base, failure }));
  const result: RunResult = { notebook: nb, ipynbPath, htmlPath, durationMs, failure };
  if (failure) throw new NotebookError(describeFailure(file, failure, codeCells), result);
  return result;
}

/** `notebooks/x.ipynb: code cell 6 of 7 (id "load") failed: const bad: number = "x";` then the error, indented. */
export function describeFailure(file: string, failure: CellFailure, codeCells: number): string {
  const firstLine = failure.source.split("\n").find((l) => l.trim() && !l.trim().startsWith("//")) ?? failure.source.split("\n")[0] ?? "";
  const line = firstLine.trim().length > 80 ? `${firstLine.trim().slice(0, 79)}…` : firstLine.trim();
  const error = failure.error.split("\n").slice(0, 12).join("\n    ");
  return `${file}: code cell ${failure.codeCell} of ${codeCells}${failure.id ? ` (id "${failure.id}")` : ""} failed: ${line}\n    ${error}`;
}

/** The text of the notebook's first markdown heading, if any. */
export function titleOf(nb: Notebook): string | undefined {
  for (const cell of nb.cells) {
    if (cell.cell_type !== "markdown") continue;
    const heading = /^#\s+(.+)$/m.exec(sourceOf(cell));
    if (heading) return heading[1]!.trim();
  }
  return undefined;
}

class CellTimeout extends Error {}

/** `promise`, or a CellTimeout after `ms` (calling `onTimeout` first, to interrupt the cell). */
async function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new CellTimeout(`the cell ran longer than ${ms / 1000} s and was interrupted`));
    }, ms);
    timer.unref?.();
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Outputs as nbformat stores them: display ids are runtime-only. */
function stripTransient(outputs: Output[]): Output[] {
  return outputs.map((o) => {
    if (o.output_type !== "display_data" || !o.transient) return o;
    const { transient: _transient, ...rest } = o;
    return rest;
  });
}

export type { Cell };
