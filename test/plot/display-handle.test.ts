/** plot.show's handle: update in place under one display id, close, and nothing printed as a cell's last value. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { inspect } from "node:util";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as frames from "../../src/frames";
import { findKernelDisplay, type DisplayPlace, type KernelDisplay, type MimeBundle } from "../../src/kernel/display";
import { PLOTLY_PART_MIME } from "../../src/plot/plotly-parts";
import { figure, PLOTLY_MIME, resetPlotlyEmbed, show } from "../../src/plot";
import { showWith } from "../../src/plot/show";
import { notebookSession } from "../../src/kernel/session";
import type { DisplayContent } from "../../src/kernel/tslab";

const step = (n: number) => figure({ data: [{ type: "bar", x: ["done"], y: [n] }], layout: { title: `step ${n}` } });
const table = frames.emptyTable("Runs", ["id", "status"]);

/** A kernel display that records each bundle with where it went. */
function recorder(): KernelDisplay & { sent: { bundle: MimeBundle; place?: DisplayPlace }[] } {
  const sent: { bundle: MimeBundle; place?: DisplayPlace }[] = [];
  return {
    kernel: "deno",
    mode: "bundle",
    sent,
    send: (bundle, place) => void sent.push(place ? { bundle, place } : { bundle }),
    line: () => undefined,
  };
}
const kind = (s: { bundle: MimeBundle; place?: DisplayPlace }) =>
  s.bundle[PLOTLY_PART_MIME]
    ? "part"
    : `${s.place ? (s.place.update ? "update" : "show") : "new"}:${String(s.bundle["text/plain"] ?? "(empty)").split("\n")[0]}`;

beforeEach(() => resetPlotlyEmbed());
afterEach(() => vi.restoreAllMocks());

describe("plot.show(…) in a kernel returns a handle", () => {
  it("shows under a display id of its own, and update(next) replaces that output: a chart, a table, a chart", () => {
    const display = recorder();
    const handle = showWith(display, step(1));
    handle.update(table);
    handle.update(step(3));
    const parts = display.sent.filter((s) => s.bundle[PLOTLY_PART_MIME]).length;
    expect(parts).toBeGreaterThan(1);
    expect(display.sent.map(kind)).toEqual([
      'show:Figure "step 1" (1 trace: bar)',
      ...new Array(parts).fill("part"),
      "update:ColumnTable · 0 rows × 2 columns · from Runs",
      'update:Figure "step 3" (1 trace: bar)',
    ]);
    const ids = new Set(display.sent.filter((s) => s.place).map((s) => s.place!.displayId));
    expect([...ids]).toEqual([handle.displayId]);
    expect(handle.displayId).toMatch(/^rpl-show-[0-9a-f-]{36}$/);
    expect(handle.updates).toBe(2);
    expect(
      (display.sent.at(-1)!.bundle[PLOTLY_MIME] as { layout: { title: { text: string } } }).layout.title.text,
    ).toBe("step 3");
  });

  it("a table updated to the session's first chart sends plotly.js after it, as new outputs (the chart needs it)", () => {
    const display = recorder();
    const handle = showWith(display, table);
    handle.update(step(2));
    handle.update(step(3));
    const kinds = display.sent.map(kind);
    expect(kinds[0]).toBe("show:ColumnTable · 0 rows × 2 columns · from Runs");
    expect(kinds[1]).toBe('update:Figure "step 2" (1 trace: bar)');
    expect(kinds.slice(2, -1).every((k) => k === "part")).toBe(true);
    expect(kinds.at(-1)).toBe('update:Figure "step 3" (1 trace: bar)');
  });

  it("each show is its own display: two handles, two ids", () => {
    const display = recorder();
    expect(showWith(display, table).displayId).not.toBe(showWith(display, table).displayId);
  });

  it("close() keeps the last content and ends the handle: update then throws, saying so; close twice is one close", () => {
    const display = recorder();
    const handle = showWith(display, table);
    handle.close();
    handle.close();
    expect(handle.closed).toBe(true);
    expect(display.sent.map(kind)).toEqual(["show:ColumnTable · 0 rows × 2 columns · from Runs"]);
    expect(() => handle.update(step(2))).toThrow(
      "plot.show(…).update: this display was closed (close() keeps its last content); call plot.show(…) for a new one",
    );
  });

  it("close({ clear: true }) replaces the output with an empty bundle (nothing drawn)", () => {
    const display = recorder();
    const handle = showWith(display, table);
    handle.close({ clear: true });
    expect(display.sent.map(kind)).toEqual(["show:ColumnTable · 0 rows × 2 columns · from Runs", "update:(empty)"]);
    expect(display.sent[1]!.bundle).toEqual({});
  });

  it("update checks what it is given as show does, and sends nothing then", () => {
    const display = recorder();
    const handle = showWith(display, table);
    expect(() => handle.update(42 as never)).toThrow(/show expects a plotly figure/);
    expect(display.sent).toHaveLength(1);
  });

  it('answers Symbol.for("Jupyter.display") with an empty bundle: as a cell\'s last value under Deno, nothing drawn', () => {
    const handle = showWith(recorder(), table);
    const method = (handle as unknown as Record<symbol, () => MimeBundle>)[Symbol.for("Jupyter.display")]!;
    expect(method.call(handle)).toEqual({});
    expect(Object.getOwnPropertySymbols(handle)).toEqual([]);
  });
});

describe("plot.show(…) outside a kernel", () => {
  const outDir = mkdtempSync(path.join(tmpdir(), "rpl-handle-"));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it("writes the page as before (its path on .file), and update writes the next one, printing its path; nothing throws", () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const handle = show(table, { outDir });
    const first = handle.file!;
    expect(handle.displayId).toBeUndefined();
    expect(readFileSync(first, "utf8")).toContain("0 rows × 2 columns");
    handle.update(step(2));
    expect(handle.file).not.toBe(first);
    expect(readFileSync(handle.file!, "utf8")).toContain("step 2");
    expect(log.mock.calls.map((c) => c[0])).toEqual([`plot: ${first}`, `plot: ${handle.file}`]);
    handle.close({ clear: true });
    expect(readFileSync(handle.file!, "utf8")).toContain("step 2");
  });

  it("prints as one line saying what it is (Node's inspect, a script's console.log)", () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const handle = show(table, { outDir });
    expect(inspect(handle)).toBe(`DisplayHandle ${handle.file} (open)`);
  });
});

describe("through the real tslab module (as tslab's kernel and our runner display)", () => {
  const nodeRequire = createRequire(__filename);
  const dist = path.dirname(nodeRequire.resolve("tslab/dist/jupyter.js"));
  const jupyter = nodeRequire(path.join(dist, "jupyter.js")) as {
    lastWriteDisplayData: ((content: DisplayContent, update: boolean) => void) | null;
  };
  afterEach(() => {
    jupyter.lastWriteDisplayData = null;
    notebookSession().tslabDir = undefined;
  });

  it("sends display_data with the id in transient, then update_display_data for it, through the cell running then", () => {
    notebookSession().tslabDir = dist;
    const cell1: [DisplayContent, boolean][] = [];
    const cell2: [DisplayContent, boolean][] = [];
    jupyter.lastWriteDisplayData = (content, update) => cell1.push([content, update]);
    const handle = show(table);
    jupyter.lastWriteDisplayData = (content, update) => cell2.push([content, update]);
    handle.update(table);
    expect(cell1.map(([c, u]) => [c.transient, u])).toEqual([[{ display_id: handle.displayId }, false]]);
    expect(cell2.map(([c, u]) => [c.transient, u])).toEqual([[{ display_id: handle.displayId }, true]]);
    expect(findKernelDisplay()?.kernel).toBe("tslab");
  });
});
