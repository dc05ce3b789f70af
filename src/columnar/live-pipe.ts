/**
 * A named pipe (made with `mkfifo`) through which DuckDB reads rows while they are still arriving: a
 * statement opens it as a file and reads what is written into it, and sees its end when the writer
 * closes it. The caller's blocks are written on libuv's pool, never on the main thread: with blocking
 * writes on the main thread, the body's profile and DuckDB's parse took turns instead of working at once
 * (970k rows: the main thread blocked 3.0 s of a 5.7 s load). The blocks not yet written are held; past
 * the pipe's high water, {@link LivePipe.drained} gives the writer a promise to wait on (the body is then
 * read no faster than DuckDB reads the rows). When the reader is gone (its statement failed or ended) a
 * write fails with EPIPE: the pipe is then broken, and the blocks given to it are let go.
 */
import { execFileSync } from "node:child_process";
import { close, closeSync, constants, open, openSync, write } from "node:fs";
import path from "node:path";

/** Bytes held for the pipe beyond which the writer is asked to wait. */
const HIGH_WATER_BYTES = 16 << 20;

/** Whether the JSON reader's `reading` statement is done, whatever became of it. */
function settled(reading: Promise<unknown>): Promise<void> {
  return reading.then(
    () => undefined,
    () => undefined,
  );
}

/** A block given to the pipe: its bytes written so far, and whom to tell once it is done with them. */
interface Queued {
  block: Uint8Array;
  at: number;
  done: (() => void) | undefined;
}

/** A pipe from the rows' writer to a DuckDB statement reading them as a file. */
export class LivePipe {
  #fd: number | undefined;
  #broken = false;
  #closed = false;
  /** `end` was called: the pipe is closed once the blocks held are written. */
  #ending = false;
  /** Blocks waiting for the pipe, in order, and their bytes (the one being written included). */
  readonly #queue: Queued[] = [];
  #queued = 0;
  #writing = false;
  /** Whoever waits for the queue to shrink (see {@link drained}). */
  #waiters: (() => void)[] = [];

  private constructor(
    readonly path: string,
    readonly highWater: number,
  ) {}

  /**
   * A new pipe `name` in `dir` (readable and writable by this user only), or undefined where none can be
   * made. `highWater`: the bytes held beyond which {@link drained} asks the writer to wait.
   */
  static create(dir: string, name: string, highWater = HIGH_WATER_BYTES): LivePipe | undefined {
    if (process.platform === "win32") return undefined;
    const file = path.join(dir, name);
    try {
      execFileSync("mkfifo", ["-m", "600", file], { stdio: "ignore" });
    } catch {
      return undefined; // no mkfifo, or a file system without pipes: the rows are read once they are all in
    }
    return new LivePipe(file, highWater);
  }

  /**
   * Opens the pipe for writing once `reading` (the statement that reads it) has opened it; false, with the
   * pipe broken, when that statement ended first (a pending open is then let go by opening the other end).
   */
  async open(reading: Promise<unknown>): Promise<boolean> {
    let fd: number | undefined;
    // An open for writing waits for a reader (on a thread of the pool, not this one).
    const opening = new Promise<number>((resolve, reject) =>
      open(this.path, "w", (error, got) => (error ? reject(error) : resolve(got))),
    );
    const done = settled(reading).then(() => undefined);
    try {
      fd = await Promise.race([opening, done]);
    } catch {
      fd = undefined;
    }
    if (fd === undefined) {
      this.#broken = true;
      // The reader never came: a reader of our own lets the pending open finish, then both ends are closed.
      let unblock: number | undefined;
      try {
        unblock = openSync(this.path, constants.O_RDONLY | constants.O_NONBLOCK);
        closeSync(await opening);
      } catch {
        /* the open failed: nothing to close */
      } finally {
        if (unblock !== undefined) closeSync(unblock);
      }
      return false;
    }
    this.#fd = fd;
    return true;
  }

  /**
   * Gives `block` to the reader (kept as it is, not copied: the caller does not change it), written after
   * the blocks given before it, on libuv's pool; once the reader is gone (or on any failure), the pipe is
   * broken and nothing more is written. Give large blocks: DuckDB reads a pipe fed a few kB at a time at
   * several times the CPU. `done` is called once the pipe is done with the block (written, or let go).
   */
  write(block: Uint8Array, done?: () => void): void {
    if (this.#broken || this.#fd === undefined || this.#ending || block.length === 0) {
      done?.();
      return;
    }
    this.#queue.push({ block, at: 0, done });
    this.#queued += block.length;
    this.#pump();
  }

  /**
   * A promise that settles once the bytes held for the pipe are fewer than its high water (and
   * at once when the pipe breaks), or undefined when they already are: the writer waits on it before it
   * reads more of the body.
   */
  drained(): Promise<void> | undefined {
    if (this.#queued < this.highWater || this.#broken) return undefined;
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Writes the first block queued (the rest of it when a write took part of it); closes the pipe once ended and empty. */
  #pump(): void {
    const fd = this.#fd;
    if (this.#writing || fd === undefined) return;
    const first = this.#queue[0];
    if (first === undefined || this.#broken) {
      if (this.#ending || this.#broken) this.#close();
      return;
    }
    this.#writing = true;
    const { block, at } = first;
    write(fd, block, at, block.length - at, null, (error, wrote) => {
      this.#writing = false;
      if (this.#broken) {
        // Broken while this write was on its way: the other blocks were let go then, this one now.
        first.done?.();
      } else if (error) {
        this.#broken = true;
        this.#drop();
      } else {
        first.at += wrote;
        this.#queued -= wrote;
        if (first.at === block.length) this.#queue.shift()!.done?.();
      }
      if (this.#queued < this.highWater) this.#wake();
      this.#pump();
    });
  }

  /** Lets go of the blocks not written, and of whoever waits for them. */
  #drop(): void {
    // A block on its way to the pipe is let go once its write is back (see #pump).
    const inFlight = this.#writing ? this.#queue[0] : undefined;
    for (const queued of this.#queue.splice(0)) if (queued !== inFlight) queued.done?.();
    this.#queued = 0;
    this.#wake();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** Closes the writing end (once no write is in flight on it): the reader sees the end of the rows. */
  #close(): void {
    const fd = this.#fd;
    if (fd === undefined || this.#writing) return;
    this.#fd = undefined;
    if (!this.#broken) this.#closed = true;
    close(fd, () => undefined);
  }

  /** Stops writing: the reader will not have all the rows (it is told of the end; what it read is not used). */
  break(): void {
    if (this.#closed || this.#broken) return; // every byte was written and the end told, or already broken
    this.#broken = true;
    this.#drop();
    this.#ending = true;
    this.#close();
  }

  /** Closes the writing end once every byte given is written: the reader then sees the end of the rows. */
  end(): void {
    if (this.#ending) return;
    this.#ending = true;
    this.#pump();
  }

  /** Whether the pipe was closed after every byte was written (the reader had all of them). */
  get complete(): boolean {
    return this.#closed && !this.#broken;
  }
}
