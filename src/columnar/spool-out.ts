/**
 * The bytes of a rows spool as they are written: the rows array's bytes made newline-delimited JSON on
 * the way (see {@link readJsonRows}), gathered in blocks of {@link SPOOL_BLOCK_BYTES}. Each full block is
 * written to the spool file on libuv's pool (writes at their own positions, in any order) and handed to
 * the live pipe when one reads the rows: the main thread copies the bytes once and writes none itself,
 * so the body is read while the file and DuckDB take what came before.
 */
import { write } from "node:fs";
import type { LivePipe } from "./live-pipe";

/** The bytes of a block (one write to the file and to the pipe). */
export const SPOOL_BLOCK_BYTES = 2 << 20;
/** Bytes in writes not yet done beyond which the writer is asked to wait. */
const HIGH_WATER_BYTES = 16 << 20;
/** Blocks kept to fill again, at most. */
const FREE_BLOCKS = 8;
const NEWLINE = 0x0a;
const SPACE = 0x20;

/** Blocks of a spool file's bytes, written as they fill. */
export class SpoolOut {
  #block = new Uint8Array(SPOOL_BLOCK_BYTES);
  #held = 0;
  /** Full blocks both writers are done with, to fill again (fresh ones would be 2 MiB of new memory each). */
  readonly #free: Uint8Array<ArrayBuffer>[] = [];
  /** Bytes of the blocks handed out: the file's byte of the held block's first. */
  #flushed = 0;
  /** Bytes in writes to the file not yet done, and whoever waits for them. */
  #writing = 0;
  #waiters: (() => void)[] = [];
  #failure: Error | undefined;
  /** The pipe the full blocks go to as well, once it reads the rows (see {@link follow}). */
  #pipe: LivePipe | undefined;

  constructor(readonly fd: number) {}

  /** The bytes given so far. */
  get length(): number {
    return this.#flushed + this.#held;
  }

  /** The bytes handed out in full blocks: all of them in the file once {@link settled}. */
  get flushed(): number {
    return this.#flushed;
  }

  /**
   * `bytes[from, to)` at the end, the body's bytes from `offset` at `bytes[0]`: the commas between rows
   * (their bytes in the body, ascending, all in that range) made newlines, every newline already there
   * (between tokens: a JSON string holds none) a space. Throws the first failure of an earlier write.
   */
  put(bytes: Uint8Array, from: number, to: number, offset: number, separators: readonly number[]): void {
    if (this.#failure) throw this.#failure;
    let next = 0;
    // Buffer's indexOf is memchr: a typed array's looks at one element at a time (15× the CPU).
    const search = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let newline = find(search, from, to);
    while (from < to) {
      const take = Math.min(to - from, SPOOL_BLOCK_BYTES - this.#held);
      const end = from + take;
      const block = this.#block;
      const at = this.#held - from; // the block's index of bytes[i] is i + at
      block.set(bytes.subarray(from, end), this.#held);
      for (; newline < end; newline = find(search, newline + 1, to)) block[newline + at] = SPACE;
      for (; next < separators.length && separators[next]! - offset < end; next++)
        block[separators[next]! - offset + at] = NEWLINE;
      this.#held += take;
      from = end;
      if (this.#held === SPOOL_BLOCK_BYTES) this.#handOut();
    }
  }

  /** A newline at the end, as it is (between the rows of two arrays). */
  newline(): void {
    this.#block[this.#held++] = NEWLINE;
    if (this.#held === SPOOL_BLOCK_BYTES) this.#handOut();
  }

  /** Hands out the bytes held (a block not full), as at the end of the rows. */
  flush(): void {
    if (this.#held > 0) this.#handOut();
  }

  /** From now on, each block handed out also goes to `pipe` (which has had the file's first {@link flushed} bytes). */
  follow(pipe: LivePipe): void {
    this.#pipe = pipe;
  }

  /**
   * A promise that settles once the writes not done hold fewer than {@link HIGH_WATER_BYTES}, or undefined
   * when they already do: the body is read no faster than the disk takes it.
   */
  drained(): Promise<void> | undefined {
    if (this.#writing < HIGH_WATER_BYTES) return undefined;
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Settles once every write handed out is done; rejects with the first that failed. */
  async settled(): Promise<void> {
    while (this.#writing > 0) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    if (this.#failure) throw this.#failure;
  }

  #handOut(): void {
    const full = this.#held === SPOOL_BLOCK_BYTES;
    const block = full ? this.#block : this.#block.slice(0, this.#held);
    const position = this.#flushed;
    this.#flushed += block.length;
    this.#block = this.#free.pop() ?? new Uint8Array(SPOOL_BLOCK_BYTES);
    this.#held = 0;
    // The block is filled again once the file and the pipe are both done with it.
    let users = this.#pipe ? 2 : 1;
    const done = (): void => {
      if (--users === 0 && full && this.#free.length < FREE_BLOCKS) this.#free.push(block);
    };
    this.#pipe?.write(block, done);
    this.#write(block, 0, position, done);
  }

  /** Writes `block[from…]` at `position` of the file (the rest again when a write takes part of it), then calls `done`. */
  #write(block: Uint8Array, from: number, position: number, done: () => void): void {
    const length = block.length - from;
    this.#writing += length;
    write(this.fd, block, from, length, position, (error, wrote) => {
      this.#writing -= length;
      if (error) {
        this.#failure ??= error;
        done();
      } else if (wrote < length) this.#write(block, from + wrote, position + wrote, done);
      else done();
      if (this.#writing < HIGH_WATER_BYTES) {
        const waiters = this.#waiters;
        this.#waiters = [];
        for (const wake of waiters) wake();
      }
    });
  }
}

/** The index of the first newline in `bytes[from, to)`, or `to` when there is none. */
function find(bytes: Buffer, from: number, to: number): number {
  if (from >= to) return to;
  const at = bytes.indexOf(NEWLINE, from);
  return at < 0 || at > to ? to : at;
}
