/** show(): one bundle per call in a kernel (plotly.js in parts once per session), an HTML file elsewhere. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as frames from "../../src/frames";
import { mimeBundle, PLOTLY_MIME, plotlySource, resetPlotlyEmbed, show, yieldCurve, type Figure } from "../../src/plot";
import type { KernelDisplay, MimeBundle } from "../../src/kernel/display";
import { PLOTLY_PART_CHARS, PLOTLY_PART_MIME, plotlyPartBundles } from "../../src/plot/plotly-parts";
import { resultBundle, showWith } from "../../src/plot/show";

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
  it("sends the figure's bundle (plotly JSON, HTML that draws it, a text line), then plotly.js in parts", () => {
    const display = recorder();
    expect(showWith(display, fig).displayId).toMatch(/^rpl-show-/);
    const parts = plotlyPartBundles();
    expect(display.sent).toHaveLength(1 + parts.length);
    const bundle = display.sent[0]!;
    expect(Object.keys(bundle).sort()).toEqual([PLOTLY_MIME, "text/html", "text/plain"].sort());
    expect(bundle[PLOTLY_MIME]).toEqual({ data: fig.data, layout: fig.layout, config: fig.config });
    expect(bundle["text/plain"]).toBe('Figure "USD zero curve · 2026-11-20" (1 trace: scatter)');
    // (Booleans, not string matchers: a failing matcher would print megabytes.)
    const html = bundle["text/html"] as string;
    expect(html.includes(MARKER)).toBe(false);
    expect(html.length).toBeLessThan(3_000);
    expect(html.includes("Plotly.newPlot(el,fig.data,fig.layout,fig.config)")).toBe(true);
    expect(display.sent.slice(1)).toEqual(parts);
  });

  it("splits plotly.js into parts of at most PLOTLY_PART_CHARS that join to the bundle, the marker in the first", () => {
    const parts = plotlyPartBundles();
    const { text, version } = plotlySource();
    expect(parts.length).toBe(Math.ceil(text.length / PLOTLY_PART_CHARS));
    const pieces = parts.map((p, i) => {
      expect(p[PLOTLY_PART_MIME]).toEqual({ version, part: i + 1, of: parts.length });
      expect(p["text/plain"]).toBe(`plotly.js ${version} for the charts (offline), part ${i + 1} of ${parts.length}`);
      const html = p["text/html"] as string;
      expect(html.split(MARKER).length - 1).toBe(i === 0 ? 1 : 0);
      // The piece is the last argument: a JSON string literal (with </script and <!-- escaped).
      const literal = /,("(?:[^"\\]|\\.)*")\);<\/script>$/.exec(html)![1]!;
      expect(/<\/script|<!--/i.test(literal)).toBe(false);
      return JSON.parse(literal.replace(/<\\\/script/gi, "</script").replace(/<\\!--/g, "<!--")) as string;
    });
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(PLOTLY_PART_CHARS);
    expect(pieces.join("") === text).toBe(true);
    expect(plotlyPartBundles()).toBe(parts); // computed once
    expect(() => plotlyPartBundles(0)).toThrow(/whole number > 0/);
  });

  it("sends plotly.js with the first chart of the session only, unless asked again", () => {
    const display = recorder();
    showWith(display, fig);
    const afterFirst = display.sent.length;
    showWith(display, fig);
    expect(display.sent.length).toBe(afterFirst + 1);
    showWith(display, fig, { plotlyJs: "always" });
    expect(display.sent.length).toBe(2 * afterFirst + 1);
    const second = display.sent[afterFirst]!["text/html"] as string;
    expect(second.includes("__riskPortalLabPlotlyQueue")).toBe(true);
    resetPlotlyEmbed();
    showWith(display, fig);
    expect(display.sent.length).toBe(3 * afterFirst + 1);
  });

  it("a bare figure's result (Deno's Symbol.for(\"Jupyter.display\")) sends the parts first, then resolves to the figure", async () => {
    const display = recorder();
    const result = resultBundle(fig, display);
    expect(result).toBeInstanceOf(Promise);
    expect(display.sent).toEqual(plotlyPartBundles());
    expect(Object.keys(await result).sort()).toEqual([PLOTLY_MIME, "text/html", "text/plain"].sort());
    expect(resultBundle(fig, display)).not.toBeInstanceOf(Promise); // plotly.js went already
    resetPlotlyEmbed();
    expect(resultBundle(fig, undefined)).not.toBeInstanceOf(Promise); // no kernel: nothing sent…
    expect(resultBundle(fig, display)).toBeInstanceOf(Promise); // …so the next chart in a kernel sends it
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
    const file = show(yieldCurve(frames.emptyTable("RateAsset", ["currency", "market_date", "maturity", "rate"])), {
      outDir,
    }).file!;
    expect(path.dirname(file)).toBe(outDir);
    expect(file).toMatch(/-zero-curves\.html$/);
    expect(log).toHaveBeenCalledWith(`plot: ${file}`);
    const page = readFileSync(file, "utf8");
    expect(page.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(page.split(MARKER)).toHaveLength(2);
  });

  it("writes a table as an HTML page too", () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const file = show(frames.emptyTable("x", ["a"]), { outDir }).file!;
    expect(readFileSync(file, "utf8")).toContain("0 rows × 1 column");
  });

  it("each bundle is JSON: what goes over the kernel's wire comes back equal", () => {
    const bundle = mimeBundle(fig, { plotly: false });
    expect(JSON.parse(JSON.stringify(bundle))).toEqual(bundle);
  });
});

describe("show's digits (issue 41)", () => {
  it("passes digits to the table it shows, for all number columns or by column", () => {
    const table = frames.volGridColumns({
      maturities: [30],
      strikes: [80, 90],
      strikeType: 1,
      vols: [0.2 + 0.1, 0.2487030000000003],
    });
    const shown = (options: Parameters<typeof showWith>[2]) => {
      const display = recorder();
      showWith(display, table, options);
      return display.sent[0]!["text/html"] as string;
    };
    // A rounded cell carries its exact value (data-x) for diff; the display is the rounded text.
    expect(shown({})).toContain('<td data-x="0.30000000000000004">0.3</td></tr>');
    expect(shown({})).toContain('<td data-x="0.2487030000000003">0.248703</td></tr>');
    expect(shown({ digits: 3 })).toContain('<td data-x="0.2487030000000003">0.249</td></tr>');
    expect(shown({ digits: { vol: 4 } })).toContain('<td data-x="0.2487030000000003">0.2487</td></tr>');
    expect(() => shown({ digits: { volatility: 4 } })).toThrow(/digits names "volatility"/);
  });
});
