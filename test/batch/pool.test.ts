import { describe, expect, it } from "vitest";
import { checkConcurrency, DEFAULT_CONCURRENCY, settleBounded } from "../../src/batch/pool";

describe("settleBounded(items, limit, fn, signal)", () => {
  it("runs at most `limit` at a time and returns results in item order, failures included", async () => {
    let running = 0;
    let peak = 0;
    const results = await settleBounded([30, 10, 20, 5, 15], 2, async (ms, i) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, ms));
      running--;
      if (i === 3) throw new Error("five failed");
      return ms * 2;
    });
    expect(peak).toBe(2);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([
      60,
      20,
      40,
      "five failed",
      30,
    ]);
  });

  it("settles items not started once the signal aborts, with its reason", async () => {
    const controller = new AbortController();
    const started: number[] = [];
    const results = await settleBounded(
      [1, 2, 3],
      1,
      async (n) => {
        started.push(n);
        controller.abort(new Error("enough"));
        return n;
      },
      controller.signal,
    );
    expect(started).toEqual([1]);
    expect(results[0]).toEqual({ status: "fulfilled", value: 1 });
    expect(results.slice(1).map((r) => r.status)).toEqual(["rejected", "rejected"]);
  });

  it("handles no items", async () => {
    expect(await settleBounded([], 4, async () => 1)).toEqual([]);
  });
});

describe("checkConcurrency(limit)", () => {
  it("defaults to 4 and accepts whole numbers from 1 to 64", () => {
    expect(checkConcurrency(undefined)).toBe(DEFAULT_CONCURRENCY);
    expect(DEFAULT_CONCURRENCY).toBe(4);
    expect(checkConcurrency(64)).toBe(64);
    for (const bad of [0, 65, 1.5, NaN]) expect(() => checkConcurrency(bad)).toThrow(RangeError);
  });
});
