/**
 * Calls share a deadline (one AbortController, one timer) only when their timers would be the same: the
 * same timeout set in the same millisecond. Each still stops at its own deadline, and no timer outlives
 * the calls (src/client/deadline.ts).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { startDeadline } from "../../src/client/deadline";
import { FAKE_TIME } from "../helpers/wait";

afterEach(() => {
  vi.useRealTimers();
});

describe("a call's deadline", () => {
  it("is shared by calls with the same timeout set in the same millisecond, and aborts exactly at it", async () => {
    vi.useFakeTimers(FAKE_TIME);
    const a = startDeadline(5_000);
    const b = startDeadline(5_000);
    const other = startDeadline(4_000);
    expect(b.signal).toBe(a.signal);
    expect(other.signal).not.toBe(a.signal);
    await vi.advanceTimersByTimeAsync(1);
    const later = startDeadline(5_000); // a millisecond later: its own deadline
    expect(later.signal).not.toBe(a.signal);
    await vi.advanceTimersByTimeAsync(3_998);
    expect([other.signal.aborted, a.signal.aborted]).toEqual([false, false]);
    await vi.advanceTimersByTimeAsync(1);
    expect([other.signal.aborted, a.signal.aborted]).toEqual([true, false]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect([a.signal.aborted, later.signal.aborted]).toEqual([true, false]);
    await vi.advanceTimersByTimeAsync(1);
    expect(later.signal.aborted).toBe(true);
    for (const d of [a, b, other, later]) d.release();
  });

  it("leaves no timer behind once every call sharing it is done", () => {
    vi.useFakeTimers(FAKE_TIME);
    const deadlines = Array.from({ length: 3 }, () => startDeadline(60_000));
    expect(vi.getTimerCount()).toBe(1);
    deadlines[0]!.release();
    deadlines[1]!.release();
    expect(vi.getTimerCount()).toBe(1);
    deadlines[2]!.release();
    expect(vi.getTimerCount()).toBe(0);
    const next = startDeadline(60_000); // a fresh one, not the released one
    expect(next.signal).not.toBe(deadlines[0]!.signal);
    next.release();
  });

  it("without a deadline (Infinity, or beyond a timer) never aborts and sets no timer", () => {
    vi.useFakeTimers(FAKE_TIME);
    for (const timeoutMs of [Infinity, 3e9]) {
      const d = startDeadline(timeoutMs);
      expect(vi.getTimerCount()).toBe(0);
      expect(d.signal.aborted).toBe(false);
      d.release();
    }
  });

  it("many calls listening to one shared signal raise no listener-leak warning", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      vi.useFakeTimers(FAKE_TIME);
      const deadlines = Array.from({ length: 30 }, () => startDeadline(60_000));
      for (const d of deadlines) d.signal.addEventListener("abort", () => undefined);
      await new Promise((resolve) => setImmediate(resolve));
      expect(new Set(deadlines.map((d) => d.signal)).size).toBe(1);
      for (const d of deadlines) d.release();
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings).toEqual([]);
  });
});
