/**
 * Large batches of black76Strikes on several threads: the calling thread and `threads − 1` workers
 * (worker.ts beside this module), kept alive between calls and unref'd (they never keep a process or a notebook
 * kernel alive). The call stays synchronous. The options go in windows of up to {@link WINDOW}: the calling
 * thread copies a window's strikes and vols into shared memory, then every thread claims chunks of
 * {@link CHUNK_OPTIONS} from a shared counter; the calling thread computes its chunks straight into the
 * caller's arrays, and between its chunks copies out those the workers have finished, so the split follows
 * each thread's speed. All threads run the same kernel ({@link fillBlack76}) on each option on its own: the
 * results are those of one thread, bit for bit.
 *
 * Threads: `RPL_BLACK_THREADS` (read on each large call; 1 = the calling thread only), else
 * `min(availableParallelism(), MAX_THREADS)`. Workers start on the first large call, which does not wait for
 * them (it runs on one thread); later calls use them once all are ready. With one CPU, without
 * worker_threads or SharedArrayBuffer, with the worker's built file missing (worker.js beside this one), after a
 * worker's error or a window not finished within {@link WAIT_MS}, everything runs on the calling thread: a
 * worker's failure never fails a pricing call (the window is computed again on the calling thread).
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { Worker } from "node:worker_threads";
import { fillBlack76 } from "./kernel";
import { RESULT_KEYS, type Black76Arrays, type Black76Kernel } from "./series";
import { CHUNK_OPTIONS, CTRL, OWNER, blockViews, outputPart, sharedBlock, type BlockViews } from "./shared";

/**
 * Below this many options a call stays on the calling thread: a second thread is faster from about 16 384
 * options, but below ~65 536 it saves under 2 ms a call for ~15% more CPU time (bench/black.mjs).
 */
export const PARALLEL_MIN = 65_536;
/** Options per window (7 doubles each in shared memory: 14.7 MB). */
const WINDOW = 32 * CHUNK_OPTIONS;
/** At most this many threads by default. */
const MAX_THREADS = 4;
/** How long the calling thread waits for the workers to finish a window before doing it alone. */
const WAIT_MS = 10_000;

interface Pool {
  workers: Worker[];
  views: BlockViews;
}
let pool: Pool | "off" | undefined;
let threadsOverride: number | undefined;

/**
 * Sets the number of threads large batches use (1: the calling thread only; undefined: back to
 * `RPL_BLACK_THREADS` or the default). Returns the previous setting. For the bench and the tests.
 */
export function setBlack76Threads(threads: number | undefined): number | undefined {
  const was = threadsOverride;
  threadsOverride = threads;
  return was;
}

/** The threads to use: the override, `RPL_BLACK_THREADS`, or `min(CPUs, MAX_THREADS)`. */
export function black76Threads(): number {
  if (threadsOverride !== undefined) return Math.max(1, Math.floor(threadsOverride));
  const env = typeof process === "object" ? process.env?.RPL_BLACK_THREADS : undefined;
  const n = env ? Number(env) : NaN;
  if (Number.isInteger(n) && n >= 1) return n;
  try {
    return Math.min(availableParallelism(), MAX_THREADS);
  } catch {
    return 1;
  }
}

function workerFile(): string | undefined {
  // dist/vol/black76/ (tsc's output), dist/ (the bundle, dist/index.js); from the sources (tests), the built file.
  if (typeof __dirname !== "string") return undefined;
  const candidates = [
    join(__dirname, "worker.js"),
    join(__dirname, "vol", "black76", "worker.js"),
    join(__dirname, "..", "..", "..", "dist", "vol", "black76", "worker.js"),
  ];
  return candidates.find((file) => existsSync(file));
}

function startPool(threads: number): Pool | "off" {
  const workers: Worker[] = [];
  try {
    const file = workerFile();
    if (!file || typeof SharedArrayBuffer !== "function") return "off";
    // Loaded on first use: importing the package does not load worker_threads.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Worker } = require("node:worker_threads") as typeof import("node:worker_threads");
    const block = sharedBlock(WINDOW, threads - 1);
    const p: Pool = { workers, views: blockViews(block) };
    for (let index = 0; index < threads - 1; index++) {
      const worker = new Worker(file, { workerData: { block, index } });
      worker.unref();
      const drop = () => {
        if (pool === p) stopPool(p);
      };
      worker.on("error", drop);
      worker.on("exit", drop);
      workers.push(worker);
    }
    return p;
  } catch {
    for (const w of workers) void w.terminate().catch(() => {});
    return "off";
  }
}

function stopPool(p: Pool): void {
  pool = "off";
  for (const w of p.workers) void w.terminate().catch(() => {});
}

/** The pool when all its workers are ready; starts it (without waiting) on the first large call. */
function readyPool(): Pool | undefined {
  const threads = black76Threads();
  if (threads < 2 || pool === "off") return undefined;
  if (pool === undefined) pool = startPool(threads);
  if (pool === "off") return undefined;
  return Atomics.load(pool.views.control, CTRL.ready) === pool.workers.length ? pool : undefined;
}

/** The fast kernel's arguments and the caller's checks; true when the pool computed the batch. */
type ParallelKernel = (...args: [...Parameters<Black76Kernel>, check?: () => void]) => boolean;

/**
 * The fast kernel (its arguments: {@link Black76Kernel}) on the pool's threads when n ≥ {@link PARALLEL_MIN}
 * and the pool is ready; returns false (nothing computed, `check` not called) otherwise.
 *
 * `check` (the caller's checks of the inputs, which throw) runs on the calling thread once the workers have
 * started on the first window, before anything is written to `out` (the workers write only to the shared
 * block): if it throws, the workers stop, nothing of the batch is used and its error is thrown.
 */
export const fillBlack76Parallel: ParallelKernel = (F, strikes, vols, volStride, sqrtT, DF, r, call, out, n, check) => {
  if (n < PARALLEL_MIN) return false;
  const p = readyPool();
  if (!p) return false;
  const job: Job = { F, strikes, vols, volStride, sqrtT, DF, r, call, out, check };
  for (let start = 0; start < n; start += WINDOW) {
    const m = Math.min(WINDOW, n - start);
    if (pool === p && runWindow(p, job, start, m)) continue;
    if (pool === p) stopPool(p);
    runChecks(job);
    runAlone(job, start, m);
  }
  return true;
};

/** The caller's checks, once per job (a window on the pool runs them; a window alone first). */
function runChecks(job: Job): void {
  const check = job.check;
  job.check = undefined;
  check?.();
}

interface Job {
  F: number;
  strikes: Float64Array;
  vols: Float64Array;
  volStride: number;
  sqrtT: number;
  DF: number;
  r: number;
  call: boolean;
  out: Black76Arrays;
  /** The caller's checks, until they have run. */
  check: (() => void) | undefined;
}

/** Options `start … start + m − 1` of a job on the calling thread. */
function runAlone(job: Job, start: number, m: number): void {
  runChunk(job, start, start + m);
}

function runChunk(job: Job, from: number, to: number): void {
  const { F, strikes, vols, volStride, sqrtT, DF, r, call, out } = job;
  const v = volStride === 1 ? vols.subarray(from, to) : vols;
  fillBlack76(F, strikes.subarray(from, to), v, volStride, sqrtT, DF, r, call, outputPart(out, from, to), to - from);
}

/** Copies the chunks the workers have finished (state 3) out of the shared block; returns how many are left. */
function copyFinished(v: BlockViews, job: Job, start: number, m: number, chunks: number): number {
  let left = 0;
  for (let c = 0; c < chunks; c++) {
    const state = Atomics.load(v.owner, c);
    if (state === OWNER.workerDone) {
      const from = c * CHUNK_OPTIONS;
      const to = Math.min(m, from + CHUNK_OPTIONS);
      for (const key of RESULT_KEYS) job.out[key].set(v.out[key].subarray(from, to), start + from);
      Atomics.store(v.owner, c, OWNER.copied);
    } else if (state !== OWNER.copied && state !== OWNER.caller) left++;
  }
  return left;
}

/** Copies the inputs of options `from … to − 1` of the window into the shared block and says how many chunks are in. */
function copyIn(v: BlockViews, job: Job, start: number, from: number, to: number, chunks: number): void {
  v.strikes.set(job.strikes.subarray(start + from, start + to), from);
  if (job.volStride === 1) v.vols.set(job.vols.subarray(start + from, start + to), from);
  Atomics.store(v.control, CTRL.copied, chunks);
  Atomics.notify(v.control, CTRL.copied);
}

/**
 * Starts a window: its parameters, then the workers woken, then its inputs copied in, the first chunk's
 * alone (a worker starts on it while the rest is copied). Returns the window's sequence number.
 */
function startWindow(v: BlockViews, job: Job, start: number, m: number, chunks: number): number {
  if (job.volStride !== 1) v.vols[0] = job.vols[0]!;
  const params = [job.F, job.sqrtT, job.DF, job.r, job.call ? 1 : 0, job.volStride, m];
  for (let i = 0; i < params.length; i++) v.params[i] = params[i]!;
  v.owner.fill(OWNER.free);
  Atomics.store(v.control, CTRL.next, 0);
  Atomics.store(v.control, CTRL.failed, 0);
  Atomics.store(v.control, CTRL.copied, 0);
  const seq = Atomics.add(v.control, CTRL.seq, 1) + 1;
  Atomics.notify(v.control, CTRL.seq);
  const first = Math.min(m, CHUNK_OPTIONS);
  copyIn(v, job, start, 0, first, 1);
  if (m > first) copyIn(v, job, start, first, m, chunks);
  return seq;
}

/**
 * The caller's checks while the workers compute into the shared block: when they throw, the window is
 * stopped and the workers waited for (they never write to the caller's arrays), then the error is thrown.
 */
function checkWhileRunning(p: Pool, job: Job, seq: number): void {
  try {
    runChecks(job);
  } catch (error) {
    const v = p.views;
    Atomics.store(v.control, CTRL.failed, 2);
    if (!workersDone(p, seq, () => {})) stopPool(p);
    throw error;
  }
}

/** Waits (up to {@link WAIT_MS}) until every worker has finished window `seq`, calling `meanwhile` between waits. */
function workersDone(p: Pool, seq: number, meanwhile: () => void): boolean {
  const v = p.views;
  const deadline = Date.now() + WAIT_MS;
  for (let w = 0; w < p.workers.length; w++) {
    for (;;) {
      const done = Atomics.load(v.control, CTRL.done0 + w);
      if (done === seq) break;
      const wait = deadline - Date.now();
      if (wait <= 0) return false;
      Atomics.wait(v.control, CTRL.done0 + w, done, Math.min(wait, 1));
      meanwhile();
    }
  }
  return true;
}

/** One window on all threads; false if a worker failed or did not finish in time (nothing is then trusted). */
function runWindow(p: Pool, job: Job, start: number, m: number): boolean {
  const v = p.views;
  const chunks = Math.ceil(m / CHUNK_OPTIONS);
  const seq = startWindow(v, job, start, m, chunks);
  checkWhileRunning(p, job, seq);
  for (;;) {
    const c = Atomics.add(v.control, CTRL.next, 1);
    if (c >= chunks) break;
    Atomics.store(v.owner, c, OWNER.caller);
    const from = start + c * CHUNK_OPTIONS;
    runChunk(job, from, Math.min(start + m, from + CHUNK_OPTIONS));
    copyFinished(v, job, start, m, chunks);
  }
  const copyOut = () => void copyFinished(v, job, start, m, chunks);
  if (!workersDone(p, seq, copyOut)) return false;
  if (Atomics.load(v.control, CTRL.failed) !== 0) return false;
  return copyFinished(v, job, start, m, chunks) === 0;
}

/** The pool's state: not started, starting (workers not all ready), ready (with its thread count), or off. */
export function black76PoolStatus(): { state: "not started" | "starting" | "ready" | "off"; threads: number } {
  if (pool === undefined) return { state: "not started", threads: 1 };
  if (pool === "off") return { state: "off", threads: 1 };
  const ready = Atomics.load(pool.views.control, CTRL.ready) === pool.workers.length;
  return { state: ready ? "ready" : "starting", threads: pool.workers.length + 1 };
}
