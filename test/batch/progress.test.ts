import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  barRenderer,
  notebookRenderer,
  progressBar,
  progressLine,
  ProgressTracker,
  resolveRenderer,
  type ProgressEvent,
} from "../../src/batch/progress";
import { findKernelDisplay, notebookLine } from "../../src/kernel/display";

const event = (over: Partial<ProgressEvent> = {}): ProgressEvent => ({
  label: "yield curves",
  done: 3,
  total: 10,
  failed: 1,
  elapsedMs: 3200,
  finished: false,
  ...over,
});

describe("progressLine and progressBar", () => {
  it("say how far, how many failed and how long", () => {
    expect(progressLine(event())).toBe("yield curves 3/10 (30%) · 1 failed · 3.2 s");
    expect(progressLine(event({ done: 10, failed: 0, finished: true }))).toBe("yield curves 10/10 (100%) · done");
  });

  it("draws a bar of the given width", () => {
    expect(progressBar(5, 10, 10)).toBe("[█████░░░░░]");
    expect(progressBar(0, 0, 4)).toBe("[████]");
  });
});

describe("notebookLine(display)", () => {
  it("opens a tslab display that updates in place while a cell runs (tslab's public newDisplay)", () => {
    const shown: string[] = [];
    const tslab = {
      jupyter: { lastWriteDisplayData: () => undefined },
      publicApi: () => ({ newDisplay: () => ({ text: (s: string) => shown.push(s) }) }),
    };
    const display = notebookLine(findKernelDisplay(tslab, undefined));
    display!.text("hello");
    expect(shown).toEqual(["hello"]);
  });

  it("is undefined outside a running kernel (no kernel, or no cell running, or a tslab without newDisplay)", () => {
    expect(notebookLine(findKernelDisplay(undefined, undefined))).toBeUndefined();
    expect(
      notebookLine(
        findKernelDisplay(
          {
            jupyter: { lastWriteDisplayData: null },
            publicApi: () => ({ newDisplay: () => ({ text: () => undefined }) }),
          },
          undefined,
        ),
      ),
    ).toBeUndefined();
    expect(
      notebookLine(
        findKernelDisplay(
          { jupyter: { lastWriteDisplayData: () => undefined }, publicApi: () => undefined },
          undefined,
        ),
      ),
    ).toBeUndefined();
  });

  it("is undefined in this test process (no kernel here)", () => {
    expect(notebookLine()).toBeUndefined();
  });
});

describe("renderers", () => {
  it("notebookRenderer rewrites one line, at most every interval, always the last event", () => {
    const shown: string[] = [];
    const r = notebookRenderer({ text: (s) => shown.push(s) }, 10_000);
    r.update(event({ done: 1 }));
    r.update(event({ done: 2 }));
    r.update(event({ done: 10, finished: true }));
    expect(shown).toEqual([progressLine(event({ done: 1 })), progressLine(event({ done: 10, finished: true }))]);
  });

  it("barRenderer redraws the bar with \\r on the stream and ends with a newline", () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream;
    let out = "";
    (stream as unknown as PassThrough).on("data", (c: Buffer) => (out += c.toString()));
    const r = barRenderer(stream, 0);
    r.update(event({ done: 5 }));
    r.update(event({ done: 10, finished: true }));
    expect(out.startsWith("\r[██████████░░░░░░░░░░] yield curves 5/10 (50%)")).toBe(true);
    expect(out.endsWith("done\x1b[K\n")).toBe(true);
  });

  it("auto shows nothing where nobody watches (not a kernel, stderr not a terminal)", () => {
    const isTTY = process.stderr.isTTY;
    try {
      Object.defineProperty(process.stderr, "isTTY", { value: false, configurable: true });
      const r = resolveRenderer("auto");
      expect(r.update(event())).toBeUndefined();
      expect(resolveRenderer("notebook")).toBe(resolveRenderer("none"));
    } finally {
      Object.defineProperty(process.stderr, "isTTY", { value: isTTY, configurable: true });
    }
  });
});

describe("ProgressTracker", () => {
  it("emits a start event, one per step, and marks the last finished", () => {
    const events: ProgressEvent[] = [];
    const t = new ProgressTracker("x", 2, { progress: "none", onProgress: (e) => events.push(e) });
    t.step("a", true);
    t.step("b", false);
    expect(events.map((e) => [e.done, e.failed, e.finished, e.item])).toEqual([
      [0, 0, false, undefined],
      [1, 0, false, "a"],
      [2, 1, true, "b"],
    ]);
  });
});
