/**
 * A worker thread of {@link fillBlack76Parallel}'s pool: waits (Atomics.wait) for a window in the shared
 * block, claims chunks of it until none is left, runs the same kernel as the calling thread on each (inputs
 * and outputs in the shared block), marks each chunk done, then the window. Started by that pool only.
 */
import { workerData } from "node:worker_threads";
import { fillBlack76 } from "./kernel";
import { CHUNK_OPTIONS, CTRL, OWNER, blockViews, outputPart, type SharedBlock } from "./shared";

const { block, index } = workerData as { block: SharedBlock; index: number };
const v = blockViews(block);
const ctrl = v.control;

/** Claims and computes chunks of the current window until none is left. */
function work(): void {
  const p = v.params;
  const [F, sqrtT, DF, r] = [p[0]!, p[1]!, p[2]!, p[3]!];
  const call = p[4] === 1;
  const volStride = p[5]!;
  const m = p[6]!;
  const chunks = Math.ceil(m / CHUNK_OPTIONS);
  for (;;) {
    // Stopped by the calling thread (a bad input found while this window ran): nothing more to do.
    if (Atomics.load(ctrl, CTRL.failed) !== 0) return;
    const c = Atomics.add(ctrl, CTRL.next, 1);
    if (c >= chunks) return;
    if (!inputsCopied(c)) return;
    Atomics.store(v.owner, c, OWNER.worker);
    const start = c * CHUNK_OPTIONS;
    const end = Math.min(m, start + CHUNK_OPTIONS);
    const vols = volStride === 1 ? v.vols.subarray(start, end) : v.vols;
    const part = outputPart(v.out, start, end);
    fillBlack76(F, v.strikes.subarray(start, end), vols, volStride, sqrtT, DF, r, call, part, end - start);
    Atomics.store(v.owner, c, OWNER.workerDone);
  }
}

/** Waits until chunk `c`'s inputs are copied in (the calling thread copies the first chunk, then the rest); false if stopped. */
function inputsCopied(c: number): boolean {
  for (let copied = Atomics.load(ctrl, CTRL.copied); copied <= c; copied = Atomics.load(ctrl, CTRL.copied)) {
    if (Atomics.load(ctrl, CTRL.failed) !== 0) return false;
    Atomics.wait(ctrl, CTRL.copied, copied, 1);
  }
  return true;
}

// (The sequence number before counting in as ready: no window starts until every worker is ready.)
let seen = Atomics.load(ctrl, CTRL.seq);
Atomics.add(ctrl, CTRL.ready, 1);
for (;;) {
  Atomics.wait(ctrl, CTRL.seq, seen);
  seen = Atomics.load(ctrl, CTRL.seq);
  try {
    work();
  } catch {
    Atomics.store(ctrl, CTRL.failed, 1);
  }
  Atomics.store(ctrl, CTRL.done0 + index, seen);
  Atomics.notify(ctrl, CTRL.done0 + index);
}
