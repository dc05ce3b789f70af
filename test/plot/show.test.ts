/** show(): one bundle per call in a kernel (plotly.js once per session), an HTML file elsewhere. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as frames from "../../src/frames";
import { mimeBundle, PLOTLY_MIME, plotlySource, resetPlotlyEmbed, show, yieldCurve, type Figure } from "../../src/plot";
import type { KernelDisplay, MimeBundle } from "../../src/display";
import { showWith } from "../../src/plot/show";

const fig: Figure = {
  data: [{ type: "scatter", name: "USD", x: [1, 2, 5], y: [0.045, 0.044, 0.043] }],
  layout: { title: { text: "USD zero curve · 2026-11-20" } },
  config: { responsive: true },
};

/** A kernel display that records what it is sent. */
function recorder(): KernelDisplay & { sent: MimeBundle[] } {
  const sent: MimeBundle[] = [];
  return { kernel: "tslab", mode: "bundle", sent, send: (b) => void sent.push(b), line: () => undefined };
}

const MARKER = "embedded by risk-portal-lab (offline)";
const outDir = mkdtempSync(path.join(tmpdir(), "rpl-show-"));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));
beforeEach(() => resetPlotlyEmbed());
afterEach(() => vi.restoreAllMocks());

describe("show in a notebook kernel", () => {
  it("sends one bundle per figure with the plotly JSON, a self-contained HTML rendering and a text line", () => {
    const display = recorder();
    expect(showWith(display, fig)).toBeUndefined();
    expect(display.sent).toHaveLength(1);
    const bundle = display.sent[0]!;
    expect(Object.keys(bundle).sort()).toEqual([PLOTLY_MIME, "text/html", "text/plain"].sort());
    expect(bundle[PLOTLY_MIME]).toEqual({ data: fig.data, layout: fig.layout, config: fig.config });
    expect(bundle["text/plain"]).toBe('Figure "USD zero curve · 2026-11-20" (1 trace: scatter)');
    // (Booleans, not string matchers: a failing matcher would print the 5 MB HTML.)
    const html = bundle["text/html"] as string;
    expect(html.includes(MARKER)).toBe(true);
    expect(html.includes(plotlySource().text.slice(0, 300))).toBe(true);
    expect(html.includes("Plotly.newPlot(el,fig.data,fig.layout,fig.config)")).toBe(true);
  });

  it("embeds plotly.js in the first chart of the session only, unless asked again", () => {
    const display = recorder();
    showWith(display, fig);
    showWith(display, fig);
    showWith(display, fig, { plotlyJs: "always" });
    const embeds = display.sent.map((b) => (b["text/html"] as string).split(MARKER).length - 1);
    expect(embeds).toEqual([1, 0, 1]);
    // The later chart waits for plotly.js if its output renders first, and is ~1 KB, not ~5 MB.
    const second = display.sent[1]!["text/html"] as string;
    expect(second.includes("__riskPortalLabPlotlyQueue")).toBe(true);
    expect(second.length).toBeLessThan(3_000);
    resetPlotlyEmbed();
    showWith(display, fig);
    expect((display.sent[3]!["text/html"] as string).includes(MARKER)).toBe(true);
  });

  it("shows a table as HTML (shape, column types, head and tail) and text, in one bundle", () => {
    const table = frames.volGridColumns({
      maturities: [30, 91, 182, 365],
      strikes: [80, 90, 100],
      strikeType: 1,
      vols: Array.from({ length: 12 }, (_, i) => 0.2 + i / 1000),
    });
    const display = recorder();
    showWith(display, table, { rows: 3 });
    expect(display.sent).toHaveLength(1);
    const bundle = display.sent[0]!;
    expect(Object.keys(bundle).sort()).toEqual(["text/html", "text/plain"]);
    const html = bundle["text/html"] as string;
    expect(html).toContain("<b>ColumnTable</b> · 12 rows × 3 columns");
    expect(html).toContain("first 3 and last 3 rows");
    expect(html).toContain("<th>number</th>");
    expect(bundle["text/plain"]).toMatch(/^ColumnTable · 12 rows × 3 columns · from vol grid\n/);
  });

  it("shows a batch result's table and says how many calls failed", () => {
    const display = recorder();
    showWith(display, { table: frames.emptyTable("RateAsset", ["currency"]), failures: [{ error: "x" }] });
    expect(display.sent[0]!["text/html"]).toContain("1 call failed (see .failures)");
  });

  it("rejects what it cannot show", () => {
    expect(() => showWith(recorder(), 42 as never)).toThrow(/show expects a plotly figure/);
    expect(() => showWith(recorder(), fig, { rows: 0 })).toThrow(/rows must be a whole number > 0/);
  });
});

describe("show outside a kernel", () => {
  it("writes a standalone HTML page of a figure, prints its path and returns it", () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const file = show(yieldCurve(frames.emptyTable("RateAsset", ["currency", "market_date", "maturity", "rate"])), { outDir })!;
    expect(path.dirname(file)).toBe(outDir);
    expect(file).toMatch(/-zero-curves\.html$/);
    expect(log).toHaveBeenCalledWith(`plot: ${file}`);
    const page = readFileSync(file, "utf8");
    expect(page.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(page.split(MARKER)).toHaveLength(2);
  });

  it("writes a table as an HTML page too", () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const file = show(frames.emptyTable("x", ["a"]), { outDir })!;
    expect(readFileSync(file, "utf8")).toContain("0 rows × 1 column");
  });

  it("each bundle is JSON: what goes over the kernel's wire comes back equal", () => {
    const bundle = mimeBundle(fig, { plotly: false });
    expect(JSON.parse(JSON.stringify(bundle))).toEqual(bundle);
  });
});
