/**
 * A named pipe (made with `mkfifo`) through which DuckDB reads rows while they are still arriving: a
 * statement opens it as a file and reads what is written into it, and sees its end when the writer
 * closes it. Written from the main thread with blocking writes: DuckDB reads on its own threads, so a
 * full pipe waits for DuckDB, never the other way round. When the reader is gone (its statement failed
 * or ended) a write fails with EPIPE: the pipe is then broken, and writes to it are dropped.
 */
import { execFileSync } from "node:child_process";
import { closeSync, constants, open, openSync, writeSync } from "node:fs";
import path from "node:path";

/** The bytes written to the pipe at a time. */
const BLOCK_BYTES = 2 << 20;

/** Whether the JSON reader's `reading` statement is done, whatever became of it. */
function settled(reading: Promise<unknown>): Promise<void> {
  return reading.then(
    () => undefined,
    () => undefined,
  );
}

/** A pipe from the rows' writer to a DuckDB statement reading them as a file. */
export class LivePipe {
  #fd: number | undefined;
  #broken = false;
  #closed = false;
  /** Bytes held until a block is full: DuckDB reads a pipe fed a few kB at a time at several times the CPU. */
  readonly #block = new Uint8Array(BLOCK_BYTES);
  #held = 0;

  private constructor(readonly path: string) {}

  /** A new pipe `name` in `dir` (readable and writable by this user only), or undefined where none can be made. */
  static create(dir: string, name: string): LivePipe | undefined {
    if (process.platform === "win32") return undefined;
    const file = path.join(dir, name);
    try {
      execFileSync("mkfifo", ["-m", "600", file], { stdio: "ignore" });
    } catch {
      return undefined; // no mkfifo, or a file system without pipes: the rows are read once they are all in
    }
    return new LivePipe(file);
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
   * Writes `bytes` for the reader, in blocks of {@link BLOCK_BYTES}; once it is gone (or on any failure),
   * the pipe is broken and nothing more is written.
   */
  write(bytes: Uint8Array): void {
    if (this.#broken || this.#fd === undefined) return;
    for (let at = 0; at < bytes.length;) {
      const take = Math.min(bytes.length - at, BLOCK_BYTES - this.#held);
      this.#block.set(bytes.subarray(at, at + take), this.#held);
      this.#held += take;
      at += take;
      if (this.#held === BLOCK_BYTES) this.#flush();
    }
  }

  /** Writes the block held so far. */
  #flush(): void {
    const fd = this.#fd;
    if (this.#broken || fd === undefined) return;
    try {
      for (let at = 0; at < this.#held;) at += writeSync(fd, this.#block, at, this.#held - at);
    } catch {
      this.break();
    }
    this.#held = 0;
  }

  /** Stops writing: the reader will not have all the rows (it is told of the end; what it read is not used). */
  break(): void {
    if (this.#closed) return; // every byte was written and the end told: nothing to take back
    this.#broken = true;
    this.end();
  }

  /** Closes the writing end: the reader sees the end of the rows. */
  end(): void {
    this.#flush();
    const fd = this.#fd;
    if (fd === undefined) return;
    this.#fd = undefined;
    if (!this.#broken) this.#closed = true;
    closeSync(fd);
  }

  /** Whether the pipe was closed after every byte was written (the reader had all of them). */
  get complete(): boolean {
    return this.#closed && !this.#broken;
  }
}
