/**
 * Running several notebooks: one line per notebook on the terminal, an index page linking the rendered
 * notebooks, and a summary. `runDemo` runs every showcase notebook against the embedded simulator.
 */
import { fork, type ChildProcess } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { mkdir, readdir, readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import { sourceOf, type Notebook } from "./ipynb";
import { withLockFile } from "../files/lock-file";
import { replaceFiles } from "../files/replace-files";
import { escapeHtml } from "../plot/labels";
import { markdownToHtml } from "./render-html";
import { INDEX_PAGE, newRecordFile } from "./run-shared";
import {
  DEFAULT_CELL_TIMEOUT_MS,
  NotebookError,
  keepConverters,
  runNotebook,
  titleOf,
  type CellDone,
  type KernelName,
  type RunOptions,
  type RunResult,
} from "./run";
import { writeCutRun, type CutCause, type CutRun } from "./cut-run";
import { forwardSignals } from "./worker-signals";
import type { Cell, Output } from "./ipynb";

export interface BatchOptions {
  params?: Record<string, unknown>;
  outDir: string;
  /** Result lines: one per notebook, then the summary. Default: nothing. */
  log?: (line: string) => void;
  /** Failure details (the cell and the error). Default: `log`. */
  logError?: (line: string) => void;
  /** Called before each code cell of each notebook (a progress display). */
  onCell?: (info: { file: string; index: number; total: number }) => void;
  /** Called after each code cell of each notebook, with how it ended and how long it took. */
  onCellDone?: (info: CellDone & { file: string }) => void;
  /** The kernel (`tslab` or `deno`; default: the notebook's kernelspec) and the deno executable (see `RunOptions`). */
  kernel?: KernelName;
  deno?: string;
  /** Environment for the notebooks (merged over process.env). */
  env?: Record<string, string | undefined>;
  /** Longest a cell may run, ms (see `RunOptions.cellTimeoutMs`). */
  cellTimeoutMs?: number;
  /**
   * How many notebooks run at once, each in a worker process of its own (tslab's executor type-checks
   * every cell: the notebooks' time is CPU, so one per core). Default 1: one after the other, in this
   * process. Results and the index keep the notebooks' order either way.
   */
  jobs?: number;
  /**
   * Run the notebooks in a worker process even one at a time (the CLI's `run` and `demo` do): a cell that
   * ends its process (`process.exit`) or never gives it back (`await null; while (true) {}`, which no
   * timer in that process can stop) fails its notebook, written up to that cell, at the cell's timeout.
   * Default false: with `jobs` 1, the notebooks run in this process.
   */
  isolate?: boolean;
  /** Title of the index page. Default `risk-portal-lab notebooks`. */
  title?: string;
  /** A line under the title of the index page (what the notebooks ran against). */
  note?: string;
  /**
   * Add a static image (`image/png`) to every chart of the executed notebooks once they have all run, drawn
   * in one headless Chromium for the batch (see chart-images.ts). Default false; the CLI's `run` and `demo`
   * turn it on (`--no-images` off).
   */
  images?: boolean;
}

/** One run of a batch: a notebook, and (a grid's run) its own parameters and the name of its outputs. */
export interface NotebookRun {
  file: string;
  /** This run's parameters. Default: the batch's `params`. */
  params?: Record<string, unknown>;
  /** The name of its outputs, `<name>.ipynb` and its page. Default: the notebook's own name. */
  name?: string;
}

/** One notebook of a batch. */
export interface BatchResult {
  file: string;
  /** The name of its outputs, when it is not the notebook's own (a grid's run), and its parameters then. */
  name?: string;
  params?: Record<string, unknown>;
  ok: boolean;
  durationMs: number;
  /** The rendered and the executed notebook (also written when a cell failed). */
  htmlPath?: string;
  ipynbPath?: string;
  /** The notebook's first heading. */
  title?: string;
  /** Its first paragraph of prose (markdown). */
  summary?: string;
  /** Code cells run, and charts (plotly outputs) shown. */
  cells: number;
  charts: number;
  error?: string;
}

export interface BatchSummary {
  results: BatchResult[];
  failed: number;
  durationMs: number;
  indexPath: string;
}

const PLOTLY_MIME = "application/vnd.plotly.v1+json";

/**
 * Runs notebooks (one after the other, or `jobs` at a time in worker processes); a failure does not stop
 * the others. A run may be a notebook with its own parameters and output name ({@link NotebookRun}).
 */
export async function runNotebooks(
  notebooks: readonly (string | NotebookRun)[],
  options: BatchOptions,
): Promise<BatchSummary> {
  const files = notebooks.map((n): NotebookRun => (typeof n === "string" ? { file: n } : n));
  const log = options.log ?? (() => undefined);
  const logError = options.logError ?? log;
  const started = performance.now();
  const outDir = path.resolve(options.outDir);
  await mkdir(outDir, { recursive: true });
  const width = Math.max(0, ...files.map((f) => runName(f).length));
  const report = (r: BatchResult) => {
    const name = runName(r).padEnd(width);
    if (!r.ok) return logError(`✘ ${r.error}`);
    const what = `${count(r.cells, "cell")}, ${count(r.charts, "chart")}`.padEnd(19);
    log(`✔ ${name}  ${what}${seconds(r.durationMs).padStart(6)}  → ${relative(r.htmlPath!)}${pageMoved(r)}`);
  };
  const jobs = Math.min(files.length, Math.max(1, Math.floor(options.jobs ?? 1)));
  const worker = jobs > 1 || options.isolate ? workerScript() : undefined;
  const run = { ...options, outDir };
  const results = worker
    ? await runInWorkers(worker, files, run, jobs, report)
    : await runInProcess(files, run, report);
  if (options.images) await addImages(results, log, logError);
  const indexPath = path.join(outDir, INDEX_PAGE);
  const failed = results.filter((r) => !r.ok).length;
  const durationMs = performance.now() - started;
  const params = Object.entries(options.params ?? {}).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  const note = [options.note, params.length ? `Parameters: ${params.join(", ")}.` : undefined]
    .filter(Boolean)
    .join(" ");
  await writeIndex(outDir, results, options.title ?? "risk-portal-lab notebooks", note);
  const passed = results.length - failed;
  log(
    `${failed ? `${failed} failed, ${passed} passed` : `${count(passed, "notebook")} passed`} in ${seconds(durationMs)} → open ${relative(indexPath)}`,
  );
  return { results, failed, durationMs, indexPath };
}

/** Static images for the charts of the notebooks that were written (chart-images.ts), and the lines saying so. */
async function addImages(
  results: readonly BatchResult[],
  log: (line: string) => void,
  logError: (line: string) => void,
): Promise<void> {
  const { addChartImages, describeChartImages } = await import("./chart-images");
  const written = results.filter((r) => r.charts > 0 && r.ipynbPath).map((r) => r.ipynbPath!);
  if (written.length) describeChartImages(await addChartImages(written), log, logError);
}

/** The options of one notebook's run that cross to a worker process (the callbacks stay here). */
function taskOptions(options: BatchOptions, run: NotebookRun): WorkerTask["options"] {
  const { outDir, env, cellTimeoutMs, kernel, deno } = options;
  const params = run.params ?? options.params;
  return { params, outDir, env, cellTimeoutMs, kernel, deno, ...(run.name ? { outputName: run.name } : {}) };
}

/** The name of a run's outputs: its own (a grid's run), else the notebook's. */
function runName(run: { file: string; name?: string }): string {
  return run.name ?? path.basename(run.file, ".ipynb");
}

/** A run's result, with its name and parameters when it has a name of its own. */
function named(result: BatchResult, run: NotebookRun): BatchResult {
  return run.name ? { ...result, name: run.name, params: run.params ?? {} } : result;
}

/** Says why a notebook's page is not `<name>.html` (`index`: see `pageName`); "" when it is. */
function pageMoved(r: BatchResult): string {
  const page = r.htmlPath ? path.basename(r.htmlPath) : undefined;
  return page && page !== `${runName(r)}.html` ? ` (not ${INDEX_PAGE}: that name is the index of the directory)` : "";
}

/** Each notebook in this process with a fresh executor, one after the other. */
async function runInProcess(
  files: readonly NotebookRun[],
  options: BatchOptions,
  report: (r: BatchResult) => void,
): Promise<BatchResult[]> {
  const results: BatchResult[] = [];
  // The notebooks of a batch share tslab's converters (its TypeScript program), closed at the end.
  keepConverters(true);
  try {
    for (const task of files) {
      const { file } = task;
      const runOptions: RunOptions = taskOptions(options, task);
      if (options.onCell) runOptions.onCell = ({ index, total }) => options.onCell!({ file, index, total });
      if (options.onCellDone) runOptions.onCellDone = (info) => options.onCellDone!({ ...info, file });
      const r = named(await runOne(file, runOptions), task);
      results.push(r);
      report(r);
    }
  } finally {
    keepConverters(false);
  }
  return results;
}

/** Runs one notebook (in this process: the batch's own, or a worker's) and says how it went; never throws. */
export async function runOne(file: string, runOptions: RunOptions): Promise<BatchResult> {
  return settleRun(file, () => runNotebook(file, runOptions));
}

/** A notebook's run (or the writing of one cut short) as its batch line; never throws. */
async function settleRun(file: string, run: () => Promise<RunResult>): Promise<BatchResult> {
  const t0 = performance.now();
  try {
    const r = await run();
    return describeRun(file, r.notebook, true, r.durationMs, { htmlPath: r.htmlPath, ipynbPath: r.ipynbPath });
  } catch (error) {
    const message = (error as Error).message;
    const partial = error instanceof NotebookError ? error.result : undefined;
    return partial
      ? describeRun(file, partial.notebook, false, partial.durationMs, {
          htmlPath: partial.htmlPath,
          ipynbPath: partial.ipynbPath,
          error: message,
        })
      : { file, ok: false, durationMs: performance.now() - t0, cells: 0, charts: 0, error: message };
  }
}

/** What a batch worker is sent: one notebook, and the options of its run. */
export interface WorkerTask {
  file: string;
  options: Pick<
    RunOptions,
    "params" | "outDir" | "env" | "cellTimeoutMs" | "kernel" | "deno" | "outputName" | "recordFile"
  >;
}

/**
 * What a batch worker sends back, one JSON line each on its own pipe (the worker's file descriptor
 * {@link REPORT_FD}): a cell starting, its code running (after the type-check), the cell ended (as
 * stored), the notebook's result; and `exit` when code in the worker calls `process.exit`.
 */
export type WorkerReply =
  | { kind: "cell"; file: string; index: number; total: number }
  | { kind: "running"; file: string; index: number }
  | { kind: "cellDone"; file: string; info: CellDone; cell: Pick<Cell, "outputs" | "execution_count" | "metadata"> }
  | { kind: "exit"; file: string; code: number; outputs?: Output[] | undefined }
  | { kind: "done"; file: string; result: BatchResult };

/** The worker's file descriptor for its reports (0-2 are its stdio, 3 the IPC channel that brings its notebooks). */
export const REPORT_FD = 4;

/**
 * How long after a cell's timeout a worker whose cell's code started and has not ended is stopped, ms.
 * The worker interrupts the cell itself at the timeout; one that cannot (its process never yields) is
 * killed here.
 */
const WATCH_GRACE_MS = 1000;

/**
 * The worker script beside this module (dist/notebook/batch-worker.js); from the TypeScript sources (the
 * tests), the built one in dist/. Undefined when neither exists: the batch then runs in this process.
 */
function workerScript(): string | undefined {
  const candidates = [
    path.join(__dirname, "batch-worker.js"),
    path.resolve(__dirname, "..", "..", "dist", "notebook", "batch-worker.js"),
  ];
  return candidates.find((f) => existsSync(f));
}

/**
 * `jobs` worker processes take the notebooks in order, one at a time each; the results are reported in
 * the notebooks' order (a line as soon as every notebook before it has ended), cell events as they come.
 */
async function runInWorkers(
  script: string,
  files: readonly NotebookRun[],
  options: BatchOptions,
  jobs: number,
  report: (r: BatchResult) => void,
): Promise<BatchResult[]> {
  const results = new Array<BatchResult | undefined>(files.length);
  let next = 0;
  let reported = 0;
  const onReply = (reply: WorkerReply) => {
    if (reply.kind === "cell") options.onCell?.({ file: reply.file, index: reply.index, total: reply.total });
    else if (reply.kind === "cellDone") options.onCellDone?.({ ...reply.info, file: reply.file });
  };
  const lane = async () => {
    let worker: BatchWorker | undefined;
    try {
      while (next < files.length) {
        const i = next++;
        worker ??= new BatchWorker(script, options.isolate ? process.execArgv : []);
        // The supervisor names the file of its data sources: it writes the notebook when the worker dies.
        const task = {
          file: files[i]!.file,
          options: { ...taskOptions(options, files[i]!), recordFile: newRecordFile() },
        };
        results[i] = named(await worker.run(task, onReply), files[i]!);
        if (!worker.alive) worker = undefined;
        while (reported < files.length && results[reported]) report(results[reported++]!);
      }
    } finally {
      worker?.close();
    }
  };
  await Promise.all(Array.from({ length: jobs }, lane));
  return results as BatchResult[];
}

/** Output a worker printed outside any cell, kept (its last 16 KiB) to explain a worker that died. */
const WORKER_OUTPUT_KEPT = 16 * 1024;

/** How long the reports a dead worker wrote last may take to arrive after its exit, ms (its pipe may outlive it: see {@link BatchWorker}). */
const REPORTS_DRAIN_MS = 200;

/** What a worker reported of the notebook it runs, and how it ended (`exit`: the code it called process.exit with). */
type WorkerCut = Omit<CutRun, "cause" | "cells"> & {
  cells: Map<number, Pick<Cell, "outputs" | "execution_count" | "metadata">>;
  timeoutMs: number;
  exit?: number;
  /** Killed by the watch: a cell's code ran past its timeout without yielding. */
  stopped?: boolean;
};

/** One worker process of a batch (batch-worker.ts), and the watch over the notebook it runs. */
class BatchWorker {
  private readonly child: ChildProcess;
  private output = "";
  private ended: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private waiting: ((reply: WorkerReply | undefined) => void) | undefined;
  private onReply: (reply: WorkerReply) => void = () => undefined;
  /** The notebook running now, as reported so far. */
  private cut: WorkerCut = BatchWorker.fresh(0);
  private watch: NodeJS.Timeout | undefined;

  /** `execArgv`: Node's options for the worker (the CLI's own, `--max-old-space-size` say; none from a test runner). */
  constructor(script: string, execArgv: string[]) {
    this.child = fork(script, [], {
      execArgv,
      serialization: "advanced",
      stdio: ["ignore", "pipe", "pipe", "ipc", "pipe"],
    });
    forwardSignals(this.child);
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString("utf8")).slice(-WORKER_OUTPUT_KEPT));
    this.child.stdout!.on("data", keep);
    this.child.stderr!.on("data", keep);
    this.readReports(this.child.stdio[REPORT_FD] as NodeJS.ReadableStream);
    this.child.on("exit", (code, signal) => {
      clearTimeout(this.watch);
      this.ended = { code, signal };
      // The pipe may be held open by a process the notebook started (it inherits the descriptor): what the
      // worker wrote is read within moments of its exit, then its end is not waited for.
      setTimeout(() => this.waiting?.(undefined), REPORTS_DRAIN_MS);
    });
  }

  private static fresh(timeoutMs: number): WorkerCut {
    return { cells: new Map(), lastDone: 0, started: performance.now(), timeoutMs };
  }

  /** One JSON line per report (batch-worker.ts writes them whole, in order). */
  private readReports(stream: NodeJS.ReadableStream): void {
    let pending: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => {
      let start = 0;
      for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
        pending.push(chunk.subarray(start, nl));
        const line = Buffer.concat(pending).toString("utf8");
        pending = [];
        start = nl + 1;
        let reply: WorkerReply;
        try {
          reply = JSON.parse(line) as WorkerReply;
        } catch {
          // Not a report (notebook code that wrote to this descriptor): kept with the worker's output.
          this.output = `${this.output}${line}\n`.slice(-WORKER_OUTPUT_KEPT);
          continue;
        }
        this.receive(reply);
      }
      if (start < chunk.length) pending.push(chunk.subarray(start));
    });
  }

  private receive(reply: WorkerReply): void {
    const cut = this.cut;
    if (reply.kind === "done") return (clearTimeout(this.watch), this.waiting?.(reply));
    if (reply.kind === "exit") {
      cut.exit = reply.code;
      cut.runningOutputs = reply.outputs;
      return;
    }
    if (reply.kind === "running") {
      // The cell's code started: past its timeout (and the worker's own interrupt), the worker is stopped.
      clearTimeout(this.watch);
      this.watch = setTimeout(() => this.stop(), cut.timeoutMs + WATCH_GRACE_MS);
      return;
    }
    if (reply.kind === "cell") cut.running = { codeIndex: reply.index, since: performance.now() };
    else {
      clearTimeout(this.watch);
      cut.running = undefined;
      cut.lastDone = reply.info.index;
      cut.cells.set(reply.info.index, reply.cell);
    }
    this.onReply(reply);
  }

  /** A cell that never gave its process back: the worker is killed, and the notebook written here. */
  private stop(): void {
    this.cut.stopped = true;
    this.child.kill("SIGKILL");
  }

  get alive(): boolean {
    return this.ended === undefined;
  }

  /** Runs one notebook; a worker that dies on the way (or is stopped) gives a failed result saying how, its notebook written up to the cell it was running. */
  async run(task: WorkerTask, onReply: (reply: WorkerReply) => void): Promise<BatchResult> {
    const t0 = performance.now();
    this.onReply = onReply;
    this.cut = BatchWorker.fresh(task.options.cellTimeoutMs ?? DEFAULT_CELL_TIMEOUT_MS);
    const reply = await new Promise<WorkerReply | undefined>((resolve) => {
      this.waiting = resolve;
      if (this.ended) resolve(undefined);
      else this.child.send(task);
    });
    this.waiting = undefined;
    if (reply?.kind === "done") return reply.result;
    const cause = this.cause();
    const cellDone = (info: CellDone) => onReply({ kind: "cellDone", file: task.file, info, cell: { metadata: {} } });
    const written = await settleRun(task.file, async () => {
      const r = await writeCutRun(task.file, { ...task.options, onCellDone: cellDone }, { ...this.cut, cause });
      if (!r) throw new Error("no cell ran");
      return r;
    });
    if (written.htmlPath) return written;
    // No cell ran, so no notebook was written to take the record of its data sources.
    if (task.options.recordFile) rmSync(task.options.recordFile, { force: true });
    const how = this.ended?.signal ? `was killed (${this.ended.signal})` : `exited with code ${this.ended?.code}`;
    const tail = this.output.trim().split("\n").slice(-20).join("\n");
    const error = `${path.basename(task.file)}: the worker process running it ${how} before the notebook ended${tail ? `; it printed:\n${tail}` : ""}`;
    return { file: task.file, ok: false, durationMs: performance.now() - t0, cells: 0, charts: 0, error };
  }

  /** Why the worker ended before its notebook: stopped by the watch, `process.exit`, or otherwise. */
  private cause(): CutCause {
    if (this.cut.stopped) return { kind: "timeout", ms: this.cut.timeoutMs };
    if (this.cut.exit !== undefined) return { kind: "exit", code: this.cut.exit };
    return { kind: "died", code: this.ended?.code ?? null, signal: this.ended?.signal ?? null, output: this.output };
  }

  close(): void {
    if (this.alive && this.child.connected) this.child.disconnect();
  }
}

/** The showcase notebooks of this repository (`notebooks/*.ipynb`, in name order). */
export async function demoNotebooks(): Promise<string[]> {
  const dir = path.resolve(__dirname, "..", "..", "notebooks");
  if (!existsSync(dir))
    throw new Error(`no notebooks/ directory at ${dir}: the demo runs from a clone of the repository`);
  const files = (await readdir(dir)).filter((f) => f.endsWith(".ipynb")).sort();
  if (files.length === 0) throw new Error(`no notebooks in ${dir}`);
  return files.map((f) => path.join(dir, f));
}

/**
 * The showcase notebooks, run against the embedded simulator whatever the environment says (each
 * notebook's `connect()` starts one in its process, with the fixed data of 2026-11-20); with
 * `replay: true`, from their cassettes in `fixtures/cassettes/` instead (no server at all). As many at
 * once as there are cores (`jobs`), each in a worker process.
 */
export async function runDemo(options: Omit<BatchOptions, "params"> & { replay?: boolean }): Promise<BatchSummary> {
  const { replay, ...rest } = options;
  const files = await demoNotebooks();
  return runNotebooks(files, {
    title: "risk-portal-lab demo",
    note: replay
      ? "Each notebook ran headless, offline, replaying its cassette (fixtures/cassettes/, recorded against the embedded simulator: seed 1, data as of 2026-11-20); no server was contacted."
      : "Each notebook ran headless against an embedded simulator of the service, started in its own process (seed 1, data as of 2026-11-20).",
    jobs: availableParallelism(),
    ...rest,
    ...(replay ? { params: { replay: true } } : {}),
    env: { ...options.env, RISK_PORTAL_BASE_URL: "" },
  });
}

/** A notebook's line in the batch: cells run, charts shown, its title and first paragraph. */
export function describeRun(
  file: string,
  nb: Notebook,
  ok: boolean,
  durationMs: number,
  extra: Partial<BatchResult>,
): BatchResult {
  const code = nb.cells.filter((c) => c.cell_type === "code" && c.execution_count != null);
  const charts = code
    .flatMap((c) => c.outputs ?? [])
    .filter(
      (o) => (o.output_type === "display_data" || o.output_type === "execute_result") && o.data[PLOTLY_MIME],
    ).length;
  const result: BatchResult = { file, ok, durationMs, cells: code.length, charts, ...extra };
  const title = titleOf(nb);
  if (title) result.title = title;
  const prose = nb.cells.find((c) => c.cell_type === "markdown");
  const paragraph = prose
    ? sourceOf(prose)
        .split(/\n\s*\n/)
        .map((p) => p.trim())
        .find((p) => p && !p.startsWith("#"))
    : undefined;
  if (paragraph) result.summary = paragraph;
  return result;
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function relative(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel.startsWith("..") ? file : rel;
}

/** What the index remembers of a notebook run into the directory (paths relative to it). */
interface IndexEntry {
  name: string;
  ok: boolean;
  durationMs: number;
  cells: number;
  charts: number;
  html?: string;
  ipynb?: string;
  title?: string;
  summary?: string;
  error?: string;
  /** Its own parameters (a grid's run). */
  params?: Record<string, unknown>;
  /** When it ran (ISO), and what the batch it ran in said of itself. */
  ranAt: string;
  note?: string;
}

const MANIFEST = "index.json";
/** Held while a batch updates the index (see `withLockFile`): removed after, taken over when its holder is gone. */
const INDEX_LOCK = "index.lock";

/**
 * Writes `index.html` listing every notebook run into `outDir`, not only this batch's: each batch
 * records its notebooks in `index.json` beside it (a notebook run again replaces its entry; one whose
 * rendering is gone is dropped), and the page lists them all, by name. Several batches may write into one
 * directory at once: each updates the index under the lock file `index.lock`, so every entry is kept.
 */
export async function writeIndex(
  outDir: string,
  results: readonly BatchResult[],
  title: string,
  note: string,
  now = new Date(),
): Promise<string> {
  const rel = (file: string | undefined) => (file ? path.relative(outDir, file).split(path.sep).join("/") : undefined);
  const ranAt = now.toISOString();
  const fresh: IndexEntry[] = results.map((r) => ({
    name: runName(r),
    ...(r.params && Object.keys(r.params).length ? { params: r.params } : {}),
    ok: r.ok,
    durationMs: r.durationMs,
    cells: r.cells,
    charts: r.charts,
    ...(r.htmlPath ? { html: rel(r.htmlPath) } : {}),
    ...(r.ipynbPath ? { ipynb: rel(r.ipynbPath) } : {}),
    ...(r.title ? { title: r.title } : {}),
    ...(r.summary ? { summary: r.summary } : {}),
    ...(r.error ? { error: r.error } : {}),
    ranAt,
    ...(note ? { note } : {}),
  }));
  const names = new Set(fresh.map((e) => e.name));
  const indexPath = path.join(outDir, INDEX_PAGE);
  await mkdir(outDir, { recursive: true });
  // Under the lock from the read to the rename: runs into one directory at once each add their entries
  // to what the one before them wrote, none lost.
  await withLockFile(path.join(outDir, INDEX_LOCK), "writeIndex", async () => {
    // An entry whose page was index.html (a notebook named index, run by an earlier version) would link
    // the index to itself: it goes, as one whose page is gone.
    const earlier = (await readManifest(outDir)).filter(
      (e) =>
        !names.has(e.name) &&
        e.html !== undefined &&
        e.html.toLowerCase() !== INDEX_PAGE &&
        existsSync(path.join(outDir, e.html)),
    );
    const entries = [...earlier, ...fresh].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    await replaceFiles(
      [
        { path: path.join(outDir, MANIFEST), data: `${JSON.stringify({ notebooks: entries }, null, 1)}\n` },
        { path: indexPath, data: indexPage(entries, title, note, ranAt) },
      ],
      "writeIndex",
    );
  });
  return indexPath;
}

/** The entries of an earlier `index.json`; none when there is none or it cannot be read. */
async function readManifest(outDir: string): Promise<IndexEntry[]> {
  try {
    const parsed = JSON.parse(await readFile(path.join(outDir, MANIFEST), "utf8")) as { notebooks?: unknown };
    return Array.isArray(parsed.notebooks)
      ? (parsed.notebooks as IndexEntry[]).filter((e) => e && typeof e.name === "string" && typeof e.ranAt === "string")
      : [];
  } catch {
    return [];
  }
}

/**
 * A link to a file of the output directory (`file`: its path there, `/`-separated): `./` and each part
 * URL-encoded, so that a notebook's name is only ever a file name: `javascript:x.html` is not a scheme,
 * and `#` or `?` in it are not a fragment or a query.
 */
function relativeHref(file: string): string {
  return `./${file.split("/").map(encodeURIComponent).join("/")}`;
}

function indexPage(entries: readonly IndexEntry[], title: string, note: string, ranAt: string): string {
  const link = (file: string | undefined, text: string) =>
    file ? `<a href="${escapeHtml(relativeHref(file))}">${text}</a>` : text;
  const rows = entries
    .map((r) => {
      const heading = `${link(r.html, escapeHtml(r.title ?? r.name))} <span class="file">${escapeHtml(r.name)}.ipynb</span>`;
      const about = r.summary ? markdownToHtml(r.summary) : "";
      const error = r.error ? `<pre class="error">${escapeHtml(r.error)}</pre>` : "";
      const earlier =
        r.ranAt === ranAt
          ? ""
          : ` · an earlier run, ${escapeHtml(r.ranAt.slice(0, 16).replace("T", " "))} UTC${r.note ? `: ${escapeHtml(r.note)}` : ""}`;
      const params = r.params
        ? `parameters ${Object.entries(r.params)
            .map(([k, v]) => `<code>${escapeHtml(`${k}=${JSON.stringify(v)}`)}</code>`)
            .join(", ")} · `
        : "";
      const stats = `${params}${count(r.cells, "cell")} · ${count(r.charts, "chart")} · ${seconds(r.durationMs)} · ${link(r.ipynb, "executed .ipynb")}${earlier}`;
      return `<li class="${r.ok ? "ok" : "failed"}"><h2><span class="mark">${r.ok ? "✔" : "✘"}</span> ${heading}</h2>${about}<p class="stats">${stats}</p>${error}</li>`;
    })
    .join("\n");
  const failed = entries.filter((r) => !r.ok).length;
  const status = failed ? `${failed} of ${entries.length} notebooks failed` : `all ${entries.length} notebooks ran`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:900px;margin:2rem auto;padding:0 1rem;color:#1f2328}
ul{list-style:none;padding:0}li{border-bottom:1px solid #eaeef2;padding:.4rem 0 .8rem}h2{font-size:1.15rem;margin:.4rem 0}
.mark{color:#1a7f37}.failed .mark{color:#cf222e}.file,.stats{color:#6e7781;font-size:13px}.file{font-weight:normal;margin-left:.4rem}
pre.error{background:#ffebe9;border:1px solid #cf222e;padding:.5rem;border-radius:6px;white-space:pre-wrap;font-size:12px}
</style></head>
<body><h1>${escapeHtml(title)}</h1><p>${status}.${note ? ` ${escapeHtml(note)}` : ""}</p>
<ul>
${rows}
</ul></body></html>
`;
}
