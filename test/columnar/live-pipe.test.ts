/**
 * The live pipe's writes run on libuv's pool, not the main thread: a reader that is slow holds the blocks
 * in the pipe's queue, and past its high water the writer is asked to wait (`drained`) — the body is then
 * read no faster than DuckDB reads the rows. Every block reaches the reader in order, and the writer is
 * told when the pipe is done with each (it fills the block again). A reader that goes away breaks the
 * pipe: no throw, no hang, every block let go, `complete` false.
 */
import { createReadStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LivePipe } from "../../src/columnar/live-pipe";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-live-pipe-"));
let pipes = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const block = (k: number, size = 64 * 1024) => new Uint8Array(size).fill(k % 251);

/** A reader of the pipe that takes nothing until `resume`; its bytes, and a promise of its end. */
function reader(pipe: LivePipe) {
  const stream = createReadStream(pipe.path, { highWaterMark: 64 * 1024 });
  stream.pause();
  const chunks: Buffer[] = [];
  stream.on("data", (c) => chunks.push(c as Buffer));
  const ended = new Promise<Buffer>((resolve, reject) => {
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
  return { stream, ended };
}

describe("LivePipe", () => {
  it("holds what a slow reader has not taken, asks the writer to wait past its high water, and gives every byte in order", async () => {
    const pipe = LivePipe.create(dir, `p${++pipes}`, 1 << 20)!;
    const r = reader(pipe);
    expect(await pipe.open(new Promise(() => {}))).toBe(true);
    const blocks = Array.from({ length: 40 }, (_, k) => block(k));
    let done = 0;
    for (const b of blocks) pipe.write(b, () => done++);
    // 2.5 MiB given, the reader has taken at most what the pipe's buffer holds: the writer is asked to wait.
    const wait = pipe.drained();
    expect(wait).toBeInstanceOf(Promise);
    let waited = false;
    void wait!.then(() => (waited = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(waited).toBe(false);
    r.stream.resume();
    await wait;
    pipe.end();
    const got = await r.ended;
    expect(got.length).toBe(40 * 64 * 1024);
    expect(Buffer.compare(got, Buffer.concat(blocks))).toBe(0);
    expect(done).toBe(40);
    expect(pipe.complete).toBe(true);
    expect(pipe.drained()).toBeUndefined();
  });

  it("a reader that goes away: the pipe breaks (no throw, no hang), every block is let go, it is not complete", async () => {
    const pipe = LivePipe.create(dir, `p${++pipes}`, 1 << 20)!;
    const r = reader(pipe);
    expect(await pipe.open(new Promise(() => {}))).toBe(true);
    let done = 0;
    for (let k = 0; k < 40; k++) pipe.write(block(k), () => done++);
    const wait = pipe.drained();
    r.stream.destroy();
    await wait; // let go when the write fails (EPIPE)
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(done).toBe(40);
    pipe.write(block(1), () => done++); // dropped at once
    expect(done).toBe(41);
    pipe.end();
    expect(pipe.complete).toBe(false);
  });

  it("broken by its writer mid-write: the block on its way is let go when its write is back, the rest at once", async () => {
    const pipe = LivePipe.create(dir, `p${++pipes}`, 1 << 20)!;
    const r = reader(pipe);
    expect(await pipe.open(new Promise(() => {}))).toBe(true);
    let done = 0;
    for (let k = 0; k < 10; k++) pipe.write(block(k, 512 * 1024), () => done++);
    pipe.break();
    expect(done).toBe(9); // the first is on its way
    r.stream.resume();
    await r.ended;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(done).toBe(10);
    expect(pipe.complete).toBe(false);
  });
});
