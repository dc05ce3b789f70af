/**
 * A worker process of a batch (`runNotebooks` with `jobs` > 1 or `isolate`: the demo, the CLI's `run`):
 * the parent forks it and sends it one notebook at a time over IPC; it runs each in this process with
 * {@link runOne}, as the batch would in its own (tslab's executor type-checks every cell, which is what
 * the demo's time goes to: one process per core runs the notebooks side by side), and reports back its
 * cell events, each cell as stored, and its result. It exits when the parent disconnects.
 *
 * Reports go on their own pipe ({@link REPORT_FD}), written synchronously: each is out before the next
 * line of the notebook runs, so the parent has every report of a cell that then never yields (the
 * parent stops this process at the cell's timeout) or ends the process (`process.exit` in a cell).
 */
import { writeSync } from "node:fs";
import { keepConverters, runningCellOutputs, type RunOptions } from "./run";
import { REPORT_FD, runOne, type WorkerReply, type WorkerTask } from "./batch";

let parentGone = false;

function send(message: WorkerReply): void {
  if (parentGone) return;
  const bytes = Buffer.from(`${JSON.stringify(message)}\n`);
  try {
    for (let at = 0; at < bytes.length;) at += writeSync(REPORT_FD, bytes, at);
  } catch {
    // The parent is gone (EPIPE): nobody to report to; the process ends on the IPC disconnect.
    parentGone = true;
  }
}

/** The notebook and code cell running now (the 'exit' report names them). */
let running: { file: string; index: number } | undefined;

async function runTask(task: WorkerTask): Promise<void> {
  const { file, options } = task;
  const runOptions: RunOptions = {
    ...options,
    onCell: ({ index, total }) => {
      running = { file, index };
      send({ kind: "cell", file, index, total });
    },
    onCellRunning: () => running && send({ kind: "running", file, index: running.index }),
    onCellDone: (info, cell) => {
      running = undefined;
      send({
        kind: "cellDone",
        file,
        info,
        cell: { outputs: cell.outputs, execution_count: cell.execution_count, metadata: cell.metadata },
      });
    },
  };
  const result = await runOne(file, runOptions);
  running = undefined;
  send({ kind: "done", file, result });
}

// Its notebooks share tslab's converters (the TypeScript program each notebook's first cell would build
// again); the process exits when the batch ends.
keepConverters(true);

// Code in a notebook that calls process.exit: the parent learns it was that (and the code), not a crash.
// What the cell had shown by then goes with it.
process.on("exit", (code) => send({ kind: "exit", file: running?.file ?? "", code, outputs: runningCellOutputs() }));

// One notebook at a time: the runner owns the process (its stdout, environment and working directory)
// while a notebook runs.
let queue = Promise.resolve();
process.on("message", (task: WorkerTask) => {
  queue = queue.then(() => runTask(task));
});
process.on("disconnect", () => {
  void queue.then(() => process.exit(0));
});
