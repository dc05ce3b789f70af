/**
 * A worker process of a parallel batch (`runNotebooks` with `jobs` > 1, the demo): the parent forks it
 * and sends it one notebook at a time over IPC; it runs each with {@link runNotebook} in this process
 * (tslab's executor type-checks every cell, which is what the demo's time goes to: one process per core
 * runs the notebooks side by side) and sends back its cell events and its result. It exits when the
 * parent disconnects.
 */
import { NotebookError, runNotebook, type RunOptions } from "./runner";
import { describeRun, type BatchResult, type WorkerReply, type WorkerTask } from "./batch";

function send(message: WorkerReply): void {
  process.send?.(message);
}

async function runTask(task: WorkerTask): Promise<void> {
  const { file, options } = task;
  const t0 = performance.now();
  const runOptions: RunOptions = {
    ...options,
    onCell: ({ index, total }) => send({ kind: "cell", file, index, total }),
    onCellDone: (info) => send({ kind: "cellDone", file, info }),
  };
  let result: BatchResult;
  try {
    const r = await runNotebook(file, runOptions);
    result = describeRun(file, r.notebook, true, r.durationMs, { htmlPath: r.htmlPath, ipynbPath: r.ipynbPath });
  } catch (error) {
    const message = (error as Error).message;
    const partial = error instanceof NotebookError ? error.result : undefined;
    result = partial
      ? describeRun(file, partial.notebook, false, partial.durationMs, { htmlPath: partial.htmlPath, ipynbPath: partial.ipynbPath, error: message })
      : { file, ok: false, durationMs: performance.now() - t0, cells: 0, charts: 0, error: message };
  }
  send({ kind: "done", file, result });
}

// One notebook at a time: the runner owns the process (its stdout, environment and working directory)
// while a notebook runs.
let queue = Promise.resolve();
process.on("message", (task: WorkerTask) => {
  queue = queue.then(() => runTask(task));
});
process.on("disconnect", () => {
  void queue.then(() => process.exit(0));
});
