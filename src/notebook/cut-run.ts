/**
 * A notebook whose worker process ended (or was stopped) before the notebook did: the supervising
 * process writes it from what the worker reported, the cells that ended with their outputs, the cell
 * that was running when the process went failed with what happened to it, the cells after it not run.
 * A cell that calls `process.exit(0)` is a failed run, not a pass; a cell that never gives the process
 * back (`await null; while (true) {}`) is stopped at its timeout, and the notebook is still written.
 */
import { sourceOf, type Cell, type CellFailure, type Output } from "./ipynb";
import { notebookKernel, prepareRun, reportCell, writeOutputs, type RunOptions, type RunResult } from "./run-shared";

/** How the worker's process ended before the notebook did. */
export type CutCause =
  /** The supervisor stopped it: a cell's code ran past its timeout without yielding (`ms`: the timeout). */
  | { kind: "timeout"; ms: number }
  /** Code in it called `process.exit(code)`. */
  | { kind: "exit"; code: number }
  /** It ended otherwise: killed by a signal, or an exit that ran no exit handlers (`output`: what it printed last). */
  | { kind: "died"; code: number | null; signal: string | null; output: string };

/** What the worker reported of a notebook before its process ended. */
export interface CutRun {
  /** The code cells that ended (1-based), as they are stored. */
  cells: ReadonlyMap<number, Pick<Cell, "outputs" | "execution_count" | "metadata">>;
  /** The code cell running when the process ended (1-based), and since when (performance.now()); none between cells. */
  running?: { codeIndex: number; since: number };
  /** What the running cell had shown when its process ended (when the process could say: `process.exit`). */
  runningOutputs?: Output[] | undefined;
  /** The last code cell that ended (0: none). */
  lastDone: number;
  cause: CutCause;
  /** When the notebook started (performance.now()). */
  started: number;
}

/**
 * Writes the notebook up to the cell that was running when its process ended (or, between cells, the
 * last that ended), that cell failed with the cause, and tells `onCellDone` about a running cell.
 * Rejects with NotebookError, as a run whose cell failed does; resolves with undefined when no cell had
 * started (nothing to write: the caller says how the process ended).
 */
export async function writeCutRun(file: string, options: RunOptions, cut: CutRun): Promise<RunResult | undefined> {
  const codeIndex = cut.running?.codeIndex ?? cut.lastDone;
  if (codeIndex === 0) return undefined;
  const run = await prepareRun(file, { ...options, kernel: options.kernel ?? (await notebookKernel(file)) });
  const code = run.nb.cells.filter((c) => c.cell_type === "code");
  code.forEach((cell, i) => {
    const done = cut.cells.get(i + 1);
    cell.outputs = done?.outputs ?? [];
    cell.execution_count = done ? (done.execution_count ?? null) : null;
    // How long it ran, as the worker stamped it (see run-record.ts).
    const record = done?.metadata?.papermill;
    if (record) cell.metadata = { ...cell.metadata, papermill: record };
  });
  const cell = code[codeIndex - 1]!;
  const { ename, evalue } = cutError(cut, codeIndex);
  const error: Output = { output_type: "error", ename, evalue, traceback: [`${ename}: ${evalue}`] };
  cell.outputs = [...(cut.running ? (cut.runningOutputs ?? []) : (cell.outputs ?? [])), error];
  cell.execution_count = codeIndex;
  const failure: CellFailure = {
    index: run.nb.cells.indexOf(cell),
    codeCell: codeIndex,
    source: sourceOf(cell),
    ename,
    error: `${ename}: ${evalue}`,
  };
  if (cell.id) failure.id = cell.id;
  if (cut.running)
    reportCell(options, run.codeCells, { cell, codeIndex }, failure, performance.now() - cut.running.since);
  return writeOutputs(run, failure, performance.now() - cut.started, { ended: cut.cause.kind });
}

/** The failed cell's error: what ended the process, and when. */
function cutError(cut: CutRun, codeIndex: number): { ename: string; evalue: string } {
  const { cause } = cut;
  if (cause.kind === "timeout")
    return {
      ename: "CellTimeout",
      evalue: `the cell ran longer than ${cause.ms / 1000} s and was interrupted: its code never gave the process back (a loop after an await, say), so the runner stopped the notebook's process; what the cell printed is not kept`,
    };
  const when = cut.running
    ? ""
    : ` after cell ${codeIndex} ended (code it left running, a timer say), before the notebook ended; the cells after it did not run`;
  if (cause.kind === "exit")
    return {
      ename: "ProcessExit",
      evalue: cut.running
        ? `cell ${codeIndex} called process.exit(${cause.code}): the notebook's process ended there, and the cells after it did not run`
        : `process.exit(${cause.code}) was called${when}`,
    };
  const how = cause.signal ? `was killed (${cause.signal})` : `exited with code ${cause.code}`;
  const tail = cause.output.trim().split("\n").slice(-20).join("\n");
  return {
    ename: "KernelDied",
    evalue: `the notebook's process ${how}${cut.running ? ` while cell ${codeIndex} ran` : when}${tail ? `; it printed:\n${tail}` : ""}`,
  };
}
