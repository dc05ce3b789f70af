/**
 * What both notebook runners share (tslab's executor in this process, {@link executeCells}; a Jupyter
 * kernel such as Deno's over its messaging protocol, `runWithKernel`): the options, reading the notebook and
 * injecting its parameters, writing the executed `.ipynb` and its `.html`, describing a failure.
 */
import { RiskPortalError } from "../errors";
import { replaceFiles } from "../files/replace-files";
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { RUN_RECORD_ENV, takeDataSources } from "./data-sources";
import { parseNotebook, sourceOf, type Cell, type CellFailure, type Notebook } from "./ipynb";
import { injectParameters } from "./params";
import { renderHtml } from "./render-html";
import {
  clearCellRecords,
  markPending,
  papermillRun,
  runEnvironment,
  stampCell,
  type RunEnvironment,
} from "./run-record";

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
   * Longest a cell may run, ms; then it is interrupted and fails. Under Deno the kernel is killed when
   * the interrupt does not end it; under tslab a cell that awaits is interrupted, and a CPU-bound one
   * (`while (true) {}`) is stopped by V8 when its code has run that long, though not code it runs after
   * an `await` or in a timer: that holds the process running the notebook, which only a supervising
   * process can stop (`runNotebooks` with `isolate` or `jobs`, the CLI's `run`: one second after the
   * timeout). Default 10 minutes.
   */
  cellTimeoutMs?: number;
  /**
   * Which kernel runs the notebook: `tslab` (tslab's executor in this process) or `deno` (Deno's Jupyter
   * kernel, `deno jupyter --kernel`, spoken to over Jupyter's messaging protocol). Default: the one the
   * notebook's kernelspec names (`notebookKernel`).
   */
  kernel?: KernelName;
  /** The deno executable (`--kernel deno`); default: $DENO_BIN, node_modules/.bin/deno, then PATH (see `findDeno`). */
  deno?: string;
  /**
   * Called after each code cell, with how it ended and how long it took (`cell 4/12 ok 1.3 s`), and the
   * cell as it will be stored (its outputs and execution count).
   */
  onCellDone?: (info: CellDone, cell: Cell) => void;
  /**
   * Called as a code cell's code starts running, after tslab's type-check (tslab only; the cell's
   * timeout counts from {@link onCell}). A worker's supervisor starts its own watch of the cell here.
   */
  onCellRunning?: () => void;
  /**
   * The name of the outputs, `<outputName>.ipynb` and its page (a grid's run: `params-currency=EUR`).
   * Default: the notebook's own name.
   */
  outputName?: string;
  /**
   * The file the notebook's `connect()` calls are recorded in (see data-sources.ts). Default: a new
   * one in the temporary directory; a supervising process names it, to read it when the worker dies.
   */
  recordFile?: string;
}

export type KernelName = "tslab" | "deno";
export const KERNELS: readonly KernelName[] = ["tslab", "deno"];

/**
 * The kernel a notebook was written for, when none is asked for: `deno` when its kernelspec names Deno's
 * kernel (`deno jupyter --install` registers `deno`), else `tslab`. A file that cannot be read or parsed
 * says `tslab` here and fails with its own error when the run reads it.
 */
export async function notebookKernel(file: string): Promise<KernelName> {
  try {
    const nb = JSON.parse(await readFile(file, "utf8")) as { metadata?: { kernelspec?: { name?: unknown } } };
    const name = nb.metadata?.kernelspec?.name;
    return typeof name === "string" && /^deno\b/i.test(name) ? "deno" : "tslab";
  } catch {
    return "tslab";
  }
}

/** How a code cell ended: `ok`, `failed` (with the error's first line) or `timed out`. */
export interface CellDone {
  index: number;
  total: number;
  id?: string;
  status: "ok" | "failed" | "timed out";
  ms: number;
  error?: string;
}

/** Tells `onCellDone` how a code cell ended. */
export function reportCell(
  options: RunOptions,
  total: number,
  at: { cell: Cell; codeIndex: number },
  failure: CellFailure | undefined,
  ms: number,
): void {
  // papermill's record of the cell, before the cell is reported (a worker sends it as stored).
  stampCell(at.cell, ms, failure !== undefined);
  if (!options.onCellDone) return;
  const status = !failure ? "ok" : failure.ename === "CellTimeout" ? "timed out" : "failed";
  const info: CellDone = { index: at.codeIndex, total, status, ms };
  if (at.cell.id) info.id = at.cell.id;
  if (failure) info.error = failure.error;
  options.onCellDone(info, at.cell);
}

/** `cell 4/12 ok 1.3 s`, `cell 5/12 failed 0.2 s: TypeError: …`. */
export function cellDoneLine(info: CellDone): string {
  const error = info.error ? `: ${info.error.split("\n")[0]}` : "";
  return `cell ${info.index}/${info.total} ${info.status} ${(info.ms / 1000).toFixed(1)} s${error}`;
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

/** A notebook read and parameterised, and where its outputs go. */
export interface PreparedRun {
  file: string;
  absolute: string;
  outDir: string;
  base: string;
  cellTimeoutMs: number;
  params: Record<string, unknown>;
  /** The notebook to execute (a copy: cells receive their outputs in place). */
  nb: Notebook;
  codeCells: number;
  /** The notebook's environment: `options.env` and the file its `connect()` calls are recorded in. */
  env: Record<string, string | undefined>;
  recordFile: string;
  /** The kernel that runs it and its versions (the runner that starts the kernel sets them). */
  kernel: string;
  versions: Pick<RunEnvironment, "tslab" | "deno" | "typescript">;
}

export async function prepareRun(file: string, options: RunOptions): Promise<PreparedRun> {
  const absolute = path.resolve(file);
  const cellTimeoutMs = options.cellTimeoutMs ?? DEFAULT_CELL_TIMEOUT_MS;
  if (!(cellTimeoutMs > 0)) throw new RangeError(`cellTimeoutMs must be > 0, got ${cellTimeoutMs}`);
  const source = parseNotebook(await readFile(absolute, "utf8"), file);
  const params = options.params ?? {};
  const nb = injectParameters(structuredClone(source), params, file);
  clearCellRecords(nb);
  const recordFile = options.recordFile ?? newRecordFile();
  return {
    file,
    absolute,
    outDir: path.resolve(options.outDir ?? "out"),
    base: options.outputName ?? path.basename(absolute, ".ipynb"),
    cellTimeoutMs,
    params,
    nb,
    codeCells: nb.cells.filter((c) => c.cell_type === "code").length,
    env: { ...options.env, [RUN_RECORD_ENV]: recordFile },
    recordFile,
    kernel: options.kernel ?? "tslab",
    versions: {},
  };
}

/** A file name for a run's record of its data sources, in the temporary directory. */
export function newRecordFile(): string {
  return path.join(tmpdir(), `risk-portal-lab-run-${process.pid}-${randomUUID()}.jsonl`);
}

/**
 * The executed `.ipynb` (with the run's parameters, status and duration in its metadata) and its `.html`,
 * each written beside its target and renamed over it: on a failure both previous files stay (see `replaceFiles`).
 */
export async function writeOutputs(
  run: PreparedRun,
  failure: CellFailure | undefined,
  durationMs: number,
  extra: Record<string, unknown> = {},
): Promise<RunResult> {
  const { nb } = run;
  const ipynbPath = path.join(run.outDir, `${run.base}.ipynb`);
  const environment = await runEnvironment(path.dirname(run.absolute), run.kernel, run.versions);
  markPending(nb);
  nb.metadata = {
    ...nb.metadata,
    papermill: papermillRun(
      run.params,
      { input: run.file, output: path.relative(process.cwd(), ipynbPath) || ipynbPath },
      durationMs,
      failure !== undefined,
    ),
    risk_portal_lab: {
      parameters: run.params,
      status: failure ? "failed" : "ok",
      duration_s: Math.round(durationMs / 100) / 10,
      ...(failure ? { failed_cell: failure.id ?? failure.codeCell } : {}),
      kernel: run.kernel,
      ...extra,
      environment,
      data_sources: takeDataSources(run.recordFile),
    },
  };
  const htmlPath = path.join(run.outDir, pageName(run.base));
  // Both replaced or neither: a page that no longer matches its notebook would be worse than the old pair.
  await replaceFiles(
    [
      { path: ipynbPath, data: JSON.stringify(nb, null, 1) + "\n" },
      { path: htmlPath, data: renderHtml(nb, { title: titleOf(nb) ?? run.base, failure }) },
    ],
    "runNotebook",
  );
  const result: RunResult = { notebook: nb, ipynbPath, htmlPath, durationMs, failure };
  if (failure) throw new NotebookError(describeFailure(run.file, failure, run.codeCells), result);
  return result;
}

/** The index page of an output directory (the batch writes it): no notebook's page takes this name. */
export const INDEX_PAGE = "index.html";

/**
 * The file name of a notebook's page in the output directory: `<name>.html`, but `index.ipynb.html` for
 * a notebook named `index` (any case: file systems that ignore it would still collide), since
 * `index.html` is the directory's index. Names already of that shape (`index.ipynb`) move on the same
 * way, so no two notebooks' pages ever share a name.
 */
export function pageName(base: string): string {
  return /^index(\.ipynb)*$/i.test(base) ? `${base}.ipynb.html` : `${base}.html`;
}

/** `notebooks/x.ipynb: code cell 6 of 7 (id "load") failed: const bad: number = "x";` then the error, indented. */
export function describeFailure(file: string, failure: CellFailure, codeCells: number): string {
  const firstLine =
    failure.source.split("\n").find((l) => l.trim() && !l.trim().startsWith("//")) ??
    failure.source.split("\n")[0] ??
    "";
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

export class CellTimeout extends Error {}

/** What a timed-out cell's error says. */
export const timeoutMessage = (ms: number): string => `the cell ran longer than ${ms / 1000} s and was interrupted`;

/** `promise`, or a CellTimeout after `ms` (calling `onTimeout` first, to interrupt the cell). */
export async function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new CellTimeout(timeoutMessage(ms)));
    }, ms);
    timer.unref?.();
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Most a code cell's stored outputs may hold, bytes (UTF-8): more is cut, with a note (see {@link CellOutputCap}). */
export const MAX_CELL_OUTPUT_BYTES = 10 * 1024 * 1024;

/**
 * One cell's budget of stored output, spent as the outputs arrive, so a cell printing 100 MB costs the
 * runner 10 MiB, not 100 MB and its copies in the `.ipynb` and `.html`. Printed text is kept up to the
 * limit (cut after the last whole line that fits, never inside a character), then nothing more of the
 * cell is kept: the stored outputs are always what the cell showed first. What was cut is counted for
 * {@link note}. Errors are not counted: they are always kept.
 */
export class CellOutputCap {
  #left: number;
  #cut = false;
  #bytes = 0;
  #newlines = 0;
  #midLine = false;
  #displays = 0;
  /** Whether the text kept so far ends a line (false while none is kept). */
  #keptLineEnd = false;

  constructor(readonly limit = MAX_CELL_OUTPUT_BYTES) {
    this.#left = limit;
  }

  /** Whether something was cut (and everything after it will be). */
  get cut(): boolean {
    return this.#cut;
  }

  /** The part of `text` to keep: all of it while it fits, then a prefix, then "". */
  text(text: string): string {
    if (this.#cut) return (this.#drop(text), "");
    const bytes = Buffer.byteLength(text);
    if (bytes <= this.#left) {
      this.#left -= bytes;
      if (text) this.#keptLineEnd = text.endsWith("\n");
      return text;
    }
    const fits = new TextEncoder().encodeInto(text, new Uint8Array(this.#left)).read ?? 0;
    const lineEnd = fits > 0 ? text.lastIndexOf("\n", fits - 1) : -1;
    // A line that does not fit is left out whole, unless nothing kept so far ended a line.
    const keep = lineEnd >= 0 ? lineEnd + 1 : this.#keptLineEnd ? 0 : fits;
    this.#cut = true;
    this.#drop(text.slice(keep));
    return text.slice(0, keep);
  }

  /** Whether a display or result with this data is kept (`previous`: the data it replaces, when it updates one). */
  display(data: unknown, previous?: unknown): boolean {
    if (!this.#cut) {
      const bytes = sizeOf(data) - (previous === undefined ? 0 : sizeOf(previous));
      if (bytes <= this.#left) {
        this.#left -= bytes;
        return true;
      }
      this.#cut = true;
    }
    this.#displays++;
    return false;
  }

  /** What was cut, as a line for the cell's output; undefined when nothing was. */
  note(): string | undefined {
    if (!this.#cut) return undefined;
    const n = (x: number, unit: string) => `${x.toLocaleString("en-US")} ${unit}${x === 1 ? "" : "s"}`;
    const lines = this.#newlines + (this.#midLine ? 1 : 0);
    const parts = [];
    if (this.#bytes) parts.push(`${n(this.#bytes, "byte")} (${n(lines, "line")}) of printed text`);
    if (this.#displays) parts.push(n(this.#displays, "display"));
    const MiB = 1024 * 1024;
    const limit = this.limit % MiB === 0 ? `${this.limit / MiB} MiB` : n(this.limit, "byte");
    return `[risk-portal-lab: this cell's output passed its limit of ${limit}; not kept: ${parts.join(" and ")}]\n`;
  }

  #drop(text: string): void {
    if (!text) return;
    this.#bytes += Buffer.byteLength(text);
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) this.#newlines++;
    this.#midLine = !text.endsWith("\n");
  }
}

/** The bytes a mime bundle takes in the notebook: its text values as UTF-8, other values as JSON. */
function sizeOf(data: unknown): number {
  const values = data && typeof data === "object" && !Array.isArray(data) ? Object.values(data) : [data];
  return values.reduce<number>(
    (sum, v) => sum + Buffer.byteLength(typeof v === "string" ? v : (JSON.stringify(v) ?? "")),
    0,
  );
}
