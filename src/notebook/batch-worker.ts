/**
 * A worker process of a parallel batch (`runNotebooks` with `jobs` > 1, the demo): the parent forks it
 * and sends it one notebook at a time over IPC; it runs each in this process with {@link runOne}, as the
 * batch would in its own (tslab's executor type-checks every cell, which is what the demo's time goes
 * to: one process per core runs the notebooks side by side), and sends back its cell events and its
 * result. It exits when the parent disconnects.
 */
import { keepConverters, type RunOptions } from "./runner";
import { runOne, type WorkerReply, type WorkerTask } from "./batch";

function send(message: WorkerReply): void {
  process.send?.(message);
}

async function runTask(task: WorkerTask): Promise<void> {
  const { file, options } = task;
  const runOptions: RunOptions = {
    ...options,
    onCell: ({ index, total }) => send({ kind: "cell", file, index, total }),
    onCellDone: (info) => send({ kind: "cellDone", file, info }),
  };
  send({ kind: "done", file, result: await runOne(file, runOptions) });
}

// Its notebooks share tslab's converters (the TypeScript program each notebook's first cell would build
// again); the process exits when the batch ends.
keepConverters(true);

// One notebook at a time: the runner owns the process (its stdout, environment and working directory)
// while a notebook runs.
let queue = Promise.resolve();
process.on("message", (task: WorkerTask) => {
  queue = queue.then(() => runTask(task));
});
process.on("disconnect", () => {
  void queue.then(() => process.exit(0));
});
