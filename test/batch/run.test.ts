import { describe, expect, it } from "vitest";
import { ConfigurationError, HttpError } from "../../src/client/errors";
import type { ProgressEvent } from "../../src/batch/progress";
import { runBatch } from "../../src/batch/run";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("runBatch: the one batch loop", () => {
  it("runs the jobs bounded, results and failures each in job order, one progress step per job", async () => {
    let running = 0;
    let peak = 0;
    const events: ProgressEvent[] = [];
    const { results, failures } = await runBatch(
      {
        what: "squares",
        jobs: [30, 10, 20, 5, 15],
        label: (ms) => `job ${ms}`,
        run: async (ms) => {
          running++;
          peak = Math.max(peak, running);
          await sleep(ms);
          running--;
          if (ms === 20) throw new HttpError("twenty refused", { operation: "Test", status: 503 });
          if (ms === 5) throw new Error("five broke");
          return ms * ms;
        },
        failure: (ms, reason) => ({ ms, ...reason }),
      },
      { concurrency: 2, progress: "none", onProgress: (e) => events.push(e) },
    );
    expect(peak).toBe(2);
    expect(results).toEqual([900, 100, 225]);
    expect(failures).toEqual([
      { ms: 20, error: "twenty refused", status: 503 },
      { ms: 5, error: "five broke" },
    ]);
    const last = events.at(-1)!;
    expect(last).toMatchObject({ label: "squares", done: 5, total: 5, failed: 2, finished: true });
    expect(new Set(events.map((e) => e.item).filter(Boolean))).toEqual(
      new Set(["job 30", "job 10", "job 20", "job 5", "job 15"]),
    );
  });

  it("throws a local fault (a replay miss, a configuration error) instead of listing it, and refuses a bad concurrency", async () => {
    const miss = new ConfigurationError("the cache cannot be written", { operation: "Test" });
    const batch = {
      what: "t",
      jobs: [1, 2],
      label: String,
      run: async (n: number) => {
        if (n === 2) throw miss;
        return n;
      },
      failure: (n: number) => ({ n }),
    };
    await expect(runBatch(batch, { progress: "none" })).rejects.toBe(miss);
    await expect(runBatch(batch, { concurrency: 0, progress: "none" })).rejects.toThrow(
      /concurrency must be a whole number/,
    );
  });
});
