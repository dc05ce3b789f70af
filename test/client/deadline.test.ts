/**
 * Calls share a deadline (one AbortController, one timer) when their deadlines fall in the same window:
 * the same millisecond for timeouts under 10 s, a thousandth of the timeout (at most 16 ms) above. Each
 * stops no earlier than its own deadline and within its window after it, and no timer outlives the calls
 * (src/client/deadline.ts).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_WINDOW_MS, startDeadline, windowMs } from "../../src/client/deadline";
import { FAKE_TIME } from "../helpers/wait";

afterEach(() => {
  vi.useRealTimers();
});

describe("a call's deadline", () => {
  it("under 10 s, is shared by calls whose deadline is the same millisecond, and aborts exactly at it", async () => {
    vi.useFakeTimers(FAKE_TIME);
    const a = startDeadline(5_000);
    const b = startDeadline(5_000);
    const other = startDeadline(4_000);
    expect(b.signal).toBe(a.signal);
    expect(other.signal).not.toBe(a.signal);
    await vi.advanceTimersByTimeAsync(1);
    const later = startDeadline(5_000); // a millisecond later: its own deadline
    expect(later.signal).not.toBe(a.signal);
    const same = startDeadline(4_999); // started later, the same deadline
    expect(same.signal).toBe(a.signal);
    same.release();
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

  it("from 10 s, is shared within a window of a thousandth of the timeout: never early, at most the window late", async () => {
    expect([2_000, 9_999, 10_000, 12_500, 30_000, 3_600_000].map(windowMs)).toEqual([1, 1, 10, 12, 16, 16]);
    vi.useFakeTimers(FAKE_TIME);
    const timeoutMs = 30_000;
    const started: { at: number; deadline: ReturnType<typeof startDeadline> }[] = [];
    for (let i = 0; i < 40; i++) {
      started.push({ at: Date.now(), deadline: startDeadline(timeoutMs) });
      await vi.advanceTimersByTimeAsync(1);
    }
    const signals = new Set(started.map((s) => s.deadline.signal));
    // 40 ms of calls: three or four windows of 16 ms, not 40 deadlines.
    expect(signals.size).toBeGreaterThanOrEqual(3);
    expect(signals.size).toBeLessThanOrEqual(4);
    const abortedAt = new Map<AbortSignal, number>();
    for (const signal of signals) signal.addEventListener("abort", () => abortedAt.set(signal, Date.now()));
    await vi.advanceTimersByTimeAsync(timeoutMs + MAX_WINDOW_MS);
    for (const { at, deadline } of started) {
      const late = abortedAt.get(deadline.signal)! - (at + timeoutMs);
      expect(late).toBeGreaterThanOrEqual(0);
      expect(late).toBeLessThan(MAX_WINDOW_MS);
    }
    for (const { deadline } of started) deadline.release();
    expect(vi.getTimerCount()).toBe(0);
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
