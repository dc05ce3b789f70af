/**
 * The shared memory between {@link fillBlack76Parallel} and its worker threads, for one window of up
 * to `capacity` options at a time:
 * - control (Int32): the window's sequence number, the next unclaimed chunk, a failure flag, how many
 *   workers are ready, how many chunks' inputs are copied in, then each worker's last finished window;
 * - owner (Int32, one per chunk): 0 unclaimed, 1 the calling thread's, 2 a worker's (computing), 3 a
 *   worker's (done, results in the shared outputs), 4 copied out by the calling thread;
 * - params (Float64): F, √T, DF, r, call, vol stride, options in the window;
 * - data (Float64): the window's strikes and vols (copied in by the calling thread) and the five outputs of
 *   the chunks the workers computed.
 */
import type { Black76Arrays } from "./series";

/**
 * Slots of the control block; worker `w` writes its last finished window at `DONE0 + w`. `copied`: the
 * window's chunks whose inputs are in the shared block (a chunk is computed only once they are); `failed`:
 * 1 a worker failed, 2 the calling thread stopped the window (a bad input: nothing of it is used).
 */
export const CTRL = { seq: 0, next: 1, failed: 2, ready: 3, copied: 4, done0: 5 } as const;
/** Chunk states in the owner block. */
export const OWNER = { free: 0, caller: 1, worker: 2, workerDone: 3, copied: 4 } as const;
/** Options per chunk claimed at a time (5 outputs: 320 kB to copy out per chunk; larger chunks are no faster). */
export const CHUNK_OPTIONS = 8_192;

export interface SharedBlock {
  control: SharedArrayBuffer;
  owner: SharedArrayBuffer;
  params: SharedArrayBuffer;
  data: SharedArrayBuffer;
  capacity: number;
}

export interface BlockViews {
  control: Int32Array;
  owner: Int32Array;
  params: Float64Array;
  strikes: Float64Array;
  vols: Float64Array;
  out: Black76Arrays;
}

/** A new shared block for windows of `capacity` options (a multiple of {@link CHUNK_OPTIONS}), `workers` workers. */
export function sharedBlock(capacity: number, workers: number): SharedBlock {
  return {
    control: new SharedArrayBuffer(4 * (CTRL.done0 + workers)),
    owner: new SharedArrayBuffer(4 * Math.ceil(capacity / CHUNK_OPTIONS)),
    params: new SharedArrayBuffer(8 * 8),
    data: new SharedArrayBuffer(8 * 7 * capacity),
    capacity,
  };
}

/** The typed views of a shared block. */
export function blockViews(b: SharedBlock): BlockViews {
  const c = b.capacity;
  const view = (k: number) => new Float64Array(b.data, 8 * k * c, c);
  return {
    control: new Int32Array(b.control),
    owner: new Int32Array(b.owner),
    params: new Float64Array(b.params),
    strikes: view(0),
    vols: view(1),
    out: { price: view(2), delta: view(3), gamma: view(4), vega: view(5), theta: view(6) },
  };
}

/** Options `start … end − 1` of each output array, as views. */
export function outputPart(out: Black76Arrays, start: number, end: number): Black76Arrays {
  return {
    price: out.price.subarray(start, end),
    delta: out.delta.subarray(start, end),
    gamma: out.gamma.subarray(start, end),
    vega: out.vega.subarray(start, end),
    theta: out.theta.subarray(start, end),
  };
}
