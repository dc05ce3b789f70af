/**
 * plot.curveTenorHeatmap with several currencies (issue 29): one heatmap panel per currency, titled
 * with it, on one colour scale and one date axis, each panel the same cells as that currency drawn
 * alone; and the figure drawn by plotly in headless Chromium, offline (every panel, one colour bar,
 * the currency titles). Before: it refused ("draws one currency; … choose one with { currency }").
 * The simulator's curves, through the client and the frames adapters.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as frames from "../../src/frames";
import * as plot from "../../src/plot";
import { drawnCharts, inCI, missingChromium, openOfflineBrowser, SETUP_HINT } from "./browser";
import { AS_OF, datesBack, simData, type SimData } from "./sim-data";

const TENORS = ["3M", "1Y", "2Y", "5Y", "10Y", "30Y"];
const DATES = datesBack(AS_OF, 4, 7);

let d: SimData;
let table: frames.ColumnTable;
beforeAll(async () => {
  d = await simData();
  table = (
    await frames.fetchYieldCurvesColumns(d.rp, {
      currencies: ["USD", "EUR", "GBP"],
      marketDates: DATES,
      progress: "none",
    })
  ).table;
});
afterAll(() => d.close());

type Z = (number | null)[][];

describe("curveTenorHeatmap with several currencies", () => {
  it("draws one heatmap per currency, each the cells of that currency drawn alone, on one colour scale", () => {
    const fig = plot.curveTenorHeatmap(table, { tenors: TENORS });
    expect(fig.data.map((t) => [t.type, t.name, t.xaxis, t.yaxis, t.coloraxis])).toEqual([
      ["heatmap", "USD zero rate", "x", "y", "coloraxis"],
      ["heatmap", "EUR zero rate", "x2", "y2", "coloraxis"],
      ["heatmap", "GBP zero rate", "x3", "y3", "coloraxis"],
    ]);
    const all: number[] = [];
    for (const [k, ccy] of ["USD", "EUR", "GBP"].entries()) {
      const alone = plot.curveTenorHeatmap(table, { tenors: TENORS, currency: ccy }).data[0]!;
      expect(fig.data[k]!.x).toEqual(TENORS);
      expect(fig.data[k]!.y).toEqual(alone.y);
      expect(fig.data[k]!.z).toEqual(alone.z);
      expect((fig.data[k]!.y as string[]).length).toBe(DATES.length);
      expect(fig.data[k]!.hovertemplate).toBe(`${ccy} %{y} · %{x}: %{z:.3f}%<extra></extra>`);
      all.push(...(alone.z as Z).flat().filter((v): v is number => v !== null));
    }
    // One scale: a colour is the same rate in every panel.
    expect(fig.layout.coloraxis).toMatchObject({
      colorscale: "Viridis",
      cmin: Math.min(...all),
      cmax: Math.max(...all),
    });
    expect(fig.data.some((t) => "zmin" in t || "colorscale" in t)).toBe(false);
    expect(fig.layout.title!.text).toBe(`Zero rates by tenor · USD, EUR, GBP · ${DATES[0]} to ${DATES.at(-1)}`);
    expect(JSON.parse(JSON.stringify(fig))).toEqual(fig);
  });

  it("lays the panels side by side under their currency, one date axis, the date title on the left only", () => {
    const fig = plot.curveTenorHeatmap(table, { tenors: TENORS });
    const axes = ["", "2", "3"].map((s): [plot.Axis, plot.Axis] => [
      fig.layout[`xaxis${s}`] as plot.Axis,
      fig.layout[`yaxis${s}`] as plot.Axis,
    ]);
    const domains = axes.map(([x]) => x.domain!);
    domains.forEach((dom, k) => {
      expect(dom[0]).toBeLessThan(dom[1]);
      if (k > 0) expect(dom[0]).toBeGreaterThan(domains[k - 1]![1]);
    });
    expect(axes.map(([, y]) => y.matches)).toEqual([undefined, "y", "y"]);
    expect(axes.map(([, y]) => y.title?.text)).toEqual(["Market date", "", ""]);
    expect(axes.map(([x]) => x.title?.text)).toEqual(["Tenor", "Tenor", "Tenor"]);
    const notes = (fig.layout.annotations as plot.Annotation[]).map((a) => [a.text, a.x]);
    expect(notes).toEqual(["USD", "EUR", "GBP"].map((c, k) => [`<b>${c}</b>`, (domains[k]![0] + domains[k]![1]) / 2]));
  });

  it("puts four or more currencies three to a row, and reads curves and responses as a table does", async () => {
    const four = (
      await frames.fetchYieldCurvesColumns(d.rp, {
        currencies: ["USD", "EUR", "GBP", "JPY"],
        marketDates: DATES.slice(-2),
        progress: "none",
      })
    ).table;
    const fig = plot.curveTenorHeatmap(four, { tenors: TENORS });
    expect(fig.data).toHaveLength(4);
    const y = (s: string) => (fig.layout[`yaxis${s}`] as plot.Axis).domain!;
    expect(y("2")).toEqual(y(""));
    expect(y("4")[1]).toBeLessThan(y("")[0]);
    expect((fig.layout[`xaxis`] as plot.Axis).title?.text).toBe("");
    expect((fig.layout[`xaxis4`] as plot.Axis).title?.text).toBe("Tenor");
    expect(fig.layout.height).toBeGreaterThan(plot.DEFAULT_HEIGHT);
    // The same panels from the responses themselves, and from frames.curveTenors of them.
    const responses = await Promise.all(
      ["USD", "EUR", "GBP", "JPY"].flatMap((currency) =>
        DATES.slice(-2).map((market_date) => d.rp.rateAsset.getCurve({ currency, market_date })),
      ),
    );
    const z = (f: plot.Figure) => f.data.map((t) => t.z);
    expect(z(plot.curveTenorHeatmap(responses, { tenors: TENORS }))).toEqual(z(fig));
    expect(z(plot.curveTenorHeatmap(frames.curveTenorsColumns(responses, TENORS)))).toEqual(z(fig));
    // One currency of several, as before: one panel and its own scale.
    const gbp = plot.curveTenorHeatmap(responses, { tenors: TENORS, currency: "GBP" });
    expect(gbp.data).toHaveLength(1);
    expect(gbp.data[0]!.zmin).toBeDefined();
  });
});

const missing = missingChromium();
if (missing && !inCI)
  console.warn(`test/plot/curve-tenor-panels: skipping the Chromium test: ${missing}; ${SETUP_HINT}.`);

describe("the panels in headless Chromium, offline", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rpl-panels-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it.skipIf(missing !== undefined && !inCI)(
    `plotly draws every panel, one colour bar and the currency titles${missing ? ` (skipped: ${missing}; ${SETUP_HINT})` : ""}`,
    async () => {
      if (missing) throw new Error(`The browser tests must run in CI, but ${missing}: ${SETUP_HINT}.`);
      const fig = plot.curveTenorHeatmap(table, { tenors: TENORS });
      const b = await openOfflineBrowser();
      try {
        const page = await b.context.newPage();
        await page.goto(pathToFileURL(plot.toHtml(fig, path.join(dir, "panels.html"))).href);
        const [chart] = await drawnCharts(page, 1);
        expect(chart).toMatchObject({ svg: true, traces: 3, svgTraces: 3 });
        const drawn = await page.evaluate(() => ({
          colorbars: document.querySelectorAll(".colorbar").length,
          titles: Array.from(document.querySelectorAll(".annotation-text")).map((e) => e.textContent),
          heatmapImages: Array.from(document.querySelectorAll(".heatmaplayer .hm image")).filter(
            (e) => Number(e.getAttribute("width")) > 20,
          ).length,
        }));
        expect(drawn).toEqual({ colorbars: 1, titles: ["USD", "EUR", "GBP"], heatmapImages: 3 });
        expect(b.external).toEqual([]);
        expect(b.errors).toEqual([]);
      } finally {
        await b.close();
      }
    },
    180_000,
  );
});
