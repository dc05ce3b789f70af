/**
 * Ctrl-C (or a SIGTERM from a supervisor) sent to `run` reaches the worker processes running its notebooks:
 * a signal sent to the runner's process alone (`kill <pid>`, a CI job's timeout) would otherwise leave its
 * workers, and the kernels they started, running after it. Each live worker is sent the same signal (a
 * worker running Deno's kernel then stops the kernel and removes its connection file, as the runner did
 * before notebooks ran in workers), is waited for a moment, then killed; then the signal ends this process
 * as it would have, unless something else in it listens for the signal.
 */
import type { ChildProcess } from "node:child_process";

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
/** How long a worker gets to stop its kernel after the signal before it is killed. */
const WORKER_STOP_MS = 5000;

const live = new Set<ChildProcess>();

/** Forwards the signals to `child` until it exits. */
export function forwardSignals(child: ChildProcess): void {
  if (live.size === 0) for (const s of SIGNALS) process.on(s, onSignal);
  live.add(child);
  child.once("exit", () => {
    live.delete(child);
    if (live.size === 0) for (const s of SIGNALS) process.off(s, onSignal);
  });
}

function onSignal(signal: NodeJS.Signals): void {
  for (const s of SIGNALS) process.off(s, onSignal);
  const children = [...live];
  const exited = children.map(
    (child) =>
      new Promise<void>((resolve) =>
        child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve()),
      ),
  );
  for (const child of children) child.kill(signal);
  const force = setTimeout(() => children.forEach((child) => child.kill("SIGKILL")), WORKER_STOP_MS);
  void Promise.all(exited).then(() => {
    clearTimeout(force);
    // Whatever else listens decides; with nobody else, the signal ends the process as it would have.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  });
}
